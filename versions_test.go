package catalogue

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/fixture"
	"github.com/fleetkit/catalogue/internal/oracle"
	"github.com/fleetkit/catalogue/schemas"
)

// TestKindsFollowTheCatalogue pins that the generated table has a type
// for every published version and nothing else, each saying its version.
func TestKindsFollowTheCatalogue(t *testing.T) {
	n := 0
	for _, s := range schemas.All() {
		k := Kinds.Lookup(s.Name, s.Version)
		require.NotNil(t, k, "no type for %s %s", s.Name, s.Version)
		assert.Equal(t, s.ID, k.ID)
		m := k.New()
		assert.Equal(t, s.Name, m.SchemaName())
		assert.Equal(t, s.Version, m.SchemaVersion())
		assert.Same(t, k, m.SchemaKind())
		n++
	}
	assert.Len(t, Kinds.All(), n, "the table lists versions the catalogue does not have")
}

// fixtureSet is the fixture catalogue with its generated types, as package
// catalogue would hold it if it were published.
func fixtureSet(t *testing.T) set {
	t.Helper()
	c, err := schemas.Load(os.DirFS("testdata/fixture"))
	require.NoError(t, err)
	return set{c, fixture.Kinds}
}

// TestDecodeAsJudgesByExactlyTheNamedVersion pins decision 13 through
// DecodeAs on the fixture catalogue, held to the oracle over each version's
// file: a member only 1.1 declares is an unknown member under 1.0, and no
// version named means the latest minor of the latest major.
func TestDecodeAsJudgesByExactlyTheNamedVersion(t *testing.T) {
	s := fixtureSet(t)
	o, err := oracle.New(s.schemas)
	require.NoError(t, err)
	const v10 = `{"message_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7","message_type":"demo.sensor",` +
		`"sensor_id":"0f8fad5b-d9cb-469f-a165-70867728950e","kind":"temperature","time":"2024-05-01T12:00:00Z"`
	for _, tc := range []struct {
		version, data string
		valid         bool
	}{
		{"1.0", v10 + `,"location":5}`, true},
		{"1.1", v10 + `,"location":5}`, false},
		{"2.0", v10 + `,"location":5}`, false},
		{"1.0", v10 + `,"calibrated":"yes"}`, true},
		{"1.1", v10 + `,"calibrated":"yes"}`, false},
		{"1.0", v10 + `}`, true},
		{"1.1", v10 + `}`, true},
		{"2.0", v10 + `}`, false}, // level is required in 2.0
		{"", v10 + `}`, false},    // the latest: 2.0
		{"", v10 + `,"level":500}`, true},
		{"1.1", v10 + `,"level":500}`, false},
	} {
		m, err := s.decodeAs("demo.sensor", tc.version, []byte(tc.data))
		require.NotNil(t, m)
		want := tc.version
		if want == "" {
			want = "2.0"
		}
		assert.Equal(t, want, m.SchemaVersion())
		assert.Equal(t, tc.valid, err == nil, "%s %s: %v", tc.version, tc.data, err)
		ok, why := o.Verdict("demo.sensor", want, []byte(tc.data))
		assert.Equal(t, ok, tc.valid, "the oracle over %s disagrees with the table: %v", want, why)
	}

	_, err = s.decodeAs("demo.sensor", "1.2", []byte(v10+`}`))
	assert.ErrorIs(t, err, schemas.ErrUnknown)
	_, err = s.decodeAs("demo.sensor", "1.01", []byte(v10+`}`))
	assert.ErrorIs(t, err, schemas.ErrUnknown, "versions are compared as written, not as numbers")
}

// TestDispatchTakesTheLatestVersion pins that the generated newLatest, by
// which Decode dispatches on message_type, makes the latest version of
// the latest major: of the published catalogue, and of the fixture, whose
// latest is 2.0 in package sensor/v2.
func TestDispatchTakesTheLatestVersion(t *testing.T) {
	for _, name := range schemas.Names() {
		latest, err := schemas.Latest(name)
		require.NoError(t, err)
		m := newLatest(name)
		require.NotNil(t, m, name)
		assert.Equal(t, latest.Version, m.SchemaVersion(), name)
		assert.Equal(t, name, m.SchemaName())
	}
	assert.Nil(t, newLatest("core.driver"))

	m := fixture.NewLatest([]byte("demo.sensor"))
	require.NotNil(t, m)
	assert.Equal(t, "2.0", m.SchemaVersion())
	assert.Nil(t, fixture.NewLatest("demo"))
}
