package api

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

// TestRegistryRoutesInAContext: franz-go's sr.InContext and
// DefaultSchemaContext put /contexts/{context} before every route, which
// Confluent's registry reads as the route with its subjects in that
// context (its ContextFilter). The catalogue's subjects are all in the
// default context, so another context is empty: no subjects, no
// schemas, no ids, no level or mode of its own, and read-only, as
// Confluent's registry answers for a context without subjects.
func TestRegistryRoutesInAContext(t *testing.T) {
	h := Handler(Subjects(map[string]string{"telemetry-value": "core.device"}))
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	id := strconv.Itoa(int(device.RegistryID))

	for _, ctx := range []string{".staging", "staging"} {
		base := "/api/registry/contexts/" + ctx
		for path, want := range map[string]string{
			"/subjects":                              `[]`,
			"/subjects?subjectPrefix=core.":          `[]`,
			"/schemas":                               `[]`,
			"/schemas?latestOnly=true":               `[]`,
			"/schemas/types":                         `["JSON"]`,
			"/config?defaultToGlobal=true":           `{"compatibilityLevel":"FULL_TRANSITIVE"}`,
			"/mode/core.device?defaultToGlobal=true": `{"mode":"READONLY"}`,
		} {
			rec := do(h, http.MethodGet, base+path, "")
			require.Equal(t, http.StatusOK, rec.Code, "%s%s: %s", base, path, rec.Body)
			assert.JSONEq(t, want, rec.Body.String(), base+path)
		}
		for _, tc := range []struct {
			method, path, body string
			code               int
		}{
			{http.MethodGet, "/subjects/core.device/versions", "", ErrorSubjectNotFound},
			{http.MethodGet, "/subjects/telemetry-value/versions/latest", "", ErrorSubjectNotFound},
			{http.MethodPost, "/subjects/core.device", schemaRequest(t, string(device.JSON())), ErrorSubjectNotFound},
			{http.MethodPost, "/compatibility/subjects/core.device/versions/latest", schemaRequest(t, string(device.JSON())), ErrorSubjectNotFound},
			{http.MethodPost, "/subjects/core.device/versions", schemaRequest(t, string(device.JSON())), ErrorReadOnly},
			{http.MethodGet, "/schemas/ids/" + id, "", ErrorSchemaNotFound},
			{http.MethodGet, "/schemas/ids/" + id + "/schema", "", ErrorSchemaNotFound},
			{http.MethodGet, "/schemas/ids/" + id + "/versions", "", ErrorSchemaNotFound},
			{http.MethodGet, "/config", "", ErrorSubjectCompatibilityNotConfigured},
			{http.MethodGet, "/config/core.device", "", ErrorSubjectCompatibilityNotConfigured},
			{http.MethodGet, "/mode", "", ErrorSubjectModeNotConfigured},
		} {
			msg := wantError(t, do(h, tc.method, base+tc.path, tc.body), tc.code)
			if tc.code == ErrorSubjectNotFound {
				assert.Contains(t, msg, `":.staging:`, tc.path)
			}
		}
	}

	// A subject already qualified keeps its context, as in Confluent's.
	rec := do(h, http.MethodGet, "/api/registry/contexts/.staging/subjects/:.:core.device/versions", "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.JSONEq(t, `[1]`, rec.Body.String())

	// An id asked for in another context, however asked, is not found.
	wantError(t, do(h, http.MethodGet, "/api/registry/schemas/ids/"+id+"?subject=:.staging:core.device", ""), ErrorSchemaNotFound)
	rec = do(h, http.MethodGet, "/api/registry/schemas/ids/"+id+"?subject=:.:core.device", "")
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}
