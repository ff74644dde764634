package ce

import (
	"errors"
	"fmt"
	"mime"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/fleetkit/catalogue/internal/format"
	"github.com/fleetkit/catalogue/internal/short"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
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

	borrow bool // messages borrow from the body (see Borrowing)
	judge  bool // messages are judged, not built (see Judging)
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
func AttributesOf(m msg.Message) (Attributes, error) {
	id := m.Identity()
	if err := writable(&id); err != nil {
		return Attributes{}, err
	}
	var scratch [256]byte
	return Attributes{
		ID:         id.ID.String(),
		Type:       id.Kind.Name,
		Source:     string(appendSource(scratch[:0], &id)),
		Time:       id.Time,
		DataSchema: id.Kind.ID,
	}, nil
}

// writable returns nil if headers can be written for a message of
// identity id, or the error of AttributesOf.
func writable(id *msg.Identity) error {
	k := id.Kind
	if k == nil {
		return errors.New("ce: an identity without its kind")
	}
	if k.TypeMember != "" && id.Type != k.Name {
		return &msg.Error{Violations: []*msg.Violation{{
			Path:    k.TypeMember,
			Rule:    msg.RuleHeader,
			Message: fmt.Sprintf("message_type is not the schema's name %q, which ce-type would carry", k.Name),
			Value:   quote(id.Type),
		}}}
	}
	return nil
}

// Write sets the headers of m in h: Content-Type and the attributes, each
// under its prefixed name. It does not validate m: a producer validates
// first. Every value it writes is printable ASCII, whatever the message
// holds. A header that already holds its value is left as it is, and
// Write then allocates nothing: a gate writes the headers of every message
// it passes on, most of which came with them. The values it sets share one
// string.
func (b Binding) Write(h Header, m msg.Message) error {
	return b.WriteIdentity(h, m.Identity())
}

// WriteIdentity is Write for the message whose identity is id, as its
// Identity method or DecodeIdentity returns it: a gate that has decoded a
// message with DecodeIdentity writes its headers without reading the
// message again.
func (b Binding) WriteIdentity(h Header, id msg.Identity) error {
	if err := writable(&id); err != nil {
		return err
	}
	// The values are built here and compared with what h holds; one
	// string is made for all of them, only if one differs.
	var scratch [256]byte
	var end [nHeaders]int
	values := appendValues(scratch[:0], &id, &end)
	var made string
	start := 0
	for i, key := range b.keys() {
		v := values[start:end[i]]
		if vs := h.Values(key); len(vs) != 1 || vs[0] != string(v) {
			if made == "" {
				made = string(values)
			}
			h.Set(key, made[start:end[i]])
		}
		start = end[i]
	}
	return nil
}

// AppendHeaders appends the value of each header that Write would set for
// the message of identity id to buf, Content-Type first, and calls add
// with the header's name and its value, a slice of what it appended. It
// returns the extended buffer. The slices stay valid however buf grows
// afterwards: AppendHeaders never writes over them. It is Write for a
// transport whose headers hold bytes, such as Kafka's: its values can
// share one allocation.
func (b Binding) AppendHeaders(buf []byte, id msg.Identity, add func(key string, value []byte)) ([]byte, error) {
	if err := writable(&id); err != nil {
		return buf, err
	}
	var end [nHeaders]int
	start := len(buf)
	buf = appendValues(buf, &id, &end)
	for i, key := range b.keys() {
		add(key, buf[start:end[i]:end[i]])
		start = end[i]
	}
	return buf, nil
}

// appendValues appends the value of each header Write sets for the
// message of identity id to dst, one after the other in the order of
// Binding.keys, and sets end[i] to where the value at index i ends.
func appendValues(dst []byte, id *msg.Identity, end *[nHeaders]int) []byte {
	dst = append(dst, ContentType...)
	end[hContentType] = len(dst)
	dst = append(dst, SpecVersion...)
	end[hSpecVersion] = len(dst)
	dst = format.AppendUUID(dst, id.ID)
	end[hID] = len(dst)
	dst = append(dst, id.Kind.Name...)
	end[hType] = len(dst)
	dst = appendSource(dst, id)
	end[hSource] = len(dst)
	dst = format.AppendDateTime(dst, id.Time)
	end[hTime] = len(dst)
	dst = append(dst, id.Kind.ID...)
	end[hDataSchema] = len(dst)
	return dst
}

// Decode decodes body as the message its headers name, among the kinds
// of the table kinds (catalogue.Kinds for the published catalogue): by
// ce-dataschema, else ce-type (at the schema's latest version), else the
// body's message_type, which kinds.Decode reads. The message is returned,
// as catalogue.DecodeAs returns it, even when it is invalid, with an
// *msg.Error listing the body's violations and then the headers'. When no
// schema can be chosen it returns no message and an error wrapping
// schemas.ErrUnknown (a header names none), or kinds.Decode's:
// catalogue.ErrNoType (the body has no message_type) or
// catalogue.ErrUnknownType (it names none) for catalogue.Kinds, and
// msg.ErrNoDecode for a table that cannot choose by message_type. Where
// the headers break rules that need no schema to be judged (a content
// type that is not application/json, as a CloudEvents envelope in
// structured mode, application/cloudevents+json, names no schema by
// message_type; a spec version that is not 1.0; a header given twice),
// the error is an *msg.Error listing that one first, then these: every
// violation at once, the sentinels still found by errors.Is.
func (b Binding) Decode(kinds *msg.Kinds, h Header, body []byte) (msg.Message, error) {
	m, _, err := b.DecodeIdentity(kinds, h, body)
	return m, err
}

// DecodeIdentity is Decode, also returning the message's identity, which
// it computed to check the headers: a gate passes it to WriteIdentity,
// so that it looks the message's schema up and reads its identity once.
// The identity is the zero Identity when there is no message.
func (b Binding) DecodeIdentity(kinds *msg.Kinds, h Header, body []byte) (_ msg.Message, id msg.Identity, _ error) {
	var hs headers
	bad := b.read(h, &hs)
	var k *msg.Kind
	switch {
	case hs.has(hDataSchema):
		if k = kinds.LookupID(hs.v[hDataSchema]); k == nil {
			return nil, msg.Identity{}, b.unchosen(fmt.Errorf("%s%s: %w with $id %s", b.Prefix, AttrDataSchema, schemas.ErrUnknown, quote(hs.v[hDataSchema])), &hs, bad)
		}
	case hs.has(hType):
		if k = kinds.Lookup(hs.v[hType], ""); k == nil {
			return nil, msg.Identity{}, b.unchosen(fmt.Errorf("%s%s: %w %s", b.Prefix, AttrType, schemas.ErrUnknown, quote(hs.v[hType])), &hs, bad)
		}
	case !b.judge || !kinds.CanFindKind():
		m, err := b.decodeAny(kinds, body)
		if m == nil {
			return nil, msg.Identity{}, b.unchosen(err, &hs, bad)
		}
		m, err = b.check(m, err, &hs, bad, &id, 0)
		return m, id, err
	default:
		// Judging: the kind found by message_type as kinds.Decode finds
		// it, with its error when it finds none.
		var err error
		if k, err = kinds.KindOf(body); k == nil {
			return nil, msg.Identity{}, b.unchosen(err, &hs, bad)
		}
	}
	m, err := b.decodeKind(h, k, body, &hs, bad, &id)
	return m, id, err
}

// DecodeAs decodes body as a message of the named schema at version, or
// at its latest version if version is "", among the kinds of the table
// kinds, as catalogue.DecodeAs does, and checks the headers against it: a
// ce-dataschema or ce-type that names another schema is a violation, like
// any other header that contradicts the body. It is how a route that
// judges one schema (the HTTP validation route) reads the headers. A
// schema or version the table does not have gives no message and an
// error wrapping schemas.ErrUnknown.
func (b Binding) DecodeAs(kinds *msg.Kinds, h Header, name, version string, body []byte) (msg.Message, error) {
	k := kinds.Lookup(name, version)
	if k == nil {
		return nil, fmt.Errorf("%w %q version %q", schemas.ErrUnknown, name, version)
	}
	m, _, err := b.DecodeKind(kinds, h, k, body)
	return m, err
}

// DecodeKind is DecodeAs for the schema version of kind k, one of the
// table kinds, also returning the message's identity, as DecodeIdentity
// does: how a binding that chose the schema by other means than the
// headers (the Kafka framing's registry id) reads them.
func (b Binding) DecodeKind(kinds *msg.Kinds, h Header, k *msg.Kind, body []byte) (_ msg.Message, id msg.Identity, _ error) {
	var hs headers
	bad := b.read(h, &hs)
	if hs.has(hDataSchema) {
		// k is the table's: its own $id names it.
		ds := hs.v[hDataSchema]
		if ds != k.ID && kinds.LookupID(ds) != k {
			bad = append(bad, &msg.Violation{
				Rule:    msg.RuleHeader,
				Message: fmt.Sprintf("%s%s names another schema than %s version %s", b.Prefix, AttrDataSchema, k.Name, k.Version),
				Value:   quote(ds),
			})
			hs.set &^= 1 << hDataSchema
		}
	}
	m, err := b.decodeKind(h, k, body, &hs, bad, &id)
	return m, id, err
}

// decodeKind decodes body as a message of kind k, or judges it if b
// judges and k can be judged without building the message, and checks
// the headers hs, read from h, against it, with the violations bad found
// reading them. The message's identity goes in *id, the caller's result
// (not returned, so that it is not copied on the way).
func (b Binding) decodeKind(h Header, k *msg.Kind, body []byte, hs *headers, bad []*msg.Violation, id *msg.Identity) (msg.Message, error) {
	if b.judge && k.JudgeIdentity != nil {
		return nil, b.judged(h, k, body, hs, bad, id)
	}
	m, err := b.decode(k, body)
	return b.check(m, err, hs, bad, id, 0)
}

// A WrittenHeader is a Header that learns, as a message is judged with
// it, whether it holds the headers Write sets for that message, each
// once, with the value Write sets: a gate that forwards the message may
// then give its copy the input's headers as they are, without comparing
// them again. Decode, DecodeIdentity, DecodeAs and DecodeKind of a
// Judging binding call its SetWritten once they have checked the headers
// against a message they judged without building it (see Judging: every
// header Write sets in it names the schema); another binding's, which
// need not know, do not.
type WrittenHeader interface {
	Header
	// SetWritten says whether the headers are those Write would set: a
	// message with a violation, of its body or its headers, has none.
	SetWritten(written bool)
}

// The headers read and written, by index into Binding.keys and
// headers.v, in the order Write sets them.
const (
	hContentType = iota
	hSpecVersion
	hID
	hType
	hSource
	hTime
	hDataSchema
	nHeaders
)

// attrNames are the names of the attributes, by index, after the content
// type's place.
var attrNames = [nHeaders]string{"", AttrSpecVersion, AttrID, AttrType, AttrSource, AttrTime, AttrDataSchema}

// natsKeys (NATS's and HTTP's) and kafkaKeys hold the header names of the
// bindings defined here, so that reading and writing headers does not
// build them for every message.
var natsKeys, kafkaKeys = keysOf(NATS), keysOf(Kafka)

// keysOf builds the header names of b, by index.
func keysOf(b Binding) *[nHeaders]string {
	var k [nHeaders]string
	k[hContentType] = b.ContentType
	for i := hSpecVersion; i < nHeaders; i++ {
		k[i] = b.Prefix + attrNames[i]
	}
	return &k
}

// keys returns the header names of b, by index (hContentType first):
// from a table for the bindings defined here, built for another.
func (b Binding) keys() *[nHeaders]string {
	switch {
	case b.Prefix == "ce-" && b.ContentType == "Content-Type":
		return natsKeys
	case b.Prefix == "ce_" && b.ContentType == "content-type":
		return kafkaKeys
	}
	return keysOf(b)
}

// HeaderInOtherCase returns the name of the binding's header (its
// content type's or one of its CloudEvents attributes') that key spells
// in another case, as CE_TYPE spells Kafka's ce_type; "" when key is one
// of them as it is, or none of them. A reader that ignores the case of
// header names could take such a header for the binding's own, so a gate
// or a consumer treats it as one: it must agree, or it is a violation.
func (b Binding) HeaderInOtherCase(key string) string {
	for _, name := range b.keys() {
		if len(key) == len(name) && key != name && strings.EqualFold(key, name) {
			return name
		}
	}
	return ""
}

// headers holds the values of the headers read, and which were present.
type headers struct {
	v   [nHeaders]string
	set uint8
}

// has reports whether the header of index i was given (once).
func (hs *headers) has(i int) bool { return hs.set&(1<<i) != 0 }

// readOrder is the order read reads the headers in, and so lists those
// given twice in: the attributes, then the content type.
var readOrder = [nHeaders]int{hSpecVersion, hID, hType, hSource, hTime, hDataSchema, hContentType}

// read reads the headers from h into hs. A header given more than once
// is a violation, and is then treated as absent.
func (b Binding) read(h Header, hs *headers) (bad []*msg.Violation) {
	if h == nil {
		return nil
	}
	keys := b.keys()
	for _, i := range readOrder {
		key := keys[i]
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
	return bad
}

// check compares the headers with the decoded message m, whose decoding
// gave err, and returns m, with its identity in *id (which a gate's
// judging returns, and is not copied on the way; a message judged
// without being built, m nil, has its identity there already), and
// every violation: the body's,
// with the number its decoding counted past msg.MaxViolations, those
// found reading the headers (bad), then the contradictions. These, at
// most one for each attribute, are listed even when the body's fill the
// list: a header that contradicts the body is not to be counted away.
// The headers whose bits are set in written hold the values Write sets
// (see writtenOf): they agree with the message, and are not parsed.
func (b Binding) check(m msg.Message, err error, hs *headers, bad []*msg.Violation, id *msg.Identity, written uint8) (msg.Message, error) {
	var body []*msg.Violation
	omitted := 0
	if err != nil {
		e, ok := errors.AsType[*msg.Error](err)
		if !ok {
			return nil, err
		}
		body, omitted = e.Violations, e.Omitted
	}
	if m != nil {
		*id = m.Identity()
	}
	k := id.Kind
	// A member the body already breaks says nothing a header could
	// contradict: its decoded value is not the message's.
	broken := func(paths ...string) bool {
		for _, v := range body {
			for _, p := range paths {
				if p != "" && v.Path == p {
					return true
				}
			}
		}
		return false
	}
	// A body whose decoding stopped (stops) gave no value for the
	// members it did not reach: their decoded values are zero, and are
	// not the message's. A zero value is then taken as not read; one
	// read as zero is lost only beside the violation that stopped it.
	stopped := slices.ContainsFunc(body, stops)
	unread := func(zero bool) bool { return stopped && zero }
	// add adds the contradiction format says, at path, of the value
	// quoted.
	add := func(path, quoted, format string, args ...any) {
		bad = append(bad, &msg.Violation{Path: path, Rule: msg.RuleHeader, Message: fmt.Sprintf(format, args...), Value: quoted})
	}
	quoted := func(i int) string { return quote(hs.v[i]) }
	name := k.Name

	bad = b.checkAlone(hs, bad)
	if hs.has(hType) && hs.v[hType] != name {
		add("", quoted(hType), "%s%s is not %s, the schema the message is judged by", b.Prefix, AttrType, name)
	}
	if k.TypeMember != "" && id.Type != name && !broken(k.TypeMember) && !unread(id.Type == "") && (hs.has(hType) || hs.has(hDataSchema)) {
		add(k.TypeMember, quote(id.Type), "message_type contradicts the headers, which name %s", name)
	}
	var text [36]byte
	// The usual ce-id, the id as Write writes it, agrees without being
	// parsed (or copied to be).
	if hs.has(hID) && written&(1<<hID) == 0 && !broken(k.IDMember) && !unread(id.ID == uuid.Nil) && hs.v[hID] != string(format.AppendUUID(text[:0], id.ID)) {
		hid, reason := format.ParseUUID([]byte(hs.v[hID]))
		switch {
		case reason != "":
			add(k.IDMember, quoted(hID), "%s%s is not a uuid: %s", b.Prefix, AttrID, reason)
		case hid != id.ID:
			add(k.IDMember, quoted(hID), "%s%s contradicts the message's %s %s", b.Prefix, AttrID, k.IDMember[1:], id.ID)
		}
	}
	if hs.has(hTime) && written&(1<<hTime) == 0 && !broken(k.TimeMember) && !unread(id.Time.IsZero()) {
		t, reason := format.ParseDateTime([]byte(hs.v[hTime]))
		switch {
		case reason != "":
			add(k.TimeMember, quoted(hTime), "%s%s is not a date-time: %s", b.Prefix, AttrTime, reason)
		case !t.Equal(id.Time):
			add(k.TimeMember, quoted(hTime), "%s%s contradicts the message's %s %s", b.Prefix, AttrTime, k.TimeMember[1:], format.AppendDateTime(nil, id.Time))
		}
	}
	if hs.has(hSource) && written&(1<<hSource) == 0 && !broken(k.SourceMembers...) && !unread(sourceUnread(id)) && !sourceIs(hs.v[hSource], id) {
		var scratch [256]byte
		add("", quoted(hSource), "%s%s contradicts the message's source %s", b.Prefix, AttrSource, appendSource(scratch[:0], id))
	}
	all := append(body, bad...)
	if len(all) == 0 {
		return m, nil
	}
	return m, &msg.Error{Violations: all, Omitted: omitted}
}

// sourceUnread reports whether a source member of id's kind is absent or
// empty: not read, where decoding stopped.
func sourceUnread(id *msg.Identity) bool {
	zero := func(t msg.Text) bool { return t.IsAbsent() || t.Equal("") }
	ms := id.Kind.SourceMembers
	return ms != nil && (zero(id.Tenant) || zero(id.SourceID) || ms[1] != "" && zero(id.SourceType))
}

// stops reports whether decoding read no more of a body after violation
// v: one of its syntax, or a body that is no object.
func stops(v *msg.Violation) bool {
	return v.Rule == msg.RuleSyntax || v.Path == "" && v.Rule == msg.RuleType
}

// checkAlone returns bad, the violations found reading the headers hs,
// with those of the headers that say something without a schema to
// compare with: a content type that is not ContentType, a spec version
// that is not SpecVersion.
func (b Binding) checkAlone(hs *headers, bad []*msg.Violation) []*msg.Violation {
	if hs.has(hContentType) && hs.v[hContentType] != ContentType {
		mt, _, perr := mime.ParseMediaType(hs.v[hContentType])
		if perr != nil || mt != ContentType {
			bad = append(bad, &msg.Violation{Rule: msg.RuleHeader, Message: fmt.Sprintf("%s is not %s", b.ContentType, ContentType), Value: quote(hs.v[hContentType])})
		}
	}
	if hs.has(hSpecVersion) && hs.v[hSpecVersion] != SpecVersion {
		bad = append(bad, &msg.Violation{Rule: msg.RuleHeader, Message: fmt.Sprintf("%s%s is not %s", b.Prefix, AttrSpecVersion, SpecVersion), Value: quote(hs.v[hSpecVersion])})
	}
	return bad
}

// unchosen returns err, the error of a body whose schema could not be
// chosen (its headers name none the table has, or its message_type
// names none), with the violations of the headers hs that need no
// schema (checkAlone, bad among them) listed after its own: a content
// type that says the body is not the message (a CloudEvents envelope,
// application/cloudevents+json) is why it names no schema. An err that
// is no *msg.Error is listed as msg.VerdictOf lists it, and still
// unwraps to what it wraps (schemas.ErrUnknown).
func (b Binding) unchosen(err error, hs *headers, bad []*msg.Violation) error {
	if bad = b.checkAlone(hs, bad); len(bad) == 0 {
		return err
	}
	e, ok := err.(*msg.Error)
	if !ok {
		e = &msg.Error{Violations: []*msg.Violation{{Rule: msg.RuleSchema, Message: err.Error(), Err: err}}}
	}
	// A copy: the table's error may be one it gives every caller.
	return &msg.Error{Violations: append(slices.Clip(e.Violations), bad...), Omitted: e.Omitted}
}

// NoSchema returns err, the error of a body for which no schema could be
// chosen by what the binding does not read itself (a framing's registry
// id the table does not have, on Kafka), with the violations of the
// headers h that need no schema listed after it, as Decode lists them
// beside a schema its headers name and the table does not have.
func (b Binding) NoSchema(h Header, err error) error {
	var hs headers
	bad := b.read(h, &hs)
	return b.unchosen(err, &hs, bad)
}

// writtenOf returns, for headers hs that hold every header Write sets,
// the bits (by index) of those that hold the value Write sets for the
// message of identity id: what a WrittenHeader is told. Building the
// values costs more than parsing the id and time headers, which it
// spares check: only a WrittenHeader's are built. Each is compared as
// appendValues writes it, those it copies as they are without copying
// them.
func writtenOf(hs *headers, id *msg.Identity) (written uint8) {
	if hs.set != 1<<nHeaders-1 || writable(id) != nil {
		return 0
	}
	// One comparison after another: each value built in scratch is
	// compared before the next is built there.
	var same [nHeaders]bool
	same[hContentType] = hs.v[hContentType] == ContentType
	same[hSpecVersion] = hs.v[hSpecVersion] == SpecVersion
	same[hType] = hs.v[hType] == id.Kind.Name
	same[hDataSchema] = hs.v[hDataSchema] == id.Kind.ID
	var scratch [256]byte
	same[hID] = hs.v[hID] == string(format.AppendUUID(scratch[:0], id.ID))
	same[hSource] = hs.v[hSource] == string(appendSource(scratch[:0], id))
	same[hTime] = hs.v[hTime] == string(format.AppendDateTime(scratch[:0], id.Time))
	for i, s := range same {
		if s {
			written |= 1 << i
		}
	}
	return written
}

// appendSource appends ce-source, derived from the source members of
// the message of identity id, to dst: see the package doc.
func appendSource(dst []byte, id *msg.Identity) []byte {
	if id.Kind.SourceMembers == nil {
		return append(dst, id.Kind.Source...)
	}
	dst = append(dst, "/tenants/"...)
	dst = appendSegment(dst, id.Tenant)
	dst = append(dst, "/sources/"...)
	if !id.SourceType.IsAbsent() {
		dst = appendSegment(dst, id.SourceType)
		dst = append(dst, '/')
	}
	return appendSegment(dst, id.SourceID)
}

// appendSegment appends the value of a source member to dst as a path
// segment.
func appendSegment(dst []byte, t msg.Text) []byte {
	if u, ok := t.UUID(); ok {
		// Hexadecimal digits and hyphens, which PathEscape leaves.
		return format.AppendUUID(dst, u)
	}
	return appendPathEscape(dst, t.String())
}

// sourceIs reports whether source, a ce-source header, names the source
// of the message of identity id: the source appendSource derives, or the
// same segments written otherwise, each compared by its meaning. A segment
// is compared once unescaped (a percent-escape of a character that needs
// none is the character), and a uuid member by its value, in either case:
// a producer that wrote ce-source from a mixed-case source_id agrees with
// the message.
func sourceIs(source string, id *msg.Identity) bool {
	var scratch [256]byte
	if source == string(appendSource(scratch[:0], id)) {
		return true
	}
	if id.Kind.SourceMembers == nil {
		return false
	}
	rest, ok := strings.CutPrefix(source, "/tenants/")
	if !ok {
		return false
	}
	segments := strings.Split(rest, "/")
	want := []msg.Text{id.Tenant, {}, id.SourceType, id.SourceID}
	if id.SourceType.IsAbsent() {
		want = []msg.Text{id.Tenant, {}, id.SourceID}
	}
	if len(segments) != len(want) || segments[1] != "sources" {
		return false
	}
	for i, seg := range segments {
		if i == 1 {
			continue
		}
		v, err := url.PathUnescape(seg)
		if err != nil || !want[i].Equal(v) {
			return false
		}
	}
	return true
}

// appendPathEscape appends url.PathEscape(s) to dst. The usual segment,
// letters, digits and -._~ only, which PathEscape leaves as they are, is
// appended without building a string.
func appendPathEscape(dst []byte, s string) []byte {
	for i := range len(s) {
		if !unreserved[s[i]] {
			return append(dst, url.PathEscape(s)...)
		}
	}
	return append(dst, s...)
}

// unreserved holds the bytes PathEscape leaves as they are in every
// segment: letters, digits and -._~.
var unreserved = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
	}
	return t
}()

// quote returns s as JSON text, a string, as a violation's Value holds
// it: shortened, as the body's values are (short.Quote), so that a header
// of a mebibyte gives a violation of a few dozen bytes, which a dead
// letter's verdict has room for.
func quote(s string) string { return short.Quote(s) }

// quoteAll returns values as JSON text, an array of strings, shortened
// as quote shortens one: however many values a header is given, only the
// first bytes of the first few are read.
func quoteAll(values []string) string {
	b := []byte{'['}
	for i, v := range values {
		if len(b) > short.Len {
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		// A cut inside a character is past what short.String keeps.
		b = msg.AppendJSONString(b, v[:min(len(v), short.Len+1)])
	}
	return short.String(string(append(b, ']')))
}
