package api

import (
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/fixture"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// TestValidateJudgesByTheNamedVersion pins that the validation route
// judges by the version in its path, not the latest, on the fixture
// catalogue: the published one has only 1.0 of each schema. The types are
// the generated fixture's, reached through its table as catalogue reaches
// the published one's.
func TestValidateJudgesByTheNamedVersion(t *testing.T) {
	c, err := schemas.Load(os.DirFS("../testdata/fixture"))
	require.NoError(t, err)
	checkAs := func(name, version string, data []byte) (*msg.Kind, error) {
		k := fixture.Kinds.Lookup(name, version)
		return k, k.Check(data)
	}
	h := newHandler(c.All(), checkAs)
	const body = `{"message_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7","message_type":"demo.sensor",` +
		`"sensor_id":"0f8fad5b-d9cb-469f-a165-70867728950e","kind":"temperature","time":"2024-05-01T12:00:00Z","location":5}`
	for version, want := range map[string]int{
		"1.0": http.StatusOK,                  // location is an unknown member
		"1.1": http.StatusUnprocessableEntity, // location is a string or null
		"2.0": http.StatusUnprocessableEntity,
		"1.2": http.StatusNotFound,
	} {
		w := do(h, http.MethodPost, "/api/schemas/demo.sensor/versions/"+version+"/validate", body)
		assert.Equal(t, want, w.Code, "%s: %s", version, w.Body)
		if want == http.StatusUnprocessableEntity {
			assert.Contains(t, w.Body.String(), `"path":"/location"`, version)
		}
	}
}
