package catalogue_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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

// TestREADMEsNameTestsThatExist holds every test, benchmark, fuzz target
// and example the READMEs name (a name followed by * stands for several)
// to a function of that name in a test file of the repository: a
// reader told that a test pins a claim, or how to reproduce a figure,
// finds it.
func TestREADMEsNameTestsThatExist(t *testing.T) {
	declared := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?((?:Test|Benchmark|Fuzz|Example)\w*)\(`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		text, err := os.ReadFile(path)
		for _, m := range decl.FindAllSubmatch(text, -1) {
			declared[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`\b((?:Test|Benchmark|Fuzz|Example)[A-Z]\w*)(\*?)`)
	checked := 0
	for _, name := range []string{"README.md", "nats/README.md", "bench/README.md"} {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(text), -1) {
			if m[2] == "*" {
				continue
			}
			checked++
			if !declared[m[1]] {
				t.Errorf("%s names %s, which no test file declares", name, m[1])
			}
		}
	}
	if checked < 20 {
		t.Fatalf("found %d names of tests in the READMEs: the pattern has stopped matching them", checked)
	}
}

// TestREADMETestingNamesWhatCIInstalls holds the README's Testing
// section to .ci/run: every Debian package CI installs for the tests is
// named there, so that a contributor running them knows what to install
// (the Kafka module's tests skip without kcat and Debian's Python client,
// which the section did not name).
func TestREADMETestingNamesWhatCIInstalls(t *testing.T) {
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Testing\n")
	if !ok {
		t.Fatal("README.md has no section ## Testing")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var packages []string
	for line := range strings.Lines(string(ci)) {
		_, args, ok := strings.Cut(line, "apt-get install ")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(args) {
			if f == ")" || strings.HasPrefix(f, ">") || strings.HasPrefix(f, "#") {
				break
			}
			if !strings.HasPrefix(f, "-") {
				packages = append(packages, strings.TrimSuffix(f, ")"))
			}
		}
	}
	if len(packages) < 2 {
		t.Fatalf(".ci/run installs %q: the pattern has stopped matching its apt-get lines", packages)
	}
	for _, p := range packages {
		if !strings.Contains(section, "`"+p+"`") {
			t.Errorf("CI installs %s, which README.md's Testing section does not name", p)
		}
	}
}
