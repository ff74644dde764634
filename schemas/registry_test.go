package schemas_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

// The published registry ids, pinned: they are assigned once and never
// change (decision 15), so a test that fails here is a change to refuse,
// not a test to update.
func TestPublishedRegistryIDsNeverChange(t *testing.T) {
	want := map[string]int32{
		"core.association 1.0": 1,
		"core.device 1.0":      2,
		"core.vehicle 1.0":     3,
		"example.event 1.0":    4,
	}
	got := map[string]int32{}
	for _, s := range schemas.All() {
		got[s.Name+" "+s.Version] = s.RegistryID
	}
	assert.Equal(t, want, got)
	for key, id := range want {
		s, err := schemas.LookupRegistryID(id)
		require.NoError(t, err)
		assert.Equal(t, key, s.Name+" "+s.Version)
	}
}

func TestLookupRegistryIDOfNoVersionIsErrUnknown(t *testing.T) {
	for _, id := range []int32{0, -1, 5, schemas.MaxRegistryID} {
		_, err := schemas.LookupRegistryID(id)
		assert.ErrorIs(t, err, schemas.ErrUnknown, "%d", id)
	}
}

// fixtureFS returns the fixture catalogue's files as a MapFS, for tests
// that change it.
func fixtureFS(t *testing.T) fstest.MapFS {
	t.Helper()
	dir := filepath.Join("..", "testdata", "fixture")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	fsys := fstest.MapFS{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		fsys[e.Name()] = &fstest.MapFile{Data: data}
	}
	return fsys
}

func idsOf(c *schemas.Catalogue) map[string]int32 {
	ids := map[string]int32{}
	for _, s := range c.All() {
		ids[s.Name+" "+s.Version] = s.RegistryID
	}
	return ids
}

func TestAddingAVersionKeepsEveryEarlierRegistryID(t *testing.T) {
	fsys := fixtureFS(t)
	before, err := schemas.Load(fsys)
	require.NoError(t, err)
	require.Len(t, idsOf(before), 3)

	// Publish 2.1: its file, and a line of its own with the next id.
	v20 := fsys["demo.sensor-2.0.json"].Data
	fsys["demo.sensor-2.1.json"] = &fstest.MapFile{Data: bytes.Replace(v20, []byte("/versions/2.0"), []byte("/versions/2.1"), 1)}
	ids := fsys[schemas.RegistryIDsFile].Data
	fsys[schemas.RegistryIDsFile] = &fstest.MapFile{Data: append(bytes.Clone(ids), "demo.sensor 2.1 4\n"...)}
	after, err := schemas.Load(fsys)
	require.NoError(t, err)

	got := idsOf(after)
	for key, id := range idsOf(before) {
		assert.Equal(t, id, got[key], key)
	}
	assert.Equal(t, int32(4), got["demo.sensor 2.1"])
}

func TestLoadRefusesRegistryIDsThatAreMissingRepeatedOrMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, ids, want string
	}{
		{"a version without an id", "demo.sensor 1.0 1\ndemo.sensor 1.1 2\n", "demo.sensor version 2.0 has no registry id"},
		{"an id given twice", "demo.sensor 1.0 1\ndemo.sensor 1.1 1\ndemo.sensor 2.0 3\n", "registry-ids.txt:2: registry id 1 is demo.sensor version 1.0's already"},
		{"a version listed twice", "demo.sensor 1.0 1\ndemo.sensor 1.0 2\ndemo.sensor 2.0 3\n", "registry-ids.txt:2: demo.sensor version 1.0 has a registry id already, 1"},
		{"a version the folder lacks", "demo.sensor 1.0 1\ndemo.sensor 1.1 2\ndemo.sensor 2.0 3\ndemo.sensor 3.0 4\n", "registry-ids.txt:4: demo.sensor version 3.0 has no schema file"},
		{"an id of zero", "demo.sensor 1.0 0\n", "registry-ids.txt:1: registry id \"0\" is not"},
		{"a negative id", "demo.sensor 1.0 -1\n", "is not a decimal integer"},
		{"a leading zero", "demo.sensor 1.0 01\n", "is not a decimal integer"},
		{"an id past 32 bits", "demo.sensor 1.0 2147483648\n", "is not a decimal integer"},
		{"a line of two fields", "# ids\n\ndemo.sensor 1.0\n", "registry-ids.txt:3: want NAME VERSION ID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fixtureFS(t)
			fsys[schemas.RegistryIDsFile] = &fstest.MapFile{Data: []byte(tc.ids)}
			_, err := schemas.Load(fsys)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestLoadWithoutRegistryIDsFileLeavesIDsZero(t *testing.T) {
	fsys := fixtureFS(t)
	delete(fsys, schemas.RegistryIDsFile)
	c, err := schemas.Load(fsys)
	require.NoError(t, err)
	for key, id := range idsOf(c) {
		assert.Zero(t, id, key)
	}
	_, err = c.LookupRegistryID(1)
	assert.ErrorIs(t, err, schemas.ErrUnknown)
}

func TestFixtureCataloguesHaveRegistryIDs(t *testing.T) {
	for _, dir := range []string{"fixture", "fixture-breaking"} {
		c, err := schemas.Load(os.DirFS(filepath.Join("..", "testdata", dir)))
		require.NoError(t, err, dir)
		for key, id := range idsOf(c) {
			assert.Positive(t, id, "%s: %s", dir, key)
		}
	}
}
