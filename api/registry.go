package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// RegistryPath is where the Handler serves the schema-registry protocol
// (decision 15): a Confluent-style serializer or admin tool configured
// with the URL http://HOST:PORT/api/registry reads the catalogue through
// it unchanged.
//
// A subject is a schema's name, such as core.device (RecordNameStrategy),
// or a subject that Subjects maps to one (TopicNameStrategy's
// <topic>-value). The versions of a subject are numbered 1, 2, ... in the
// order of their registry ids, that is in the order they were published,
// and "latest" is the last; each also answers to its catalogue version,
// such as 1.0. The catalogue is read-only through the protocol: registering
// a schema already in the catalogue returns its id, and anything else is
// refused with error 42205 and the compatibility report of the schema
// against the subject's versions. The compatibility level is
// FULL_TRANSITIVE (decision 13).
//
// The routes, under RegistryPath, each also with a trailing slash as
// Confluent's registry serves them: GET / ({}, for liveness probes),
// GET /contexts, GET /schemas (?subjectPrefix, ?latestOnly),
// GET /schemas/types, GET /schemas/ids/{id} (?subject= is accepted: an
// id names one version whatever the subject; ?fetchMaxId=true adds
// maxId), GET /schemas/ids/{id}/schema, GET /schemas/ids/{id}/subjects,
// GET /schemas/ids/{id}/versions, GET /subjects (?subjectPrefix),
// GET /subjects/{subject}/versions,
// GET /subjects/{subject}/versions/{version} and .../schema and
// .../referencedby (none), GET /subjects/{subject}/metadata (the latest
// version: the catalogue's have no metadata),
// POST /subjects/{subject} (look a schema up),
// POST /subjects/{subject}/versions (register),
// POST /compatibility/subjects/{subject}/versions/{version} and
// POST /compatibility/subjects/{subject}/versions (every version; with
// ?verbose=true, each finding and its witness message in "messages"),
// GET /config, GET /config/{subject}, GET /mode and GET /mode/{subject}
// (for a subject not served, 40408 and 40409 as in Confluent's registry,
// or the registry's own with ?defaultToGlobal=true), and
// GET /schemas/guids/{guid} and .../ids (40403: the catalogue has no
// GUIDs), and
// GET /associations/resources/{namespace}/{topic} (and
// /associations/subjects/{subject}): the subjects Subjects maps are the
// topics' associations, which Confluent's newer serializers ask for to
// name a topic's subject (AssociatedNameStrategy); a topic without one
// has none, [].
// The list routes take offset and limit; nothing is ever deleted, so
// deletedOnly=true lists nothing and deleted=true changes nothing. A
// subject qualified with the default context, ":.:core.device", is the
// subject core.device; the catalogue has no other context. A route under
// /contexts/{context}/ is the route in that context, as Confluent's
// registry reads it: in another context than the default, ".", it finds
// nothing (no subjects, no ids, no level or mode of its own).
// Writes (PUT, DELETE) are refused with 42205, but for PUT /config and
// PUT /mode setting what is set already, FULL_TRANSITIVE and READONLY,
// which succeed as the idempotent writes they are; OPTIONS is answered
// 204 with the path's methods in Allow. Errors have the registry's
// body, {"error_code": 40401, "message": "..."}, in JSON's terms (a value
// of the wrong type is named by its JSON Pointer), and every answer the
// media type that the request's Accept prefers among the registry's.
//
// A request of up to 16 KiB with its length announced, as a serializer's
// is, is read without one of the places MaxBodies bounds, as on every
// route, so that clients sending bodies slowly cannot keep producers
// from registering; a larger one takes a place. Comparisons run one per
// CPU at once: a compatibility check waits for its turn up to five
// seconds (then 503), so that a burst of checks from many clients is
// answered whole, and the refusal of a registration carries the first
// ten findings of its report (the compatibility route lists them all).
const RegistryPath = "/api/registry"

// The error codes of the schema-registry protocol that the registry
// answers with, beside plain HTTP statuses (404 for a path no route has,
// 405, 413, 503).
const (
	ErrorSubjectNotFound = 40401 // no such subject
	ErrorVersionNotFound = 40402 // the subject has no such version
	ErrorSchemaNotFound  = 40403 // no such registry id, or the schema is not the subject's

	// A subject the registry does not serve has no compatibility level
	// (40408) or mode (40409) of its own; asked with defaultToGlobal=true,
	// it has the registry's.
	ErrorSubjectCompatibilityNotConfigured = 40408
	ErrorSubjectModeNotConfigured          = 40409

	ErrorInvalidSchema             = 42201 // the request's schema cannot be read
	ErrorInvalidVersion            = 42202 // the version is not a number, "latest" or a catalogue version
	ErrorInvalidCompatibilityLevel = 42203 // an update of the level names none
	ErrorInvalidMode               = 42204 // an update of the mode names none
	ErrorReadOnly                  = 42205 // the catalogue is read-only through the protocol
)

// registryContentType is the media type of the protocol's bodies.
const registryContentType = "application/vnd.schemaregistry.v1+json"

// maxRegistryRequest bounds the body of a registry request: a schema of
// MaxSchemaBytes, as a JSON string inside the request's object, where
// escaping can double it.
const maxRegistryRequest = 2*MaxSchemaBytes + 4<<10

// Subjects maps subjects to the names of the catalogue's schemas, for
// clients whose serializers name subjects after topics (Confluent's
// TopicNameStrategy: "telemetry-value" to "core.device"). Each schema's
// own name is a subject without it. Handler panics if a subject maps to a
// schema the catalogue does not have, or is another schema's name, as
// http.ServeMux panics on a pattern that cannot be served: check a
// mapping from configuration with CheckSubjects first.
func Subjects(m map[string]string) Option {
	return func(h *handler) { h.subjects = maps.Clone(m) }
}

// CheckSubjects returns an error for the first subject of m, in order,
// that Subjects would refuse for the published catalogue.
func CheckSubjects(m map[string]string) error {
	return checkSubjects(schemas.All(), m)
}

func checkSubjects(all []schemas.Schema, m map[string]string) error {
	names := map[string]bool{}
	for _, s := range all {
		names[s.Name] = true
	}
	for _, subject := range slices.Sorted(maps.Keys(m)) {
		switch name := m[subject]; {
		case subject == "":
			return errors.New("api: an empty subject")
		case subject == "." || subject == "..":
			// Every URL library removes such a path segment.
			return fmt.Errorf("api: subject %q cannot be named in a URL", subject)
		case strings.ContainsFunc(subject, unicode.IsControl):
			return fmt.Errorf("api: subject %q has a control character, which Confluent's registry refuses", subject)
		case !utf8.ValidString(subject):
			// Answers write it in JSON, where it would not be itself.
			return fmt.Errorf("api: subject %q is not UTF-8", subject)
		case strings.HasPrefix(subject, defaultContext):
			return fmt.Errorf("api: subject %q names the default context, which every subject is in: write it %q", subject, strings.TrimPrefix(subject, defaultContext))
		case strings.HasPrefix(subject, ":."):
			return fmt.Errorf("api: subject %q is in a context of its own; the catalogue's subjects are all in the default one", subject)
		case !names[name]:
			return fmt.Errorf("api: subject %q maps to %q, which the catalogue does not have", subject, name)
		case names[subject] && subject != name:
			return fmt.Errorf("api: subject %q is a schema's name and cannot map to %q", subject, name)
		}
	}
	return nil
}

// defaultContext prefixes a subject qualified with the default context,
// the only one the catalogue has: Confluent's registry reads
// ":.:core.device" as core.device, and so does the registry here.
const defaultContext = ":.:"

// registry serves the schema-registry protocol over the catalogue. All it
// serves is computed once, when the Handler is made.
type registry struct {
	h        *handler // for its body places
	mux      *http.ServeMux
	subjects map[string]*subject
	byID     map[int32]*registered
	names    []string // the subjects, sorted
	maxID    int32    // the largest registry id, for ?fetchMaxId=true
	// topics are the subjects Subjects maps, sorted: the topics'
	// associations.
	topics []string
	// topicSubjects lists the subjects Subjects maps, for the 40401 that
	// tells a client what is served: "none" if none.
	topicSubjects string
}

// subject is one subject and the versions it serves.
type subject struct {
	name     string        // the subject
	versions []*registered // in the order of their registry ids
}

// registered is one schema version as the registry serves it.
type registered struct {
	schemas.Schema
	number int    // its version number in its subjects: its place in publication order
	value  any    // the schema's JSON, to compare requests' schemas with
	byID   []byte // body of GET /schemas/ids/{id}
}

func newRegistry(h *handler, all []schemas.Schema, mapped map[string]string) *registry {
	if err := checkSubjects(all, mapped); err != nil {
		panic(err.Error())
	}
	g := &registry{
		h: h, mux: http.NewServeMux(), subjects: map[string]*subject{}, byID: map[int32]*registered{},
	}
	byName := map[string][]*registered{}
	for _, s := range all {
		if s.RegistryID == 0 {
			continue // a catalogue without registry ids: see schemas.RegistryIDsFile
		}
		value, err := decodeJSON(s.JSON())
		if err != nil {
			panic("api: " + s.File() + ": " + err.Error()) // Load read it as JSON already
		}
		r := &registered{Schema: s, value: value, byID: mustEncode(schemaBody{Schema: string(s.JSON()), SchemaType: "JSON"})}
		g.byID[s.RegistryID] = r
		g.maxID = max(g.maxID, s.RegistryID)
		byName[s.Name] = append(byName[s.Name], r)
	}
	for name, versions := range byName {
		slices.SortFunc(versions, func(a, b *registered) int { return int(a.RegistryID) - int(b.RegistryID) })
		for i, r := range versions {
			r.number = i + 1
		}
		g.subjects[name] = &subject{name: name, versions: versions}
	}
	for sub, name := range mapped {
		if _, ok := g.subjects[sub]; !ok {
			g.subjects[sub] = &subject{name: sub, versions: byName[name]}
		}
	}
	g.names = slices.Sorted(maps.Keys(g.subjects))
	g.topics = slices.Sorted(maps.Keys(mapped))
	g.topicSubjects = "none"
	if topics := g.topics; len(topics) > 0 {
		const most = 10 // the answer stays short however many are mapped
		g.topicSubjects = strings.Join(topics[:min(len(topics), most)], ", ")
		if len(topics) > most {
			g.topicSubjects += fmt.Sprintf(" and %d more: GET /subjects", len(topics)-most)
		}
	}

	for _, r := range []struct {
		pattern string
		serve   http.HandlerFunc
	}{
		{"GET /{$}", g.root},
		{"POST /{$}", g.root},
		{"GET /contexts", g.contexts},
		{"GET /schemas", g.schemaList},
		{"GET /schemas/types", g.types},
		{"GET /schemas/ids/{id}", g.schemaByID},
		{"GET /schemas/ids/{id}/schema", g.rawByID},
		{"GET /schemas/ids/{id}/subjects", g.subjectsByID},
		{"GET /schemas/ids/{id}/versions", g.versionsByID},
		{"GET /schemas/guids/{guid}", g.schemaByGUID},
		{"GET /schemas/guids/{guid}/ids", g.schemaByGUID},
		{"GET /subjects", g.subjectList},
		{"GET /subjects/{subject}/metadata", g.latestWithMetadata},
		{"GET /subjects/{subject}/versions", g.versionList},
		{"GET /subjects/{subject}/versions/{version}", g.subjectVersion},
		{"GET /subjects/{subject}/versions/{version}/schema", g.subjectRaw},
		{"GET /subjects/{subject}/versions/{version}/referencedby", g.referencedBy},
		{"POST /subjects/{subject}", g.lookup},
		{"POST /subjects/{subject}/versions", g.register},
		{"POST /compatibility/subjects/{subject}/versions/{version}", g.compatibility},
		{"POST /compatibility/subjects/{subject}/versions", g.compatibility},
		{"GET /config", g.config},
		{"GET /config/{subject}", g.config},
		{"GET /mode", g.mode},
		{"GET /mode/{subject}", g.mode},
		{"PUT /config", g.putConfig},
		{"PUT /config/{subject}", g.putConfig},
		{"PUT /mode", g.putMode},
		{"PUT /mode/{subject}", g.putMode},
		{"DELETE /subjects/{subject}", g.readOnly},
		{"DELETE /subjects/{subject}/versions/{version}", g.readOnly},
		{"DELETE /config", g.readOnly},
		{"DELETE /config/{subject}", g.readOnly},
		{"DELETE /mode", g.readOnly},
		{"DELETE /mode/{subject}", g.readOnly},
		{"DELETE /contexts/{context}", g.readOnly},
		{"GET /associations/resources/{namespace}/{name}", g.associations},
		{"GET /associations/resources/{id}", g.associations},
		{"GET /associations/subjects/{subject}", g.associations},
		{"POST /associations", g.readOnly},
		{"POST /associations:batch", g.readOnly},
		{"PUT /associations/resources/{id}", g.readOnly},
		{"DELETE /associations/resources/{id}", g.readOnly},
	} {
		g.mux.HandleFunc(r.pattern, r.serve)
	}
	g.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		registryError(w, r, http.StatusNotFound, "no such resource: "+sentPath(r))
	})
	return g
}

// underRegistry reports whether the path p is RegistryPath or under it.
func underRegistry(p string) bool {
	rest, ok := strings.CutPrefix(p, RegistryPath)
	return ok && (rest == "" || rest[0] == '/')
}

// ServeHTTP serves a request whose path is under RegistryPath. As
// Confluent's registry does (JAX-RS matching), a route answers with a
// trailing slash as without one: /subjects/ is /subjects.
func (g *registry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path = strings.TrimPrefix(r.URL.Path, RegistryPath)
	u.RawPath = strings.TrimPrefix(r.URL.RawPath, RegistryPath)
	// Only a slash sent as one ends a route: %2F ends a subject ("a/").
	if sent := r.URL.EscapedPath(); strings.HasSuffix(sent, "/") && len(sent) > len(RegistryPath)+1 {
		u.Path = strings.TrimSuffix(u.Path, "/")
		u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path, u.RawPath = "/", "" // RegistryPath itself, with or without its slash
	}
	inContext(&u)
	r2.URL = &u
	// A 405 from the inner mux would be text; answer it in the
	// registry's body instead.
	if _, pattern := g.mux.Handler(r2); pattern == "/" {
		if allowed := g.allowed(r2); allowed != "" {
			w.Header().Set("Allow", allowed)
			if r.Method == http.MethodOptions {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			registryError(w, r, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed: use %s", r.Method, allowed))
			return
		}
	}
	g.mux.ServeHTTP(w, r2)
}

// inContext rewrites u, a path under RegistryPath, that names a route in
// a context, /contexts/{context}/..., as Confluent's registry reads it
// (its ContextFilter; franz-go's sr.InContext sends it): the route, with
// its subjects qualified with the context ("staging" or ".staging" makes
// :.staging:core.device), /config and /mode the context's own
// (/config/:.staging:), and its lists and ids kept to the context
// (?subjectPrefix=:.staging:, ?subject=:.staging:). The default context,
// ".", qualifies nothing. The catalogue's subjects are all in the default
// context, so that what a route finds in another is what Confluent's
// finds in a context without subjects: nothing.
func inContext(u *url.URL) {
	rest, ok := strings.CutPrefix(u.EscapedPath(), "/contexts/")
	if !ok {
		return
	}
	name, route, ok := strings.Cut(rest, "/")
	context, err := url.PathUnescape(name)
	if !ok || err != nil {
		return // /contexts/{context} itself
	}
	qualifier := ""
	if context != "." {
		qualifier = ":." + strings.TrimPrefix(context, ".") + ":"
	}
	// qualify qualifies a subject, escaped as in a path or not, unless it
	// is already.
	qualify := func(subject string, escape func(string) string) string {
		if plain, err := url.PathUnescape(subject); err == nil && (strings.HasPrefix(plain, ":.") || strings.HasPrefix(plain, ":*:")) {
			return subject
		}
		return escape(qualifier) + subject
	}
	asIs := func(s string) string { return s }
	segments := strings.Split(route, "/")
	subjectNext, configOrMode := false, false
	for i, s := range segments {
		switch {
		case subjectNext:
			segments[i], subjectNext = qualify(s, url.PathEscape), false
		case s == "subjects" || i == 0 && (s == "config" || s == "mode"):
			subjectNext, configOrMode = true, i == 0 && s != "subjects"
		}
	}
	if configOrMode && subjectNext && qualifier != "" {
		segments = append(segments, qualify("", url.PathEscape))
	}
	escaped := "/" + strings.Join(segments, "/")
	plain, err := url.PathUnescape(escaped)
	if err != nil {
		return
	}
	u.Path, u.RawPath = plain, escaped
	if qualifier == "" {
		return
	}
	q := u.Query()
	switch {
	case segments[0] == "schemas" && len(segments) > 1 && segments[1] == "ids":
		q.Set("subject", qualify(q.Get("subject"), asIs))
	case len(segments) == 1 && (segments[0] == "schemas" || segments[0] == "subjects"):
		prefixes := q["subjectPrefix"]
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		for i, p := range prefixes {
			prefixes[i] = qualify(p, asIs)
		}
		q["subjectPrefix"] = prefixes
	}
	u.RawQuery = q.Encode()
}

// allowed returns the methods the registry serves at r's path, OPTIONS
// last, joined for an Allow header, or "" if it serves none there.
func (g *registry) allowed(r *http.Request) string {
	var methods []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		probe := &http.Request{Method: m, URL: r.URL, Host: r.Host}
		if _, pattern := g.mux.Handler(probe); pattern != "/" {
			methods = append(methods, m)
			if m == http.MethodGet {
				methods = append(methods, http.MethodHead)
			}
		}
	}
	if len(methods) == 0 {
		return ""
	}
	return strings.Join(append(methods, http.MethodOptions), ", ")
}

// schemaBody is the protocol's body for a schema by id.
type schemaBody struct {
	Schema     string `json:"schema"`
	SchemaType string `json:"schemaType"`
}

// versionBody is the protocol's body for a version of a subject.
type versionBody struct {
	Subject    string `json:"subject"`
	Version    int    `json:"version"`
	ID         int32  `json:"id"`
	SchemaType string `json:"schemaType"`
	Schema     string `json:"schema"`
}

func (r *registered) body(subject string) versionBody {
	return versionBody{Subject: subject, Version: r.number, ID: r.RegistryID, SchemaType: "JSON", Schema: string(r.JSON())}
}

// request is the body of the protocol's POST requests that carry a schema.
type request struct {
	Schema     string            `json:"schema"`
	SchemaType string            `json:"schemaType"`
	References []json.RawMessage `json:"references"`
}

// root serves GET and POST on RegistryPath itself: {}, as Confluent's
// registry answers the liveness probes of health checks and tools.
func (g *registry) root(w http.ResponseWriter, r *http.Request) {
	writeRegistry(w, r, http.StatusOK, []byte("{}\n"))
}

func (g *registry) types(w http.ResponseWriter, r *http.Request) {
	writeRegistry(w, r, http.StatusOK, mustEncode([]string{"JSON"}))
}

// version returns the version of the registry id in r's path, or answers
// 40403 and returns nil. An id asked for in a context other than the
// default (?subject=:.staging:) is not found: ids are a context's own,
// and the catalogue's are all in the default context.
func (g *registry) version(w http.ResponseWriter, r *http.Request) *registered {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 32)
	subject := r.URL.Query().Get("subject")
	other := strings.HasPrefix(subject, ":.") && !strings.HasPrefix(subject, defaultContext)
	if v, ok := g.byID[int32(id)]; err == nil && ok && !other {
		return v
	}
	registryError(w, r, ErrorSchemaNotFound, fmt.Sprintf("schema %s not found", strconv.Quote(r.PathValue("id"))))
	return nil
}

// schemaByID serves GET /schemas/ids/{id}; with ?fetchMaxId=true, the
// answer also has the largest id, maxId, as Confluent's has.
func (g *registry) schemaByID(w http.ResponseWriter, r *http.Request) {
	v := g.version(w, r)
	if v == nil {
		return
	}
	if !queryTrue(r, "fetchMaxId") {
		writeRegistry(w, r, http.StatusOK, v.byID)
		return
	}
	writeRegistry(w, r, http.StatusOK, mustEncode(struct {
		schemaBody
		MaxID int32 `json:"maxId"`
	}{schemaBody{Schema: string(v.JSON()), SchemaType: "JSON"}, g.maxID}))
}

// queryTrue reports whether the request's query parameter name is true,
// in any case, as JAX-RS reads a boolean parameter: anything else, or
// nothing, is false.
func queryTrue(r *http.Request, name string) bool {
	return strings.EqualFold(r.URL.Query().Get(name), "true")
}

// page returns the items that the request's offset and limit select, as
// Confluent's list routes do: from offset (0 by default), at most limit
// of them (all when limit is absent, 0 or negative, as Confluent's
// normalizeLimit reads it). For an offset or
// limit that is not an integer it answers 400 and returns ok false.
func page[T any](w http.ResponseWriter, r *http.Request, items []T) (_ []T, ok bool) {
	q := r.URL.Query()
	bound := func(name string, absent int) (int, bool) {
		text := q.Get(name)
		if text == "" {
			return absent, true
		}
		n, err := strconv.Atoi(text)
		if err != nil {
			registryError(w, r, http.StatusBadRequest, fmt.Sprintf("%s %s is not an integer", name, strconv.Quote(text)))
			return 0, false
		}
		return n, true
	}
	offset, ok := bound("offset", 0)
	if !ok {
		return nil, false
	}
	limit, ok := bound("limit", -1)
	if !ok {
		return nil, false
	}
	items = items[min(max(offset, 0), len(items)):]
	if limit > 0 && limit < len(items) {
		items = items[:limit]
	}
	return items, true
}

// listed returns the subjects a list route serves: those whose names
// start with the request's subjectPrefix (":*:", Confluent's wildcard
// of every context, is every subject), none if it asks for deleted
// ones only (deletedOnly=true), since nothing here is ever deleted.
func (g *registry) listed(r *http.Request) []*subject {
	prefix := r.URL.Query().Get("subjectPrefix")
	if prefix == ":*:" {
		prefix = ""
	}
	prefix = strings.TrimPrefix(prefix, defaultContext)
	var list []*subject
	if queryTrue(r, "deletedOnly") {
		return nil
	}
	for _, name := range g.names {
		if s := g.subjects[name]; strings.HasPrefix(name, prefix) && len(s.versions) > 0 {
			list = append(list, s)
		}
	}
	return list
}

// association is the protocol's body for a subject associated with a
// topic.
type association struct {
	Subject           string `json:"subject"`
	ResourceName      string `json:"resourceName"`
	ResourceNamespace string `json:"resourceNamespace"`
	ResourceType      string `json:"resourceType"`
	AssociationType   string `json:"associationType"`
	Lifecycle         string `json:"lifecycle"`
	Frozen            bool   `json:"frozen"`
}

// associations serves GET /associations/resources/{namespace}/{name},
// /associations/resources/{id} and /associations/subjects/{subject}: a
// subject that Subjects maps, <topic>-key or <topic>-value, is the
// topic's association of that type, in any namespace (Kafka cluster),
// WEAK since nothing deletes it with the topic. Confluent's serializers
// that name subjects by association (AssociatedNameStrategy, its newer
// clients' default) ask for it first; a resource without one has none,
// [], as Confluent's registry answers. The query filters as Confluent's
// does: resourceType (topic when absent), associationType (repeated;
// every type when absent), lifecycle, offset and limit.
func (g *registry) associations(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	namespace := cmp.Or(r.PathValue("namespace"), "-")
	types := q["associationType"]
	list := []association{}
	for _, sub := range g.topics {
		for _, kind := range []string{"key", "value"} {
			topic, ok := strings.CutSuffix(sub, "-"+kind)
			if !ok || r.PathValue("id") != "" ||
				r.PathValue("name") != "" && r.PathValue("name") != topic ||
				r.PathValue("subject") != "" && r.PathValue("subject") != sub ||
				len(types) > 0 && !slices.Contains(types, kind) ||
				cmp.Or(q.Get("resourceType"), "topic") != "topic" ||
				cmp.Or(q.Get("lifecycle"), "WEAK") != "WEAK" {
				continue
			}
			list = append(list, association{Subject: sub, ResourceName: topic, ResourceNamespace: namespace,
				ResourceType: "topic", AssociationType: kind, Lifecycle: "WEAK"})
		}
	}
	if list, ok := page(w, r, list); ok {
		writeRegistry(w, r, http.StatusOK, mustEncode(list))
	}
}

// contexts serves GET /contexts: the default context alone, with offset
// and limit as the other lists.
func (g *registry) contexts(w http.ResponseWriter, r *http.Request) {
	if list, ok := page(w, r, []string{"."}); ok {
		writeRegistry(w, r, http.StatusOK, mustEncode(list))
	}
}

// schemaList serves GET /schemas: every version of the listed subjects,
// or only their latest with latestOnly=true, in the order of the
// subjects and then of their versions.
func (g *registry) schemaList(w http.ResponseWriter, r *http.Request) {
	list := []versionBody{}
	for _, s := range g.listed(r) {
		versions := s.versions
		if queryTrue(r, "latestOnly") {
			versions = versions[len(versions)-1:]
		}
		for _, v := range versions {
			list = append(list, v.body(s.name))
		}
	}
	if list, ok := page(w, r, list); ok {
		writeRegistry(w, r, http.StatusOK, mustEncode(list))
	}
}

// subjectsByID serves GET /schemas/ids/{id}/subjects: the subjects with
// the version, only the request's subject if it names one.
func (g *registry) subjectsByID(w http.ResponseWriter, r *http.Request) {
	if v := g.version(w, r); v != nil {
		list := []string{}
		for _, sv := range g.subjectVersions(r, v) {
			list = append(list, sv.Subject)
		}
		writeRegistry(w, r, http.StatusOK, mustEncode(list))
	}
}

func (g *registry) rawByID(w http.ResponseWriter, r *http.Request) {
	if v := g.version(w, r); v != nil {
		writeRegistry(w, r, http.StatusOK, v.JSON())
	}
}

// subjectVersion is one entry of GET /schemas/ids/{id}/versions.
type subjectVersion struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// subjectVersions returns the subjects that have the version v, and its
// number in each, only for the request's subject if it names one.
func (g *registry) subjectVersions(r *http.Request, v *registered) []subjectVersion {
	only := strings.TrimPrefix(r.URL.Query().Get("subject"), defaultContext)
	list := []subjectVersion{}
	for _, name := range g.names {
		if slices.Contains(g.subjects[name].versions, v) && (only == "" || only == name) {
			list = append(list, subjectVersion{name, v.number})
		}
	}
	return list
}

func (g *registry) versionsByID(w http.ResponseWriter, r *http.Request) {
	if v := g.version(w, r); v != nil {
		writeRegistry(w, r, http.StatusOK, mustEncode(g.subjectVersions(r, v)))
	}
}

// subjectList serves GET /subjects, with subjectPrefix, deleted,
// deletedOnly, offset and limit as Confluent's.
func (g *registry) subjectList(w http.ResponseWriter, r *http.Request) {
	names := []string{}
	for _, s := range g.listed(r) {
		names = append(names, s.name)
	}
	if names, ok := page(w, r, names); ok {
		writeRegistry(w, r, http.StatusOK, mustEncode(names))
	}
}

// subject returns the subject in r's path, or answers 40401 and returns
// nil.
func (g *registry) subject(w http.ResponseWriter, r *http.Request) *subject {
	name := r.PathValue("subject")
	s := g.served(name)
	if s == nil {
		registryError(w, r, ErrorSubjectNotFound, fmt.Sprintf("subject %s not found: the subjects are the schemas' names and the topic subjects given to the service (%s); serve another with msgcheck serve -subject %s=NAME (api.Subjects)", strconv.Quote(name), g.topicSubjects, name))
	}
	return s
}

// served returns the subject of that name, or nil if the registry does
// not serve it.
func (g *registry) served(name string) *subject {
	if s, ok := g.subjects[strings.TrimPrefix(name, defaultContext)]; ok && len(s.versions) > 0 {
		return s
	}
	return nil
}

// versionList serves GET /subjects/{subject}/versions: none with
// deletedOnly=true, since no version is ever deleted; with offset and
// limit, as Confluent's.
func (g *registry) versionList(w http.ResponseWriter, r *http.Request) {
	s := g.subject(w, r)
	if s == nil {
		return
	}
	numbers := []int{}
	for _, v := range s.versions {
		numbers = append(numbers, v.number)
	}
	if queryTrue(r, "deletedOnly") {
		numbers = numbers[:0]
	}
	if numbers, ok := page(w, r, numbers); ok {
		writeRegistry(w, r, http.StatusOK, mustEncode(numbers))
	}
}

// latestWithMetadata serves GET /subjects/{subject}/metadata, which
// Confluent's serializers call with use.latest.with.metadata: the latest
// version whose metadata has every key=value of the query. The
// catalogue's versions have no metadata, so the latest version answers
// a request that names none, and nothing answers one that names some.
func (g *registry) latestWithMetadata(w http.ResponseWriter, r *http.Request) {
	s := g.subject(w, r)
	if s == nil {
		return
	}
	if r.URL.Query().Has("key") {
		registryError(w, r, ErrorSchemaNotFound, fmt.Sprintf("no version of subject %s has metadata: the catalogue's versions have none", strconv.Quote(s.name)))
		return
	}
	writeRegistry(w, r, http.StatusOK, mustEncode(s.versions[len(s.versions)-1].body(s.name)))
}

// referencedBy serves GET /subjects/{subject}/versions/{version}/referencedby:
// the ids of the schemas that reference the version, none, since the
// catalogue's schemas have no references.
func (g *registry) referencedBy(w http.ResponseWriter, r *http.Request) {
	if s := g.subject(w, r); s != nil && s.find(w, r) != nil {
		writeRegistry(w, r, http.StatusOK, mustEncode([]int32{}))
	}
}

// find returns the subject's version that r's path names: a version
// number, "latest" or -1 for the last, or a catalogue version such as
// "1.0". Otherwise it answers 42202 or 40402 and returns nil.
func (s *subject) find(w http.ResponseWriter, r *http.Request) *registered {
	// As Confluent's registry reads a version (its VersionId): without
	// the white space and control characters around it (Java's trim),
	// "latest" in any case, an integer as Java's Integer.parseInt reads
	// one, sign and leading zeros allowed.
	text := strings.TrimFunc(r.PathValue("version"), func(c rune) bool { return c <= ' ' })
	// A version is an int32, as Java's Integer is in Confluent's registry:
	// beyond, it is invalid (42202), not missing.
	n64, err := strconv.ParseInt(text, 10, 32)
	switch n := int(n64); {
	case strings.EqualFold(text, "latest") || err == nil && n == -1:
		return s.versions[len(s.versions)-1]
	case err == nil && n >= 1 && n <= len(s.versions):
		return s.versions[n-1]
	case err == nil && n >= 1:
	default:
		if _, _, err := schemas.ParseVersion(text); err != nil {
			registryError(w, r, ErrorInvalidVersion, fmt.Sprintf("version %s is not a number from 1, latest, -1 or a catalogue version such as 1.0", strconv.Quote(text)))
			return nil
		}
		for _, v := range s.versions {
			if v.Version == text {
				return v
			}
		}
	}
	registryError(w, r, ErrorVersionNotFound, fmt.Sprintf("version %s of subject %s not found", strconv.Quote(text), strconv.Quote(s.name)))
	return nil
}

func (g *registry) subjectVersion(w http.ResponseWriter, r *http.Request) {
	if s := g.subject(w, r); s != nil {
		if v := s.find(w, r); v != nil {
			writeRegistry(w, r, http.StatusOK, mustEncode(v.body(s.name)))
		}
	}
}

func (g *registry) subjectRaw(w http.ResponseWriter, r *http.Request) {
	if s := g.subject(w, r); s != nil {
		if v := s.find(w, r); v != nil {
			writeRegistry(w, r, http.StatusOK, v.JSON())
		}
	}
}

// readRequest reads a POST request's schema, holding one of the handler's
// body places while it does. It answers the request and returns ok false
// when the body is too large, unreadable, not a request, not JSON or not
// of type JSON.
func (g *registry) readRequest(w http.ResponseWriter, r *http.Request) (req request, value any, ok bool) {
	body, release, ok := g.h.readBody(w, r, maxRegistryRequest, "request", "too many requests are being answered", registryError)
	if !ok {
		return req, nil, false
	}
	defer release()
	if len(body) == 0 {
		registryError(w, r, ErrorInvalidSchema, "the request is empty, where a JSON object with a schema is wanted")
		return req, nil, false
	}
	// Strictly, as messages are read (decisions 11 and 12): encoding/json
	// would repair invalid UTF-8 and keep the last of repeated names,
	// where the client may have meant the first.
	if off, reason := jsontext.Check(body); reason != "" {
		registryError(w, r, ErrorInvalidSchema, fmt.Sprintf("the request is not JSON: at byte %d: %s", off, reason))
		return req, nil, false
	}
	if err := json.Unmarshal(body, &req); err != nil {
		registryError(w, r, ErrorInvalidSchema, inJSONTerms("the request", body, err))
		return req, nil, false
	}
	if req.Schema == "" {
		registryError(w, r, ErrorInvalidSchema, "the request has no schema")
		return req, nil, false
	}
	if req.SchemaType != "JSON" {
		what := "no schemaType, which means AVRO"
		if req.SchemaType != "" {
			what = "schemaType " + strconv.Quote(req.SchemaType)
		}
		registryError(w, r, ErrorInvalidSchema, "the catalogue holds JSON schemas only; the request has "+what)
		return req, nil, false
	}
	if len(req.References) > 0 {
		registryError(w, r, ErrorInvalidSchema, "the catalogue's schemas have no references")
		return req, nil, false
	}
	if off, reason := jsontext.Check([]byte(req.Schema)); reason != "" {
		registryError(w, r, ErrorInvalidSchema, fmt.Sprintf("the schema is not JSON: at byte %d: %s", off, reason))
		return req, nil, false
	}
	value, err := decodeJSON([]byte(req.Schema))
	if err != nil {
		registryError(w, r, ErrorInvalidSchema, "the schema is not JSON: "+err.Error())
		return req, nil, false
	}
	return req, value, true
}

// match returns the subject's version whose schema is, as JSON, the
// value: the same text up to white space, member order and the spelling
// of numbers, and with an $id that names the same schema in either
// scheme (see sameID).
func (s *subject) match(value any) *registered {
	for _, v := range s.versions {
		if equalJSON(v.value, sameID(value, v.ID)) {
			return v
		}
	}
	return nil
}

// sameID returns the decoded schema value with its $id written as id if
// the two name the same schema (msg.CanonicalID: the catalogue was
// published under http and https, decision 9, so a producer's copy may
// have either), and otherwise value itself.
func sameID(value any, id string) any {
	o, ok := value.(map[string]any)
	if !ok {
		return value
	}
	if sent, ok := o["$id"].(string); !ok || sent == id || msg.CanonicalID(sent) != msg.CanonicalID(id) {
		return value
	}
	o = maps.Clone(o)
	o["$id"] = id
	return o
}

// lookup serves POST /subjects/{subject}: the version of the subject whose
// schema the request holds.
func (g *registry) lookup(w http.ResponseWriter, r *http.Request) {
	s := g.subject(w, r)
	if s == nil {
		return
	}
	_, value, ok := g.readRequest(w, r)
	if !ok {
		return
	}
	v := s.match(value)
	if v == nil {
		registryError(w, r, ErrorSchemaNotFound, fmt.Sprintf("the schema is not a version of subject %s: %s", strconv.Quote(s.name), s.differences(value)))
		return
	}
	writeRegistry(w, r, http.StatusOK, mustEncode(v.body(s.name)))
}

// differences says where the schema value first differs from each
// version of the subject, as a JSON Pointer into the schema.
func (s *subject) differences(value any) string {
	var text []string
	for _, v := range s.versions {
		where := "at " + strconv.Quote(firstDifference(v.value, value, ""))
		if where == `at ""` {
			where = "at its root"
		}
		text = append(text, fmt.Sprintf("it differs from version %d (%s) %s", v.number, v.Version, where))
	}
	return strings.Join(text, "; ")
}

// maxRefusalFindings is how many findings of its compatibility report
// the refusal of a registration carries: it is an error message, which
// clients print and log whole, where the report of a large schema may
// run to megabytes. The compatibility route lists them all.
const maxRefusalFindings = 10

// register serves POST /subjects/{subject}/versions: the id of a schema
// already in the catalogue under the subject; anything else is refused
// as read-only, with the schema's compatibility report.
//
// Under a subject it does not serve, it refuses every registration with
// 42205, as a registry in READONLY mode does, saying how the operator
// would serve the subject if the schema is one of the catalogue's.
func (g *registry) register(w http.ResponseWriter, r *http.Request) {
	req, value, ok := g.readRequest(w, r)
	if !ok {
		return
	}
	s := g.served(r.PathValue("subject"))
	if s == nil {
		text := fmt.Sprintf("subject %s is not served: it is no schema's name, and no topic subject maps to it; the catalogue is read-only", strconv.Quote(r.PathValue("subject")))
		for _, name := range g.names {
			if n := g.subjects[name]; n.name == n.versions[0].Name && n.match(value) != nil {
				text += fmt.Sprintf(", but the schema is %s's, which the operator serves under this subject with -subject %s=%s (api.Subjects)", name, r.PathValue("subject"), name)
				break
			}
		}
		registryError(w, r, ErrorReadOnly, text)
		return
	}
	if v := s.match(value); v != nil {
		writeRegistry(w, r, http.StatusOK, mustEncode(v.body(s.name)))
		return
	}
	text := fmt.Sprintf("subject %s is read-only: the catalogue publishes a new version through its own repository (decision 13), not by registration", strconv.Quote(s.name))
	// The report is a comparison, made in one of comparing's places as on
	// the compatibility routes; without one, the refusal stands alone.
	select {
	case comparing <- struct{}{}:
		findings, _, err := g.compare(s, s.versions, []byte(req.Schema))
		<-comparing
		switch more := len(findings) - maxRefusalFindings; {
		case err != nil:
			text += "; " + err.Error()
		case more > 0:
			text += "; against the catalogue: " + strings.Join(findings[:maxRefusalFindings], "; ")
			text += fmt.Sprintf("; and %d more findings: POST /compatibility/subjects/%s/versions?verbose=true lists them all", more, s.name)
		case len(findings) > 0:
			text += "; against the catalogue: " + strings.Join(findings, "; ")
		}
	default:
		text += "; its compatibility report is left out: busy comparing other schemas (POST /compatibility/subjects/" + s.name + "/versions?verbose=true gives it)"
	}
	registryError(w, r, ErrorReadOnly, text)
}

// compatibility serves POST /compatibility/subjects/{subject}/versions
// and .../versions/{version}: whether the request's schema is fully
// compatible with that version, or with every version of the subject.
func (g *registry) compatibility(w http.ResponseWriter, r *http.Request) {
	s := g.subject(w, r)
	if s == nil {
		return
	}
	against := s.versions
	if r.PathValue("version") != "" {
		v := s.find(w, r)
		if v == nil {
			return
		}
		against = []*registered{v}
	}
	verbose, ok := queryBool(w, r, "verbose", registryError)
	if !ok {
		return
	}
	req, _, ok := g.readRequest(w, r)
	if !ok {
		return
	}
	done, ok := startComparing(w, r, registryError)
	if !ok {
		return
	}
	messages, compatible, err := g.compare(s, against, []byte(req.Schema))
	done() // before writing, which a slow reader may hold up
	if err != nil {
		registryError(w, r, ErrorInvalidSchema, err.Error())
		return
	}
	// With verbose, "messages" is always there, [] when empty, as in
	// Confluent's answer; without, never (omitempty drops a nil pointer,
	// where it would also drop an empty list).
	body := struct {
		Compatible bool      `json:"is_compatible"`
		Messages   *[]string `json:"messages,omitempty"`
	}{Compatible: compatible}
	if verbose {
		list := append([]string{}, messages...)
		body.Messages = &list
	}
	writeRegistry(w, r, http.StatusOK, mustEncode(body))
}

// compare compares the candidate schema file with each version of against
// (decision 13's full compatibility, on declared members), and returns
// every finding, each on one line with its witness, and whether none
// breaks. The candidate must be a schema file of the subject's schema, as
// package schemas reads one.
func (g *registry) compare(s *subject, against []*registered, candidate []byte) (findings []string, compatible bool, err error) {
	c, err := schemas.Parse(candidate)
	if err != nil {
		_, typeErr := errors.AsType[*json.UnmarshalTypeError](err)
		o, _ := decodeJSON(candidate)
		if o, ok := o.(map[string]any); ok && o["$id"] == nil && !typeErr {
			// A team's own schema: say how a proposed version names
			// itself, the next minor of the latest version.
			latest := s.versions[len(s.versions)-1]
			next := fmt.Sprintf("%d.%d", latest.Major, latest.Minor+1)
			return nil, false, fmt.Errorf("the schema is not a catalogue schema file: it has no $id; a proposed version of %s names itself as the catalogue's files do, with \"$id\": %s and \"title\": %s",
				latest.Name, strconv.Quote(schemas.ID(latest.Name, next)), strconv.Quote(latest.Name))
		}
		return nil, false, fmt.Errorf("the schema is not a catalogue schema file: %s", inJSONTerms("it", candidate, err))
	}
	if want := against[0].Name; c.Name != want {
		return nil, false, fmt.Errorf("the schema is %s, not %s, the schema of subject %s", strconv.Quote(c.Name), strconv.Quote(want), strconv.Quote(s.name))
	}
	compatible = true
	for _, v := range against {
		proposed := c
		if c.Version == v.Version {
			// An edited copy keeps its $id, so claims the version it is
			// compared with: the report names it apart.
			proposed.Version = "the proposed " + c.Version
		}
		report, err := compat.Compare(v.Schema, proposed, compat.Options{Mode: compat.Full})
		if err != nil {
			return nil, false, err
		}
		compatible = compatible && report.Compatible()
		findings = append(findings, report.Lines(fmt.Sprintf("against version %d (%s)", v.number, v.Version))...)
	}
	return findings, compatible, nil
}

// config serves GET /config and GET /config/{subject}: FULL_TRANSITIVE
// (decision 13), the level of the registry and of every subject it
// serves. A subject it does not serve has no level of its own: as in
// Confluent's registry, asking for it is 40408, unless defaultToGlobal
// is true, which asks for the registry's level.
func (g *registry) config(w http.ResponseWriter, r *http.Request) {
	if !g.configured(w, r, ErrorSubjectCompatibilityNotConfigured, "compatibility") {
		return
	}
	writeRegistry(w, r, http.StatusOK, mustEncode(map[string]string{"compatibilityLevel": "FULL_TRANSITIVE"}))
}

// mode serves GET /mode and GET /mode/{subject}, READONLY, as config
// serves the level (40409 for a subject not served).
func (g *registry) mode(w http.ResponseWriter, r *http.Request) {
	if !g.configured(w, r, ErrorSubjectModeNotConfigured, "mode") {
		return
	}
	writeRegistry(w, r, http.StatusOK, mustEncode(map[string]string{"mode": "READONLY"}))
}

// configured reports whether the subject in r's path, if any, has the
// setting what of its own, or defaultToGlobal=true asks for the
// registry's; otherwise it answers code and returns false.
func (g *registry) configured(w http.ResponseWriter, r *http.Request, code int, what string) bool {
	subject := r.PathValue("subject")
	if subject == "" || g.served(subject) != nil || queryTrue(r, "defaultToGlobal") {
		return true
	}
	registryError(w, r, code, fmt.Sprintf("subject %s does not have subject-level %s configured", strconv.Quote(subject), what))
	return false
}

// schemaByGUID serves GET /schemas/guids/{guid}, by which Confluent's
// deserializers fetch a schema whose GUID a producer wrote in a header,
// and GET /schemas/guids/{guid}/ids, its ids in each context (franz-go's
// SchemaIDsByGUID): the catalogue names its schemas by registry id only
// (decision 15), so no GUID is found.
func (g *registry) schemaByGUID(w http.ResponseWriter, r *http.Request) {
	registryError(w, r, ErrorSchemaNotFound, fmt.Sprintf("schema %s not found: the catalogue names its schemas by registry id, not by GUID", strconv.Quote(r.PathValue("guid"))))
}

// The compatibility levels and the modes of Confluent's registry.
var (
	compatibilityLevels = []string{"NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"}
	modes               = []string{"READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT"}
)

// putConfig serves PUT /config and PUT /config/{subject}: an update to
// FULL_TRANSITIVE, the level the registry has everywhere, is accepted as
// the idempotent write it is, answered as Confluent's registry answers
// it, so that tools that set the level they expect on every run work;
// any other update is refused read-only (42205), or 42203 if it names
// no level.
func (g *registry) putConfig(w http.ResponseWriter, r *http.Request) {
	g.putSetting(w, r, "compatibility", "FULL_TRANSITIVE", compatibilityLevels, ErrorInvalidCompatibilityLevel)
}

// putMode serves PUT /mode and PUT /mode/{subject} as putConfig serves
// the level: READONLY is accepted, another mode is 42205, no mode 42204.
func (g *registry) putMode(w http.ResponseWriter, r *http.Request) {
	g.putSetting(w, r, "mode", "READONLY", modes, ErrorInvalidMode)
}

// putSetting serves an update whose body is {member: value}: 200 with
// {member: current} if value is current, in any case; invalid if value
// is none of valid; 42205 otherwise, and for any other body.
func (g *registry) putSetting(w http.ResponseWriter, r *http.Request, member, current string, valid []string, invalid int) {
	body, release, ok := g.h.readBody(w, r, maxRegistryRequest, "request", "too many requests are being answered", registryError)
	if !ok {
		return
	}
	var update map[string]any
	_, reason := jsontext.Check(body)
	err := json.Unmarshal(body, &update)
	release()
	value, isString := update[member].(string)
	switch {
	case reason != "" || err != nil || !isString || len(update) != 1:
		g.readOnly(w, r)
	case strings.EqualFold(value, current):
		writeRegistry(w, r, http.StatusOK, mustEncode(map[string]string{member: current}))
	case !slices.Contains(valid, strings.ToUpper(value)):
		registryError(w, r, invalid, fmt.Sprintf("%s %s is none of %s", member, strconv.Quote(value), strings.Join(valid, ", ")))
	default:
		what := map[string]string{"compatibility": "compatibility level"}[member]
		registryError(w, r, ErrorReadOnly, fmt.Sprintf("the %s is %s, for every subject, and cannot be changed: the catalogue is read-only (decision 13)", cmp.Or(what, member), current))
	}
}

func (g *registry) readOnly(w http.ResponseWriter, r *http.Request) {
	registryError(w, r, ErrorReadOnly, "the catalogue is read-only: a new version is published through its own repository (decision 13)")
}

// writeRegistry writes a body of the protocol, or only its headers for
// HEAD, in the media type the request accepts (see accepted).
func writeRegistry(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	writeBody(w, r, status, accepted(r.Header.Values("Accept")), body)
}

// registryTypes are the media types of the registry's bodies, in the
// order Confluent's registry prefers them.
var registryTypes = []string{registryContentType, "application/vnd.schemaregistry+json", "application/json"}

// accepted returns the media type of registryTypes that the Accept field
// values take with the highest quality, the first in registryTypes among
// equals, as Confluent's registry chooses. Without Accept, or when it
// takes none of them, it is registryContentType: RFC 9110 lets a server
// answer in a type the client did not ask for rather than 406, and every
// client of the protocol reads it.
func accepted(values []string) string {
	best, bestQ := registryContentType, 0.0
	for i, t := range registryTypes {
		q := 0.0
		specific := -1 // how specific the range that set q is: */* 0, application/* 1, exact 2
		for _, v := range values {
			for item := range strings.SplitSeq(v, ",") {
				mediaRange, params, _ := strings.Cut(item, ";")
				mediaRange = strings.ToLower(strings.TrimSpace(mediaRange))
				level := -1
				switch {
				case mediaRange == t:
					level = 2
				case mediaRange == "application/*":
					level = 1
				case mediaRange == "*/*":
					level = 0
				}
				if level <= specific {
					continue
				}
				specific, q = level, 1
				for p := range strings.SplitSeq(params, ";") {
					if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
						if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
							q = f
						}
					}
				}
			}
		}
		if q > bestQ || i == 0 && q == bestQ {
			best, bestQ = t, q
		}
	}
	return best
}

// registryError writes the protocol's error body, {"error_code": code,
// "message": text}, with the HTTP status the code stands for: its first
// three digits (40401 is 404), or the code itself for a plain status.
func registryError(w http.ResponseWriter, r *http.Request, code int, text string) {
	status := code
	if code >= 10000 {
		status = code / 100
	}
	writeRegistry(w, r, status, mustEncode(struct {
		Code    int    `json:"error_code"`
		Message string `json:"message"`
	}{code, text}))
}

// decodeJSON decodes a JSON text whole, numbers as json.Number, so that
// equalJSON compares them exactly.
func decodeJSON(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err == nil {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// equalJSON reports whether two decoded JSON values are equal: objects
// with the same members whatever their order, arrays item by item,
// numbers by value (1, 1.0 and 1e0 are equal).
func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !equalJSON(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		return ok && slices.EqualFunc(a, b, equalJSON)
	case json.Number:
		b, ok := b.(json.Number)
		return ok && canonicalNumber(string(a)) == canonicalNumber(string(b))
	default:
		return a == b // string, bool, nil
	}
}

// firstDifference returns the JSON Pointer, below at, of the first place
// where the decoded JSON values a and b differ, visiting object members
// in the order of their names; "" if they are equal.
func firstDifference(a, b any, at string) string {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok {
			return at
		}
		names := slices.AppendSeq(slices.Collect(maps.Keys(a)), maps.Keys(b))
		slices.Sort(names)
		for _, k := range slices.Compact(names) {
			av, inA := a[k]
			bv, inB := b[k]
			if inA != inB {
				return msg.Pointer(at, k)
			}
			if d := firstDifference(av, bv, msg.Pointer(at, k)); d != "" {
				return d
			}
		}
		return ""
	case []any:
		b, ok := b.([]any)
		if !ok {
			return at
		}
		for i := range max(len(a), len(b)) {
			if i >= len(a) || i >= len(b) {
				return at + "/" + strconv.Itoa(i)
			}
			if d := firstDifference(a[i], b[i], at+"/"+strconv.Itoa(i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !equalJSON(a, b) {
		return at
	}
	return ""
}

// canonicalNumber returns a JSON number's value in one spelling, its
// significant digits and the exponent of their last: "1", "1.0", "10e-1"
// and "0.1e1" are all "1e0", and every zero is "0". It computes nothing
// from the exponent's size, so that a number such as 1e999999999 costs
// no more than its text; an exponent past int64 keeps the text as it is.
func canonicalNumber(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	e := int64(0)
	if exp != "" {
		n, err := strconv.ParseInt(exp, 10, 64)
		if err != nil || n > 1<<62 || n < -1<<62 {
			return s // past what the digits below could shift
		}
		e = n
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	e -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	e += int64(len(digits) - len(trimmed))
	trimmed = strings.TrimLeft(trimmed, "0")
	if trimmed == "" {
		return "0"
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.FormatInt(e, 10)
}
