package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

// registryErr is the protocol's error body.
type registryErr struct {
	Code    int    `json:"error_code"`
	Message string `json:"message"`
}

// wantError asserts that rec is the protocol's error with code, its HTTP
// status the code's first three digits, and returns its message.
func wantError(t *testing.T, rec interface {
	Result() *http.Response
}, code int) string {
	t.Helper()
	res := rec.Result()
	var e registryErr
	require.NoError(t, json.NewDecoder(res.Body).Decode(&e))
	assert.Equal(t, code, e.Code)
	status := code
	if code >= 10000 {
		status = code / 100
	}
	assert.Equal(t, status, res.StatusCode)
	assert.Equal(t, registryContentType, res.Header.Get("Content-Type"))
	return e.Message
}

func encodeJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// schemaRequest is a registration, lookup or compatibility request for
// the schema text.
func schemaRequest(t *testing.T, text string) string {
	t.Helper()
	return string(encodeJSON(t, map[string]any{"schema": text, "schemaType": "JSON"}))
}

func TestRegistrySchemaByIDIsTheFile(t *testing.T) {
	h := Handler()
	for _, s := range schemas.All() {
		id := strconv.Itoa(int(s.RegistryID))
		for _, target := range []string{"/api/registry/schemas/ids/" + id, "/api/registry/schemas/ids/" + id + "?subject=telemetry-value"} {
			rec := do(h, http.MethodGet, target, "")
			require.Equal(t, http.StatusOK, rec.Code, target)
			assert.Equal(t, registryContentType, rec.Header().Get("Content-Type"))
			var body struct{ Schema, SchemaType string }
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
			assert.Equal(t, string(s.JSON()), body.Schema, target)
			assert.Equal(t, "JSON", body.SchemaType)
		}
		rec := do(h, http.MethodGet, "/api/registry/schemas/ids/"+id+"/schema", "")
		assert.Equal(t, string(s.JSON()), rec.Body.String())

		rec = do(h, http.MethodGet, "/api/registry/schemas/ids/"+id+"/versions", "")
		assert.JSONEq(t, `[{"subject":"`+s.Name+`","version":1}]`, rec.Body.String())
	}
	for _, id := range []string{"0", "5", "-1", "x", "2147483648", "99999999999"} {
		wantError(t, do(h, http.MethodGet, "/api/registry/schemas/ids/"+id, ""), ErrorSchemaNotFound)
	}
}

func TestRegistrySubjectsAreTheNamesAndTheTopicMap(t *testing.T) {
	h := Handler(Subjects(map[string]string{"telemetry-value": "core.device"}))
	rec := do(h, http.MethodGet, "/api/registry/subjects", "")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `["core.association","core.device","core.vehicle","example.event","telemetry-value"]`, rec.Body.String())

	rec = do(h, http.MethodGet, "/api/registry/subjects/telemetry-value/versions/latest", "")
	require.Equal(t, http.StatusOK, rec.Code)
	var v versionBody
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	assert.Equal(t, versionBody{Subject: "telemetry-value", Version: 1, ID: device.RegistryID, SchemaType: "JSON", Schema: string(device.JSON())}, v)

	rec = do(h, http.MethodGet, "/api/registry/schemas/ids/"+strconv.Itoa(int(device.RegistryID))+"/versions", "")
	assert.JSONEq(t, `[{"subject":"core.device","version":1},{"subject":"telemetry-value","version":1}]`, rec.Body.String())

	wantError(t, do(h, http.MethodGet, "/api/registry/subjects/other-value/versions", ""), ErrorSubjectNotFound)
}

func TestSubjectsRefusesAMapToNoSchema(t *testing.T) {
	assert.Error(t, CheckSubjects(map[string]string{"t-value": "core.nothing"}))
	assert.Error(t, CheckSubjects(map[string]string{"core.device": "core.vehicle"}))
	assert.Error(t, CheckSubjects(map[string]string{"": "core.vehicle"}))
	// Subjects no client can name: a path segment "." or ".." is removed
	// by every URL library, a control character is refused by Confluent's
	// registry (42208), and a context other than the default one is not
	// served, while the default one is the name without its prefix.
	for _, subject := range []string{".", "..", "t\x00-value", "t\n-value", ":.other:t-value", ":.:t-value", "t\xff-value"} {
		assert.Error(t, CheckSubjects(map[string]string{subject: "core.vehicle"}), subject)
	}
	assert.NoError(t, CheckSubjects(map[string]string{"t-value": "core.vehicle", "core.device": "core.device"}))
	assert.Panics(t, func() { Handler(Subjects(map[string]string{"t-value": "core.nothing"})) })
}

func TestRegistryVersionsAreNumberedInPublicationOrder(t *testing.T) {
	h := fixtureHandler(t)
	rec := do(h, http.MethodGet, "/api/registry/subjects/demo.sensor/versions", "")
	assert.JSONEq(t, `[1,2,3]`, rec.Body.String())
	rec = do(h, http.MethodGet, "/api/registry/subjects/demo.sensor/versions?offset=1&limit=1", "")
	assert.JSONEq(t, `[2]`, rec.Body.String())

	for _, tc := range []struct {
		path    string
		version int
		catalog string
	}{
		{"1", 1, "1.0"}, {"2", 2, "1.1"}, {"3", 3, "2.0"}, {"latest", 3, "2.0"}, {"-1", 3, "2.0"},
		{"1.0", 1, "1.0"}, {"1.1", 2, "1.1"}, {"2.0", 3, "2.0"},
		// As Confluent's VersionId reads a version: trimmed, "latest" in
		// any case, an integer as Java's Integer.parseInt reads it.
		{"LATEST", 3, "2.0"}, {"Latest", 3, "2.0"}, {"%20latest%20", 3, "2.0"}, {"%202", 2, "1.1"},
		{"+2", 2, "1.1"}, {"02", 2, "1.1"},
	} {
		rec := do(h, http.MethodGet, "/api/registry/subjects/demo.sensor/versions/"+tc.path, "")
		require.Equal(t, http.StatusOK, rec.Code, tc.path)
		var v versionBody
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
		assert.Equal(t, tc.version, v.Version, tc.path)
		assert.Equal(t, int32(tc.version), v.ID, tc.path) // the fixture's ids are 1, 2, 3
		assert.Contains(t, v.Schema, `/versions/`+tc.catalog+`"`, tc.path)

		raw := do(h, http.MethodGet, "/api/registry/subjects/demo.sensor/versions/"+tc.path+"/schema", "")
		assert.Equal(t, v.Schema, raw.Body.String())
	}
	for _, v := range []string{"4", "1.2", "2147483647"} {
		wantError(t, do(h, http.MethodGet, "/api/registry/subjects/demo.sensor/versions/"+v, ""), ErrorVersionNotFound)
	}
	// As Confluent's: a version is an int32 (Java's Integer), or it is invalid.
	for _, v := range []string{"x", "01.0", "-2", "0", "2147483648", "99999999999999999999"} {
		wantError(t, do(h, http.MethodGet, "/api/registry/subjects/demo.sensor/versions/"+v, ""), ErrorInvalidVersion)
	}
}

func TestRegisterReturnsTheIDOfASchemaInTheCatalogue(t *testing.T) {
	h := Handler()
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)

	// The file itself, and the same JSON written otherwise.
	var value any
	require.NoError(t, json.Unmarshal(device.JSON(), &value))
	compact := string(encodeJSON(t, value))
	for _, text := range []string{string(device.JSON()), compact} {
		rec := do(h, http.MethodPost, "/api/registry/subjects/core.device/versions", schemaRequest(t, text))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var v versionBody
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
		assert.Equal(t, device.RegistryID, v.ID)

		rec = do(h, http.MethodPost, "/api/registry/subjects/core.device", schemaRequest(t, text))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
		assert.Equal(t, versionBody{Subject: "core.device", Version: 1, ID: device.RegistryID, SchemaType: "JSON", Schema: string(device.JSON())}, v)
	}

	// Another subject's schema is not this subject's.
	wantError(t, do(h, http.MethodPost, "/api/registry/subjects/core.vehicle", schemaRequest(t, compact)), ErrorSchemaNotFound)
	msg := wantError(t, do(h, http.MethodPost, "/api/registry/subjects/core.vehicle/versions", schemaRequest(t, compact)), ErrorReadOnly)
	assert.Contains(t, msg, "read-only")
}

func TestRegisterRefusesANewVersionWithItsCompatibilityReport(t *testing.T) {
	// The breaking 1.2, offered to the fixture catalogue, which lacks it.
	h := fixtureHandler(t)
	candidate := readFile(t, "../testdata/fixture-breaking/demo.sensor-1.2.json")

	msg := wantError(t, do(h, http.MethodPost, "/api/registry/subjects/demo.sensor/versions", schemaRequest(t, candidate)), ErrorReadOnly)
	assert.Contains(t, msg, "read-only")
	assert.Contains(t, msg, "enum-value-removed")
	assert.Contains(t, msg, "witness: {")
}

func TestRegistryCompatibilityProvesEachBreakWithAMessage(t *testing.T) {
	h := fixtureHandler(t)
	breaking := readFile(t, "../testdata/fixture-breaking/demo.sensor-1.2.json")
	compatible := readFile(t, "../testdata/fixture/demo.sensor-1.1.json")

	type answer struct {
		Compatible bool      `json:"is_compatible"`
		Messages   *[]string `json:"messages"`
	}
	post := func(path, schema string) answer {
		t.Helper()
		rec := do(h, http.MethodPost, path, schemaRequest(t, schema))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var a answer
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &a))
		return a
	}

	a := post("/api/registry/compatibility/subjects/demo.sensor/versions/1", breaking)
	assert.False(t, a.Compatible)
	assert.Nil(t, a.Messages, "messages only with verbose")

	a = post("/api/registry/compatibility/subjects/demo.sensor/versions/1?verbose=true", breaking)
	assert.False(t, a.Compatible)
	require.NotNil(t, a.Messages)
	var breaks int
	for _, m := range *a.Messages {
		if strings.Contains(m, ": backward: ") || strings.Contains(m, ": forward: ") || strings.Contains(m, ": full: ") {
			breaks++
			assert.Contains(t, m, "; witness: ", m)
		}
	}
	assert.Positive(t, breaks)

	// 1.1 adds optional members: compatible with 1.0 (decision 13), with
	// the open-content warnings said, not hidden.
	a = post("/api/registry/compatibility/subjects/demo.sensor/versions/1.0?verbose=true", compatible)
	assert.True(t, a.Compatible)
	require.NotNil(t, a.Messages)
	assert.NotEmpty(t, *a.Messages)
	for _, m := range *a.Messages {
		assert.Contains(t, m, ": warning: open-content: ")
	}

	// Against every version (FULL_TRANSITIVE): 2.0 is another major, so
	// 1.1 is not compatible with it.
	a = post("/api/registry/compatibility/subjects/demo.sensor/versions", compatible)
	assert.False(t, a.Compatible)

	// What cannot be compared is the protocol's invalid schema.
	wantError(t, do(h, http.MethodPost, "/api/registry/compatibility/subjects/demo.sensor/versions/1", schemaRequest(t, `{"title":"x"}`)), ErrorInvalidSchema)
	wantError(t, do(h, http.MethodPost, "/api/registry/compatibility/subjects/demo.sensor/versions/1", schemaRequest(t, readFile(t, "../schemas/core.device-1.0.json"))), ErrorInvalidSchema)
	wantError(t, do(h, http.MethodPost, "/api/registry/compatibility/subjects/demo.sensor/versions/9", schemaRequest(t, compatible)), ErrorVersionNotFound)
}

// TestRegistryCompatibilityRefusesABadVerboseAndAnswers503WhenBusy pins
// that the registry's compatibility route answers in the protocol's
// format, as the catalogue's route does in its own, a verbose that is
// not true or false and a comparison when every place is taken.
func TestRegistryCompatibilityRefusesABadVerboseAndAnswers503WhenBusy(t *testing.T) {
	h := fixtureHandler(t)
	request := schemaRequest(t, readFile(t, "../testdata/fixture/demo.sensor-1.1.json"))
	const path = "/api/registry/compatibility/subjects/demo.sensor/versions/1"

	msg := wantError(t, do(h, http.MethodPost, path+"?verbose=yes", request), http.StatusBadRequest)
	assert.Equal(t, `verbose "yes" is not true or false`, msg)

	shortCompareWait(t)
	for range cap(comparing) {
		comparing <- struct{}{}
	}
	rec := do(h, http.MethodPost, path, request)
	for range cap(comparing) {
		<-comparing
	}
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.Equal(t, "busy comparing other schemas: retry later", wantError(t, rec, http.StatusServiceUnavailable))
	assert.Equal(t, http.StatusOK, do(h, http.MethodPost, path, request).Code, "places are given back")
}

func TestRegistryRequestsThatAreNotJSONSchemas(t *testing.T) {
	h := Handler()
	for _, tc := range []struct{ name, body string }{
		{"not JSON", `{`},
		{"no schemaType, so Avro", `{"schema":"{}"}`},
		{"protobuf", `{"schema":"{}","schemaType":"PROTOBUF"}`},
		{"a schema that is not JSON", `{"schema":"{","schemaType":"JSON"}`},
		{"two values", `{"schema":"{} {}","schemaType":"JSON"}`},
		{"references", `{"schema":"{}","schemaType":"JSON","references":[{"name":"x"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, do(h, http.MethodPost, "/api/registry/subjects/core.device/versions", tc.body), ErrorInvalidSchema)
		})
	}
	big := `{"schema":"` + strings.Repeat(" ", maxRegistryRequest) + `","schemaType":"JSON"}`
	assert.Equal(t, http.StatusRequestEntityTooLarge, do(h, http.MethodPost, "/api/registry/subjects/core.device", big).Code)
}

func TestRegistryConfigAndModeAreReadOnlyFullTransitive(t *testing.T) {
	h := Handler()
	for _, path := range []string{"/api/registry/config", "/api/registry/config/core.device"} {
		rec := do(h, http.MethodGet, path, "")
		require.Equal(t, http.StatusOK, rec.Code, path)
		assert.JSONEq(t, `{"compatibilityLevel":"FULL_TRANSITIVE"}`, rec.Body.String())
	}
	for _, path := range []string{"/api/registry/mode", "/api/registry/mode/core.device"} {
		rec := do(h, http.MethodGet, path, "")
		require.Equal(t, http.StatusOK, rec.Code, path)
		assert.JSONEq(t, `{"mode":"READONLY"}`, rec.Body.String())
	}
	// A subject without versions has no level or mode of its own, as in
	// Confluent's registry; with defaultToGlobal=true it has the global's.
	msg := wantError(t, do(h, http.MethodGet, "/api/registry/config/core.nothing", ""), ErrorSubjectCompatibilityNotConfigured)
	assert.Equal(t, `subject "core.nothing" does not have subject-level compatibility configured`, msg)
	msg = wantError(t, do(h, http.MethodGet, "/api/registry/mode/core.nothing?defaultToGlobal=false", ""), ErrorSubjectModeNotConfigured)
	assert.Equal(t, `subject "core.nothing" does not have subject-level mode configured`, msg)
	for path, want := range map[string]string{
		"/api/registry/config/core.nothing?defaultToGlobal=true":  `{"compatibilityLevel":"FULL_TRANSITIVE"}`,
		"/api/registry/mode/new-topic-value?defaultToGlobal=TRUE": `{"mode":"READONLY"}`,
	} {
		rec := do(h, http.MethodGet, path, "")
		require.Equal(t, http.StatusOK, rec.Code, path)
		assert.JSONEq(t, want, rec.Body.String(), path)
	}
	for _, req := range [][2]string{
		{http.MethodPut, "/api/registry/config"},
		{http.MethodPut, "/api/registry/mode/core.device"},
		{http.MethodDelete, "/api/registry/subjects/core.device"},
		{http.MethodDelete, "/api/registry/subjects/core.device/versions/1"},
		{http.MethodDelete, "/api/registry/subjects/core.device/versions/1?permanent=true"},
		{http.MethodDelete, "/api/registry/config"},
		{http.MethodDelete, "/api/registry/config/core.device"},
		{http.MethodDelete, "/api/registry/mode/core.device"},
		// franz-go's ResetMode of the registry's mode, and DeleteContext.
		{http.MethodDelete, "/api/registry/mode"},
		{http.MethodDelete, "/api/registry/contexts/.staging"},
	} {
		wantError(t, do(h, req[0], req[1], `{}`), ErrorReadOnly)
	}
	rec := do(h, http.MethodGet, "/api/registry/schemas/types", "")
	assert.JSONEq(t, `["JSON"]`, rec.Body.String())
}

func TestRegistryUnknownPathsAndMethodsAnswerInItsBody(t *testing.T) {
	h := Handler()
	wantError(t, do(h, http.MethodGet, "/api/registry/nothing", ""), http.StatusNotFound)
	wantError(t, do(h, http.MethodGet, "/api/registry/subjects/core.device/versions/1/schema/x", ""), http.StatusNotFound)
	wantError(t, do(h, http.MethodDelete, "/api/registry", ""), http.StatusMethodNotAllowed)
	rec := do(h, http.MethodPatch, "/api/registry/subjects", "")
	wantError(t, rec, http.StatusMethodNotAllowed)
	assert.Equal(t, "GET, HEAD, OPTIONS", rec.Header().Get("Allow"))
	rec = do(h, http.MethodGet, "/api/registry/subjects/core.device", "")
	wantError(t, rec, http.StatusMethodNotAllowed)
	assert.Equal(t, "POST, DELETE, OPTIONS", rec.Header().Get("Allow"))
}

func TestCanonicalNumberIsOneSpellingPerValue(t *testing.T) {
	same := [][]string{
		{"1", "1.0", "10e-1", "0.1e1", "1E0", "100e-2"},
		{"0", "-0", "0.0", "0e5", "-0.0e-3"},
		{"-12.5", "-125e-1", "-0.125E2"},
	}
	for _, group := range same {
		for _, n := range group {
			assert.Equal(t, canonicalNumber(group[0]), canonicalNumber(n), n)
		}
	}
	assert.NotEqual(t, canonicalNumber("1"), canonicalNumber("-1"))
	assert.NotEqual(t, canonicalNumber("1"), canonicalNumber("10"))
	assert.NotEqual(t, canonicalNumber("1e9223372036854775807"), canonicalNumber("1e9223372036854775806"))
	assert.True(t, equalJSON(map[string]any{"a": json.Number("1"), "b": []any{"x", nil, true}}, map[string]any{"b": []any{"x", nil, true}, "a": json.Number("1.0")}))
	assert.False(t, equalJSON([]any{json.Number("1")}, []any{"1"}))
}

// TestRegistryAcceptsATrailingSlash: Confluent's registry (JAX-RS) serves
// every route with a trailing slash as without, and admin tools send it
// (schema-registry-ui asks for "subjects/").
func TestRegistryAcceptsATrailingSlash(t *testing.T) {
	h := Handler()
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	for _, path := range []string{
		"/api/registry/subjects/",
		"/api/registry/subjects/core.device/versions/",
		"/api/registry/subjects/core.device/versions/latest/",
		"/api/registry/subjects/core.device/versions/1/schema/",
		"/api/registry/schemas/ids/2/",
		"/api/registry/schemas/ids/2/versions/",
		"/api/registry/config/",
		"/api/registry/mode/core.device/",
	} {
		rec := do(h, http.MethodGet, path, "")
		assert.Equal(t, http.StatusOK, rec.Code, "%s: %s", path, rec.Body.String())
		assert.Equal(t, do(h, http.MethodGet, strings.TrimSuffix(path, "/"), "").Body.String(), rec.Body.String(), path)
	}
	for _, path := range []string{"/api/registry/subjects/core.device/", "/api/registry/subjects/core.device/versions/"} {
		rec := do(h, http.MethodPost, path, schemaRequest(t, string(device.JSON())))
		assert.Equal(t, http.StatusOK, rec.Code, "%s: %s", path, rec.Body.String())
	}
	wantError(t, do(h, http.MethodGet, "/api/registry/subjects/core.device/versions/1/schema//", ""), http.StatusNotFound)

	// A slash percent-encoded is part of the subject's name, not a
	// trailing slash.
	msg := wantError(t, do(h, http.MethodGet, "/api/registry/subjects/core.device%2F", ""), http.StatusMethodNotAllowed)
	assert.Contains(t, msg, "use POST")
	msg = wantError(t, do(h, http.MethodPost, "/api/registry/subjects/core.device%2F", schemaRequest(t, string(device.JSON()))), ErrorSubjectNotFound)
	assert.Contains(t, msg, `"core.device/"`)
}

// TestRegistryRootAnswersAnEmptyObject: Confluent's registry answers its
// root with {}, which health checks and admin tools probe.
func TestRegistryRootAnswersAnEmptyObject(t *testing.T) {
	h := Handler()
	for _, path := range []string{"/api/registry", "/api/registry/"} {
		rec := do(h, http.MethodGet, path, "")
		require.Equal(t, http.StatusOK, rec.Code, path)
		assert.Equal(t, registryContentType, rec.Header().Get("Content-Type"))
		assert.JSONEq(t, `{}`, rec.Body.String(), path)
	}
}

// TestRegistryBodyFailuresAnswerInItsBody: a body too large, or arriving
// while every place is taken, is refused in the protocol's error body, as
// every other failure is, so that a client reads its error_code.
func TestRegistryBodyFailuresAnswerInItsBody(t *testing.T) {
	h := newHandler(schemas.All(), nil, MaxBodies(1))
	const path = "/api/registry/subjects/core.device"
	big := `{"schema":"` + strings.Repeat(" ", maxRegistryRequest) + `","schemaType":"JSON"}`
	wantError(t, do(h, http.MethodPost, path, big), http.StatusRequestEntityTooLarge)

	h.bodies <- struct{}{}
	large := `{"schemaType":"JSON","schema":"{}"` + strings.Repeat(" ", freeBody) + `}`
	rec := do(h, http.MethodPost, path, large)
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	wantError(t, rec, http.StatusServiceUnavailable)

	// A request of a serializer's size takes no place: however many
	// clients send theirs slowly, the others are answered.
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	rec = do(h, http.MethodPost, path, schemaRequest(t, string(device.JSON())))
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	<-h.bodies
}

// TestRegistryServesTheRoutesAdminToolsCall: the routes beyond the
// serializers' that Confluent's clients and admin tools call, answered
// as Confluent's registry answers them for a registry without deleted
// versions, references, metadata or contexts.
func TestRegistryServesTheRoutesAdminToolsCall(t *testing.T) {
	h := Handler(Subjects(map[string]string{"telemetry-value": "core.device"}))
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	entry := func(subject string, s schemas.Schema) string {
		return string(encodeJSON(t, versionBody{Subject: subject, Version: 1, ID: s.RegistryID, SchemaType: "JSON", Schema: string(s.JSON())}))
	}
	var every []string
	for _, s := range schemas.All() {
		every = append(every, entry(s.Name, s))
	}
	every = append(every, entry("telemetry-value", device))

	for _, tc := range []struct{ path, want string }{
		{"/api/registry/contexts", `["."]`},
		// franz-go's Contexts pages, with Offset and Limit.
		{"/api/registry/contexts?offset=1", `[]`},
		{"/api/registry/contexts?offset=0&limit=1", `["."]`},
		{"/api/registry/subjects?subjectPrefix=tele", `["telemetry-value"]`},
		{"/api/registry/subjects?subjectPrefix=core.d&deleted=true", `["core.device"]`},
		{"/api/registry/subjects?subjectPrefix=:*:", `["core.association","core.device","core.vehicle","example.event","telemetry-value"]`},
		{"/api/registry/subjects?deletedOnly=true", `[]`},
		{"/api/registry/subjects?offset=1&limit=2", `["core.device","core.vehicle"]`},
		// As Confluent's normalizeLimit: a limit of 0 or below is none.
		{"/api/registry/subjects?offset=3&limit=0", `["example.event","telemetry-value"]`},
		{"/api/registry/schemas?subjectPrefix=tele&limit=0", "[" + entry("telemetry-value", device) + "]"},
		{"/api/registry/subjects/core.device/versions?deletedOnly=true", `[]`},
		{"/api/registry/subjects/core.device/versions/1/referencedby", `[]`},
		{"/api/registry/subjects/telemetry-value/metadata", entry("telemetry-value", device)},
		{"/api/registry/schemas", "[" + strings.Join(every, ",") + "]"},
		{"/api/registry/schemas?subjectPrefix=telemetry&latestOnly=true", "[" + entry("telemetry-value", device) + "]"},
		{"/api/registry/schemas?deletedOnly=true", `[]`},
		{"/api/registry/schemas/ids/2/subjects", `["core.device","telemetry-value"]`},
		{"/api/registry/schemas/ids/2/subjects?subject=telemetry-value", `["telemetry-value"]`},
		{"/api/registry/schemas/ids/2/versions?subject=telemetry-value", `[{"subject":"telemetry-value","version":1}]`},
		{"/api/registry/schemas/ids/2?fetchMaxId=true", string(encodeJSON(t, map[string]any{"schema": string(device.JSON()), "schemaType": "JSON", "maxId": 4}))},
	} {
		rec := do(h, http.MethodGet, tc.path, "")
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", tc.path, rec.Body.String())
		assert.JSONEq(t, tc.want, rec.Body.String(), tc.path)
	}
	wantError(t, do(h, http.MethodGet, "/api/registry/subjects/core.device/metadata?key=owner&value=x", ""), ErrorSchemaNotFound)
	wantError(t, do(h, http.MethodGet, "/api/registry/subjects/core.nothing/metadata", ""), ErrorSubjectNotFound)
	wantError(t, do(h, http.MethodGet, "/api/registry/subjects/core.device/versions/9/referencedby", ""), ErrorVersionNotFound)
	wantError(t, do(h, http.MethodGet, "/api/registry/schemas/ids/9/subjects", ""), ErrorSchemaNotFound)
	wantError(t, do(h, http.MethodGet, "/api/registry/subjects?limit=x", ""), http.StatusBadRequest)
}

// TestRegisterUnderASubjectNotServedIsReadOnly: a registry in READONLY
// mode refuses every registration with 42205, as Confluent's does, even
// under a subject it does not have; when the schema is the catalogue's,
// the message says how to serve the subject.
func TestRegisterUnderASubjectNotServedIsReadOnly(t *testing.T) {
	h := Handler()
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	msg := wantError(t, do(h, http.MethodPost, "/api/registry/subjects/telemetry-value/versions", schemaRequest(t, string(device.JSON()))), ErrorReadOnly)
	assert.Contains(t, msg, `subject "telemetry-value" is not served`)
	assert.Contains(t, msg, "-subject telemetry-value=core.device")

	msg = wantError(t, do(h, http.MethodPost, "/api/registry/subjects/telemetry-value/versions", schemaRequest(t, `{"type":"object"}`)), ErrorReadOnly)
	assert.Contains(t, msg, `subject "telemetry-value" is not served`)
	assert.NotContains(t, msg, "-subject")

	// Looking up is not a write: the subject is not found.
	wantError(t, do(h, http.MethodPost, "/api/registry/subjects/telemetry-value", schemaRequest(t, string(device.JSON()))), ErrorSubjectNotFound)
}

// TestRegistryRequestsAreReadStrictly: a request, or the schema it
// carries, with invalid UTF-8 or a repeated member name is an invalid
// schema (decisions 11 and 12), never repaired or read one way here and
// another way by the client.
func TestRegistryRequestsAreReadStrictly(t *testing.T) {
	h := Handler()
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	file := string(device.JSON())
	twice := strings.Replace(file, `"title": "core.device",`, `"title": "core.device", "title": "core.vehicle",`, 1)
	require.NotEqual(t, file, twice)
	for name, body := range map[string]string{
		"invalid UTF-8 in the request":       `{"schema":"{}","schemaType":"JSON","x":"` + "\xff" + `"}`,
		"invalid UTF-8 in the schema":        `{"schemaType":"JSON","schema":` + strings.Replace(strconv.Quote(file), "core.device", "core.device\xff", 1) + `}`,
		"a repeated name in the request":     `{"schema":"{}","schemaType":"JSON","schema":` + strconv.Quote(file) + `}`,
		"a repeated name in the schema":      schemaRequest(t, twice),
		"no schema":                          `{"schemaType":"JSON"}`,
		"a schema that is not a JSON string": `{"schemaType":"JSON","schema":{"type":"object"}}`,
	} {
		for _, path := range []string{"/api/registry/subjects/core.device", "/api/registry/subjects/core.device/versions"} {
			msg := wantError(t, do(h, http.MethodPost, path, body), ErrorInvalidSchema)
			assert.NotEmpty(t, msg, name)
		}
	}
}

// TestLookupSaysWhereTheSchemaDiffers: a schema is matched as a JSON
// value, whatever its white space, member order or number spelling; one
// that is not a version of the subject is refused with the place where
// it first differs from each, so that the client can tell why.
func TestLookupSaysWhereTheSchemaDiffers(t *testing.T) {
	h := Handler()
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	changed := strings.Replace(string(device.JSON()), `"Model of the device."`, `"The model."`, 1)
	msg := wantError(t, do(h, http.MethodPost, "/api/registry/subjects/core.device", schemaRequest(t, changed)), ErrorSchemaNotFound)
	assert.Contains(t, msg, "/properties/model/description")
	assert.Contains(t, msg, "version 1 (1.0)")

	reordered := strings.Replace(string(device.JSON()), `"string",
        "null"`, `"null",
        "string"`, 1)
	require.NotEqual(t, string(device.JSON()), reordered)
	msg = wantError(t, do(h, http.MethodPost, "/api/registry/subjects/core.device", schemaRequest(t, reordered)), ErrorSchemaNotFound)
	assert.Contains(t, msg, "/properties/type/type/0")
}

// TestRegistryAnswersInTheMediaTypeAccepted: as Confluent's registry, the
// answer's Content-Type is the first of its media types that the
// request's Accept takes, by quality: the registry's own by default.
func TestRegistryAnswersInTheMediaTypeAccepted(t *testing.T) {
	h := Handler()
	for accept, want := range map[string]string{
		"": registryContentType,
		"application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json": registryContentType,
		"application/json":                    "application/json",
		"application/vnd.schemaregistry+json": "application/vnd.schemaregistry+json",
		"application/*":                       registryContentType,
		"*/*":                                 registryContentType,
		"application/json, */*;q=0.1":         "application/json",
		"application/vnd.schemaregistry.v1+json;q=0.2, application/json": "application/json",
		"application/json;q=0, */*":                                      registryContentType,
		"text/html":                                                      registryContentType, // nothing acceptable: ours, as RFC 9110 allows
	} {
		for _, path := range []string{"/api/registry/subjects", "/api/registry/subjects/core.nothing/versions"} {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			if accept != "" {
				req.Header.Set("Accept", accept)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, want, rec.Header().Get("Content-Type"), "%s %q", path, accept)
		}
	}
}

func TestFirstDifferenceIsWhereEqualJSONDisagrees(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1.0}`, ""},
		{`{"a":null}`, `{}`, "/a"},
		{`{"a":{"x/y~":[1]}}`, `{"a":{"x/y~":[1,2]}}`, "/a/x~1y~0/1"},
		{`[1]`, `{"0":1}`, ""},
		{`{"b":1,"a":2}`, `{"b":2,"a":3}`, "/a"},
	} {
		a, err := decodeJSON([]byte(tc.a))
		require.NoError(t, err)
		b, err := decodeJSON([]byte(tc.b))
		require.NoError(t, err)
		got := firstDifference(a, b, "")
		if tc.a == `[1]` {
			assert.Equal(t, "", got) // the root itself: the caller says "at its root"
			assert.False(t, equalJSON(a, b))
			continue
		}
		assert.Equal(t, tc.want, got, tc.a)
		assert.Equal(t, tc.want == "", equalJSON(a, b), tc.a)
	}
}

// TestRegistryVerboseCompatibilityListsNoFindingsAsAnEmptyList: with
// verbose=true, Confluent's registry always answers "messages", [] when
// there is nothing to say; a client reading the list must find it.
func TestRegistryVerboseCompatibilityListsNoFindingsAsAnEmptyList(t *testing.T) {
	h := Handler()
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	rec := do(h, http.MethodPost, "/api/registry/compatibility/subjects/core.device/versions/latest?verbose=true", schemaRequest(t, string(device.JSON())))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.JSONEq(t, `{"is_compatible":true,"messages":[]}`, rec.Body.String())
}

// TestRegisterComparesOnlyInAPlace: the compatibility report of a refused
// registration is a comparison, which takes one of comparing's places as
// the compatibility routes' do; when none is free the registration is
// still refused, read-only, without the report, saying so.
func TestRegisterComparesOnlyInAPlace(t *testing.T) {
	h := fixtureHandler(t)
	candidate := readFile(t, "../testdata/fixture-breaking/demo.sensor-1.2.json")
	for range cap(comparing) {
		comparing <- struct{}{}
	}
	rec := do(h, http.MethodPost, "/api/registry/subjects/demo.sensor/versions", schemaRequest(t, candidate))
	for range cap(comparing) {
		<-comparing
	}
	msg := wantError(t, rec, ErrorReadOnly)
	assert.Contains(t, msg, "read-only")
	assert.Contains(t, msg, "busy comparing other schemas")
	assert.NotContains(t, msg, "witness")
}

// TestSmallRegistryRequestsAreReadInAPlace: a request read without a body
// place is judged only in one of the registry's places for the work, so
// that however many arrive at once, the memory their JSON takes is
// bounded; it waits for a place, since the work is short, unless its
// client has gone.
func TestSmallRegistryRequestsAreReadInAPlace(t *testing.T) {
	h := Handler()
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	request := schemaRequest(t, string(device.JSON()))
	for range cap(h.(*handler).working) {
		h.(*handler).working <- struct{}{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the client has gone while it waited
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/registry/subjects/core.device", strings.NewReader(request))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Empty(t, rec.Body.String(), "judged without a place")
	for range cap(h.(*handler).working) {
		<-h.(*handler).working
	}
	assert.Equal(t, http.StatusOK, do(h, http.MethodPost, "/api/registry/subjects/core.device", request).Code)
}

// TestRegistryCompatibilityWaitsForAPlace: a compatibility check that
// arrives while every place to compare is taken waits for one, as a
// registry answers every client of a burst of checks, rather than being
// refused 503 at once.
func TestRegistryCompatibilityWaitsForAPlace(t *testing.T) {
	h := fixtureHandler(t)
	request := schemaRequest(t, readFile(t, "../testdata/fixture/demo.sensor-1.1.json"))
	for range cap(comparing) {
		comparing <- struct{}{}
	}
	answered := make(chan *httptest.ResponseRecorder)
	go func() {
		answered <- do(h, http.MethodPost, "/api/registry/compatibility/subjects/demo.sensor/versions/1", request)
	}()
	select {
	case rec := <-answered:
		t.Errorf("answered %d while every place was taken: %s", rec.Code, rec.Body)
	case <-time.After(200 * time.Millisecond): // still waiting, as it should
	}
	for range cap(comparing) {
		<-comparing
	}
	if t.Failed() {
		return
	}
	rec := <-answered
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}

// TestRegistryErrorsNameJSONNotGo: a request, or a schema, of the wrong
// JSON type is refused in JSON's terms, with the place of the value at
// fault, never with encoding/json's text, which names Go's types and the
// server's own structs.
func TestRegistryErrorsNameJSONNotGo(t *testing.T) {
	h := fixtureHandler(t)
	for _, tc := range []struct {
		path, body string
		code       int
		want       string
	}{
		{"/api/registry/subjects/demo.sensor", `[]`, ErrorInvalidSchema, "the request is an array, want an object"},
		// Confluent's Go client retries a 503 with the body it has sent,
		// that is with none: say so, not "unexpected end of input".
		{"/api/registry/subjects/demo.sensor/versions", ``, ErrorInvalidSchema, "the request is empty, where a JSON object with a schema is wanted"},
		{"/api/registry/subjects/demo.sensor/versions", `"x"`, ErrorInvalidSchema, "the request is a string, want an object"},
		{"/api/registry/subjects/demo.sensor", `{"schema":1,"schemaType":"JSON"}`, ErrorInvalidSchema, `"/schema" is a number, want a string`},
		{"/api/registry/subjects/demo.sensor", `{"schema":"{}","schemaType":true}`, ErrorInvalidSchema, `"/schemaType" is true or false, want a string`},
		{"/api/registry/subjects/demo.sensor", `{"schema":"{}","schemaType":"JSON","references":{}}`, ErrorInvalidSchema, `"/references" is an object, want an array`},
		{"/api/registry/subjects/demo.sensor/versions", schemaRequest(t, `[]`), ErrorReadOnly, "not a catalogue schema file: it is an array, want an object"},
		{"/api/registry/compatibility/subjects/demo.sensor/versions", schemaRequest(t, `[]`), ErrorInvalidSchema, "not a catalogue schema file: it is an array, want an object"},
		{"/api/registry/compatibility/subjects/demo.sensor/versions", schemaRequest(t, `{"title":["demo.sensor"]}`), ErrorInvalidSchema, `"/title" is an array, want a string`},
		{"/api/registry/compatibility/subjects/demo.sensor/versions", schemaRequest(t, `{"required":[1]}`), ErrorInvalidSchema, `"/required/0" is a number, want a string`},
	} {
		msg := wantError(t, do(h, http.MethodPost, tc.path, tc.body), tc.code)
		assert.Contains(t, msg, tc.want, tc.body)
		for _, goText := range []string{"json:", "Go ", "struct", "api.", "unmarshal"} {
			assert.NotContains(t, msg, goText, tc.body)
		}
	}
	// The catalogue's own compatibility route reads a schema file the same way.
	rec := do(h, http.MethodPost, "/api/schemas/demo.sensor/versions/1.0/compatibility", `{"required": 5}`)
	assert.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	assert.Contains(t, rec.Body.String(), `\"/required\" is a number, want an array`)
	assert.NotContains(t, rec.Body.String(), "Go ")
}

// TestRegistryDefaultContextPrefixIsTheSubject: ":.:" names the default
// context, the only one the catalogue has, so ":.:core.device" is
// core.device, as Confluent's registry normalizes it; another context's
// subjects are not found.
func TestRegistryDefaultContextPrefixIsTheSubject(t *testing.T) {
	h := Handler(Subjects(map[string]string{"telemetry-value": "core.device"}))
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	request := schemaRequest(t, string(device.JSON()))
	for _, subject := range []string{":.:core.device", "%3A.%3Acore.device", ":.:telemetry-value"} {
		name := strings.TrimPrefix(strings.TrimPrefix(subject, ":.:"), "%3A.%3A")
		rec := do(h, http.MethodGet, "/api/registry/subjects/"+subject+"/versions/latest", "")
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", subject, rec.Body)
		var got versionBody
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
		assert.Equal(t, name, got.Subject)
		assert.Equal(t, device.RegistryID, got.ID)
		for _, path := range []string{"/api/registry/subjects/" + subject, "/api/registry/subjects/" + subject + "/versions"} {
			assert.Equal(t, http.StatusOK, do(h, http.MethodPost, path, request).Code, path)
		}
		assert.Equal(t, http.StatusOK, do(h, http.MethodGet, "/api/registry/config/"+subject, "").Code)
	}
	rec := do(h, http.MethodGet, "/api/registry/schemas/ids/2/versions?subject=:.:telemetry-value", "")
	assert.JSONEq(t, `[{"subject":"telemetry-value","version":1}]`, rec.Body.String())
	rec = do(h, http.MethodGet, "/api/registry/subjects?subjectPrefix=:.:tele", "")
	assert.JSONEq(t, `["telemetry-value"]`, rec.Body.String())
	wantError(t, do(h, http.MethodGet, "/api/registry/subjects/:.staging:core.device/versions", ""), ErrorSubjectNotFound)
}

// TestRegistrySchemaByGUIDIsNotFound: Confluent's clients fetch a schema
// by GUID when a producer wrote one in a header; the catalogue names its
// schemas by registry id only, so every GUID is the registry's 40403,
// not a path unknown.
func TestRegistrySchemaByGUIDIsNotFound(t *testing.T) {
	msg := wantError(t, do(Handler(), http.MethodGet, "/api/registry/schemas/guids/2c6bc1b4-8bb2-4bd1-b1f4-0e0d2c5b2a4e", ""), ErrorSchemaNotFound)
	assert.Contains(t, msg, `schema "2c6bc1b4-8bb2-4bd1-b1f4-0e0d2c5b2a4e" not found`)
	assert.Contains(t, msg, "registry id")

	// Nor has a GUID ids in any context: franz-go's SchemaIDsByGUID asks
	// GET /schemas/guids/{guid}/ids, which Confluent's registry serves.
	msg = wantError(t, do(Handler(), http.MethodGet, "/api/registry/schemas/guids/2c6bc1b4-8bb2-4bd1-b1f4-0e0d2c5b2a4e/ids", ""), ErrorSchemaNotFound)
	assert.Contains(t, msg, `schema "2c6bc1b4-8bb2-4bd1-b1f4-0e0d2c5b2a4e" not found`)
}

// TestOptionsListsTheMethodsOfAPath: OPTIONS is answered 204 with the
// methods the path serves, as Confluent's registry answers it, on the
// registry's routes and on the catalogue's; a path that no route has is
// still 404.
func TestOptionsListsTheMethodsOfAPath(t *testing.T) {
	h := Handler()
	for path, allow := range map[string]string{
		"/api/registry/subjects":                         "GET, HEAD, OPTIONS",
		"/api/registry/subjects/core.device/versions":    "GET, HEAD, POST, OPTIONS",
		"/api/registry/subjects/core.device":             "POST, DELETE, OPTIONS",
		"/api/registry":                                  "GET, HEAD, POST, OPTIONS",
		"/api/schemas":                                   "GET, HEAD, OPTIONS",
		"/api/schemas/core.device/versions/1.0/validate": "OPTIONS, POST",
		"/api/schemas/core.device/versions/1.0":          "GET, HEAD, OPTIONS",
	} {
		rec := do(h, http.MethodOptions, path, "")
		assert.Equal(t, http.StatusNoContent, rec.Code, "%s: %s", path, rec.Body)
		assert.Equal(t, allow, rec.Header().Get("Allow"), path)
		assert.Empty(t, rec.Body.String(), path)
	}
	wantError(t, do(h, http.MethodOptions, "/api/registry/nothing", ""), http.StatusNotFound)
	assert.Equal(t, http.StatusNotFound, do(h, http.MethodOptions, "/api/schemas/core.nothing/versions", "").Code)
}

// blockedWriter is a ResponseWriter whose client reads nothing: Write
// blocks until unblock is closed, after telling writing.
type blockedWriter struct {
	*httptest.ResponseRecorder
	writing, unblock chan struct{}
}

func (b *blockedWriter) Write(p []byte) (int, error) {
	close(b.writing)
	<-b.unblock
	return b.ResponseRecorder.Write(p)
}

// TestNoPlaceIsHeldWhileAnAnswerIsWritten: a client that reads its
// answer slowly, or not at all, holds none of the places that bound the
// work in progress (bodies, working places, places to compare) while
// the answer is written, so that it cannot keep the others waiting.
func TestNoPlaceIsHeldWhileAnAnswerIsWritten(t *testing.T) {
	h := fixtureHandler(t)
	candidate := readFile(t, "../testdata/fixture/demo.sensor-1.1.json")
	large := strings.Repeat(" ", freeBody) // so that the body takes a place among bodies
	for _, tc := range []struct{ path, body string }{
		{"/api/registry/compatibility/subjects/demo.sensor/versions?verbose=true", schemaRequest(t, candidate)},
		{"/api/registry/compatibility/subjects/demo.sensor/versions?verbose=true", schemaRequest(t, candidate) + large},
		{"/api/schemas/demo.sensor/versions/1.0/compatibility", candidate},
		{"/api/schemas/demo.sensor/versions/1.0/compatibility", candidate + large},
		{"/api/registry/subjects/demo.sensor", schemaRequest(t, candidate)},
		{"/api/schemas/demo.sensor/versions/1.0/validate", `{}`},
		{"/api/schemas/demo.sensor/versions/1.0/validate", `{}` + large},
	} {
		w := &blockedWriter{httptest.NewRecorder(), make(chan struct{}), make(chan struct{})}
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(tc.body)))
		}()
		<-w.writing
		assert.Zero(t, len(comparing), "places to compare held while writing: %s", tc.path)
		assert.Zero(t, len(h.bodies), "body places held while writing: %s", tc.path)
		assert.Zero(t, len(h.working), "working places held while writing: %s", tc.path)
		close(w.unblock)
		<-done
		assert.NotEqual(t, http.StatusServiceUnavailable, w.Code, tc.path)
	}
}

// TestRegistryUpdatesToWhatIsSetAreAccepted: a tool that sets the level
// or the mode the registry already has (FULL_TRANSITIVE, READONLY), as
// infrastructure-as-code tools do on every run, succeeds, with the
// answer Confluent's registry gives; any other setting is read-only
// (42205), and one that is no level or mode at all is 42203 or 42204.
func TestRegistryUpdatesToWhatIsSetAreAccepted(t *testing.T) {
	h := Handler()
	for _, tc := range []struct{ path, body, want string }{
		{"/api/registry/config", `{"compatibility":"FULL_TRANSITIVE"}`, `{"compatibility":"FULL_TRANSITIVE"}`},
		{"/api/registry/config/core.device", `{"compatibility":"full_transitive"}`, `{"compatibility":"FULL_TRANSITIVE"}`},
		{"/api/registry/config/new-topic-value", `{"compatibility":"FULL_TRANSITIVE"}`, `{"compatibility":"FULL_TRANSITIVE"}`},
		{"/api/registry/mode", `{"mode":"READONLY"}`, `{"mode":"READONLY"}`},
		{"/api/registry/mode/core.device", `{"mode":"readonly"}`, `{"mode":"READONLY"}`},
	} {
		rec := do(h, http.MethodPut, tc.path, tc.body)
		require.Equal(t, http.StatusOK, rec.Code, "%s %s: %s", tc.path, tc.body, rec.Body)
		assert.JSONEq(t, tc.want, rec.Body.String(), tc.path)
	}
	for _, tc := range []struct {
		path, body string
		code       int
	}{
		{"/api/registry/config", `{"compatibility":"NONE"}`, ErrorReadOnly},
		{"/api/registry/config/core.device", `{"compatibility":"BACKWARD"}`, ErrorReadOnly},
		{"/api/registry/config", `{"compatibility":"SIDEWAYS"}`, ErrorInvalidCompatibilityLevel},
		{"/api/registry/config", `{}`, ErrorReadOnly},
		{"/api/registry/config", `{"compatibility":"FULL_TRANSITIVE","normalize":true}`, ErrorReadOnly},
		{"/api/registry/mode", `{"mode":"READWRITE"}`, ErrorReadOnly},
		{"/api/registry/mode", `{"mode":"SIDEWAYS"}`, ErrorInvalidMode},
		{"/api/registry/mode", `[]`, ErrorReadOnly},
	} {
		wantError(t, do(h, http.MethodPut, tc.path, tc.body), tc.code)
	}
}

// TestRegistryMatchesAnIDInEitherScheme: the catalogue was published
// under both http and https (decision 9), so a producer's copy of a
// schema whose $id is http://, or has its host in capitals, is the
// published schema: looked up and registered, it has the catalogue's id.
func TestRegistryMatchesAnIDInEitherScheme(t *testing.T) {
	h := Handler()
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	for _, id := range []string{
		strings.Replace(device.ID, "https://", "http://", 1),
		strings.Replace(device.ID, "https://catalogue.fleetkit.dev", "HTTPS://Catalogue.FleetKit.dev", 1),
	} {
		copied := strings.Replace(string(device.JSON()), device.ID, id, 1)
		require.NotEqual(t, string(device.JSON()), copied)
		for _, path := range []string{"/api/registry/subjects/core.device", "/api/registry/subjects/core.device/versions"} {
			rec := do(h, http.MethodPost, path, schemaRequest(t, copied))
			require.Equal(t, http.StatusOK, rec.Code, "%s %s: %s", path, id, rec.Body)
			var got versionBody
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
			assert.Equal(t, device.RegistryID, got.ID)
		}
	}
	// Another path is another schema.
	other := strings.Replace(string(device.JSON()), device.ID, device.ID+"x", 1)
	assert.Contains(t, wantError(t, do(h, http.MethodPost, "/api/registry/subjects/core.device", schemaRequest(t, other)), ErrorSchemaNotFound), `"/$id"`)
}

// TestRegistrySubjectNotFoundSaysHowToServeIt: a new user's first
// failure is a serializer's subject, telemetry-value, that nobody mapped;
// the 40401 says which subjects are served and how to serve one.
func TestRegistrySubjectNotFoundSaysHowToServeIt(t *testing.T) {
	h := Handler(Subjects(map[string]string{"telemetry-value": "core.device"}))
	msg := wantError(t, do(h, http.MethodGet, "/api/registry/subjects/orders-value/versions/latest", ""), ErrorSubjectNotFound)
	assert.Equal(t, `subject "orders-value" not found: the subjects are the schemas' names and the topic subjects given to the service (telemetry-value); serve another with msgcheck serve -subject orders-value=NAME (api.Subjects)`, msg)
}

// TestRegistryNamesAnEditedCopyApartFromThePublishedVersion: a producer
// that edits its copy of core.device keeps its $id, so the copy claims
// the version it is compared with; the report names it "the proposed
// 1.0", never "1.0 adds the member ... which 1.0 rejects".
func TestRegistryNamesAnEditedCopyApartFromThePublishedVersion(t *testing.T) {
	h := Handler()
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	edited := strings.Replace(string(device.JSON()), `"properties": {`, `"properties": {"x": {"type": "string"},`, 1)
	rec := do(h, http.MethodPost, "/api/registry/compatibility/subjects/core.device/versions/latest?verbose=true", schemaRequest(t, edited))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var answer struct{ Messages []string }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answer))
	require.Len(t, answer.Messages, 1)
	assert.Contains(t, answer.Messages[0], `the proposed 1.0 adds the member "x"`)
	assert.Contains(t, answer.Messages[0], `no message of 1.0 carries it`)
}

// TestRegisterRefusalKeepsItsReportShort: the refusal of a registration
// is an error message that clients print and log whole, so it carries
// the report's first findings only, and says where the rest are.
func TestRegisterRefusalKeepsItsReportShort(t *testing.T) {
	h := Handler()
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	var added []string
	for i := range 30 {
		added = append(added, fmt.Sprintf(`"x%d": {"type": "string"}`, i))
	}
	edited := strings.Replace(string(device.JSON()), `"properties": {`, `"properties": {`+strings.Join(added, ",")+",", 1)
	msg := wantError(t, do(h, http.MethodPost, "/api/registry/subjects/core.device/versions", schemaRequest(t, edited)), ErrorReadOnly)
	assert.Equal(t, maxRefusalFindings, strings.Count(msg, "witness:"), msg)
	assert.Contains(t, msg, "; and 20 more findings: POST /compatibility/subjects/core.device/versions?verbose=true lists them all")
}

// TestRegistrySaysHowASchemaWithoutIDNamesItself: a team's own schema
// usually has no $id; the compatibility check says how a proposed
// version names itself, rather than only that "" is not an $id.
func TestRegistrySaysHowASchemaWithoutIDNamesItself(t *testing.T) {
	h := fixtureHandler(t)
	msg := wantError(t, do(h, http.MethodPost, "/api/registry/compatibility/subjects/demo.sensor/versions", schemaRequest(t, `{"type":"object"}`)), ErrorInvalidSchema)
	assert.Equal(t, `the schema is not a catalogue schema file: it has no $id; a proposed version of demo.sensor names itself as the catalogue's files do, with "$id": "https://catalogue.fleetkit.dev/api/schemas/demo.sensor/versions/2.1" and "title": "demo.sensor"`, msg)
}
