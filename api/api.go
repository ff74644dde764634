package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// MaxMessageBytes is the largest request body the validation route judges;
// a larger one is answered 413 Content Too Large.
const MaxMessageBytes = 1 << 20

// Handler returns the HTTP handler of the catalogue API. Its routes are
// under /api/, prefix included: mount it with mux.Handle("/api/", Handler()).
//
// Everything it serves is computed once, here, from the embedded catalogue;
// the handler is safe for concurrent use.
func Handler() http.Handler {
	return newHandler(schemas.All(), catalogue.DecodeAs)
}

// handler serves the API. Each endpoint is one method on it, listed in
// routes, which newHandler registers on mux.
type handler struct {
	mux        *http.ServeMux
	catalogue  []byte            // body of GET /api/schemas
	versionsOf map[string][]byte // body of GET /api/schemas/{name}/versions, by name
	files      map[key]file      // the schema files, by name and version
	// decodeAs judges a message by a schema at a version: catalogue's
	// DecodeAs, or in tests the same over a fixture catalogue.
	decodeAs func(name, version string, data []byte) (catalogue.Message, error)
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
	}
}

func newHandler(all []schemas.Schema, decodeAs func(name, version string, data []byte) (catalogue.Message, error)) *handler {
	h := &handler{
		decodeAs:   decodeAs,
		mux:        http.NewServeMux(),
		versionsOf: make(map[string][]byte),
		files:      make(map[key]file, len(all)),
	}

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
	}

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
		slices.Sort(methods)
		h.mux.Handle(path, methodNotAllowed(slices.Compact(methods)))
	}
	h.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, http.StatusNotFound, "no such resource: "+r.URL.EscapedPath()) // as sent: %2F is not a slash
	})
	return h
}

// ServeHTTP serves the API.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mux.ServeHTTP(w, r)
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
		writeError(w, r, http.StatusNotFound, fmt.Sprintf("%v %q", schemas.ErrUnknown, name))
		return
	}
	writeJSON(w, r, http.StatusOK, body)
}

// schema serves GET /api/schemas/{name}/versions/{version}: the file as
// published, cacheable forever, since a published version never changes.
func (h *handler) schema(w http.ResponseWriter, r *http.Request) {
	name, version := r.PathValue("name"), r.PathValue("version")
	f, ok := h.files[key{name, version}]
	if !ok {
		h.notFound(w, r, name, version)
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
	name, version := r.PathValue("name"), r.PathValue("version")
	if _, ok := h.files[key{name, version}]; !ok {
		h.notFound(w, r, name, version)
		return
	}
	tooLarge := fmt.Sprintf("the message is larger than %d bytes", MaxMessageBytes)
	if r.ContentLength > MaxMessageBytes {
		writeError(w, r, http.StatusRequestEntityTooLarge, tooLarge)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxMessageBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			writeError(w, r, http.StatusRequestEntityTooLarge, tooLarge)
			return
		}
		writeError(w, r, http.StatusBadRequest, "reading the message: "+err.Error())
		return
	}
	_, err = h.decodeAs(name, version, body)
	if err == nil {
		writeJSON(w, r, http.StatusOK, validBody)
		return
	}
	invalid, ok := errors.AsType[*msg.Error](err)
	if !ok {
		// A schema file the catalogue has no Go type for: the handler and
		// the library disagree on what the catalogue holds.
		writeError(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, r, http.StatusUnprocessableEntity, mustEncode(verdict{Violations: invalid.Violations}))
}

// validBody is the body of the answer to a valid message.
var validBody = mustEncode(verdict{Valid: true})

// verdict is the body of the validation route's 200 and 422 answers, the
// violations in their JSON form (see msg.Violation).
type verdict struct {
	Valid      bool             `json:"valid"`
	Violations []*msg.Violation `json:"violations,omitempty"`
}

// notFound answers 404 for a schema name and version the catalogue does not
// hold, naming the name alone if no version of it exists.
func (h *handler) notFound(w http.ResponseWriter, r *http.Request, name, version string) {
	text := fmt.Sprintf("%v %q version %q", schemas.ErrUnknown, name, version)
	if _, known := h.versionsOf[name]; !known {
		text = fmt.Sprintf("%v %q", schemas.ErrUnknown, name)
	}
	writeError(w, r, http.StatusNotFound, text)
}

// methodNotAllowed answers 405 for a route's path, listing the methods the
// route serves.
func methodNotAllowed(methods []string) http.Handler {
	allow := strings.Join(methods, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
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
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// writeError writes the JSON error body {"error": msg}.
func writeError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	writeJSON(w, r, status, mustEncode(struct {
		Error string `json:"error"`
	}{msg}))
}

// mustEncode encodes v, which is one of this package's own types and cannot
// fail to encode, as a line of JSON.
func mustEncode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("api: " + err.Error())
	}
	return append(b, '\n')
}
