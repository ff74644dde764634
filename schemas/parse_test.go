package schemas_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

func TestParseReadsAProposedVersion(t *testing.T) {
	published, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	s, err := schemas.Parse(published.JSON())
	require.NoError(t, err)
	assert.Equal(t, published.Name, s.Name)
	assert.Equal(t, published.Version, s.Version)
	assert.Equal(t, published.Required, s.Required)
	assert.Equal(t, published.JSON(), s.JSON())
	assert.Empty(t, s.File(), "a parsed schema is in no catalogue folder")

	data := []byte(`{"$id":"http://catalogue.fleetkit.dev/api/schemas/demo.x/versions/1.10","title":"demo.x"}`)
	s, err = schemas.Parse(data)
	require.NoError(t, err)
	assert.Equal(t, [2]int{1, 10}, [2]int{s.Major, s.Minor})
	data[10] = 'X'
	assert.NotEqual(t, data, s.JSON(), "Parse keeps its own copy")

	for _, bad := range []string{
		`{"title":"demo.x"}`,
		`{"$id":"https://catalogue.fleetkit.dev/api/schemas/demo.x/versions/1.0","title":"demo.y"}`,
		`{"$id":"https://catalogue.fleetkit.dev/api/schemas/demo.x/versions/01.0","title":"demo.x"}`,
		`{"$id":"https://example.com/api/schemas/demo.x/versions/1.0","title":"demo.x"}`,
		`[]`,
		`{`,
	} {
		_, err := schemas.Parse([]byte(bad))
		assert.Error(t, err, bad)
	}
}
