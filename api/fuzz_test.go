package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRegistry sends the registry any method, path, query and body: it
// never panics and never fails (5xx but a 503 when busy), and every
// answer is the protocol's JSON in its media type, an error in its
// error body with the status its code stands for.
func FuzzRegistry(f *testing.F) {
	data, err := os.ReadFile("../schemas/core.device-1.0.json")
	if err != nil {
		f.Fatal(err)
	}
	device := `{"schema":` + strconv.Quote(string(data)) + `,"schemaType":"JSON"}`
	for _, seed := range []struct{ method, path, body string }{
		{"GET", "/subjects", ""},
		{"GET", "/subjects/core.device/versions/latest?deleted=true", ""},
		{"GET", "/schemas/ids/2?fetchMaxId=true", ""},
		{"POST", "/subjects/core.device", device},
		{"POST", "/subjects/telemetry-value/versions?normalize=true", device},
		{"POST", "/compatibility/subjects/core.device/versions/latest?verbose=true", device},
		{"PUT", "/config/core.device", `{"compatibility":"FULL_TRANSITIVE"}`},
		{"PUT", "/mode", `{"mode":"x"}`},
		{"DELETE", "/subjects/core.device/versions/1", ""},
		{"OPTIONS", "/subjects/:.:core.device/versions", ""},
		{"GET", "/subjects/%3A.%3Atelemetry-value/versions/%20LATEST", ""},
		{"POST", "/subjects/core.device", `{"schema":"[]","schemaType":"JSON","references":{}}`},
		{"GET", "/contexts/.staging/subjects/core.device/versions/latest", ""},
		{"GET", "/contexts/st%2Fg/schemas/ids/2?subject=core.device", ""},
		{"PUT", "/contexts/./config", `{"compatibility":"FULL_TRANSITIVE"}`},
	} {
		f.Add(seed.method, seed.path, seed.body)
	}
	h := Handler(Subjects(map[string]string{"telemetry-value": "core.device"}))
	f.Fuzz(func(t *testing.T, method, path, body string) {
		u, err := url.Parse(RegistryPath + "/" + strings.TrimPrefix(path, "/"))
		if err != nil || !validMethod(method) {
			return // no client can send it
		}
		req := httptest.NewRequest(http.MethodGet, "/", strings.NewReader(body))
		req.Method, req.URL, req.RequestURI = method, u, u.RequestURI()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("%s %s: %d %s", method, u, rec.Code, rec.Body)
		}
		if rec.Code == http.StatusNoContent || method == http.MethodHead {
			return
		}
		if ct := rec.Header().Get("Content-Type"); ct != registryContentType {
			t.Fatalf("%s %s: Content-Type %q", method, u, ct)
		}
		if !utf8.Valid(rec.Body.Bytes()) || !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %s: not JSON: %q", method, u, rec.Body)
		}
		if rec.Code >= 400 {
			var e registryErr
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Message == "" || (e.Code != rec.Code && e.Code/100 != rec.Code) {
				t.Fatalf("%s %s: %d with %s", method, u, rec.Code, rec.Body)
			}
		}
	})
}

// validMethod reports whether m is a token, as an HTTP method must be.
func validMethod(m string) bool {
	return m != "" && !strings.ContainsFunc(m, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	})
}
