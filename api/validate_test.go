package api_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/internal/casetable"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// verdict is the body of a validation answer, as a client reads it.
type verdict struct {
	Valid      bool        `json:"valid"`
	Violations []violation `json:"violations"`
}

type violation struct {
	Path    string `json:"path"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
	Value   string `json:"value"`
}

// A valid message of each schema.
var validMessages = map[string]string{
	"core.device":      `{"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","message_type":"core.device","source_id":"dev-1","source_type":"tracker","tenant_id":"club-1","time":"2026-03-01T08:00:00Z","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","external_id":"ext-1","imei":"490154203237518"}`,
	"core.vehicle":     `{"message_id":"2d3f8c74-5e69-4b2a-8a3f-9c8e7d6a5b43","message_type":"core.vehicle","source_id":"7b2e5c7a-0b7d-4e3a-9c5b-2f4d9e1a3c66","source_type":"CORE","tenant_id":"club-1","time":"2026-03-01T08:00:10Z","vehicle_id":"7b2e5c7a-0b7d-4e3a-9c5b-2f4d9e1a3c66","meta":{"fleet":null}}`,
	"core.association": `{"message_id":"3e4a9d85-6f7a-4c3b-9b4a-ad9f8e7b6c54","source_id":"dev-1","tenant_id":"club-1","time":"2026-03-01T08:00:15Z","association_id":"8c3f6d8b-1c8e-4f4b-8d6c-3a5e0f2b4d77","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","tags":null}`,
	"example.event":    `{"id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65","type":"created","occurred_at":"2026-03-01T08:00:20Z","priority":9}`,
}

func validatePath(name, version string) string {
	return "/api/schemas/" + name + "/versions/" + version + "/validate"
}

// post sends body to the handler; a nil body is an empty one.
func post(t *testing.T, path string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	return send(t, http.MethodPost, path, body, nil)
}

// verdictOf checks that rec is a JSON answer and decodes it.
func verdictOf(t *testing.T, rec *httptest.ResponseRecorder) verdict {
	t.Helper()
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.Equal(t, strconv.Itoa(rec.Body.Len()), rec.Header().Get("Content-Length"))
	var v verdict
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v), rec.Body.String())
	return v
}

func TestValidateAValidMessageIs200ValidTrue(t *testing.T) {
	for _, s := range schemas.All() {
		t.Run(s.Name, func(t *testing.T) {
			rec := post(t, validatePath(s.Name, s.Version), strings.NewReader(validMessages[s.Name]))
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			verdictOf(t, rec)
			assert.JSONEq(t, `{"schema":"`+s.Name+`","version":"`+s.Version+`","valid":true}`, rec.Body.String())
		})
	}
}

func TestValidateAnInvalidMessageIs422WithEveryViolation(t *testing.T) {
	body := `{"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","message_type":"core.device","source_id":"dev-1","source_type":"tracker","tenant_id":"club-1","time":"2026-03-01T08:00:00","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","imei":"490154203237519"}`
	rec := post(t, validatePath("core.device", "1.0"), strings.NewReader(body))
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	verdictOf(t, rec)
	assert.JSONEq(t, `{"schema":"core.device","version":"1.0","valid":false,"violations":[
		{"path":"/time","rule":"format","message":"not a date-time: want 'Z' or an offset +hh:mm or -hh:mm after the time","value":"\"2026-03-01T08:00:00\""},
		{"path":"/imei","rule":"imei","message":"not an IMEI: check digit is 9, want 8","value":"\"490154203237519\""},
		{"path":"/external_id","rule":"required","message":"required member is missing"}
	]}`, rec.Body.String(), "a missing member has no value")
}

func TestValidateJudgesByThePathNotByMessageType(t *testing.T) {
	// A valid event, posted to core.device's route, is judged as a device.
	rec := post(t, validatePath("core.device", "1.0"), strings.NewReader(validMessages["example.event"]))
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	var rules []string
	for _, v := range verdictOf(t, rec).Violations {
		rules = append(rules, v.Rule)
	}
	assert.Contains(t, rules, "required")
}

func TestValidateMalformedBodiesAre422(t *testing.T) {
	tests := []struct {
		name, body string
		want       violation
	}{
		{"empty", "", violation{Rule: "syntax"}},
		{"truncated", `{"id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65",`, violation{Rule: "syntax"}},
		{"not an object", `[1]`, violation{Rule: "type", Value: "[1]"}},
		{"two documents", validMessages["example.event"] + validMessages["example.event"], violation{Rule: "syntax"}},
		{"invalid UTF-8", `{"id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65","type":"created","occurred_at":"2026-03-01T08:00:20Z","x":"` + "\xff" + `"}`, violation{Path: "/x", Rule: "syntax"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(t, validatePath("example.event", "1.0"), strings.NewReader(tt.body))
			require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
			v := verdictOf(t, rec)
			require.False(t, v.Valid)
			require.NotEmpty(t, v.Violations)
			last := v.Violations[len(v.Violations)-1] // a syntax error stops decoding: it is last
			assert.Equal(t, tt.want.Path, last.Path)
			assert.Equal(t, tt.want.Rule, last.Rule)
			assert.Equal(t, tt.want.Value, last.Value)
			assert.NotEmpty(t, last.Message)
		})
	}
}

// TestValidateGivesTheLibrarysVerdict posts every message of the case table
// and checks that the route answers exactly what catalogue.DecodeAs says,
// violation for violation, and what the table says.
func TestValidateGivesTheLibrarysVerdict(t *testing.T) {
	files, err := filepath.Glob("../schemas/testdata/cases/*.ndjson")
	require.NoError(t, err)
	require.Len(t, files, 4)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".ndjson")
		t.Run(name, func(t *testing.T) {
			for _, c := range casetable.Read(t, filepath.Dir(file), name) {
				rec := post(t, validatePath(name, "1.0"), bytes.NewReader(c.Message))
				got := verdictOf(t, rec)
				_, err := catalogue.DecodeAs(name, "1.0", c.Message)
				var want verdict
				if err == nil {
					want.Valid = true
					require.Equal(t, http.StatusOK, rec.Code, c.Note)
				} else {
					var e *msg.Error
					require.True(t, errors.As(err, &e), c.Note)
					require.Equal(t, http.StatusUnprocessableEntity, rec.Code, c.Note)
					for _, v := range e.Violations {
						want.Violations = append(want.Violations, violation{v.Path, string(v.Rule), v.Message, v.Value})
					}
				}
				require.Equal(t, want, got, c.Note)
				require.Equal(t, c.Valid, got.Valid, c.Note)
			}
		})
	}
}

// padded returns a valid event followed by white space up to n bytes.
func padded(t *testing.T, n int) []byte {
	t.Helper()
	m := validMessages["example.event"]
	require.Less(t, len(m), n)
	return []byte(m + strings.Repeat(" ", n-len(m)))
}

// unsized hides the length of r, as a chunked request body does.
type unsized struct{ io.Reader }

func TestValidateBodySizeLimit(t *testing.T) {
	tests := []struct {
		name string
		body io.Reader
		want int
	}{
		{"exactly 1 MiB", bytes.NewReader(padded(t, 1<<20)), http.StatusOK},
		{"exactly 1 MiB, length unknown", unsized{bytes.NewReader(padded(t, 1<<20))}, http.StatusOK},
		{"1 MiB and a byte", bytes.NewReader(padded(t, 1<<20+1)), http.StatusRequestEntityTooLarge},
		{"1 MiB and a byte, length unknown", unsized{bytes.NewReader(padded(t, 1<<20+1))}, http.StatusRequestEntityTooLarge},
		{"8 MiB", bytes.NewReader(padded(t, 8<<20)), http.StatusRequestEntityTooLarge},
	}
	require.Equal(t, 1<<20, api.MaxMessageBytes)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(t, validatePath("example.event", "1.0"), tt.body)
			require.Equal(t, tt.want, rec.Code, rec.Body.String())
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			if tt.want == http.StatusRequestEntityTooLarge {
				assert.JSONEq(t, `{"error":"the message is larger than 1048576 bytes"}`, rec.Body.String())
			}
		})
	}
}

// TestValidateTooLargeOverTheWire checks that a real server answers 413 to
// a large body, sized or chunked, rather than reading it all or hanging.
func TestValidateTooLargeOverTheWire(t *testing.T) {
	srv := httptest.NewServer(handler)
	defer srv.Close()
	for _, body := range []io.Reader{
		bytes.NewReader(padded(t, 4<<20)),
		unsized{bytes.NewReader(padded(t, 4<<20))},
	} {
		resp, err := srv.Client().Post(srv.URL+validatePath("example.event", "1.0"), "application/json", body)
		require.NoError(t, err)
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
		assert.JSONEq(t, `{"error":"the message is larger than 1048576 bytes"}`, string(got))
	}
}

func TestValidateUnknownSchemaOrVersionIs404(t *testing.T) {
	tests := []struct {
		name, schema, version, msg string
	}{
		{"unknown schema", "core.nope", "1.0", `unknown schema "core.nope"; known schemas: core.association, core.device, core.vehicle, example.event`},
		{"unknown version", "core.device", "9.9", `unknown schema "core.device" version "9.9"; versions of core.device: 1.0`},
		{"names are case-sensitive", "CORE.DEVICE", "1.0", `unknown schema "CORE.DEVICE"; known schemas: core.association, core.device, core.vehicle, example.event`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(t, validatePath(tt.schema, tt.version), strings.NewReader(validMessages["core.device"]))
			require.Equal(t, http.StatusNotFound, rec.Code)
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			assert.JSONEq(t, string(mustJSON(t, map[string]string{"error": tt.msg})), rec.Body.String())
		})
	}
}

func TestValidateOtherMethodsAre405WithAllowPost(t *testing.T) {
	paths := []string{
		validatePath("core.device", "1.0"),
	}
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodPatch}
	testMethodNotAllowed(t, paths, methods, "OPTIONS, POST")
}

// TestValidateTheREADMEExample pins the answer the README shows for
// testdata/device.json.
func TestValidateTheREADMEExample(t *testing.T) {
	body, err := os.ReadFile("../testdata/device.json")
	require.NoError(t, err)
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	rec := post(t, validatePath("core.device", "1.0"), bytes.NewReader(body))
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	assert.True(t, bytes.Contains(readme, []byte("HTTP/1.1 422 Unprocessable Entity\n")))
	assert.True(t, bytes.Contains(readme, append([]byte("\n"), rec.Body.Bytes()...)), "the README shows %s", rec.Body.String())
}

// TestValidateWritesTheVerdictWithoutHTMLEscapes pins that a value with
// '<' and '&' is answered as it is, not as \u003c and \u0026.
func TestValidateWritesTheVerdictWithoutHTMLEscapes(t *testing.T) {
	body := strings.Replace(validMessages["example.event"], `"created"`, `"<b>&"`, 1)
	require.NotEqual(t, validMessages["example.event"], body)
	rec := post(t, validatePath("example.event", "1.0"), strings.NewReader(body))
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"value":"\"<b>&\""`)
	assert.NotContains(t, rec.Body.String(), `\u003c`)
}
