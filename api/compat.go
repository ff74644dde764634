package api

import (
	"fmt"
	"net/http"
	"runtime"
	"time"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/schemas"
)

// MaxSchemaBytes is the largest candidate schema the compatibility route
// reads; a larger one is answered 413 Content Too Large. The published
// schemas are a few kilobytes.
const MaxSchemaBytes = 128 << 10

// comparing holds a place for each comparison under way. A comparison
// takes CPU in proportion to its schemas (up to about a second at
// MaxSchemaBytes), so the process runs at most one per CPU at once,
// keeping the other routes, and its other clients, served. It is the
// process's, like its CPUs.
var comparing = make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))

// compareWait is how long a comparison waits for one of comparing's
// places before it is answered 503. A check of one of the catalogue's
// schemas takes a few milliseconds, so a burst of them from many clients
// at once, as a CI pipeline's parallel jobs send, is answered whole
// after a short wait, as a registry answers it; only a flood of large
// schemas is turned away. (Refusing at once also misled Confluent's Go
// client, which retries a 503 with the body it has already sent, that
// is with none, and reported the registry's answer to that.) Tests
// shorten it.
var compareWait = 5 * time.Second

// answerFunc writes an error answer in a route's format: writeError's
// for the catalogue's routes, registryError's for the registry's.
type answerFunc func(w http.ResponseWriter, r *http.Request, status int, text string)

// startComparing takes one of comparing's places for the request,
// waiting up to compareWait for one. When none frees, or the client has
// gone, it answers 503 with Retry-After through answer and returns
// false. Otherwise the caller must call release once it has compared.
func startComparing(w http.ResponseWriter, r *http.Request, answer answerFunc) (release func(), ok bool) {
	release = func() { <-comparing }
	select {
	case comparing <- struct{}{}:
		return release, true
	default:
	}
	wait := time.NewTimer(compareWait)
	defer wait.Stop()
	select {
	case comparing <- struct{}{}:
		return release, true
	case <-wait.C:
	case <-r.Context().Done():
	}
	w.Header().Set("Retry-After", retryAfter)
	answer(w, r, http.StatusServiceUnavailable, "busy comparing other schemas: retry later")
	return nil, false
}

// queryBool returns the value of the request's query parameter name,
// true or false, false when absent; for any other value it answers 400
// through answer and returns ok false.
func queryBool(w http.ResponseWriter, r *http.Request, name string, answer answerFunc) (value, ok bool) {
	switch q := r.URL.Query().Get(name); q {
	case "", "false":
		return false, true
	case "true":
		return true, true
	default:
		answer(w, r, http.StatusBadRequest, fmt.Sprintf("%s %q is not true or false", name, q))
		return false, false
	}
}

// compatibility serves POST
// /api/schemas/{name}/versions/{version}/compatibility: the request body
// is a candidate schema file, a proposed version of the named schema, and
// the answer is compat's report on it against that version, as JSON (see
// compat.Report.MarshalJSON): 200 whether compatible or not. The query
// may set mode (full, the default, backward or forward) and strict
// (true or false). A body that is not a schema file of this name the
// checker can read is answered 422, with the reason. The body takes a
// place among the handler's bodies while it is held, as on the validation
// route (see MaxBodies), and the comparison one of comparing's: when the
// bodies' are full the answer is 503 with Retry-After at once, and when
// comparing's are, after compareWait.
func (h *handler) compatibility(w http.ResponseWriter, r *http.Request) {
	name, _, f, ok := h.file(w, r)
	if !ok {
		return
	}
	opt := compat.Options{Mode: compat.Full}
	q := r.URL.Query()
	if m := q.Get("mode"); m != "" {
		mode, err := compat.ParseMode(m)
		if err != nil {
			writeError(w, r, http.StatusBadRequest, fmt.Sprintf("mode %q is not full, backward or forward", m))
			return
		}
		opt.Mode = mode
	}
	if opt.Strict, ok = queryBool(w, r, "strict", writeError); !ok {
		return
	}

	// A body held, read or being read, takes a place among the handler's
	// bodies, as on the validation route: memory stays bounded.
	body, release, ok := h.readBody(w, r, MaxSchemaBytes, "schema", "too many requests are being answered", writeError)
	if !ok {
		return
	}
	status, answer, ok := h.compare(w, r, f, name, body, opt)
	release() // before writing, which a slow reader may hold up
	if ok {
		writeJSON(w, r, status, answer)
	}
}

// compare returns the status and body of the compatibility route's
// answer on the candidate schema file body, proposed as a version of the
// schema name, against the file f, once it has one of comparing's places
// (see startComparing, which answers the request itself and returns ok
// false when it has none).
func (h *handler) compare(w http.ResponseWriter, r *http.Request, f file, name string, body []byte, opt compat.Options) (status int, answer []byte, ok bool) {
	// Only then a place to compute, so that a slow client holds none.
	done, ok := startComparing(w, r, writeError)
	if !ok {
		return 0, nil, false
	}
	defer done()
	fail := func(status int, text string) (int, []byte, bool) {
		return status, errorBody(text), true
	}
	candidate, err := schemas.Parse(body)
	if err != nil {
		return fail(http.StatusUnprocessableEntity, "not a schema file: "+inJSONTerms("it", body, err))
	}
	if candidate.Name != name {
		return fail(http.StatusUnprocessableEntity, fmt.Sprintf("the schema is %q, not %q", candidate.Name, name))
	}
	old, err := schemas.Parse(f.data)
	if err != nil {
		// The catalogue's own file: Load read it the same way.
		return fail(http.StatusInternalServerError, err.Error())
	}
	report, err := compat.Compare(old, candidate, opt)
	if err != nil {
		return fail(http.StatusUnprocessableEntity, err.Error())
	}
	data, err := encode(report)
	if err != nil {
		return fail(http.StatusInternalServerError, err.Error())
	}
	return http.StatusOK, data, true
}
