package ce

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"time"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/internal/format"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
	"github.com/fleetkit/catalogue/vehicle"
	"github.com/google/uuid"
)

// SpecVersion is the CloudEvents version of the headers, the value of
// ce-specversion.
const SpecVersion = "1.0"

// ContentType is the content type of every message's body.
const ContentType = "application/json"

// EventSource is the ce-source of every example.event, which has no
// source members to derive one from.
const EventSource = "/events"

// The names of the CloudEvents attributes, without the transport's prefix.
const (
	AttrSpecVersion = "specversion"
	AttrID          = "id"
	AttrType        = "type"
	AttrSource      = "source"
	AttrTime        = "time"
	AttrDataSchema  = "dataschema"
)

// A Header is a transport's set of message headers. http.Header and
// nats.Header are Headers; for another transport, a few lines adapt its
// own.
type Header interface {
	// Values returns every value of the header key.
	Values(key string) []string
	// Set sets the header key to the single value.
	Set(key, value string)
}

// A Binding maps the attributes onto one transport's headers, as that
// transport's CloudEvents protocol binding names them.
type Binding struct {
	// Prefix goes before each attribute's name: "ce-" gives ce-id.
	Prefix string
	// ContentType is the name of the header that holds the body's
	// content type.
	ContentType string
}

// The bindings of the transports CloudEvents defines binary mode for.
var (
	NATS  = Binding{Prefix: "ce-", ContentType: "Content-Type"}
	HTTP  = Binding{Prefix: "ce-", ContentType: "Content-Type"}
	Kafka = Binding{Prefix: "ce_", ContentType: "content-type"}
)

// Attributes are the CloudEvents attributes of one message.
type Attributes struct {
	ID         string    // the message's message_id, or an event's id
	Type       string    // the schema's name
	Source     string    // derived from the message's source members (see the package doc)
	Time       time.Time // the message's time, or an event's occurred_at
	DataSchema string    // the schema's $id
}

// AttributesOf returns the attributes of m. A message whose message_type
// is not its schema's name cannot be given headers that agree with it
// (ce-type names the schema, and a consumer would find them contradicting
// the body): AttributesOf returns an *msg.Error for it, with a violation
// of rule msg.RuleHeader at /message_type.
func AttributesOf(m catalogue.Message) (Attributes, error) {
	f, err := attributeFields(m)
	if err != nil {
		return Attributes{}, err
	}
	return Attributes{
		ID:         f.id.String(),
		Type:       m.SchemaName(),
		Source:     f.source(),
		Time:       f.time,
		DataSchema: schemas.ID(m.SchemaName(), m.SchemaVersion()),
	}, nil
}

// attributeFields returns the fields of m for its attributes, or the
// error of AttributesOf.
func attributeFields(m catalogue.Message) (fields, error) {
	f, ok := fieldsOf(m)
	if !ok {
		return fields{}, fmt.Errorf("ce: no attributes for a message of type %T", m)
	}
	if f.hasType && f.messageType != m.SchemaName() {
		return fields{}, &msg.Error{Violations: []*msg.Violation{{
			Path:    "/message_type",
			Rule:    msg.RuleHeader,
			Message: fmt.Sprintf("message_type is not the schema's name %q, which ce-type would carry", m.SchemaName()),
			Value:   quote(f.messageType),
		}}}
	}
	return f, nil
}

// Write sets the headers of m in h: Content-Type and the attributes, each
// under its prefixed name. It does not validate m: a producer validates
// first. Every value it writes is printable ASCII, whatever the message
// holds. A header that already holds its value is left as it is, and
// Write then allocates nothing: a gate writes the headers of every message
// it passes on, most of which came with them.
func (b Binding) Write(h Header, m catalogue.Message) error {
	f, err := attributeFields(m)
	if err != nil {
		return err
	}
	// The values are built here and compared with what h holds; a string
	// is made only for one that differs.
	var scratch [256]byte
	set(h, b.ContentType, ContentType)
	set(h, b.key(hSpecVersion), SpecVersion)
	setBytes(h, b.key(hID), format.AppendUUID(scratch[:0], f.id))
	set(h, b.key(hType), m.SchemaName())
	setBytes(h, b.key(hSource), f.appendSource(scratch[:0]))
	setBytes(h, b.key(hTime), format.AppendDateTime(scratch[:0], f.time))
	setBytes(h, b.key(hDataSchema), appendID(scratch[:0], m.SchemaName(), m.SchemaVersion()))
	return nil
}

// set sets the header key to value, unless it holds that value alone
// already: a gate rewriting the headers a Publisher wrote leaves them be.
func set(h Header, key, value string) {
	if vs := h.Values(key); len(vs) == 1 && vs[0] == value {
		return
	}
	h.Set(key, value)
}

// setBytes is set for a value built in a buffer: the string is made only
// when the header does not hold it already.
func setBytes(h Header, key string, value []byte) {
	if vs := h.Values(key); len(vs) == 1 && vs[0] == string(value) {
		return
	}
	h.Set(key, string(value))
}

// appendID appends the $id of the schema name at version, as schemas.ID
// returns it.
func appendID(dst []byte, name, version string) []byte {
	dst = append(dst, schemas.BaseURL+"/api/schemas/"...)
	dst = append(dst, name...)
	dst = append(dst, "/versions/"...)
	return append(dst, version...)
}

// Decode decodes body as the message its headers name: by ce-dataschema,
// else ce-type (at the schema's latest version), else the body's
// message_type. The message is returned, as catalogue.DecodeAs returns it,
// even when it is invalid, with an *msg.Error listing the body's
// violations and then the headers'. When no schema can be chosen it
// returns no message and an error wrapping schemas.ErrUnknown (a header
// names none), or, as catalogue.Decode does, catalogue.ErrNoType (the body
// has no message_type) or catalogue.ErrUnknownType (it names none).
func (b Binding) Decode(h Header, body []byte) (catalogue.Message, error) {
	hs, bad := b.read(h)
	var name, version string
	switch {
	case hs.set&(1<<hDataSchema) != 0:
		s, err := lookupID(hs.v[hDataSchema])
		if err != nil {
			return nil, fmt.Errorf("%s%s: %w", b.Prefix, AttrDataSchema, err)
		}
		name, version = s.Name, s.Version
	case hs.set&(1<<hType) != 0:
		name = hs.v[hType]
		if _, err := schemas.Versions(name); err != nil {
			return nil, fmt.Errorf("%s%s: %w", b.Prefix, AttrType, err)
		}
	default:
		m, err := catalogue.Decode(body)
		if m == nil {
			return nil, err
		}
		return b.check(m, err, hs, bad)
	}
	m, err := catalogue.DecodeAs(name, version, body)
	if m == nil {
		return nil, err
	}
	return b.check(m, err, hs, bad)
}

// DecodeAs decodes body as a message of the named schema at version, as
// catalogue.DecodeAs does, and checks the headers against it: a
// ce-dataschema or ce-type that names another schema is a violation, like
// any other header that contradicts the body. It is how a route that
// judges one schema (the HTTP validation route) reads the headers.
func (b Binding) DecodeAs(h Header, name, version string, body []byte) (catalogue.Message, error) {
	hs, bad := b.read(h)
	if hs.set&(1<<hDataSchema) != 0 {
		ds := hs.v[hDataSchema]
		if s, err := lookupID(ds); err != nil || s.Name != name || s.Version != version {
			bad = append(bad, &msg.Violation{
				Rule:    msg.RuleHeader,
				Message: fmt.Sprintf("%s%s names another schema than %s version %s", b.Prefix, AttrDataSchema, name, version),
				Value:   quote(ds),
			})
			hs.set &^= 1 << hDataSchema
		}
	}
	m, err := catalogue.DecodeAs(name, version, body)
	if m == nil {
		return nil, err
	}
	return b.check(m, err, hs, bad)
}

// The headers read, by index into headers.v.
const (
	hSpecVersion = iota
	hID
	hType
	hSource
	hTime
	hDataSchema
	hContentType
	nHeaders
)

var attrNames = [nHeaders - 1]string{AttrSpecVersion, AttrID, AttrType, AttrSource, AttrTime, AttrDataSchema}

// dashKeys and underscoreKeys hold the header names of the attributes for
// the prefixes of the bindings defined here, so that reading and writing
// headers does not build them for every message.
var dashKeys, underscoreKeys = keysOf("ce-"), keysOf("ce_")

func keysOf(prefix string) *[nHeaders - 1]string {
	var k [nHeaders - 1]string
	for i, name := range attrNames {
		k[i] = prefix + name
	}
	return &k
}

// key returns the header name of the attribute at index i of attrNames.
func (b Binding) key(i int) string {
	switch b.Prefix {
	case "ce-":
		return dashKeys[i]
	case "ce_":
		return underscoreKeys[i]
	}
	return b.Prefix + attrNames[i]
}

// ids maps each schema's $id, in both schemes, to the schema, so that
// the usual ce-dataschema is found without building URLs; any other
// spelling goes through schemas.LookupID.
var ids = func() map[string]schemas.Schema {
	m := make(map[string]schemas.Schema)
	for _, s := range schemas.All() {
		m[s.ID] = s
		m["http"+strings.TrimPrefix(s.ID, "https")] = s
	}
	return m
}()

// lookupID returns the schema whose $id is id, as schemas.LookupID does.
func lookupID(id string) (schemas.Schema, error) {
	if s, ok := ids[id]; ok {
		return s, nil
	}
	return schemas.LookupID(id)
}

// headers holds the values of the headers read, and which were present.
type headers struct {
	v   [nHeaders]string
	set uint8
}

// read reads the headers from h. A header given more than once is a
// violation, and is then treated as absent.
func (b Binding) read(h Header) (headers, []*msg.Violation) {
	var hs headers
	var bad []*msg.Violation
	if h == nil {
		return hs, nil
	}
	for i := range nHeaders {
		key := b.ContentType
		if i < hContentType {
			key = b.key(i)
		}
		switch vs := h.Values(key); len(vs) {
		case 0:
		case 1:
			hs.v[i] = vs[0]
			hs.set |= 1 << i
		default:
			bad = append(bad, &msg.Violation{
				Rule:    msg.RuleHeader,
				Message: fmt.Sprintf("%s is given %d times, want once", key, len(vs)),
				Value:   quoteAll(vs),
			})
		}
	}
	return hs, bad
}

// check compares the headers with the decoded message m, whose decoding
// gave err, and returns m with every violation: the body's, with the
// number its decoding counted past msg.MaxViolations, those found reading
// the headers (bad), then the contradictions. These, at most one for each
// attribute, are listed even when the body's fill the list: a header
// that contradicts the body is not to be counted away.
func (b Binding) check(m catalogue.Message, err error, hs headers, bad []*msg.Violation) (catalogue.Message, error) {
	var body []*msg.Violation
	omitted := 0
	if err != nil {
		e, ok := errors.AsType[*msg.Error](err)
		if !ok {
			return nil, err
		}
		body, omitted = e.Violations, e.Omitted
	}
	f, ok := fieldsOf(m)
	if !ok {
		return nil, fmt.Errorf("ce: no attributes for a message of type %T", m)
	}
	// A member the body already breaks says nothing a header could
	// contradict: its decoded value is not the message's.
	broken := func(paths ...string) bool {
		for _, v := range body {
			for _, p := range paths {
				if v.Path == p {
					return true
				}
			}
		}
		return false
	}
	add := func(path, format string, args ...any) {
		bad = append(bad, &msg.Violation{Path: path, Rule: msg.RuleHeader, Message: fmt.Sprintf(format, args...)})
	}
	value := func(i int) string { return quote(hs.v[i]) }
	has := func(i int) bool { return hs.set&(1<<i) != 0 }
	name := m.SchemaName()

	if has(hContentType) && hs.v[hContentType] != ContentType {
		mt, _, perr := mime.ParseMediaType(hs.v[hContentType])
		if perr != nil || mt != ContentType {
			add("", "%s is not %s", b.ContentType, ContentType)
			bad[len(bad)-1].Value = value(hContentType)
		}
	}
	if has(hSpecVersion) && hs.v[hSpecVersion] != SpecVersion {
		add("", "%s%s is not %s", b.Prefix, AttrSpecVersion, SpecVersion)
		bad[len(bad)-1].Value = value(hSpecVersion)
	}
	if has(hType) && hs.v[hType] != name {
		add("", "%s%s is not %s, the schema the message is judged by", b.Prefix, AttrType, name)
		bad[len(bad)-1].Value = value(hType)
	}
	if f.hasType && f.messageType != name && !broken("/message_type") && (has(hType) || has(hDataSchema)) {
		add("/message_type", "message_type contradicts the headers, which name %s", name)
		bad[len(bad)-1].Value = quote(f.messageType)
	}
	if has(hID) && !broken(f.idPath) {
		id, reason := format.ParseUUID([]byte(hs.v[hID]))
		switch {
		case reason != "":
			add(f.idPath, "%s%s is not a uuid: %s", b.Prefix, AttrID, reason)
			bad[len(bad)-1].Value = value(hID)
		case uuid.UUID(id) != f.id:
			add(f.idPath, "%s%s contradicts the message's %s %s", b.Prefix, AttrID, f.idPath[1:], f.id)
			bad[len(bad)-1].Value = value(hID)
		}
	}
	if has(hTime) && !broken(f.timePath) {
		t, reason := format.ParseDateTime([]byte(hs.v[hTime]))
		switch {
		case reason != "":
			add(f.timePath, "%s%s is not a date-time: %s", b.Prefix, AttrTime, reason)
			bad[len(bad)-1].Value = value(hTime)
		case !t.Equal(f.time):
			add(f.timePath, "%s%s contradicts the message's %s %s", b.Prefix, AttrTime, f.timePath[1:], format.AppendDateTime(nil, f.time))
			bad[len(bad)-1].Value = value(hTime)
		}
	}
	if has(hSource) && !broken("/tenant_id", "/source_type", "/source_id") {
		var scratch [256]byte
		if want := f.appendSource(scratch[:0]); hs.v[hSource] != string(want) {
			add("", "%s%s contradicts the message's source %s", b.Prefix, AttrSource, string(want))
			bad[len(bad)-1].Value = value(hSource)
		}
	}
	all := append(body, bad...)
	if len(all) == 0 {
		return m, nil
	}
	return m, &msg.Error{Violations: all, Omitted: omitted}
}

// fields are the members of a message its attributes come from.
type fields struct {
	id          uuid.UUID
	idPath      string
	time        time.Time
	timePath    string
	hasType     bool // whether the schema has message_type
	messageType string
	// The source members; noSource for a schema without them.
	noSource         bool
	tenant, sourceID string
	// sourceUUID is a vehicle's source_id, kept as it is so that writing
	// its source does not build the string; sourceID is "" then.
	sourceUUID    uuid.UUID
	isSourceUUID  bool
	sourceType    string
	hasSourceType bool
}

// fieldsOf returns the fields of m, if it is of a type this package knows.
func fieldsOf(m catalogue.Message) (fields, bool) {
	switch m := m.(type) {
	case *device.Device:
		return fields{id: m.MessageID, idPath: "/message_id", time: m.Time, timePath: "/time",
			hasType: true, messageType: m.MessageType,
			tenant: m.TenantID, sourceID: m.SourceID, sourceType: m.SourceType, hasSourceType: true}, true
	case *vehicle.Vehicle:
		return fields{id: m.MessageID, idPath: "/message_id", time: m.Time, timePath: "/time",
			hasType: true, messageType: m.MessageType,
			tenant: m.TenantID, sourceUUID: m.SourceID, isSourceUUID: true, sourceType: m.SourceType, hasSourceType: true}, true
	case *association.Association:
		st, ok := m.SourceType.Get()
		return fields{id: m.MessageID, idPath: "/message_id", time: m.Time, timePath: "/time",
			hasType: true, messageType: m.MessageType,
			tenant: m.TenantID, sourceID: m.SourceID, sourceType: st, hasSourceType: ok}, true
	case *event.Event:
		return fields{id: m.ID, idPath: "/id", time: m.OccurredAt, timePath: "/occurred_at", noSource: true}, true
	}
	return fields{}, false
}

// source derives ce-source from the source members.
func (f fields) source() string {
	var scratch [256]byte
	return string(f.appendSource(scratch[:0]))
}

// appendSource appends ce-source, derived from the source members, to dst.
func (f fields) appendSource(dst []byte) []byte {
	if f.noSource {
		return append(dst, EventSource...)
	}
	dst = append(dst, "/tenants/"...)
	dst = appendPathEscape(dst, f.tenant)
	dst = append(dst, "/sources/"...)
	if f.hasSourceType {
		dst = appendPathEscape(dst, f.sourceType)
		dst = append(dst, '/')
	}
	if f.isSourceUUID {
		// Hexadecimal digits and hyphens, which PathEscape leaves.
		return format.AppendUUID(dst, f.sourceUUID)
	}
	return appendPathEscape(dst, f.sourceID)
}

// appendPathEscape appends url.PathEscape(s) to dst. The usual segment,
// letters, digits and -._~ only, which PathEscape leaves as they are, is
// appended without building a string.
func appendPathEscape(dst []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return append(dst, url.PathEscape(s)...)
		}
	}
	return append(dst, s...)
}

// quote returns s as JSON text, a string, as a violation's Value holds
// it.
func quote(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}

// quoteAll returns values as JSON text: an array of strings.
func quoteAll(values []string) string {
	b, _ := json.Marshal(values) // strings always encode
	return string(b)
}
