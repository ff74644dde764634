package msg

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// A Kind describes the messages of one schema at one version, as the
// generator derives it from the schema file: what a binding needs to name
// the schema of a message and the message itself on a broker (decisions
// 14 and 15) without knowing its Go type. Every generated type returns its
// Kind from its SchemaKind method, and a table of kinds (Kinds) lists
// those of a catalogue. A Kind is shared: it must not be modified.
//
// The members are named by JSON Pointer. The generator finds them by name,
// and refuses a schema that lacks an id or a time member:
//
//   - the id member is message_id, or id when the schema has no
//     message_id (an example.event); a required uuid;
//   - the time member is time, or occurred_at when the schema has no time;
//     a required date-time;
//   - the type member is message_type, if the schema declares it;
//   - the source members are tenant_id, source_type and source_id, when
//     the schema declares tenant_id and source_id (source_type may be
//     absent from the schema or from a message);
//   - the key member, the record key of decision 15, is the entity's own
//     id: the member named after the schema's last name part and "_id"
//     (device_id, vehicle_id, association_id, sensor_id), or, for a schema
//     without one, the id member itself (an event's id, as decision 15
//     says). A key member must be a required string or uuid.
type Kind struct {
	Name    string // the schema's name, such as "core.device"
	Version string // the schema's version, such as "1.0"
	ID      string // the schema's $id, which names its version
	// RegistryID is the version's registry id (decision 15), as the
	// catalogue folder's registry-ids.txt records it: what the
	// schema-registry protocol and the Kafka wire format name it by.
	RegistryID int32

	// New returns a new message of the kind, with every default of its
	// schema filled in.
	New func() Message
	// DecodeBorrowed decodes data as a message of the kind, as New and
	// the message's UnmarshalJSON do, with the same error, except that
	// the message borrows from data instead of copying what it keeps:
	// its strings, free objects and extra members point into data. The
	// caller must not modify data, nor reuse its memory, while the
	// message or anything taken from it is in use: the message's values
	// would change with it (or break, for a free object whose text is no
	// longer JSON). As UnmarshalJSON does, it returns the message even
	// when data breaks the schema, for the caller to learn which kind
	// judged it.
	DecodeBorrowed func(data []byte) (Message, error)
	// Check judges data by the kind's schema: it returns exactly the
	// error DecodeBorrowed and UnmarshalJSON return, with the same
	// violations, but builds no message. It keeps nothing of data once
	// it returns, and allocates, besides a fixed amount and the
	// violations it reports, at most about the size of data, whatever
	// data holds but a free object of tens of thousands of members,
	// whose names the scanner checks for repeats with lists of its own.
	Check func(data []byte) error
	// JudgeIdentity is Check, also returning the identity of the message
	// data holds, as the Identity of DecodeBorrowed's message gives it,
	// borrowing from data: what a gate needs of a message it forwards
	// byte for byte, without a message built. The identity is that of
	// what data holds even when it breaks the schema, as DecodeBorrowed's
	// message is.
	JudgeIdentity func(data []byte) (Identity, error)

	IDMember   string // "/message_id", or an event's "/id"
	TimeMember string // "/time", or an event's "/occurred_at"
	TypeMember string // "/message_type", or "" for a schema without one
	// SourceMembers are "/tenant_id", "/source_type" and "/source_id", in
	// that order, with "" in the place of a source_type the schema does
	// not declare; nil for a schema without source members.
	SourceMembers []string
	// Source is, for a schema without source members, the source of all
	// its messages: "/" and the last part of its name, with an s ("/events"
	// for example.event); "" for a schema with source members.
	Source    string
	KeyMember string // the member whose value is the record key
}

// An Identity is the values of the identity members of one message, as
// its Kind names them: what a binding writes beside the body and checks
// the headers against. Identity methods of generated types return it
// without allocating.
type Identity struct {
	Kind *Kind
	ID   uuid.UUID // the id member's value
	Time time.Time // the time member's value
	// Type is the value of the type member, message_type; "" when the
	// schema has none (Kind.TypeMember is "").
	Type string
	// Tenant, SourceType and SourceID are the values of the source
	// members; SourceType is absent (the zero Text) when the message has
	// none, and all three are absent for a schema without them.
	Tenant, SourceType, SourceID Text
	// Key is the value of the key member, the record key.
	Key Text
}

// A Text is the value of an identity member that is written as text: a
// string, or a uuid kept as its value, so that it is compared by meaning
// (a uuid in either case is the same uuid) and written without building a
// string. The zero Text is absent.
type Text struct {
	s      string
	u      uuid.UUID
	isUUID bool
	set    bool
}

// StringText returns the Text of a string member.
func StringText(s string) Text { return Text{s: s, set: true} }

// UUIDText returns the Text of a uuid member.
func UUIDText(u uuid.UUID) Text { return Text{u: u, isUUID: true, set: true} }

// IsAbsent reports whether t is the zero Text: a member the message does
// not have.
func (t Text) IsAbsent() bool { return !t.set }

// UUID returns the uuid t holds, and whether it holds one.
func (t Text) UUID() (uuid.UUID, bool) { return t.u, t.isUUID }

// String returns t's canonical text: a string as it is, a uuid in lower
// case, "" for an absent Text.
func (t Text) String() string {
	if t.isUUID {
		return t.u.String()
	}
	return t.s
}

// Append appends t's canonical text, as String returns it, to b.
func (t Text) Append(b []byte) []byte {
	if !t.isUUID {
		return append(b, t.s...)
	}
	const hex = "0123456789abcdef"
	for i, c := range t.u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[c>>4], hex[c&0xf])
	}
	return b
}

// Equal reports whether s is a text of t's value: for a string, s itself;
// for a uuid, its 8-4-4-4-12 hexadecimal form in either case (decision
// 1). An absent Text equals no text.
func (t Text) Equal(s string) bool {
	switch {
	case !t.set:
		return false
	case !t.isUUID:
		return s == t.s
	case len(s) != 36:
		// uuid.Parse also takes braces and a urn: prefix, which are not
		// the member's format.
		return false
	}
	u, err := uuid.Parse(s)
	return err == nil && u == t.u
}

// Kinds is a table of kinds: every version of every schema of a
// catalogue, as its generated code lists them. Package catalogue exports
// the published catalogue's (catalogue.Kinds); a binding is given one to
// decode by, so that it knows no message type of its own. A Kinds is
// immutable and safe for concurrent use.
type Kinds struct {
	all          []*Kind            // sorted by name, then version in numeric order
	byName       map[string][]*Kind // the versions of each name, in order
	byID         map[string]*Kind   // by $id, in https and in http
	byRegistryID map[int32]*Kind    // by registry id, for the kinds that have one
	decode       func(data []byte) (Message, error)
	borrow       func(data []byte) (Message, error) // Decode, borrowing (see DecodeBorrowed)
	kindOf       func(data []byte) (*Kind, error)   // the kind Decode judges by (see KindOf)
}

// NewKinds returns the table of kinds, which are listed as the generator
// lists them: by name, then version in numeric order. decode, if not nil,
// decodes a message by its message_type (catalogue.Decode for the
// published catalogue); it is what Decode calls.
func NewKinds(decode func(data []byte) (Message, error), kinds ...*Kind) *Kinds {
	t := &Kinds{
		all:          slices.Clone(kinds),
		byName:       make(map[string][]*Kind),
		byID:         make(map[string]*Kind),
		byRegistryID: make(map[int32]*Kind),
		decode:       decode,
	}
	for _, k := range kinds {
		t.byName[k.Name] = append(t.byName[k.Name], k)
		t.byID[k.ID] = k
		if k.RegistryID != 0 {
			t.byRegistryID[k.RegistryID] = k
		}
		// Its canonical form, which LookupID falls back to, and the
		// same in http, so that an id in either scheme as published
		// is found without allocating.
		id := CanonicalID(k.ID)
		t.byID[id] = k
		if rest, ok := strings.CutPrefix(id, "https://"); ok {
			t.byID["http://"+rest] = k
		}
	}
	return t
}

// All returns every kind of the table, sorted by name, then by version in
// numeric order, in a new slice.
func (t *Kinds) All() []*Kind { return slices.Clone(t.all) }

// Lookup returns the kind of the named schema at version, or at its latest
// version (the latest minor of its latest major) when version is ""; nil
// if the table has none.
func (t *Kinds) Lookup(name, version string) *Kind {
	versions := t.byName[name]
	if len(versions) == 0 {
		return nil
	}
	if version == "" {
		return versions[len(versions)-1]
	}
	for _, k := range versions {
		if k.Version == version {
			return k
		}
	}
	return nil
}

// LookupID returns the kind whose schema has the $id id, nil if none. The
// scheme may be http or https (decision 9), and the scheme and host are
// compared regardless of case, as URIs compare them; the path as it is
// (see CanonicalID).
func (t *Kinds) LookupID(id string) *Kind {
	if k, ok := t.byID[id]; ok {
		return k
	}
	return t.byID[CanonicalID(id)]
}

// CanonicalID returns a schema's $id in the form in which two $ids that
// name the same schema are equal: its scheme and host in lower case
// (RFC 3986, 6.2.2.1) and an http $id as https, since the catalogue has
// been published under both schemes (decision 9). The path keeps its
// case: it is compared as it is. An id with no scheme or no path is
// returned as it is.
func CanonicalID(id string) string {
	scheme, rest, ok := strings.Cut(id, "://")
	if !ok {
		return id
	}
	host, path, ok := strings.Cut(rest, "/")
	if !ok {
		return id
	}
	scheme = strings.ToLower(scheme)
	if scheme == "http" {
		scheme = "https"
	}
	return scheme + "://" + strings.ToLower(host) + "/" + path
}

// LookupRegistryID returns the kind whose registry id is id (decision
// 15), nil if none: a map look-up, with no I/O and no allocation, for a
// consumer reading the registry wire format.
func (t *Kinds) LookupRegistryID(id int32) *Kind { return t.byRegistryID[id] }

// CanDecode reports whether the table decodes a message by its
// message_type: whether Decode is given a function to do it.
func (t *Kinds) CanDecode() bool { return t.decode != nil }

// Decode decodes data as a message of the schema its message_type names,
// with the function the table was made with (catalogue.Decode for the
// published catalogue), which says what it returns. For a table made
// without one it returns nil and ErrNoDecode.
func (t *Kinds) Decode(data []byte) (Message, error) {
	if t.decode == nil {
		return nil, ErrNoDecode
	}
	return t.decode(data)
}

// WithDecodeBorrowed returns a copy of t whose DecodeBorrowed is borrow,
// which must be Decode but for its message borrowing from data (as
// catalogue.DecodeBorrowed is catalogue.Decode).
func (t *Kinds) WithDecodeBorrowed(borrow func(data []byte) (Message, error)) *Kinds {
	c := *t
	c.borrow = borrow
	return &c
}

// DecodeBorrowed is Decode for a caller that owns data: the message
// borrows from data, as Kind's DecodeBorrowed says, with the function
// WithDecodeBorrowed gave the table; a table given none decodes as Decode
// does, with a copy.
func (t *Kinds) DecodeBorrowed(data []byte) (Message, error) {
	if t.borrow == nil {
		return t.Decode(data)
	}
	return t.borrow(data)
}

// WithKindOf returns a copy of t whose KindOf is kindOf, which must find
// the kind whose schema Decode judges data by as Decode finds it, without
// decoding data: it returns that kind, or, when Decode chooses none, nil
// and exactly Decode's error (as the published catalogue's table finds
// it by message_type).
func (t *Kinds) WithKindOf(kindOf func(data []byte) (*Kind, error)) *Kinds {
	c := *t
	c.kindOf = kindOf
	return &c
}

// CanFindKind reports whether the table finds the kind of a message by
// its message_type without decoding it: whether WithKindOf gave it the
// function KindOf calls.
func (t *Kinds) CanFindKind() bool { return t.kindOf != nil }

// KindOf returns the kind whose schema Decode judges data by, or, when
// Decode chooses none, nil and Decode's error: what a caller that judges
// data without building a message (ce.Binding's Judging) reads it with,
// by the kind's JudgeIdentity. It finds it with the function WithKindOf
// gave the table; a table given none decodes data to learn it.
func (t *Kinds) KindOf(data []byte) (*Kind, error) {
	if t.kindOf != nil {
		return t.kindOf(data)
	}
	m, err := t.Decode(data)
	if m == nil {
		return nil, err
	}
	return m.SchemaKind(), nil
}

// ErrNoDecode is the error of Kinds.Decode for a table that cannot decode
// a message by its message_type.
var ErrNoDecode = errors.New("this table of kinds cannot choose a schema by message_type")
