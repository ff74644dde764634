package pages

import (
	"bytes"
	"errors"
	"html"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/internal/fixture"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// published is the site of the published catalogue, as msgcheck serves it.
func published(t testing.TB) *Site {
	t.Helper()
	s, err := New(schemas.Published(), Options{Kinds: catalogue.Kinds, API: "/api"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func load(t testing.TB, dir string) *schemas.Catalogue {
	t.Helper()
	c, err := schemas.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func get(t testing.TB, h http.Handler, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec
}

func post(h http.Handler, target, message string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	body := url.Values{"message": {message}}.Encode()
	r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	h.ServeHTTP(rec, r)
	return rec
}

func TestEveryPageIsServed(t *testing.T) {
	s := published(t)
	want := []string{"/", "/index.html", "/style.css", "/try.js"}
	for _, v := range schemas.All() {
		want = append(want, "/schemas/"+v.Name+"/"+v.Version+".html", "/schemas/"+v.Name+"/"+v.Version+".json")
	}
	for _, p := range want {
		rec := get(t, s, http.MethodGet, p)
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d", p, rec.Code)
			continue
		}
		if rec.Header().Get("Content-Security-Policy") == "" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: headers %v", p, rec.Header())
		}
		head := get(t, s, http.MethodHead, p)
		if head.Code != http.StatusOK || head.Body.Len() != 0 || head.Header().Get("Content-Length") != rec.Header().Get("Content-Length") {
			t.Errorf("HEAD %s: %d, %d bytes, Content-Length %q", p, head.Code, head.Body.Len(), head.Header().Get("Content-Length"))
		}
	}
	if got := get(t, s, http.MethodGet, "/schemas/core.device/1.0.json").Body.Bytes(); string(got) != string(must(schemas.Lookup("core.device", "1.0")).JSON()) {
		t.Error("the schema file is not served byte for byte")
	}
	if get(t, s, http.MethodGet, "/").Body.String() != get(t, s, http.MethodGet, "/index.html").Body.String() {
		t.Error("/ and /index.html differ")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestStatusCodes(t *testing.T) {
	s := published(t)
	for _, c := range []struct {
		method, target string
		status         int
		allow          string
	}{
		{http.MethodGet, "/nope", http.StatusNotFound, ""},
		{http.MethodGet, "/schemas/core.device/9.9.html", http.StatusNotFound, ""},
		{http.MethodGet, "/schemas/core.device/", http.StatusNotFound, ""},
		{http.MethodPost, "/nope", http.StatusNotFound, ""},
		{http.MethodPost, "/index.html", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodPost, "/schemas/core.device/1.0.json", http.StatusMethodNotAllowed, "GET, HEAD"},
		{http.MethodDelete, "/schemas/core.device/1.0.html", http.StatusMethodNotAllowed, "GET, HEAD, POST"},
		{http.MethodPut, "/index.html", http.StatusMethodNotAllowed, "GET, HEAD"},
	} {
		rec := get(t, s, c.method, c.target)
		if rec.Code != c.status || rec.Header().Get("Allow") != c.allow {
			t.Errorf("%s %s: %d, Allow %q; want %d, Allow %q", c.method, c.target, rec.Code, rec.Header().Get("Allow"), c.status, c.allow)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("%s %s: Content-Type %q", c.method, c.target, ct)
		}
	}
}

func TestNothingOfTheRequestIsReflected(t *testing.T) {
	s := published(t)
	const evil = "/x<script>alert(1)</script>"
	rec := get(t, s, http.MethodGet, "/"+url.PathEscape(evil[1:]))
	if rec.Code != http.StatusNotFound {
		t.Fatalf("%d", rec.Code)
	}
	if strings.Contains(rec.Body.String(), "alert") {
		t.Errorf("the 404 page shows the path: %s", rec.Body)
	}
	for k, vs := range rec.Header() {
		for _, v := range vs {
			if strings.Contains(v, "<") || strings.Contains(v, "alert") {
				t.Errorf("header %s: %q", k, v)
			}
		}
	}
}

func TestFormShowsTheIMEIViolationBesideItsMember(t *testing.T) {
	s := published(t)
	data, err := os.ReadFile("../testdata/device.json") // its IMEI's check digit is wrong
	if err != nil {
		t.Fatal(err)
	}
	rec := post(s, "/schemas/core.device/1.0.html", string(data))
	if rec.Code != http.StatusOK {
		t.Fatalf("%d: %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	row := regexp.MustCompile(`(?s)<tr id="member/imei"[^>]*class="violated">.*?</tr>`).FindString(body)
	if row == "" {
		t.Fatalf("no violated row for /imei in:\n%s", body)
	}
	if !strings.Contains(row, "imei</strong>: not an IMEI: check digit is 9, want 8") {
		t.Errorf("the /imei row does not show the violation: %s", row)
	}
	if n := strings.Count(body, `class="violated"`); n != 1 {
		t.Errorf("%d rows marked violated, want 1", n)
	}
	if !strings.Contains(body, html.EscapeString(string(data))) {
		t.Error("the form does not echo the message")
	}

	valid := post(s, "/schemas/core.device/1.0.html", strings.Replace(string(data), "490154203237519", "490154203237518", 1))
	if !strings.Contains(valid.Body.String(), `<p class="valid">Valid`) {
		t.Errorf("a valid message is not shown valid:\n%s", valid.Body)
	}
	if !strings.Contains(body, `<a href="#member%2fimei"><code>/imei</code></a>`) {
		t.Error("the verdict does not link the violation to its row")
	}
	root := post(s, "/schemas/core.device/1.0.html", "[]").Body.String()
	if !strings.Contains(root, "<code>(root)</code> <strong>type</strong>") || strings.Contains(root, `href="#member"`) {
		t.Errorf("a violation of the document itself:\n%s", root)
	}
	empty := post(s, "/schemas/core.device/1.0.html", "  ")
	if !strings.Contains(empty.Body.String(), "No message was given") {
		t.Error("an empty message gets no answer")
	}
}

func TestFormEscapesAHostileMessage(t *testing.T) {
	s := published(t)
	const evil = `{"</textarea><script>alert(1)</script>": "<img src=x onerror=alert(2)>", "imei": "<b>1</b>", "time": "<i>"}`
	rec := post(s, "/schemas/core.device/1.0.html", evil)
	if rec.Code != http.StatusOK {
		t.Fatalf("%d", rec.Code)
	}
	body := rec.Body.String()
	for _, raw := range []string{"<script>alert", "<img src=x", "<b>1</b>", "<i>"} {
		if strings.Contains(body, raw) {
			t.Errorf("the answer holds %q unescaped", raw)
		}
	}
	if !strings.Contains(body, "&lt;/textarea&gt;&lt;script&gt;") {
		t.Error("the message is not echoed, escaped")
	}
	if !strings.Contains(body, `class="violated"`) {
		t.Error("no violation shown")
	}
}

func TestFormBodyIsBounded(t *testing.T) {
	s := published(t)
	rec := post(s, "/schemas/core.device/1.0.html", `"`+strings.Repeat("a", 1<<20)+`"`)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a message over 1 MiB: %d", rec.Code)
	}
	if strings.Contains(rec.Body.String(), "aaaaaaaa") {
		t.Error("a refused message is echoed")
	}
	huge := httptest.NewRequest(http.MethodPost, "/schemas/core.device/1.0.html", strings.NewReader("message="+strings.Repeat("%41", 1<<20+1)+strings.Repeat("a", 8<<10)))
	huge.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, huge)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a form over its limit: %d", rec.Code)
	}
}

func TestFormTurnsAwayBeyondMaxForms(t *testing.T) {
	s := published(t)
	for range cap(s.bodies) {
		s.bodies <- struct{}{}
	}
	rec := post(s, "/schemas/core.device/1.0.html", "{}")
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("%d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
}

// trySection is the part of a version page that differs between the
// served site and the static one.
var trySection = regexp.MustCompile(`(?s)<section id="try".*?</section>`)

func TestStaticSiteIsTheServedOne(t *testing.T) {
	for _, c := range []struct {
		name string
		cat  *schemas.Catalogue
		opt  Options
	}{
		{"published", schemas.Published(), Options{Kinds: catalogue.Kinds, API: "/api"}},
		{"fixture", load(t, "../testdata/fixture"), Options{Kinds: fixture.Kinds}},
		{"fixture-breaking", load(t, "../testdata/fixture-breaking"), Options{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(c.cat, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := s.WriteFiles(dir); err != nil {
				t.Fatal(err)
			}
			var written []string
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, p)
					written = append(written, "/"+filepath.ToSlash(rel))
				}
				return err
			})
			if len(written) != len(s.Paths())-1 { // "/" is index.html
				t.Errorf("wrote %d files, serves %d paths: %v", len(written), len(s.Paths()), written)
			}
			for _, p := range written {
				file, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
				served := get(t, s, http.MethodGet, p).Body.String()
				if string(file) == served {
					continue
				}
				if _, form := s.forms[p]; !form {
					t.Errorf("%s: the file differs from the page served", p)
					continue
				}
				if !strings.Contains(string(file), "static copy of the catalogue") || strings.Contains(string(file), "<form") || strings.Contains(string(file), "try.js") {
					t.Errorf("%s: the static page does not say it cannot judge", p)
				}
				if trySection.ReplaceAllString(string(file), "") != trySection.ReplaceAllString(strings.Replace(served, `<script src="../../try.js" defer></script>`+"\n", "", 1), "") {
					t.Errorf("%s: the static page differs from the served one beyond the form", p)
				}
			}
			checkLinks(t, s)
		})
	}
}

var linkAttr = regexp.MustCompile(`(?:href|src|action)="([^"]*)"`)

// checkLinks checks that every link of every page resolves to a page of
// the site, and every fragment to an id of its page.
func checkLinks(t *testing.T, s *Site) {
	t.Helper()
	for _, p := range s.Paths() {
		if !strings.HasSuffix(p, ".html") {
			continue
		}
		body := get(t, s, http.MethodGet, p).Body.String()
		for _, m := range linkAttr.FindAllStringSubmatch(body, -1) {
			ref := html.UnescapeString(m[1])
			u, err := url.Parse(ref)
			if err != nil || u.Scheme != "" || u.Host != "" {
				t.Errorf("%s: link %q leaves the site", p, ref)
				continue
			}
			target := p
			if u.Path != "" {
				target = path.Join(path.Dir(p), u.Path)
			}
			if _, ok := s.pages[target]; !ok {
				t.Errorf("%s: link %q goes to %s, which the site lacks", p, ref, target)
			}
			if u.Fragment != "" && target == p && !strings.Contains(body, `id="`+u.Fragment+`"`) {
				t.Errorf("%s: link %q to no id of the page", p, ref)
			}
		}
	}
}

func TestMembersOfEveryPublishedSchema(t *testing.T) {
	for _, v := range schemas.All() {
		rows, err := members(v.Name, v.JSON())
		if err != nil {
			t.Fatal(err)
		}
		byPointer := map[string]*member{}
		for _, r := range rows {
			byPointer[r.Pointer] = r
		}
		for _, name := range v.Required {
			if r := byPointer["/"+name]; r == nil || !r.Required {
				t.Errorf("%s: required member %s not shown required", v.Name, name)
			}
		}
		if len(rows) == 0 {
			t.Errorf("%s: no members", v.Name)
		}
	}
	rows, _ := members("example.event", must(schemas.Lookup("example.event", "1.0")).JSON())
	var pointers []string
	for _, r := range rows {
		pointers = append(pointers, r.Pointer)
	}
	if got, want := strings.Join(pointers, " "), "/id /type /occurred_at /priority /tags /actor /actor/id /actor/name"; got != want {
		t.Errorf("event's members: %s, want %s", got, want)
	}
	imei := rows[0]
	rows, _ = members("core.device", must(schemas.Lookup("core.device", "1.0")).JSON())
	for _, r := range rows {
		if r.Pointer == "/imei" {
			imei = r
		}
	}
	if imei.Pointer != "/imei" || len(imei.Rules) != 1 || !strings.Contains(imei.Rules[0], "Luhn") || imei.Default != `""` {
		t.Errorf("/imei row: %+v", imei)
	}
}

func TestFixtureGoTypesAndExamples(t *testing.T) {
	s, err := New(load(t, "../testdata/fixture"), Options{Kinds: fixture.Kinds})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ version, want string }{
		{"1.0", "package <code>github.com/fleetkit/catalogue/internal/fixture/sensor</code>: this earlier minor has an unexported type of its own, <code>sensor.sensorV1_0</code>"},
		{"1.1", "<code>sensor.Sensor</code> in package <code>github.com/fleetkit/catalogue/internal/fixture/sensor</code>"},
		{"2.0", "<code>sensor.Sensor</code> in package <code>github.com/fleetkit/catalogue/internal/fixture/sensor/v2</code>"},
	} {
		body := get(t, s, http.MethodGet, "/schemas/demo.sensor/"+c.version+".html").Body.String()
		if !strings.Contains(body, c.want) {
			t.Errorf("%s: no %s", c.version, c.want)
		}
		if !strings.Contains(body, `<pre class="json" id="example">`) {
			t.Errorf("%s: no example", c.version)
		}
		if !strings.Contains(body, "<form") {
			t.Errorf("%s: no form", c.version)
		}
		if strings.Contains(body, "try.js") {
			t.Errorf("%s: as-you-type validation without an API", c.version)
		}
	}
}

func TestNoGoTypeNoExampleNoForm(t *testing.T) {
	s, err := New(load(t, "../testdata/fixture-breaking"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := get(t, s, http.MethodGet, "/schemas/demo.sensor/1.2.html").Body.String()
	if strings.Contains(body, "<form") || strings.Contains(body, `id="example"`) || !strings.Contains(body, "no Go type") {
		t.Errorf("a version without a Go type: %s", body)
	}
	if rec := post(s, "/schemas/demo.sensor/1.2.html", "{}"); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST to a page without a form: %d", rec.Code)
	}
}

func TestNewRefusesAnExampleTheLibraryRejects(t *testing.T) {
	// The published device type judging the fixture's sensor: the example
	// of a sensor is no device.
	var wrong []*msg.Kind
	for _, k := range fixture.Kinds.All() {
		w := *k
		w.New = func() msg.Message { return must(catalogue.New("core.device", "1.0")) }
		wrong = append(wrong, &w)
	}
	_, err := New(load(t, "../testdata/fixture"), Options{Kinds: msg.NewKinds(nil, wrong...)})
	if err == nil || !strings.Contains(err.Error(), "the library rejects the example") {
		t.Errorf("New = %v, want an error", err)
	}
}

func TestNewRefusesAnUnsafeName(t *testing.T) {
	dir := t.TempDir()
	data := `{"$id":"` + schemas.ID(".x", "1.0") + `","title":".x","type":"object"}`
	os.WriteFile(filepath.Join(dir, ".x-1.0.json"), []byte(data), 0o644)
	c := load(t, dir)
	if _, err := New(c, Options{}); err == nil {
		t.Error("New accepted the schema name .x")
	}
}

func TestComparisonPagesListEveryFindingWithItsWitness(t *testing.T) {
	c := load(t, "../testdata/fixture-breaking")
	s, err := New(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := c.All()
	for i, old := range all {
		for _, new := range all[i+1:] {
			r, err := compat.Compare(old, new, compat.Options{})
			if err != nil {
				t.Fatal(err)
			}
			body := get(t, s, http.MethodGet, "/schemas/demo.sensor/compare/"+old.Version+"-"+new.Version+".html").Body.String()
			if got := strings.Count(body, `<li class="finding`); got != len(r.Findings) {
				t.Errorf("%s-%s: %d findings shown, compat finds %d", old.Version, new.Version, got, len(r.Findings))
			}
			for _, f := range r.Findings {
				if !strings.Contains(body, html.EscapeString(f.Message)) {
					t.Errorf("%s-%s: no %q", old.Version, new.Version, f.Message)
				}
			}
			if !r.Compatible() && !strings.Contains(body, "takes a new major version") {
				t.Errorf("%s-%s: a refused minor is not said to be refused", old.Version, new.Version)
			}
		}
	}
}

func TestExampleIsJudgedByTheLibrary(t *testing.T) {
	s := published(t)
	for _, v := range schemas.All() {
		body := get(t, s, http.MethodGet, "/schemas/"+v.Name+"/"+v.Version+".html").Body.String()
		m := regexp.MustCompile(`(?s)<pre class="json" id="example"><code>(.*?)</code></pre>`).FindStringSubmatch(body)
		if m == nil {
			t.Errorf("%s: no example", v.Name)
			continue
		}
		if _, err := catalogue.DecodeAs(v.Name, v.Version, []byte(html.UnescapeString(m[1]))); err != nil {
			var e *msg.Error
			errors.As(err, &e)
			t.Errorf("%s: the example shown is rejected: %v", v.Name, err)
		}
	}
}

func BenchmarkServePage(b *testing.B) {
	s := published(b)
	for _, p := range []string{"/index.html", "/schemas/core.device/1.0.html"} {
		b.Run(strings.TrimSuffix(path.Base(p), ".html"), func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, p, nil)
			w := &discard{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				s.ServeHTTP(w, r)
			}
			b.SetBytes(int64(w.n))
		})
	}
	// What serving the device's page would cost if it were rendered for
	// each request, as the pages are not: the saving of rendering once.
	b.Run("render-1.0", func(b *testing.B) {
		p := s.forms["/schemas/core.device/1.0.html"].data
		var buf bytes.Buffer
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := templates.ExecuteTemplate(&buf, "version", p); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(int64(buf.Len()))
	})
	b.Run("post", func(b *testing.B) {
		data, err := os.ReadFile("../testdata/device.json")
		if err != nil {
			b.Fatal(err)
		}
		body := url.Values{"message": {string(data)}}.Encode()
		w := &discard{h: http.Header{}}
		b.ReportAllocs()
		for b.Loop() {
			clear(w.h)
			r := httptest.NewRequest(http.MethodPost, "/schemas/core.device/1.0.html", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			s.ServeHTTP(w, r)
		}
	})
}

// discard is a ResponseWriter that keeps nothing, so that the benchmark
// times the handler alone.
type discard struct {
	h http.Header
	n int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(int)             {}
func (d *discard) Write(b []byte) (int, error) { d.n = len(b); return len(b), nil }

// TestViolationsGoToTheRowOfTheirMember: a violation inside a nested
// member or an item goes to the row of the deepest member that holds it.
func TestViolationsGoToTheRowOfTheirMember(t *testing.T) {
	s := published(t)
	body := post(s, "/schemas/example.event/1.0.html",
		`{"id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","type":"created","occurred_at":"2019-01-01T00:00:00Z","tags":["a",1],"actor":{"id":"nope"},"extra":{"x":1}}`).Body.String()
	violated := regexp.MustCompile(`<tr id="member([^"]*)"[^>]*class="violated">`).FindAllStringSubmatch(body, -1)
	var rows []string
	for _, m := range violated {
		rows = append(rows, m[1])
	}
	if got, want := strings.Join(rows, " "), "/tags /actor/id"; got != want {
		t.Errorf("violated rows %q, want %q", got, want)
	}
	for _, c := range []struct{ path, ptr string }{
		{"/tags/1", "/tags"}, {"/tags", "/tags"}, {"/actor/id", "/actor/id"}, {"/actor", "/actor"}, {"/actor/other", "/actor"}, {"/nope", ""}, {"", ""}, {"/tagsx", ""},
	} {
		rows, _ := members("example.event", must(schemas.Lookup("example.event", "1.0")).JSON())
		got := ""
		if r := rowOf(rows, c.path); r != nil {
			got = r.Pointer
		}
		if got != c.ptr {
			t.Errorf("rowOf(%q) = %q, want %q", c.path, got, c.ptr)
		}
	}
	if !under("/labels/3/id", "/labels/*/id") || under("/labels//id", "/labels/*/id") || under("/labels", "/labels/*") {
		t.Error("a * segment stands for one item, no more and no less")
	}
}

// TestComparisonSummaries: on the fixture, a compatible minor, a major,
// and on the breaking fixture a refused minor, each said as such.
func TestComparisonSummaries(t *testing.T) {
	fix, err := New(load(t, "../testdata/fixture"), Options{Kinds: fixture.Kinds})
	if err != nil {
		t.Fatal(err)
	}
	breaking, err := New(load(t, "../testdata/fixture-breaking"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	summary := regexp.MustCompile(`(?s)<p id="summary" class="([a-z]+)">(.*?)</p>`)
	for _, c := range []struct {
		site        *Site
		pair, class string
		says        string
	}{
		{fix, "1.0-1.1", "valid", "1.1 is compatible with 1.0 in both directions.\nAs minors of one major, they must be, and are."},
		{fix, "1.1-2.0", "major", "2.0 is not compatible with 1.1.\nThey are of different majors, which need not be compatible"},
		{fix, "1.0-2.0", "major", "They are of different majors"},
		{breaking, "1.1-1.2", "invalid", "1.2 is not compatible with 1.1.\nAs minors of one major, they must be: 1.2 is refused as a minor, and takes a new major version."},
	} {
		m := summary.FindStringSubmatch(get(t, c.site, http.MethodGet, "/schemas/demo.sensor/compare/"+c.pair+".html").Body.String())
		if m == nil || m[1] != c.class || !strings.Contains(m[2], c.says) {
			t.Errorf("%s: summary %q, want class %s saying %q", c.pair, m, c.class, c.says)
		}
	}
}
