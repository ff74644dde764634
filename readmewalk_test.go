package catalogue_test

import (
	"os"
	"strings"
	"testing"
)

// TestAPIPackageDocNamesTheRegistry holds go doc ./api to what the
// README's table of packages says of api: it serves the schema-registry
// protocol too. A new user found the package doc listing the catalogue's
// routes alone, the registry only under a constant.
func TestAPIPackageDocNamesTheRegistry(t *testing.T) {
	text := packageDoc(t, "api")
	for _, word := range []string{"schema-registry protocol", "RegistryPath"} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), word) {
			t.Errorf("the package doc of ./api does not mention %s:\n%s", word, text)
		}
	}
}

// TestREADMEsGoGetOnlyOncePublished holds every go get of one of the
// project's modules in a README to the caveat of the root README's
// Install: before the module is published, the proxy answers 403. A new
// user found nats/README.md's go get github.com/fleetkit/catalogue/nats
// without it, and got the 403.
func TestREADMEsGoGetOnlyOncePublished(t *testing.T) {
	found := 0
	for _, name := range []string{"README.md", "nats/README.md"} {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			if !strings.HasPrefix(line, "go get github.com/fleetkit/") {
				continue
			}
			found++
			if !strings.Contains(line, "# once the module is published") {
				t.Errorf("%s:%d: %s: the proxy answers 403 until the module is published, and the line does not say so", name, i+1, line)
			}
		}
	}
	if found < 2 {
		t.Fatalf("found %d go get lines in the READMEs, want the library's and the NATS binding's", found)
	}
}
