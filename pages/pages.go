package pages

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"go/token"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

//go:embed templates/*.html static/*
var files embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"join": strings.Join,
}).ParseFS(files, "templates/*.html"))

// Options say what a Site shows beyond the schema files.
type Options struct {
	// Kinds is the table of the Go types generated from the catalogue,
	// as catalogue.Kinds is for the published one. For a version it has,
	// the pages name the Go type and its package, show an example message
	// that type accepts, and judge the messages of the "try a message"
	// form with it. For a version it lacks (or with a nil table), the page
	// says there is no Go type, and shows neither.
	Kinds *msg.Kinds
	// API is the path under which package api serves this same catalogue,
	// such as "/api", for the form to validate as one types, through the
	// validation route, where JavaScript runs; "" for none. The form
	// works without it, and without JavaScript, by posting to the page.
	API string
}

// A Site is the catalogue's pages, every one rendered when the Site is
// made: serving one costs a lookup and a write. It is an http.Handler
// and is safe for concurrent use.
type Site struct {
	pages  map[string]*page // by path, "/index.html" and "/" alike
	forms  map[string]*form // the version pages whose form judges messages, by path
	bodies chan struct{}    // a semaphore: one token a form being judged
	// static are the pages of the static site, by path, where they differ
	// from the served ones.
	static map[string][]byte
	errors map[errorKey][]byte // the error pages
}

// page is one rendered page or file, ready to serve.
type page struct {
	body        []byte
	contentType string
	length      string
}

// form is what a version page needs to render a verdict.
type form struct {
	data *versionPage
	kind *msg.Kind // judges the messages posted
}

// New renders the pages of catalogue c: an index, a page per version of
// each schema, a page per pair of versions of a schema comparing them,
// and the schema files themselves. It fails if a schema cannot be read,
// or if the library rejects the example message it builds for a version
// (the pages would then disagree with the code).
func New(c *schemas.Catalogue, opt Options) (*Site, error) {
	s := &Site{
		pages:  make(map[string]*page),
		forms:  make(map[string]*form),
		static: make(map[string][]byte),
		bodies: make(chan struct{}, MaxForms()),
	}
	all := c.All()
	var index indexPage
	index.Title = "Schemas"
	for _, name := range c.Names() {
		if !safeName(name) {
			return nil, fmt.Errorf("pages: schema name %q: want letters, digits, '.', '-' and '_', not first a '.'", name)
		}
		var versions []schemas.Schema
		for _, v := range all {
			if v.Name == name {
				versions = append(versions, v)
			}
		}
		for i, v := range versions {
			p, err := newVersionPage(v, versions, opt)
			if err != nil {
				return nil, err
			}
			path := versionPath(v.Name, v.Version)
			if err := s.render(path, "version", p); err != nil {
				return nil, err
			}
			if p.Try.Judge {
				s.forms[path] = &form{data: p, kind: kindOf(opt.Kinds, v.Name, v.Version)}
				static := *p
				static.Try = tryForm{Static: true}
				static.Script = false
				b, err := execute("version", &static)
				if err != nil {
					return nil, err
				}
				s.static[path] = b
			}
			s.file(filePath(v.Name, v.Version), "application/schema+json", v.JSON())
			for _, newer := range versions[i+1:] {
				cp, err := newComparePage(v, newer)
				if err != nil {
					return nil, err
				}
				if err := s.render(comparePath(name, v.Version, newer.Version), "compare", cp); err != nil {
					return nil, err
				}
			}
		}
		latest := versions[len(versions)-1]
		entry := indexEntry{
			Name:        name,
			Latest:      latest.Version,
			Link:        link(versionPath(name, latest.Version)),
			Description: firstLine(latest.Description),
			Go:          goTypeOf(kindOf(opt.Kinds, name, latest.Version)),
		}
		for _, v := range versions {
			entry.Versions = append(entry.Versions, versionLink{v.Version, link(versionPath(name, v.Version)), false})
		}
		index.Schemas = append(index.Schemas, entry)
	}
	if err := s.render("/index.html", "index", &index); err != nil {
		return nil, err
	}
	s.pages["/"] = s.pages["/index.html"]
	for _, f := range []string{"style.css", "try.js"} {
		data, err := files.ReadFile("static/" + f)
		if err != nil {
			return nil, err
		}
		ct := "text/css; charset=utf-8"
		if strings.HasSuffix(f, ".js") {
			ct = "text/javascript; charset=utf-8"
		}
		s.file("/"+f, ct, data)
	}
	s.errors = make(map[errorKey][]byte, len(errorTexts))
	for _, k := range errorTexts {
		b, err := execute("error", &errorPage{common{Title: http.StatusText(k.status), Root: "/"}, k.status, k.text})
		if err != nil {
			return nil, err
		}
		s.errors[k] = b
	}
	return s, nil
}

// MaxForms returns how many messages posted to the pages' forms a Site
// judges at once: two for each CPU the process may use, at least four.
// Beyond them it answers 503 with Retry-After, so that a flood of large
// messages costs a bounded amount of memory (each takes up to about ten
// times api.MaxMessageBytes, its form encoding and its echo included).
func MaxForms() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// render executes the template name with data and keeps the page at path.
func (s *Site) render(path, name string, data interface{ setRoot(string) }) error {
	data.setRoot(rootOf(path))
	b, err := execute(name, data)
	if err != nil {
		return err
	}
	s.file(path, "text/html; charset=utf-8", b)
	return nil
}

func (s *Site) file(path, contentType string, body []byte) {
	s.pages[path] = &page{body: body, contentType: contentType, length: strconv.Itoa(len(body))}
}

func execute(name string, data any) ([]byte, error) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		return nil, fmt.Errorf("pages: %s: %v", name, err)
	}
	return b.Bytes(), nil
}

// WriteFiles writes the site into dir, creating it if need be: every page
// and file at the path it is served at (index.html at the top), so that
// any file server, or a browser opening the files, shows the same pages.
// A static site has no server to judge a message, so its version pages
// say so where the served ones have the form. Links are relative: the
// folder can be served under any path.
func (s *Site) WriteFiles(dir string) error {
	for _, path := range slices.Sorted(maps.Keys(s.pages)) {
		if path == "/" {
			continue
		}
		body := s.pages[path].body
		if b, ok := s.static[path]; ok {
			body = b
		}
		file := filepath.Join(dir, filepath.FromSlash(path[1:]))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, body, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Paths returns the path of every page and file of the site, sorted.
func (s *Site) Paths() []string {
	return slices.Sorted(maps.Keys(s.pages))
}

// safeName reports whether a schema name can be a segment of a path on
// any file system and in any URL without escaping.
func safeName(name string) bool {
	if name == "" || name[0] == '.' {
		return false
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// The paths of the site. Versions are MAJOR.MINOR and names safeName's,
// so none needs escaping.
func versionPath(name, version string) string { return "/schemas/" + name + "/" + version + ".html" }
func filePath(name, version string) string    { return "/schemas/" + name + "/" + version + ".json" }
func comparePath(name, old, new string) string {
	return "/schemas/" + name + "/compare/" + old + "-" + new + ".html"
}

// link returns path as the pages link to it: relative to the site's root,
// which each page prefixes with its own way up (common.Root).
func link(path string) string { return strings.TrimPrefix(path, "/") }

// rootOf returns the relative way from the page at path up to the site's
// root: "" at the top, "../../" two folders down.
func rootOf(path string) string {
	return strings.Repeat("../", strings.Count(path, "/")-1)
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// common is what every page has.
type common struct {
	Title  string
	Root   string // the way up to the site's root, for links
	Script bool   // whether the page loads try.js
}

func (c *common) setRoot(r string) { c.Root = r }

type indexPage struct {
	common
	Schemas []indexEntry
}

type indexEntry struct {
	Name, Latest, Link, Description string
	Versions                        []versionLink
	Go                              goType
}

type versionLink struct {
	Version, Link string
	Current       bool
}

// goType is the Go type generated for a version, as reflect sees it.
type goType struct {
	Import   string // the package's import path
	Type     string // qualified by the package's name: "device.Device"
	Exported bool   // false for an earlier minor of a major, reached through DecodeVersion
	Package  string // the package's name
	None     string // why there is none, when there is none
}

// kindOf returns the kind of the named schema at version in kinds, nil
// if there is none.
func kindOf(kinds *msg.Kinds, name, version string) *msg.Kind {
	if kinds == nil {
		return nil
	}
	return kinds.Lookup(name, version)
}

// goTypeOf returns the Go type of a kind (nil: none), read from the value
// its New returns, so that the pages name exactly what the generator
// wrote.
func goTypeOf(k *msg.Kind) goType {
	if k == nil {
		return goType{None: "no Go type is generated for this version"}
	}
	t := reflect.TypeOf(k.New())
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	qualified := t.String() // "device.Device": reflect qualifies by the package's name
	pkg, _, _ := strings.Cut(qualified, ".")
	return goType{Import: t.PkgPath(), Type: qualified, Exported: token.IsExported(t.Name()), Package: pkg}
}

type versionPage struct {
	common
	Name, Version, ID, Dialect, Description string
	File                                    string // link to the schema file
	Members                                 []*member
	Example                                 string // indented JSON; "" when there is none
	NoExample                               string // why there is none
	Go                                      goType
	Versions                                []versionLink
	Compare                                 []versionLink // the other versions, linking to the comparison with each
	Try                                     tryForm
}

// tryForm is the "try a message" form of a version page.
type tryForm struct {
	Judge    bool   // the server judges posted messages (a Go type exists)
	Static   bool   // the page is part of a static site: no server to judge
	Validate string // the API's validation route for this version, for try.js; "" for none
	Action   string // where the form posts: the page itself
	Message  string // the message posted, echoed
	Verdict  *verdict
}

// verdict is the library's verdict on a posted message.
type verdict struct {
	Valid      bool
	Empty      bool   // no message was posted
	Refused    string // why the message was not judged (too large)
	Violations []violation
	Omitted    int
}

// violation is one violation of a verdict, with the id of the row of its
// member ("" if no row is its member's: the document, an unknown member).
type violation struct {
	*msg.Violation
	Row string
}

func newVersionPage(s schemas.Schema, versions []schemas.Schema, opt Options) (*versionPage, error) {
	rows, err := members(s.Name, s.JSON())
	if err != nil {
		return nil, fmt.Errorf("pages: %s %s: %v", s.Name, s.Version, err)
	}
	p := &versionPage{
		common:      common{Title: s.Name + " " + s.Version},
		Name:        s.Name,
		Version:     s.Version,
		ID:          s.ID,
		Dialect:     s.Dialect,
		Description: s.Description,
		File:        link(filePath(s.Name, s.Version)),
		Members:     rows,
		Go:          goTypeOf(kindOf(opt.Kinds, s.Name, s.Version)),
	}
	for _, v := range versions {
		p.Versions = append(p.Versions, versionLink{v.Version, link(versionPath(v.Name, v.Version)), v.Version == s.Version})
		if v.Version == s.Version {
			continue
		}
		older, newer := v.Version, s.Version
		if v.Major > s.Major || v.Major == s.Major && v.Minor > s.Minor {
			older, newer = newer, older
		}
		p.Compare = append(p.Compare, versionLink{v.Version, link(comparePath(s.Name, older, newer)), false})
	}
	if p.Go.None != "" {
		p.NoExample = p.Go.None + ", so nothing here can judge an example or a message by it"
		return p, nil
	}
	example, err := compat.Example(s)
	if err != nil {
		p.NoExample = "no example can be built for this version: " + err.Error()
	} else {
		// Judged by the library before it is shown: a page must never
		// show as valid a message the code rejects.
		if err := kindOf(opt.Kinds, s.Name, s.Version).New().UnmarshalJSON(example); err != nil {
			return nil, fmt.Errorf("pages: %s %s: the library rejects the example %s: %v", s.Name, s.Version, example, err)
		}
		var b bytes.Buffer
		json.Indent(&b, example, "", "  ")
		p.Example = b.String()
	}
	p.Try = tryForm{Judge: true, Action: s.Version + ".html"}
	if opt.API != "" {
		p.Try.Validate = strings.TrimSuffix(opt.API, "/") + "/schemas/" + url.PathEscape(s.Name) + "/versions/" + url.PathEscape(s.Version) + "/validate"
		p.Script = true
	}
	return p, nil
}

// judge returns a copy of p showing the library's verdict on message,
// each violation beside its member.
func (p *versionPage) judge(k *msg.Kind, message string) *versionPage {
	q := *p
	q.Try.Message = message
	v := &verdict{}
	q.Try.Verdict = v
	if strings.TrimSpace(message) == "" {
		v.Empty = true
		return &q
	}
	m := k.New()
	judged := msg.VerdictOf(m, m.UnmarshalJSON([]byte(message)))
	if judged.Valid {
		v.Valid = true
		return &q
	}
	v.Omitted = judged.Omitted
	q.Members = make([]*member, len(p.Members))
	for i, row := range p.Members {
		r := *row
		q.Members[i] = &r
	}
	for _, viol := range judged.Violations {
		shown := violation{Violation: viol}
		if row := rowOf(q.Members, viol.Path); row != nil {
			row.Violations = append(row.Violations, viol)
			shown.Row = "member" + row.Pointer
		}
		v.Violations = append(v.Violations, shown)
	}
	return &q
}

// rowOf returns the row of the deepest member at or above the member at
// path, or nil if none is.
func rowOf(rows []*member, path string) *member {
	var best *member
	for _, r := range rows {
		if under(path, r.Pointer) && (best == nil || len(r.Pointer) > len(best.Pointer)) {
			best = r
		}
	}
	return best
}

// under reports whether path is ptr or inside it; a "*" segment of ptr
// stands for any item.
func under(path, ptr string) bool {
	ps, qs := strings.Split(path, "/"), strings.Split(ptr, "/")
	if len(ps) < len(qs) {
		return false
	}
	for i, q := range qs {
		if q != ps[i] && !(q == "*" && ps[i] != "") {
			return false
		}
	}
	return true
}

type comparePage struct {
	common
	Name, Old, New   string
	OldLink, NewLink string
	OldFile, NewFile string
	SameMajor        bool
	Compatible       bool
	Groups           []findingGroup
	Omitted          int
	Error            string // the checker could not read a file
}

type findingGroup struct {
	ID, Title, Explain string
	Findings           []finding
}

type finding struct {
	Code, Severity, Member, SchemaPointer, Message, Witness string
}

func newComparePage(old, new schemas.Schema) (*comparePage, error) {
	p := &comparePage{
		common:    common{Title: fmt.Sprintf("%s %s and %s", old.Name, old.Version, new.Version)},
		Name:      old.Name,
		Old:       old.Version,
		New:       new.Version,
		OldLink:   link(versionPath(old.Name, old.Version)),
		NewLink:   link(versionPath(new.Name, new.Version)),
		OldFile:   link(filePath(old.Name, old.Version)),
		NewFile:   link(filePath(new.Name, new.Version)),
		SameMajor: old.Major == new.Major,
	}
	r, err := compat.Compare(old, new, compat.Options{})
	if err != nil {
		p.Error = err.Error()
		return p, nil
	}
	p.Compatible = r.Compatible()
	p.Omitted = r.Omitted
	groups := []findingGroup{
		{ID: "backward", Title: "Backward: messages of " + old.Version + " that " + new.Version + " rejects",
			Explain: "Each witness is accepted by " + old.Version + " and rejected by " + new.Version + ": consumers that upgrade first would refuse producers still on " + old.Version + "."},
		{ID: "forward", Title: "Forward: messages of " + new.Version + " that " + old.Version + " rejects",
			Explain: "Each witness is accepted by " + new.Version + " and rejected by " + old.Version + ": producers that upgrade first would be refused by consumers still on " + old.Version + "."},
		{ID: "full", Title: "Both directions: what a message means",
			Explain: "Each witness is accepted by both versions, but a member it leaves out decodes to a different value under each, or the checker cannot decide."},
	}
	for _, f := range r.Findings {
		severity := "breaks"
		if f.Warning {
			severity = "warning"
		} else if f.Breaks == 0 {
			severity = "compatible"
		}
		fd := finding{
			Code:          f.Code,
			Severity:      severity,
			Member:        f.MemberPointer,
			SchemaPointer: f.SchemaPointer,
			Message:       f.Message,
		}
		if f.Witness != nil {
			var b bytes.Buffer
			if json.Indent(&b, f.Witness, "", "  ") == nil {
				fd.Witness = b.String()
			} else {
				fd.Witness = string(f.Witness)
			}
		}
		switch f.Direction {
		case compat.Backward:
			groups[0].Findings = append(groups[0].Findings, fd)
		case compat.Forward:
			groups[1].Findings = append(groups[1].Findings, fd)
		default:
			groups[2].Findings = append(groups[2].Findings, fd)
		}
	}
	p.Groups = groups
	return p, nil
}
