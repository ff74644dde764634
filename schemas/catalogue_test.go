package schemas_test

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

// names are the catalogue's schemas in the order All gives them (spec 1).
var names = []string{"core.association", "core.device", "core.vehicle", "example.event"}

func TestAllListsTheFourSchemasSortedByName(t *testing.T) {
	all := schemas.All()
	var got []string
	for _, s := range all {
		got = append(got, s.Name)
		assert.Equal(t, "1.0", s.Version, s.Name)
		assert.Equal(t, schemas.ID(s.Name, "1.0"), s.ID, s.Name)
		assert.Equal(t, s.Name+"-1.0.json", s.File(), s.Name)
		assert.NotEmpty(t, s.Description, s.Name)
	}
	assert.Equal(t, names, got)
}

func TestAllReturnsACopy(t *testing.T) {
	first := schemas.All()
	want := first[1].Required[0]
	first[0].Name = "changed"
	first[1].Required[0] = "changed"
	again := schemas.All()
	assert.Equal(t, names[0], again[0].Name)
	assert.Equal(t, want, again[1].Required[0])
}

func TestLookupFindsEachSchemaByNameAndVersion(t *testing.T) {
	for _, name := range names {
		s, err := schemas.Lookup(name, "1.0")
		require.NoError(t, err, name)
		assert.Equal(t, name, s.Name)
		assert.Equal(t, "1.0", s.Version)
		assert.Equal(t, schemas.ID(name, "1.0"), s.ID)
	}
}

func TestLookupReturnsACopyOfRequired(t *testing.T) {
	s, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	s.Required[0] = "changed"
	again, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	assert.Equal(t, "device_id", again.Required[0])
}

func TestLookupOfAnUnknownSchemaIsErrUnknown(t *testing.T) {
	for _, tc := range []struct{ name, version string }{
		{"core.nothing", "1.0"},
		{"core.device", "2.0"},
		{"core.device", "1"},
		{"core.device", "1.0.0"},
		{"Core.Device", "1.0"},
		{"", "1.0"},
		{"core.device", ""},
		{"core.device-1.0.json", "1.0"},
	} {
		_, err := schemas.Lookup(tc.name, tc.version)
		assert.True(t, errors.Is(err, schemas.ErrUnknown), "Lookup(%q, %q): %v", tc.name, tc.version, err)
	}
}

// TestLookupIDTreatsHTTPAndHTTPSAsTheSame pins decision 9, and that the
// scheme and host compare regardless of case, as URIs compare them.
func TestLookupIDTreatsHTTPAndHTTPSAsTheSame(t *testing.T) {
	for _, name := range names {
		https := schemas.ID(name, "1.0")
		require.Equal(t, "https://catalogue.fleetkit.dev/api/schemas/"+name+"/versions/1.0", https)
		upper := "HTTPS://CATALOGUE.FLEETKIT.DEV" + https[len("https://catalogue.fleetkit.dev"):]
		for _, id := range []string{https, "http" + https[len("https"):], upper, "Http" + upper[len("HTTPS"):]} {
			s, err := schemas.LookupID(id)
			require.NoError(t, err, id)
			assert.Equal(t, name, s.Name, id)
			assert.Equal(t, "1.0", s.Version, id)
			assert.Equal(t, https, s.ID, "the $id is the published one, whatever the scheme asked")
		}
	}
}

func TestLookupIDOfAnUnknownIDIsErrUnknown(t *testing.T) {
	for _, id := range []string{
		"",
		"core.device",
		schemas.ID("core.nothing", "1.0"),
		schemas.ID("core.device", "2.0"),
		schemas.ID("core.device", "1.0") + "/",
		schemas.ID("core.device", "1.0") + "#",
		"ftp://catalogue.fleetkit.dev/api/schemas/core.device/versions/1.0",
		"https://example.com/api/schemas/core.device/versions/1.0",
		"https://catalogue.fleetkit.dev/schemas/core.device/versions/1.0",
		"https://catalogue.fleetkit.dev/api/schemas/core.device/1.0",
		"//catalogue.fleetkit.dev/api/schemas/core.device/versions/1.0",
		"https://catalogue.fleetkit.dev/API/schemas/core.device/versions/1.0",
		"https://catalogue.fleetkit.dev/api/schemas/CORE.DEVICE/versions/1.0",
		"https://catalogue.fleetkit.dev",
	} {
		_, err := schemas.LookupID(id)
		assert.True(t, errors.Is(err, schemas.ErrUnknown), "LookupID(%q): %v", id, err)
	}
}

func TestVersionsListsTheVersionsOfASchema(t *testing.T) {
	for _, name := range names {
		v, err := schemas.Versions(name)
		require.NoError(t, err, name)
		assert.Equal(t, []string{"1.0"}, v, name)
	}
	_, err := schemas.Versions("core.nothing")
	assert.True(t, errors.Is(err, schemas.ErrUnknown), "%v", err)
	_, err = schemas.Versions("")
	assert.True(t, errors.Is(err, schemas.ErrUnknown), "%v", err)
}

func TestIDIsTheBaseURLThenNameAndVersion(t *testing.T) {
	assert.Equal(t, schemas.BaseURL+"/api/schemas/a.b/versions/9.9", schemas.ID("a.b", "9.9"))
}

func TestJSONIsExactlyThePublishedFile(t *testing.T) {
	for _, s := range schemas.All() {
		want, err := os.ReadFile(s.File())
		require.NoError(t, err)
		assert.Equal(t, want, s.JSON(), s.Name)
	}
}

func TestJSONReturnsACopy(t *testing.T) {
	s, err := schemas.Lookup("core.vehicle", "1.0")
	require.NoError(t, err)
	b := s.JSON()
	want := string(b)
	for i := range b {
		b[i] = 'x'
	}
	assert.Equal(t, want, string(s.JSON()))
	again, err := schemas.Lookup("core.vehicle", "1.0")
	require.NoError(t, err)
	assert.Equal(t, want, string(again.JSON()))
}
