package catalogue_test

import (
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
