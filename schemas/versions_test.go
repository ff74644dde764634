package schemas_test

import (
	"errors"
	"os"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

// fixture is the fixture catalogue of testdata/fixture: demo.sensor at 1.0,
// 1.1 and 2.0.
func fixture(t *testing.T) *schemas.Catalogue {
	t.Helper()
	c, err := schemas.Load(os.DirFS("../testdata/fixture"))
	require.NoError(t, err)
	return c
}

func TestParseVersionTakesTwoDecimalsWithoutLeadingZeros(t *testing.T) {
	for _, tc := range []struct {
		v            string
		major, minor int
	}{
		{"1.0", 1, 0}, {"0.1", 0, 1}, {"2.10", 2, 10}, {"10.9", 10, 9}, {"123456789.0", 123456789, 0},
	} {
		major, minor, err := schemas.ParseVersion(tc.v)
		require.NoError(t, err, tc.v)
		assert.Equal(t, [2]int{tc.major, tc.minor}, [2]int{major, minor}, tc.v)
	}
	for _, v := range []string{"", "1", "1.", ".1", "01.0", "1.00", "1.0.0", "v1.0", "1.a", "+1.0", "-1.0", "1.-0", " 1.0", "1234567890.0", "1.0\n"} {
		_, _, err := schemas.ParseVersion(v)
		assert.Error(t, err, "%q", v)
	}
}

func TestVersionsAreInNumericOrder(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, v := range []string{"1.10", "1.9", "2.0", "1.0", "10.0"} {
		fsys["demo.x-"+v+".json"] = &fstest.MapFile{Data: []byte(`{"$id":"` + schemas.ID("demo.x", v) + `","title":"demo.x"}`)}
	}
	c, err := schemas.Load(fsys)
	require.NoError(t, err)
	versions, err := c.Versions("demo.x")
	require.NoError(t, err)
	assert.Equal(t, []string{"1.0", "1.9", "1.10", "2.0", "10.0"}, versions)
	majors, err := c.Majors("demo.x")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 10}, majors)
	s, err := c.LatestOf("demo.x", 1)
	require.NoError(t, err)
	assert.Equal(t, "1.10", s.Version)
	s, err = c.Latest("demo.x")
	require.NoError(t, err)
	assert.Equal(t, "10.0", s.Version)
}

func TestLoadRefusesAVersionThatIsNotMajorDotMinor(t *testing.T) {
	for _, v := range []string{"1", "1.0.0", "01.0", "1.01", "latest"} {
		fsys := fstest.MapFS{"demo.x-" + v + ".json": &fstest.MapFile{Data: []byte(`{"$id":"` + schemas.ID("demo.x", v) + `","title":"demo.x"}`)}}
		_, err := schemas.Load(fsys)
		assert.ErrorContains(t, err, "MAJOR.MINOR", v)
	}
}

func TestTheFixtureCatalogueHasEveryVersionAndItsLatest(t *testing.T) {
	c := fixture(t)
	assert.Equal(t, []string{"demo.sensor"}, c.Names())
	versions, err := c.Versions("demo.sensor")
	require.NoError(t, err)
	assert.Equal(t, []string{"1.0", "1.1", "2.0"}, versions)

	latest, err := c.Latest("demo.sensor")
	require.NoError(t, err)
	assert.Equal(t, "2.0", latest.Version)
	one, err := c.LatestOf("demo.sensor", 1)
	require.NoError(t, err)
	assert.Equal(t, "1.1", one.Version)
	assert.Equal(t, [2]int{1, 1}, [2]int{one.Major, one.Minor})
	_, err = c.LatestOf("demo.sensor", 3)
	assert.True(t, errors.Is(err, schemas.ErrUnknown), "%v", err)

	s, err := c.LookupID("http://catalogue.fleetkit.dev/api/schemas/demo.sensor/versions/1.1")
	require.NoError(t, err)
	assert.Equal(t, "1.1", s.Version)

	// The published catalogue is untouched by loading another.
	_, err = schemas.Lookup("demo.sensor", "1.0")
	assert.True(t, errors.Is(err, schemas.ErrUnknown), "%v", err)
}

func TestThePublishedCatalogueHoldsOnlyVersion1Point0(t *testing.T) {
	for _, name := range schemas.Names() {
		latest, err := schemas.Latest(name)
		require.NoError(t, err)
		assert.Equal(t, "1.0", latest.Version, name)
		majors, err := schemas.Majors(name)
		require.NoError(t, err)
		assert.Equal(t, []int{1}, majors, name)
	}
}
