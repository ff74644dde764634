package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestValidateJudgesByTheNamedVersion pins that the validation route
// judges by the version in its path, not the latest, on the fixture
// catalogue (see fixtureHandler): the published one has only 1.0 of each
// schema.
func TestValidateJudgesByTheNamedVersion(t *testing.T) {
	h := fixtureHandler(t)
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
