package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/schemas"
)

// entry is one element of the JSON lists, as a client reads it.
type entry struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	ID      string `json:"id"`
	URL     string `json:"url"`
}

var handler = api.Handler()

// serve sends one request with no body to the handler; header holds
// request headers (If-None-Match may repeat).
func serve(t *testing.T, method, path string, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	return send(t, method, path, nil, header)
}

// send sends one request to the handler, with body and the headers in
// header.
func send(t *testing.T, method, path string, body io.Reader, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, body)
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	return rec
}

func entryOf(s schemas.Schema) entry {
	return entry{s.Name, s.Version, s.ID, "/api/schemas/" + s.Name + "/versions/" + s.Version}
}

func etagOf(t *testing.T, name, version string) string {
	t.Helper()
	rec := serve(t, http.MethodGet, "/api/schemas/"+name+"/versions/"+version, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	return rec.Header().Get("ETag")
}

func TestListsAreJSONOfNameVersionIDAndURL(t *testing.T) {
	var all []entry
	for _, s := range schemas.All() {
		all = append(all, entryOf(s))
	}
	require.Len(t, all, 4)

	tests := []struct {
		name, path string
		want       []entry
	}{
		{"catalogue", "/api/schemas", all},
	}
	for _, s := range schemas.All() {
		tests = append(tests, struct {
			name, path string
			want       []entry
		}{"versions of " + s.Name, "/api/schemas/" + s.Name + "/versions", []entry{entryOf(s)}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(t, http.MethodGet, tt.path, nil)
			require.Equal(t, http.StatusOK, rec.Code)
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			assert.Equal(t, strconv.Itoa(rec.Body.Len()), rec.Header().Get("Content-Length"))
			var got []entry
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestListURLsServeTheSchemas(t *testing.T) {
	var list []entry
	require.NoError(t, json.Unmarshal(serve(t, http.MethodGet, "/api/schemas", nil).Body.Bytes(), &list))
	for _, e := range list {
		rec := serve(t, http.MethodGet, e.URL, nil)
		require.Equal(t, http.StatusOK, rec.Code, e.URL)
		s, err := schemas.LookupID(e.ID)
		require.NoError(t, err)
		assert.Equal(t, s.JSON(), rec.Body.Bytes(), e.URL)
	}
}

func TestSchemaIsTheFileByteForByteWithCacheHeaders(t *testing.T) {
	etag := regexp.MustCompile(`^"[0-9a-f]{32}"$`)
	seen := map[string]string{}
	for _, s := range schemas.All() {
		t.Run(s.Name, func(t *testing.T) {
			rec := serve(t, http.MethodGet, "/api/schemas/"+s.Name+"/versions/"+s.Version, nil)
			require.Equal(t, http.StatusOK, rec.Code)
			want, err := schemas.Lookup(s.Name, s.Version)
			require.NoError(t, err)
			require.Equal(t, want.JSON(), rec.Body.Bytes())

			h := rec.Header()
			assert.Equal(t, "application/schema+json", h.Get("Content-Type"))
			assert.Equal(t, strconv.Itoa(len(want.JSON())), h.Get("Content-Length"))
			assert.Equal(t, "public, max-age=31536000, immutable", h.Get("Cache-Control"))
			assert.Regexp(t, etag, h.Get("ETag"), "a strong ETag: quoted hex, no W/")
			assert.NotContains(t, seen, h.Get("ETag"), "ETag shared with %s", seen[h.Get("ETag")])
			seen[h.Get("ETag")] = s.Name
		})
	}
}

func TestETagIsTheSameForEveryHandler(t *testing.T) {
	rec := httptest.NewRecorder()
	api.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/schemas/core.device/versions/1.0", nil))
	assert.Equal(t, etagOf(t, "core.device", "1.0"), rec.Header().Get("ETag"))
}

func TestIfNoneMatch(t *testing.T) {
	const path = "/api/schemas/core.vehicle/versions/1.0"
	etag := etagOf(t, "core.vehicle", "1.0")
	other := etagOf(t, "core.device", "1.0")

	tests := []struct {
		name   string
		values []string // If-None-Match field lines
		want   int
	}{
		{"exact", []string{etag}, http.StatusNotModified},
		{"weak form matches, comparison is weak", []string{"W/" + etag}, http.StatusNotModified},
		{"last of a list", []string{`"a", ` + etag}, http.StatusNotModified},
		{"first of a list", []string{etag + `,"b"`}, http.StatusNotModified},
		{"list with weak tags and spaces", []string{` W/"a" ,  W/` + etag + ` `}, http.StatusNotModified},
		{"list over several lines", []string{`"a"`, etag}, http.StatusNotModified},
		{"star", []string{"*"}, http.StatusNotModified},
		{"another schema's tag", []string{other}, http.StatusOK},
		{"list without ours", []string{`"a", W/"b"`, other}, http.StatusOK},
		{"unquoted", []string{etag[1 : len(etag)-1]}, http.StatusOK},
		{"empty", []string{""}, http.StatusOK},
		{"malformed before ours", []string{`"a" junk, ` + etag}, http.StatusOK},
	}
	for _, tt := range tests {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			t.Run(tt.name+"/"+method, func(t *testing.T) {
				rec := serve(t, method, path, http.Header{"If-None-Match": tt.values})
				require.Equal(t, tt.want, rec.Code)
				assert.Equal(t, etag, rec.Header().Get("ETag"))
				assert.Equal(t, "public, max-age=31536000, immutable", rec.Header().Get("Cache-Control"))
				if tt.want == http.StatusNotModified {
					assert.Empty(t, rec.Body.Bytes())
					assert.Empty(t, rec.Header().Get("Content-Type"))
					assert.Empty(t, rec.Header().Get("Content-Length"))
				}
			})
		}
	}
}

func TestHeadHasTheHeadersOfGetAndNoBody(t *testing.T) {
	for _, path := range []string{
		"/api/schemas",
		"/api/schemas/example.event/versions",
		"/api/schemas/example.event/versions/1.0",
	} {
		t.Run(path, func(t *testing.T) {
			get := serve(t, http.MethodGet, path, nil)
			head := serve(t, http.MethodHead, path, nil)
			require.Equal(t, http.StatusOK, head.Code)
			assert.Empty(t, head.Body.Bytes())
			assert.Equal(t, get.Header(), head.Header())
			assert.Equal(t, strconv.Itoa(get.Body.Len()), head.Header().Get("Content-Length"))
		})
	}
}

// TestHeadOverTheWire checks that a real server sends HEAD's Content-Length.
func TestHeadOverTheWire(t *testing.T) {
	srv := httptest.NewServer(handler)
	defer srv.Close()
	resp, err := srv.Client().Head(srv.URL + "/api/schemas/core.association/versions/1.0")
	require.NoError(t, err)
	defer resp.Body.Close()
	s, err := schemas.Lookup("core.association", "1.0")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, int64(len(s.JSON())), resp.ContentLength)
}

func TestNotFoundIsJSON(t *testing.T) {
	tests := []struct {
		name, path, msg string
	}{
		{"versions of an unknown schema", "/api/schemas/core.nope/versions", `unknown schema "core.nope"; known schemas: core.association, core.device, core.vehicle, example.event`},
		{"unknown schema", "/api/schemas/core.nope/versions/1.0", `unknown schema "core.nope"; known schemas: core.association, core.device, core.vehicle, example.event`},
		{"unknown version", "/api/schemas/core.device/versions/9.9", `unknown schema "core.device" version "9.9"; versions of core.device: 1.0`},
		{"names are case-sensitive", "/api/schemas/CORE.DEVICE/versions/1.0", `unknown schema "CORE.DEVICE"; known schemas: core.association, core.device, core.vehicle, example.event`},
		{"no latest: a route names its version", "/api/schemas/core.device/versions/latest", `unknown schema "core.device" version "latest"; versions of core.device: 1.0`},
		{"unknown path", "/api/nope", "no such resource: /api/nope"},
		{"api root", "/api/", "no such resource: /api/; the catalogue is at GET /api/schemas, the schema-registry protocol under /api/registry"},
		{"api without its slash", "/api", "no such resource: /api; the catalogue is at GET /api/schemas, the schema-registry protocol under /api/registry"},
		{"a schema without versions", "/api/schemas/core.device", "no such resource: /api/schemas/core.device; a schema's versions are at GET /api/schemas/{name}/versions"},
		{"trailing slash", "/api/schemas/", "no such resource: /api/schemas/"},
		{"escaped slash", "/api/schemas/core.device%2Fversions/1.0", "no such resource: /api/schemas/core.device%2Fversions/1.0"},
		{"empty version", "/api/schemas/core.device/versions/", "no such resource: /api/schemas/core.device/versions/"},
		{"below a schema", "/api/schemas/core.device/versions/1.0/extra", "no such resource: /api/schemas/core.device/versions/1.0/extra"},
		{"below validate", "/api/schemas/core.device/versions/1.0/validate/extra", "no such resource: /api/schemas/core.device/versions/1.0/validate/extra"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(t, http.MethodGet, tt.path, nil)
			require.Equal(t, http.StatusNotFound, rec.Code)
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			assert.Empty(t, rec.Header().Get("ETag"))
			assert.Empty(t, rec.Header().Get("Cache-Control"))
			assert.JSONEq(t, string(mustJSON(t, map[string]string{"error": tt.msg})), rec.Body.String())
		})
	}
}

// TestUnknownSchemaIs404BeforeAny405: no method would find what the path
// names, so a client is told that first, not that it might try another
// method.
func TestUnknownSchemaIs404BeforeAny405(t *testing.T) {
	tests := []struct{ method, path, msg string }{
		{http.MethodGet, "/api/schemas/core.device/versions/9.9/validate", `unknown schema "core.device" version "9.9"; versions of core.device: 1.0`},
		{http.MethodPut, "/api/schemas/core.nope/versions/1.0/validate", `unknown schema "core.nope"; known schemas: core.association, core.device, core.vehicle, example.event`},
		{http.MethodPost, "/api/schemas/core.nope/versions/1.0", `unknown schema "core.nope"; known schemas: core.association, core.device, core.vehicle, example.event`},
		{http.MethodPost, "/api/schemas/core.device/versions/9.9", `unknown schema "core.device" version "9.9"; versions of core.device: 1.0`},
		{http.MethodDelete, "/api/schemas/core.nope/versions", `unknown schema "core.nope"; known schemas: core.association, core.device, core.vehicle, example.event`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rec := serve(t, tt.method, tt.path, nil)
			require.Equal(t, http.StatusNotFound, rec.Code)
			assert.Empty(t, rec.Header().Get("Allow"))
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			assert.JSONEq(t, string(mustJSON(t, map[string]string{"error": tt.msg})), rec.Body.String())
		})
	}
}

func TestOtherMethodsAre405WithAllow(t *testing.T) {
	paths := []string{
		"/api/schemas",
		"/api/schemas/core.device/versions",
		"/api/schemas/core.device/versions/1.0",
	}
	methods := []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch}
	testMethodNotAllowed(t, paths, methods, "GET, HEAD, OPTIONS")
}

// testMethodNotAllowed checks that each of methods on each of paths is
// answered 405, with the route's methods, allow, in Allow and, but to
// HEAD, in the JSON error.
func testMethodNotAllowed(t *testing.T, paths, methods []string, allow string) {
	t.Helper()
	for _, path := range paths {
		for _, method := range methods {
			t.Run(method+" "+path, func(t *testing.T) {
				rec := serve(t, method, path, nil)
				require.Equal(t, http.StatusMethodNotAllowed, rec.Code)
				assert.Equal(t, allow, rec.Header().Get("Allow"))
				assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
				if method != http.MethodHead {
					assert.JSONEq(t, string(mustJSON(t, map[string]string{
						"error": "method " + method + " not allowed: use " + allow,
					})), rec.Body.String())
				}
			})
		}
	}
}

func TestMountedBesideOtherRoutes(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/api/", api.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for path, want := range map[string]int{
		"/healthz":                              http.StatusOK,
		"/api/schemas":                          http.StatusOK,
		"/api/schemas/core.device/versions/1.0": http.StatusOK,
		"/api/nope":                             http.StatusNotFound,
	} {
		resp, err := srv.Client().Get(srv.URL + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, path)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
