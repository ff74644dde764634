package pages

import (
	"bytes"
	"errors"
	"net/http"

	"github.com/fleetkit/catalogue/api"
)

// maxFormBytes bounds the body of a form posted to a version page: a
// message of api.MaxMessageBytes, the validation route's limit, takes up
// to three times that once form-encoded (%XX for a byte).
const maxFormBytes = 3*api.MaxMessageBytes + 4<<10

// securityPolicy is the Content-Security-Policy of every page: nothing
// but the site's own styles and script, and requests to its own origin
// alone, so that whatever a page shows of a posted message can run
// nothing and fetch nothing.
const securityPolicy = "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// ServeHTTP serves the pages: GET and HEAD of every page and file, and
// POST of a message to a version page's form, answered with the page
// showing the library's verdict. Anything else is 404 or 405, in HTML. No
// header of an answer carries anything of the request.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p, ok := s.pages[r.URL.Path]
	if !ok {
		s.writeError(w, r, http.StatusNotFound, "No such page.")
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		setHeaders(w, p.contentType)
		w.Header().Set("Content-Length", p.length)
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			w.Write(p.body)
		}
	case http.MethodPost:
		f, ok := s.forms[r.URL.Path]
		if !ok {
			w.Header().Set("Allow", "GET, HEAD")
			s.writeError(w, r, http.StatusMethodNotAllowed, "This page takes no messages.")
			return
		}
		s.judge(w, r, f)
	default:
		allow := "GET, HEAD"
		if _, ok := s.forms[r.URL.Path]; ok {
			allow = "GET, HEAD, POST"
		}
		w.Header().Set("Allow", allow)
		s.writeError(w, r, http.StatusMethodNotAllowed, "Method not allowed.")
	}
}

// judge answers a message posted to a version page's form with the page
// showing the verdict on it.
func (s *Site) judge(w http.ResponseWriter, r *http.Request, f *form) {
	select {
	case s.bodies <- struct{}{}:
		defer func() { <-s.bodies }()
	default:
		w.Header().Set("Retry-After", "1")
		s.writeError(w, r, http.StatusServiceUnavailable, "Too many messages are being judged: try again in a moment.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			s.writeError(w, r, http.StatusRequestEntityTooLarge, tooLarge)
			return
		}
		s.writeError(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	message := r.PostForm.Get("message")
	var page *versionPage
	if len(message) > api.MaxMessageBytes {
		page = f.data.judge(f.kind, "")
		page.Try.Verdict = &verdict{Refused: tooLarge}
	} else {
		page = f.data.judge(f.kind, message)
	}
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, "version", page); err != nil {
		s.writeError(w, r, http.StatusInternalServerError, "The page could not be rendered.")
		return
	}
	setHeaders(w, "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	status := http.StatusOK
	if page.Try.Verdict.Refused != "" {
		status = http.StatusRequestEntityTooLarge
	}
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

func setHeaders(w http.ResponseWriter, contentType string) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", securityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
}

// writeError answers with the site's error page; text is the page's own,
// never anything of the request.
func (s *Site) writeError(w http.ResponseWriter, r *http.Request, status int, text string) {
	setHeaders(w, "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	w.Write(s.errors[errorKey{status, text}])
}

// errorKey names one of the error pages, rendered in New.
type errorKey struct {
	status int
	text   string
}

// errorTexts are the texts of the error pages, by status.
var errorTexts = []errorKey{
	{http.StatusNotFound, "No such page."},
	{http.StatusMethodNotAllowed, "This page takes no messages."},
	{http.StatusMethodNotAllowed, "Method not allowed."},
	{http.StatusServiceUnavailable, "Too many messages are being judged: try again in a moment."},
	{http.StatusRequestEntityTooLarge, tooLarge},
	{http.StatusBadRequest, "The form could not be read."},
	{http.StatusInternalServerError, "The page could not be rendered."},
}

const tooLarge = "The message is larger than the 1 MiB the catalogue judges."

type errorPage struct {
	common
	Status int
	Text   string
}
