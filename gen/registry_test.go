package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

// copyCatalogue copies a fixture catalogue folder to a new one, with its
// registry-ids.txt replaced by ids (or removed, for "").
func copyCatalogue(t *testing.T, fixture, ids string) string {
	t.Helper()
	from := filepath.Join("..", "testdata", fixture)
	dir := t.TempDir()
	entries, err := os.ReadDir(from)
	require.NoError(t, err)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644))
	}
	if ids != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, schemas.RegistryIDsFile), []byte(ids), 0o644))
	}
	return dir
}

func TestKindsTableCarriesTheRegistryIDs(t *testing.T) {
	files, err := generate(fixtureConfig(t, "fixture"))
	require.NoError(t, err)
	table := string(files["kinds_gen.go"])
	for _, line := range []string{"// demo.sensor 1.0: registry id 1", "// demo.sensor 1.1: registry id 2", "// demo.sensor 2.0: registry id 3"} {
		assert.Contains(t, table, line)
	}
	assert.Contains(t, string(files["sensor/v2/sensor_gen.go"]), "RegistryID: 3,")
	assert.Contains(t, string(files["sensor/sensor_1_0_gen.go"]), "RegistryID: 1,")
}

func TestRefusesACatalogueWithoutRegistryIDs(t *testing.T) {
	dir := copyCatalogue(t, "fixture", "")
	err := run(dir, t.TempDir(), "example.com/x", true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "demo.sensor version 1.0 has no registry id")
}

func TestRefusesARegistryIDChangedOrReused(t *testing.T) {
	const published = "demo.sensor 1.0 1\ndemo.sensor 1.1 2\ndemo.sensor 2.0 3\n"
	out := t.TempDir()
	require.NoError(t, run(copyCatalogue(t, "fixture", published), out, "example.com/x", true))
	// The same ids again, and a new version's id added: both generate.
	require.NoError(t, run(copyCatalogue(t, "fixture", published), out, "example.com/x", true))
	before, err := os.ReadFile(filepath.Join(out, "kinds_gen.go"))
	require.NoError(t, err)

	for _, tc := range []struct{ name, ids, want string }{
		{"an id changed", "demo.sensor 1.0 1\ndemo.sensor 1.1 7\ndemo.sensor 2.0 3\n", "demo.sensor version 1.1 has registry id 7, but was generated with 2"},
		{"two ids swapped", "demo.sensor 1.0 2\ndemo.sensor 1.1 1\ndemo.sensor 2.0 3\n", "has registry id 2, but was generated with 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(copyCatalogue(t, "fixture", tc.ids), out, "example.com/x", true)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			after, rerr := os.ReadFile(filepath.Join(out, "kinds_gen.go"))
			require.NoError(t, rerr)
			assert.Equal(t, string(before), string(after), "a refused catalogue writes nothing")
		})
	}
}

func TestRefusesARemovedVersion(t *testing.T) {
	table := filepath.Join(t.TempDir(), "kinds_gen.go")
	ledger := "\t// demo.sensor 1.0: registry id 1\n\t// demo.sensor 0.9: registry id 9\n"
	require.NoError(t, os.WriteFile(table, []byte(ledger), 0o644))
	c, err := schemas.Load(os.DirFS(copyCatalogue(t, "fixture", "demo.sensor 1.0 1\ndemo.sensor 1.1 2\ndemo.sensor 2.0 3\n")))
	require.NoError(t, err)
	err = checkRegistryIDs(c, table)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "demo.sensor version 0.9, registry id 9, is gone")

	// Its id given to a version that had another is that version's id
	// changed.
	require.NoError(t, os.WriteFile(table, []byte("\t// demo.sensor 2.0: registry id 9\n"), 0o644))
	err = checkRegistryIDs(c, table)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "demo.sensor version 2.0 has registry id 3, but was generated with 9")
}
