package api

// Internal tests: the handler is built from catalogues of several versions
// (the fixtures), which only newHandler takes.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/internal/fixture"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// fixtureHandler serves the fixture catalogue (testdata/fixture), and
// judges messages by its generated types, reached through their table
// as catalogue reaches the published ones'.
func fixtureHandler(t *testing.T) *handler {
	t.Helper()
	c, err := schemas.Load(os.DirFS("../testdata/fixture"))
	require.NoError(t, err)
	checkAs := func(name, version string, data []byte) (*msg.Kind, error) {
		k := fixture.Kinds.Lookup(name, version)
		return k, k.Check(data)
	}
	return newHandler(c.All(), checkAs)
}

func do(h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

func TestVersionsListsEveryVersionInNumericOrder(t *testing.T) {
	h := fixtureHandler(t)
	rec := do(h, http.MethodGet, "/api/schemas/demo.sensor/versions", "")
	require.Equal(t, http.StatusOK, rec.Code)
	var list []struct{ Name, Version, ID, URL string }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list))
	var versions []string
	for _, e := range list {
		versions = append(versions, e.Version)
		assert.Equal(t, "/api/schemas/demo.sensor/versions/"+e.Version, e.URL)
		assert.Equal(t, schemas.ID("demo.sensor", e.Version), e.ID)
	}
	assert.Equal(t, []string{"1.0", "1.1", "2.0"}, versions)

	// Numeric, not lexical: 1.10 follows 1.9.
	fsys := fstest.MapFS{}
	for _, v := range []string{"1.10", "1.9", "1.0", "2.0"} {
		fsys["demo.x-"+v+".json"] = &fstest.MapFile{Data: []byte(`{"$id":"` + schemas.ID("demo.x", v) + `","title":"demo.x"}`)}
	}
	c, err := schemas.Load(fsys)
	require.NoError(t, err)
	rec = do(newHandler(c.All(), catalogue.CheckAs), http.MethodGet, "/api/schemas/demo.x/versions", "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list))
	versions = versions[:0]
	for _, e := range list {
		versions = append(versions, e.Version)
	}
	assert.Equal(t, []string{"1.0", "1.9", "1.10", "2.0"}, versions)
}

// report is the compatibility route's answer, as a client reads it.
type report struct {
	Name, Old, New, Mode string
	Strict, Compatible   bool
	Findings             []struct {
		Code, Breaks, Direction, Message string
		Warning                          bool
		SchemaPointer                    string `json:"schema_pointer"`
		MemberPointer                    string `json:"member_pointer"`
		Witness                          json.RawMessage
	}
}

func TestCompatibilityAnswers200WithTheReport(t *testing.T) {
	h := fixtureHandler(t)
	breaking := readFile(t, "../testdata/fixture-breaking/demo.sensor-1.2.json")
	rec := do(h, http.MethodPost, "/api/schemas/demo.sensor/versions/1.1/compatibility", breaking)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var r report
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r))
	assert.Equal(t, "demo.sensor", r.Name)
	assert.Equal(t, []string{"1.1", "1.2", "full"}, []string{r.Old, r.New, r.Mode})
	assert.False(t, r.Compatible)
	var codes []string
	for _, f := range r.Findings {
		codes = append(codes, f.Code+" "+f.Breaks+" "+f.MemberPointer)
		assert.NotEmpty(t, f.Witness, f.Code)
	}
	assert.Equal(t, []string{"enum-value-removed backward /kind", "maximum-lowered backward /level", "default-changed full /unit"}, codes)

	compatible := readFile(t, "../testdata/fixture/demo.sensor-1.1.json")
	rec = do(h, http.MethodPost, "/api/schemas/demo.sensor/versions/1.0/compatibility", compatible)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r))
	assert.True(t, r.Compatible)
	require.Len(t, r.Findings, 2)
	assert.True(t, r.Findings[0].Warning)
	assert.Equal(t, "open-content", r.Findings[0].Code)

	rec = do(h, http.MethodPost, "/api/schemas/demo.sensor/versions/1.0/compatibility?strict=true", compatible)
	require.Equal(t, http.StatusOK, rec.Code)
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r))
	assert.False(t, r.Compatible, "strict: open content breaks")
	assert.True(t, r.Strict)

	rec = do(h, http.MethodPost, "/api/schemas/demo.sensor/versions/1.1/compatibility?mode=forward", breaking)
	require.Equal(t, http.StatusOK, rec.Code)
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r))
	assert.Equal(t, "forward", r.Mode)
	require.Len(t, r.Findings, 1, "only the changed default breaks forward")
	assert.Equal(t, "default-changed", r.Findings[0].Code)
}

func TestCompatibilityOnThePublishedCatalogue(t *testing.T) {
	h := newHandler(schemas.All(), catalogue.CheckAs)
	device := readFile(t, "../schemas/core.device-1.0.json")
	proposed := strings.Replace(device, "versions/1.0", "versions/1.1", 1)
	proposed = strings.Replace(proposed, `"required": [`, `"required": [
    "imei",`, 1)
	rec := do(h, http.MethodPost, "/api/schemas/core.device/versions/1.0/compatibility", proposed)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var r report
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r))
	assert.False(t, r.Compatible)
	require.Len(t, r.Findings, 1)
	assert.Equal(t, "required-added", r.Findings[0].Code)
	assert.Equal(t, "/imei", r.Findings[0].MemberPointer)
}

func TestCompatibilityStatuses(t *testing.T) {
	h := fixtureHandler(t)
	good := readFile(t, "../testdata/fixture/demo.sensor-1.1.json")
	for _, tc := range []struct {
		target, body string
		status       int
		why          string
	}{
		{"/api/schemas/demo.nothing/versions/1.0/compatibility", good, http.StatusNotFound, `unknown schema "demo.nothing"`},
		{"/api/schemas/demo.sensor/versions/1.7/compatibility", good, http.StatusNotFound, `unknown schema "demo.sensor" version "1.7"`},
		{"/api/schemas/demo.sensor/versions/1.0/compatibility?mode=sideways", good, http.StatusBadRequest, "mode"},
		{"/api/schemas/demo.sensor/versions/1.0/compatibility?strict=yes", good, http.StatusBadRequest, "strict"},
		{"/api/schemas/demo.sensor/versions/1.0/compatibility", `{"$id":`, http.StatusUnprocessableEntity, "not a schema file"},
		{"/api/schemas/demo.sensor/versions/1.0/compatibility", ``, http.StatusUnprocessableEntity, "not a schema file"},
		{"/api/schemas/demo.sensor/versions/1.0/compatibility", `{"title":"demo.sensor"}`, http.StatusUnprocessableEntity, "$id"},
		{"/api/schemas/demo.sensor/versions/1.0/compatibility", readFile(t, "../schemas/core.device-1.0.json"), http.StatusUnprocessableEntity, `the schema is "core.device", not "demo.sensor"`},
		{"/api/schemas/demo.sensor/versions/1.0/compatibility", strings.Replace(good, `"type": "object"`, `"type": "record"`, 1), http.StatusUnprocessableEntity, `"record" is not a JSON Schema type`},
		{"/api/schemas/demo.sensor/versions/1.0/compatibility", strings.Replace(good, `"required": [`, `"required": 5, "x": [`, 1), http.StatusUnprocessableEntity, "required"},
		{"/api/schemas/demo.sensor/versions/1.0/compatibility", good + strings.Repeat(" ", MaxSchemaBytes), http.StatusRequestEntityTooLarge, "larger than"},
	} {
		rec := do(h, http.MethodPost, tc.target, tc.body)
		assert.Equal(t, tc.status, rec.Code, "%s: %s", tc.target, rec.Body.String())
		var e struct{ Error string }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
		assert.Contains(t, e.Error, tc.why, tc.target)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	}
	rec := do(h, http.MethodGet, "/api/schemas/demo.sensor/versions/1.0/compatibility", "")
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, "OPTIONS, POST", rec.Header().Get("Allow"))
}

func TestCompatibilityAnswers503WhenEveryPlaceIsTaken(t *testing.T) {
	h := fixtureHandler(t)
	shortCompareWait(t)
	for range cap(comparing) {
		comparing <- struct{}{}
	}
	rec := do(h, http.MethodPost, "/api/schemas/demo.sensor/versions/1.0/compatibility", readFile(t, "../testdata/fixture/demo.sensor-1.1.json"))
	for range cap(comparing) {
		<-comparing
	}
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	rec = do(h, http.MethodGet, "/api/schemas/demo.sensor/versions", "")
	assert.Equal(t, http.StatusOK, rec.Code, "other routes are served")
	rec = do(h, http.MethodPost, "/api/schemas/demo.sensor/versions/1.0/compatibility", readFile(t, "../testdata/fixture/demo.sensor-1.1.json"))
	assert.Equal(t, http.StatusOK, rec.Code, "places are given back")
}

func TestCompatibilityTakesAPlaceAmongTheBodies(t *testing.T) {
	h := fixtureHandler(t)
	for range cap(h.bodies) {
		h.bodies <- struct{}{}
	}
	large := readFile(t, "../testdata/fixture/demo.sensor-1.1.json") + strings.Repeat(" ", freeBody)
	rec := do(h, http.MethodPost, "/api/schemas/demo.sensor/versions/1.0/compatibility", large)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, retryAfter, rec.Header().Get("Retry-After"))
	for range cap(h.bodies) {
		<-h.bodies
	}
	rec = do(h, http.MethodPost, "/api/schemas/demo.sensor/versions/1.0/compatibility", large)
	assert.Equal(t, http.StatusOK, rec.Code)
}

func TestCompatibilityReadsAChunkedBodyOverTheLimitAs413(t *testing.T) {
	h := fixtureHandler(t)
	req := httptest.NewRequest(http.MethodPost, "/api/schemas/demo.sensor/versions/1.0/compatibility", strings.NewReader(strings.Repeat(" ", MaxSchemaBytes+1)))
	req.ContentLength = -1 // unknown, as with chunked encoding: the reader must stop it
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
}

// TestCompatibilityReportWritesAngleBracketsAsTheyAre pins that the
// report shows '<' as '<', not as the \u003c that HTML escaping writes.
func TestCompatibilityReportWritesAngleBracketsAsTheyAre(t *testing.T) {
	h := fixtureHandler(t)
	candidate := strings.Replace(readFile(t, "../testdata/fixture/demo.sensor-1.1.json"), `"humidity"`, `"humidity", "<b>&"`, 1)
	rec := do(h, http.MethodPost, "/api/schemas/demo.sensor/versions/1.1/compatibility", candidate)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"kind":"<b>&"`, "the witness as it is")
	assert.NotContains(t, rec.Body.String(), `\u003c`)
	assert.NotContains(t, rec.Body.String(), `\u0026`)
}

// shortCompareWait makes comparisons wait for a place only briefly until
// the test ends, for tests of the 503 that ends the wait.
func shortCompareWait(t *testing.T) {
	saved := compareWait
	compareWait = 10 * time.Millisecond
	t.Cleanup(func() { compareWait = saved })
}
