package api

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// MaxMessageBytes is the largest request body the validation route judges;
// a larger one is answered 413 Content Too Large.
const MaxMessageBytes = 1 << 20

// Handler returns the HTTP handler of the catalogue API. Its routes are
// under /api/, prefix included. Serve it as the server's handler, with
// Fallback for the rest of a service's routes, so that it answers, in
// JSON, every request whose path is under /api/ or looks as if it were
// (//api/schemas, /API/schemas, /api/../x); or mount it with
// mux.Handle("/api/", Handler()), and the mux answers the paths that are
// not clean itself, with a redirect and an HTML body, before the API sees
// them. Options change its limits.
//
// Everything it serves is computed once, here, from the embedded catalogue;
// the handler is safe for concurrent use.
func Handler(opts ...Option) http.Handler {
	return newHandler(schemas.All(), catalogue.CheckAs, opts...)
}

// An Option changes how the Handler serves.
type Option func(*handler)

// Fallback gives the requests whose paths are not the API's to next: the
// rest of a service's routes, such as an http.ServeMux of them. A path is
// the API's if it is /api or under /api/, in any case, either as sent or
// once cleaned of empty, "." and ".." segments. Without a fallback, the
// Handler answers every other path 404, in JSON.
func Fallback(next http.Handler) Option {
	return func(h *handler) { h.fallback = next }
}

// MaxBodies bounds the request bodies the validation route holds at once,
// read or being read, to n (at least 1); a request beyond them is answered
// 503 Service Unavailable with Retry-After, at once, so that a flood of
// large messages costs a bounded amount of memory (about n times three
// times MaxMessageBytes at worst) rather than all of it. The default is
// DefaultMaxBodies.
func MaxBodies(n int) Option {
	return func(h *handler) { h.maxBodies = max(n, 1) }
}

// DefaultMaxBodies returns the bodies a Handler holds at once unless
// MaxBodies says otherwise: eight for each CPU the process may use
// (GOMAXPROCS), at least 16. Judging a message is CPU-bound, so more
// would wait for a CPU, holding their memory, without finishing sooner;
// the margin covers bodies still arriving over slow connections.
func DefaultMaxBodies() int {
	return max(16, 8*runtime.GOMAXPROCS(0))
}

// retryAfter is the Retry-After of a 503: in a second, the bodies being
// judged now have long been answered.
const retryAfter = "1"

// handler serves the API. Each endpoint is one method on it, listed in
// routes, which newHandler registers on mux.
type handler struct {
	fallback  http.Handler // for the paths that are not the API's; nil if none
	maxBodies int
	bodies    chan struct{} // a semaphore of maxBodies: one token a body held
	// working holds a place for each small body read without one of
	// bodies' places (see freeBody) while it is judged: judging takes
	// memory in proportion to the body, which these places bound however
	// many such bodies arrive at once. The work is short and CPU-bound,
	// so a request waits for one.
	working    chan struct{}
	mux        *http.ServeMux
	catalogue  []byte            // body of GET /api/schemas
	versionsOf map[string][]byte // body of GET /api/schemas/{name}/versions, by name
	// known are the texts a 404 ends with, for a name the catalogue does
	// not have ("" key: its names) and for a version a name does not have
	// (key: the name, its versions), as msgcheck check -schema says them.
	known map[string]string
	files map[key]file // the schema files, by name and version
	// checkAs judges a message by a schema at a version without decoding
	// it: catalogue's CheckAs, or in tests the same over a fixture
	// catalogue.
	checkAs  func(name, version string, data []byte) (*msg.Kind, error)
	subjects map[string]string // the topic subjects of the registry (see Subjects)
	registry *registry         // serves RegistryPath
}

// key addresses one schema at one version.
type key struct{ name, version string }

// file is one schema file, ready to serve.
type file struct {
	data   []byte
	etag   string // strong: the quoted hex of the first 16 bytes of the data's SHA-256
	length string // Content-Length
}

// entry is one schema at one version in the JSON lists.
type entry struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	ID      string `json:"id"`  // the $id, as published
	URL     string `json:"url"` // the path of the schema file on this server
}

// route is one endpoint: method, ServeMux path pattern and the method of
// handler that serves it.
type route struct {
	method, path string
	serve        http.HandlerFunc
}

// routes lists every endpoint of the API. To add one, write its method on
// handler and add it here; newHandler derives the 405 answers from this list.
func (h *handler) routes() []route {
	return []route{
		{http.MethodGet, "/api/schemas", h.list},
		{http.MethodGet, "/api/schemas/{name}/versions", h.versions},
		{http.MethodGet, "/api/schemas/{name}/versions/{version}", h.schema},
		{http.MethodPost, "/api/schemas/{name}/versions/{version}/validate", h.validate},
		{http.MethodPost, "/api/schemas/{name}/versions/{version}/compatibility", h.compatibility},
	}
}

func newHandler(all []schemas.Schema, checkAs func(name, version string, data []byte) (*msg.Kind, error), opts ...Option) *handler {
	h := &handler{
		checkAs:    checkAs,
		maxBodies:  DefaultMaxBodies(),
		mux:        http.NewServeMux(),
		versionsOf: make(map[string][]byte),
		known:      make(map[string]string),
		files:      make(map[key]file, len(all)),
	}
	for _, o := range opts {
		o(h)
	}
	h.bodies = make(chan struct{}, h.maxBodies) // as the options left it
	h.working = make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	h.registry = newRegistry(h, all, h.subjects)

	list := make([]entry, 0, len(all))
	byName := make(map[string][]entry)
	for _, s := range all {
		e := entry{
			Name:    s.Name,
			Version: s.Version,
			ID:      s.ID,
			URL:     "/api/schemas/" + url.PathEscape(s.Name) + "/versions/" + url.PathEscape(s.Version),
		}
		list = append(list, e)
		byName[s.Name] = append(byName[s.Name], e)

		data := s.JSON()
		sum := sha256.Sum256(data)
		h.files[key{s.Name, s.Version}] = file{
			data:   data,
			etag:   `"` + hex.EncodeToString(sum[:16]) + `"`,
			length: strconv.Itoa(len(data)),
		}
	}
	h.catalogue = mustEncode(list)
	for name, versions := range byName {
		h.versionsOf[name] = mustEncode(versions)
		var numbers []string
		for _, e := range versions {
			numbers = append(numbers, e.Version)
		}
		h.known[name] = "versions of " + name + ": " + strings.Join(numbers, ", ")
	}
	h.known[""] = "known schemas: " + strings.Join(slices.Sorted(maps.Keys(byName)), ", ")

	// A pattern with a method wins over the same path without one, so each
	// path's method-less pattern catches exactly the methods it does not
	// serve; "/api/" catches the paths no route has.
	allowed := make(map[string][]string)
	for _, r := range h.routes() {
		h.mux.HandleFunc(r.method+" "+r.path, r.serve)
		allowed[r.path] = append(allowed[r.path], r.method)
	}
	for path, methods := range allowed {
		if slices.Contains(methods, http.MethodGet) {
			methods = append(methods, http.MethodHead) // ServeMux serves HEAD with GET
		}
		methods = append(methods, http.MethodOptions) // methodNotAllowed answers it
		slices.Sort(methods)
		h.mux.Handle(path, h.methodNotAllowed(slices.Compact(methods)))
	}
	// The registry answers every path under its own, in its own bodies.
	h.mux.Handle(RegistryPath+"/", h.registry)
	h.mux.Handle(RegistryPath, h.registry)
	// Every other path, under /api/ or not (when the handler is the
	// server's), is 404 in JSON, never ServeMux's text.
	h.mux.HandleFunc("/", notFound)
	return h
}

// notFound answers 404 for a path no route has, in the registry's error
// body if the path is under RegistryPath, as sent or decoded.
func notFound(w http.ResponseWriter, r *http.Request) {
	answer := writeError
	if underRegistry(sentPath(r)) || underRegistry(r.URL.Path) {
		answer = registryError
	}
	answer(w, r, http.StatusNotFound, "no such resource: "+sentPath(r)+hint(r.URL.Path))
}

// hint returns what a 404 for the path p adds, for the paths a new user
// tries first: where the routes are.
func hint(p string) string {
	switch rest, ok := strings.CutPrefix(p, "/api/schemas/"); {
	case p == "/api" || p == "/api/":
		return "; the catalogue is at GET /api/schemas, the schema-registry protocol under " + RegistryPath
	case ok && rest != "" && !strings.Contains(rest, "/"):
		return "; a schema's versions are at GET /api/schemas/{name}/versions"
	}
	return ""
}

// sentPath returns the path of r as the client sent it: escaped (%2F is
// not a slash) and, unlike r.URL, not read as a host when it begins with
// two slashes.
func sentPath(r *http.Request) string {
	if p, _, _ := strings.Cut(r.RequestURI, "?"); strings.HasPrefix(p, "/") {
		return p
	}
	return r.URL.EscapedPath()
}

// ServeHTTP serves the API. A path that is not clean, with an empty, "."
// or ".." segment (//api/schemas, /api/schemas/../x), is answered 404 in
// JSON: ServeMux would redirect it to its clean form, with an HTML body,
// and no client of the API needs that. CONNECT requests, whose path
// ServeMux leaves alone, are 404 too.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.fallback != nil && !ours(sentPath(r)) && !ours(r.URL.Path) {
		h.fallback.ServeHTTP(w, r)
		return
	}
	if r.Method == http.MethodConnect || !clean(r.URL.Path) || !clean(sentPath(r)) {
		notFound(w, r)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// ours reports whether the path p is the API's: /api, or under /api/, in
// any case, as it is or once cleaned.
func ours(p string) bool {
	under := func(p string) bool {
		return strings.EqualFold(p, "/api") || len(p) >= 5 && strings.EqualFold(p[:5], "/api/")
	}
	return under(p) || under(path.Clean("/"+p))
}

// clean reports whether path is absolute and has no empty, "." or ".."
// segment but a final empty one (a trailing slash): whether ServeMux would
// serve it as it is, rather than redirect it.
func clean(path string) bool {
	if path == "" || path[0] != '/' {
		return false
	}
	for seg := range strings.SplitSeq(path[1:], "/") {
		switch seg {
		case ".", "..":
			return false
		}
	}
	return !strings.Contains(path, "//")
}

// list serves GET /api/schemas.
func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, http.StatusOK, h.catalogue)
}

// versions serves GET /api/schemas/{name}/versions.
func (h *handler) versions(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	body, ok := h.versionsOf[name]
	if !ok {
		h.notFound(w, r, name, "")
		return
	}
	writeJSON(w, r, http.StatusOK, body)
}

// schema serves GET /api/schemas/{name}/versions/{version}: the file as
// published, cacheable forever, since a published version never changes.
func (h *handler) schema(w http.ResponseWriter, r *http.Request) {
	_, _, f, ok := h.file(w, r)
	if !ok {
		return
	}
	// A 304 must carry the ETag and Cache-Control a 200 would (RFC 9110,
	// section 15.4.5), and nothing that describes a body.
	w.Header().Set("ETag", f.etag)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	if noneMatch(r.Header.Values("If-None-Match"), f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	w.Header().Set("Content-Length", f.length)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(f.data)
	}
}

// validate serves POST /api/schemas/{name}/versions/{version}/validate: the
// verdict of the library on the request body, as a message of that schema
// judged by exactly that version's file (decision 13), not by the latest.
// Whatever the body's Content-Type, its bytes are what is judged.
func (h *handler) validate(w http.ResponseWriter, r *http.Request) {
	name, version, _, ok := h.file(w, r)
	if !ok {
		return
	}
	body, release, ok := h.readBody(w, r, MaxMessageBytes, "message", "too many messages are being judged", writeError)
	if !ok {
		return
	}
	status, answer := h.judge(name, version, r.Header, body)
	release() // before writing, which a slow reader may hold up
	writeJSON(w, r, status, answer)
}

// judge returns the status and the body of the validation route's answer
// on the message body, judged by the schema name at version, with the
// request's CloudEvents headers if it has any.
func (h *handler) judge(name, version string, header http.Header, body []byte) (status int, answer []byte) {
	var verdict msg.Verdict
	if hasCloudEvents(header) {
		// The headers name the published catalogue's schemas, whose table
		// of kinds ce decodes by: the message is decoded, for ce to
		// compare its identity with the headers, borrowing from the
		// body, which is held until the verdict is written.
		m, err := ce.HTTP.Borrowing().DecodeAs(catalogue.Kinds, header, name, version, body)
		if m == nil {
			return noType(err)
		}
		verdict = msg.VerdictOf(m, err)
	} else {
		// Only the verdict is wanted: the body is judged without being
		// decoded, which keeps nothing of it (catalogue.CheckAs).
		k, err := h.checkAs(name, version, body)
		if k == nil {
			return noType(err)
		}
		verdict = msg.VerdictOf(nil, err)
		verdict.Schema, verdict.Version = k.Name, k.Version
	}
	status = http.StatusOK
	if !verdict.Valid {
		status = http.StatusUnprocessableEntity
	}
	return status, mustEncode(verdict)
}

// noType returns the answer to a request to judge by a schema file the
// catalogue has no Go type for: the handler and the library disagree on
// what the catalogue holds.
func noType(err error) (status int, answer []byte) {
	return http.StatusInternalServerError, errorBody(err.Error())
}

// freeBody is the size up to which a body whose length is announced is
// read without one of the handler's body places: a producer's message
// and a serializer's request for one of the catalogue's schemas are a
// few kilobytes, and holding as much for each connection costs no more
// than the connection itself does, so clients that send their bodies
// slowly, however many, cannot keep the others from being answered.
const freeBody = 16 << 10

// readBody reads the request body, what (such as "message") of at most
// limit bytes. A body of up to freeBody bytes, its length announced, is
// read as it comes and then held in one of the handler's working places,
// waited for; a larger one, or one of unknown length, is read while it
// holds one of the handler's places for bodies, so that the memory bodies
// take stays bounded however many requests come, and slow clients
// cannot keep the others from being answered. When it returns false it
// has answered the request through answer, unless its client has gone:
// 503 with Retry-After, busy saying why, when no body place is free; 413
// for a body over limit; or what readFailure says. Otherwise the caller
// must call release once it no longer holds the body, before it writes
// its answer, which a slow reader may take long to take.
func (h *handler) readBody(w http.ResponseWriter, r *http.Request, limit int64, what, busy string, answer answerFunc) (body []byte, release func(), ok bool) {
	tooLarge := fmt.Sprintf("the %s is larger than %d bytes", what, limit)
	if r.ContentLength > limit {
		answer(w, r, http.StatusRequestEntityTooLarge, tooLarge)
		return nil, nil, false
	}
	if r.ContentLength >= 0 && r.ContentLength <= freeBody {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, r.ContentLength))
		if err != nil {
			status, text := readFailure(err)
			answer(w, r, status, text)
			return nil, nil, false
		}
		select {
		case h.working <- struct{}{}:
			return body, func() { <-h.working }, true
		case <-r.Context().Done():
			return nil, nil, false // the client has gone: nobody to answer
		}
	}
	select {
	case h.bodies <- struct{}{}:
	default:
		w.Header().Set("Retry-After", retryAfter)
		answer(w, r, http.StatusServiceUnavailable, busy+": retry later")
		return nil, nil, false
	}
	release = func() { <-h.bodies }
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		release()
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			answer(w, r, http.StatusRequestEntityTooLarge, tooLarge)
			return nil, nil, false
		}
		status, text := readFailure(err)
		answer(w, r, status, text)
		return nil, nil, false
	}
	return body, release, true
}

// readFailure returns the status and the text of the answer to a request
// whose body could not be read: what went wrong, in the client's terms,
// never the error's own text, which names socket addresses and Go's
// internals.
func readFailure(err error) (int, string) {
	const text = "the request body could not be read"
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) {
		return http.StatusRequestTimeout, text + ": timed out"
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return http.StatusBadRequest, text + ": it ended before its announced length"
	}
	return http.StatusBadRequest, text
}

// hasCloudEvents reports whether a request carries CloudEvents attributes
// in binary mode, ce-* headers, which must then agree with the body and
// the route's schema. Without them, the body alone is judged, whatever its
// Content-Type.
func hasCloudEvents(h http.Header) bool {
	for k := range h {
		if strings.HasPrefix(k, "Ce-") { // as net/http canonicalises ce-
			return true
		}
	}
	return false
}

// file returns the schema file the request's path names, with its name
// and version, or answers 404 and returns false.
func (h *handler) file(w http.ResponseWriter, r *http.Request) (name, version string, f file, ok bool) {
	name, version = r.PathValue("name"), r.PathValue("version")
	f, ok = h.files[key{name, version}]
	if !ok {
		h.notFound(w, r, name, version)
	}
	return name, version, f, ok
}

// notFound answers 404 for a schema name and version the catalogue does not
// hold, naming the name alone if no version of it exists, and saying what
// the catalogue has instead, as msgcheck check -schema does: its names,
// or the name's versions (there is no "latest": a route names exactly
// the version it serves or judges by, decision 13).
func (h *handler) notFound(w http.ResponseWriter, r *http.Request, name, version string) {
	text := fmt.Sprintf("%v %q version %q; %s", schemas.ErrUnknown, name, version, h.known[name])
	if _, known := h.versionsOf[name]; !known {
		text = fmt.Sprintf("%v %q; %s", schemas.ErrUnknown, name, h.known[""])
	}
	writeError(w, r, http.StatusNotFound, text)
}

// methodNotAllowed answers 405 for a route's path, listing the methods the
// route serves, or 204 with the same list to OPTIONS; but 404 if the path
// names a schema or version the catalogue does not hold, since no method
// would find it.
func (h *handler) methodNotAllowed(methods []string) http.Handler {
	allow := strings.Join(methods, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, version := r.PathValue("name"), r.PathValue("version")
		if _, known := h.versionsOf[name]; name != "" && !known {
			h.notFound(w, r, name, version)
			return
		}
		if _, known := h.files[key{name, version}]; version != "" && !known {
			h.notFound(w, r, name, version)
			return
		}
		w.Header().Set("Allow", allow)
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeError(w, r, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed: use %s", r.Method, allow))
	})
}

// noneMatch reports whether the If-None-Match field values match etag. As
// RFC 9110 (section 13.1.2) requires for If-None-Match, the comparison is
// weak: W/"x" matches "x". "*" matches, since the resource exists. Parsing
// of a field value stops at the first malformed entity-tag.
func noneMatch(values []string, etag string) bool {
	for _, v := range values {
		for {
			v = strings.TrimLeft(v, " \t")
			if v == "" {
				break
			}
			if v[0] == ',' {
				v = v[1:]
				continue
			}
			if v[0] == '*' {
				return true
			}
			tag, rest, ok := scanETag(v)
			if !ok {
				break
			}
			if tag == etag {
				return true
			}
			v = rest
		}
	}
	return false
}

// scanETag reads the entity-tag at the start of s and returns its opaque
// tag, quotes included and any W/ dropped, and what follows it.
func scanETag(s string) (tag, rest string, ok bool) {
	s = strings.TrimPrefix(s, "W/")
	if len(s) < 2 || s[0] != '"' {
		return "", "", false
	}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return s[:i+1], s[i+1:], true
		case c == 0x21 || c >= 0x23 && c != 0x7f: // etagc, obs-text included
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// writeJSON writes a JSON body, or only its headers for HEAD.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	writeBody(w, r, status, "application/json", body)
}

// writeBody writes a body of the media type, or only its headers for HEAD.
func writeBody(w http.ResponseWriter, r *http.Request, status int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// writeError writes the JSON error body {"error": msg}.
func writeError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	writeJSON(w, r, status, errorBody(msg))
}

// errorBody returns the JSON error body {"error": msg}.
func errorBody(msg string) []byte {
	return mustEncode(struct {
		Error string `json:"error"`
	}{msg})
}

// mustEncode encodes v, which is one of this package's own types and cannot
// fail to encode, as encode does.
func mustEncode(v any) []byte {
	b, err := encode(v)
	if err != nil {
		panic("api: " + err.Error())
	}
	return b
}

// encode returns v as a line of JSON, with '<', '>' and '&' written as
// they are, not as \u003c and so on: every answer is application/json,
// never sniffed as HTML (nosniff), and a client reads '<' in a violation
// or a witness as it was.
func encode(v any) ([]byte, error) {
	b, err := msg.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
