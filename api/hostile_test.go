package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/internal/hostile"
	"github.com/fleetkit/catalogue/msg"
)

// TestValidateAnswerIsSmallForAnyBody: the answer to a body of a mebibyte
// is at most 64 KiB, however many violations it holds (issue 12: 47 MB
// before), and says how many it leaves out.
func TestValidateAnswerIsSmallForAnyBody(t *testing.T) {
	for _, m := range hostile.Messages() {
		t.Run(m.Name, func(t *testing.T) {
			rec := post(t, validatePath(m.Schema, "1.0"), bytes.NewReader(m.Body))
			require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "%.200s", rec.Body.String())
			assert.LessOrEqual(t, rec.Body.Len(), 64<<10)
			v := verdictOf(t, rec)
			assert.NotEmpty(t, v.Violations)
			assert.LessOrEqual(t, len(v.Violations), msg.MaxViolations)
		})
	}
}

func TestValidateSaysHowManyViolationsItOmits(t *testing.T) {
	body := strings.Replace(validMessages["core.association"], `"tags":null`, `"tags":[1`+strings.Repeat(",1", 149)+`]`, 1)
	rec := post(t, validatePath("core.association", "1.0"), strings.NewReader(body))
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	var got struct {
		Violations []violation `json:"violations"`
		Omitted    int         `json:"omitted"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	assert.Len(t, got.Violations, msg.MaxViolations)
	assert.Equal(t, 50, got.Omitted)

	rec = post(t, validatePath("core.device", "1.0"), strings.NewReader(`{}`))
	assert.NotContains(t, rec.Body.String(), "omitted", "absent when nothing is omitted")
}

// blockingBody is a request body that blocks, once it has been read from,
// until it is released: a client still sending its message.
type blockingBody struct {
	reading chan struct{} // closed at the first Read
	release chan struct{}
	once    bool
}

func (b *blockingBody) Read(p []byte) (int, error) {
	if !b.once {
		b.once = true
		close(b.reading)
	}
	<-b.release
	return 0, io.EOF
}

func TestValidateBeyondMaxBodiesIs503WithRetryAfter(t *testing.T) {
	h := api.Handler(api.MaxBodies(2))
	path := validatePath("core.device", "1.0")
	var held []*blockingBody
	done := make(chan int, 2)
	for range 2 {
		b := &blockingBody{reading: make(chan struct{}), release: make(chan struct{})}
		held = append(held, b)
		go func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, b))
			done <- rec.Code
		}()
		<-b.reading
	}

	// A body larger than a message usually is needs a place; a small one,
	// its length announced, does not (TestSlowClientsDoNotStarveTheValidationRoute).
	large := validMessages["core.device"] + strings.Repeat(" ", 16<<10)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(large)))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.JSONEq(t, `{"error":"too many messages are being judged: retry later"}`, rec.Body.String())

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/schemas", nil))
	assert.Equal(t, http.StatusOK, rec.Code, "the other routes are still served")

	for _, b := range held {
		close(b.release)
		assert.Equal(t, http.StatusUnprocessableEntity, <-done, "an empty body")
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(large)))
	assert.Equal(t, http.StatusOK, rec.Code, "a body is let in again once one is answered")
}

func TestDefaultMaxBodiesIsSizedToTheMachine(t *testing.T) {
	assert.GreaterOrEqual(t, api.DefaultMaxBodies(), 16)
}

// rawRequest sends text on a new connection to srv, then waits for the
// answer, closing the sending side first if closeWrite.
func rawRequest(t *testing.T, srv *httptest.Server, text string, closeWrite bool) (*http.Response, string) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, text)
	require.NoError(t, err)
	if closeWrite {
		require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	}
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

// TestUnreadableBodiesAreNamedNotDumped: the answer to a body that could
// not be read says what went wrong, not the socket's addresses (issue 12:
// "read tcp 127.0.0.1:PORT->127.0.0.1:PORT: i/o timeout").
func TestUnreadableBodiesAreNamedNotDumped(t *testing.T) {
	srv := httptest.NewUnstartedServer(api.Handler())
	srv.Config.ReadTimeout = 300 * time.Millisecond
	srv.Start()
	defer srv.Close()
	head := "POST " + validatePath("core.device", "1.0") + " HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"message_id\":"

	resp, body := rawRequest(t, srv, head, false) // and then nothing: the server times out
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	assert.JSONEq(t, `{"error":"the request body could not be read: timed out"}`, body)

	resp, body = rawRequest(t, srv, head, true) // and then the end
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.JSONEq(t, `{"error":"the request body could not be read: it ended before its announced length"}`, body)
	for _, leak := range []string{"tcp", "127.0.0.1", "EOF", "i/o"} {
		assert.NotContains(t, body, leak)
	}
}

// TestEveryPathIsAnsweredInJSON: nothing the handler answers is HTML or
// plain text, whether it is the server's handler (as in msgcheck serve)
// or mounted at /api/ as the package documentation shows.
func TestEveryPathIsAnsweredInJSON(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/api/", api.Handler())
	others := http.NewServeMux()
	others.HandleFunc("GET /healthz", func(http.ResponseWriter, *http.Request) {})
	servers := map[string]http.Handler{
		"the server's handler":     api.Handler(),
		"in front of other routes": api.Handler(api.Fallback(others)),
		"mounted at /api/":         mux,
	}
	paths := map[string]bool{ // and whether a mux in front lets it through
		"/api/schemas/../../etc/passwd":            false,
		"//api/schemas":                            false,
		"/api//schemas":                            false,
		"/api/schemas/./core.device/versions":      false,
		"/api/schemas/core.device/versions/1.0/..": false,
		"/API/schemas":                             false,
		"/":                                        false,
		"/api/schemas/core.device/versions/1.0/validate/": true,
		"/api/nope": true,
	}
	for where, h := range servers {
		srv := httptest.NewServer(h)
		for path, through := range paths {
			if where == "mounted at /api/" && !through {
				continue // the mux in front answers it; see the package documentation
			}
			if where == "in front of other routes" && path == "/" {
				continue // not the API's: the fallback's
			}
			t.Run(where+" "+path, func(t *testing.T) {
				for _, method := range []string{http.MethodGet, http.MethodPost} {
					// Sent on a connection of its own, as it is: a
					// client would clean it, or send "//api" as a host.
					resp, body := rawRequest(t, srv, method+" "+path+" HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", false)
					assert.Equal(t, http.StatusNotFound, resp.StatusCode, method)
					assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), method)
					assert.JSONEq(t, fmt.Sprintf(`{"error":%q}`, "no such resource: "+path), body, method)
				}
			})
		}
		srv.Close()
	}
}

func TestFallbackServesThePathsThatAreNotTheAPIs(t *testing.T) {
	others := http.NewServeMux()
	others.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	srv := httptest.NewServer(api.Handler(api.Fallback(others)))
	defer srv.Close()
	for path, want := range map[string]string{
		"/healthz":      "200 ok",
		"/api/schemas":  "200 application/json",
		"/apix":         "404 text/plain; charset=utf-8", // the fallback's own answer
		"/healthz/../x": "307 text/html; charset=utf-8",  // not clean, but not the API's: the fallback's mux redirects it
	} {
		resp, body := rawRequest(t, srv, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n", false)
		got := fmt.Sprint(resp.StatusCode, " ", resp.Header.Get("Content-Type"))
		if resp.StatusCode == http.StatusOK && path == "/healthz" {
			got = fmt.Sprint(resp.StatusCode, " ", body)
		}
		assert.Equal(t, want, got, path)
	}
}

// TestRegistryPathsThatAreNotCleanAnswerInItsBody: a path under the
// registry with an empty, "." or ".." segment, as sent or once decoded,
// is 404 in the protocol's error body, which its clients read, not in
// the catalogue's.
func TestRegistryPathsThatAreNotCleanAnswerInItsBody(t *testing.T) {
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	for _, path := range []string{
		"/api/registry//subjects",
		"/api/registry/subjects//versions",
		"/api/registry/subjects/%2E%2E/versions",
		"/api/registry/subjects/./versions",
		"/api/registry/subjects/core.device/versions/1/schema//",
	} {
		resp, body := rawRequest(t, srv, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n", false)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
		assert.Equal(t, "application/vnd.schemaregistry.v1+json", resp.Header.Get("Content-Type"), path)
		assert.JSONEq(t, fmt.Sprintf(`{"error_code":404,"message":%q}`, "no such resource: "+path), body, path)
	}
}

// TestRegistrySubjectsCannotForgeHeadersOrBodies: a subject holding a
// line end, a quote or bytes that are not UTF-8, however encoded, is a
// subject not found, named inside the JSON string of the message, and
// never reaches a header.
func TestRegistrySubjectsCannotForgeHeadersOrBodies(t *testing.T) {
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	for _, subject := range []string{"x%0D%0AX-Forged:%201", "%FF%FE", "a%22%2C%22error_code%22:200", "%E2%80%A8"} {
		resp, body := rawRequest(t, srv, "GET /api/registry/subjects/"+subject+"/versions HTTP/1.1\r\nHost: x\r\n\r\n", false)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, subject)
		assert.Empty(t, resp.Header.Get("X-Forged"), subject)
		var e struct {
			Code    int    `json:"error_code"`
			Message string `json:"message"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &e), subject)
		assert.Equal(t, api.ErrorSubjectNotFound, e.Code, subject)
		assert.True(t, utf8.ValidString(body), subject)
		assert.NotContains(t, body, "\u2028", subject)
		assert.Equal(t, 1, strings.Count(body, "\n"), "one line: %q", body)
	}
}

// TestSlowClientsDoNotStarveTheValidationRoute: clients that announce a
// message of ordinary size and then send it slowly, more of them than
// there are places for bodies, hold none: a producer's message is still
// judged at once, as the registry's small requests are.
func TestSlowClientsDoNotStarveTheValidationRoute(t *testing.T) {
	srv := httptest.NewServer(api.Handler(api.MaxBodies(2)))
	t.Cleanup(srv.Close)
	path := validatePath("core.device", "1.0")
	for range 4 {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close() })
		// Its headers, and one byte of its 500.
		_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{", path)
		require.NoError(t, err)
	}
	time.Sleep(100 * time.Millisecond) // for the server to read their headers
	for range 3 {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(validMessages["core.device"]))
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	}
}
