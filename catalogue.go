// Package catalogue decodes messages of the catalogue's schemas when their
// kind is known only at run time: by their message_type, or by a schema
// name the caller gives. The typed packages device, vehicle, association
// and event are the way in when the kind is known at compile time.
//
//	m, err := catalogue.Decode(data)
//	switch m := m.(type) {
//	case *device.Device:
//		// ...
//	}
//
// Decode and DecodeAs apply exactly the rules of the typed packages: the
// message's schema, plus the catalogue's decisions (see the README).
// Check, CheckAs and CheckOr give the same verdicts without building the
// message, for a caller that wants only the verdict; DecodeBorrowed
// decodes without copying the input, for a caller that owns it.
//
// A message carries its family, not its version. Decode, and DecodeAs
// with no version, judge by the latest version of the schema: the latest
// minor of its latest major, whose package's type decodes the messages of
// every minor of that major. DecodeAs with a version judges by exactly
// that version's schema file (decision 13), returning for an earlier minor
// a message of that version's own type.
package catalogue

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/internal/wire"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// A Message is a decoded message of any of the catalogue's schemas: one of
// *device.Device, *vehicle.Vehicle, *association.Association and
// *event.Event, or, for an earlier minor of a major named to DecodeAs,
// the unexported type of that version in the major's package.
type Message = msg.Message

// ErrNoType is wrapped by the error of Decode given a message that has no
// message_type member, such as every example.event: its schema cannot be
// told from the message. Decode such messages with DecodeOr or DecodeAs.
// The error is an *msg.Error whose one violation, at /message_type, of
// rule msg.RuleMessageType, unwraps to ErrNoType.
var ErrNoType = errors.New("no message_type")

// ErrUnknownType is wrapped by the error of Decode given a message whose
// message_type names no schema of the catalogue, or is null or not a
// string. The error is an *msg.Error whose one violation, at
// /message_type, of rule msg.RuleMessageType, unwraps to ErrUnknownType;
// its text lists the types known.
var ErrUnknownType = errors.New("unknown message type")

// newLatest and kindList, in kinds_gen.go, make a new message of each
// schema of the catalogue at its latest version, for dispatch, and list
// the kind of every version. gen derives both from the catalogue.

// Kinds is the table of the published catalogue's kinds: every version of
// every schema, with its name, version and $id and the members that
// identify its messages (see msg.Kind). Its Decode is Decode, its
// DecodeBorrowed DecodeBorrowed, and its KindOf finds the kind Decode
// judges by, by message_type, without decoding. It is what a
// binding decodes by, so that the binding knows no message type itself:
//
//	m, err := ce.NATS.Decode(catalogue.Kinds, h, body)
var Kinds = msg.NewKinds(Decode, kindList...).WithDecodeBorrowed(DecodeBorrowed).WithKindOf(latestKindOf)

// published is the catalogue as published, with its generated types. Its
// table is Kinds without Decode, which reads published: Kinds itself would
// make an initialization cycle.
var published = set{schemas.Published(), msg.NewKinds(nil, kindList...)}

// A set is a catalogue of schemas together with the table of the types
// generated from it: the published one, or in tests a fixture.
type set struct {
	schemas *schemas.Catalogue
	kinds   *msg.Kinds
}

// Types returns the message types Decode knows: the names of the
// catalogue's schemas, sorted.
func Types() []string { return schemas.Names() }

// New returns a new message of the named schema at version, or at its
// latest version (the latest minor of its latest major) if version is "",
// with every default of the schema filled in, as the schema's package's
// New does. A message of an earlier minor of a major is of that version's
// own type, which judges by exactly that version's schema file. It
// returns an error wrapping schemas.ErrUnknown if the catalogue has no
// such schema.
func New(name, version string) (Message, error) { return published.new(name, version) }

func (s set) new(name, version string) (Message, error) {
	k, err := s.kind(name, version)
	if err != nil {
		return nil, err
	}
	return k.New(), nil
}

// kind returns the kind of the named schema at version, or at its latest
// version if version is "", as New says.
func (s set) kind(name, version string) (*msg.Kind, error) {
	if version == "" {
		latest, err := s.schemas.Latest(name)
		if err != nil {
			return nil, err
		}
		version = latest.Version
	}
	if k := s.kinds.Lookup(name, version); k != nil {
		return k, nil
	}
	if _, err := s.schemas.Lookup(name, version); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w %q version %q: no Go type is generated for it", schemas.ErrUnknown, name, version)
}

// DecodeAs decodes data as a message of the named schema at version,
// judged by exactly that version's schema file (decision 13): under an
// earlier minor, a member only a later minor declares is an extra member
// like any other. With version "" it judges by the latest version, the
// latest minor of the latest major, as Decode does.
//
// Its errors are always an *msg.Error. Unlike a typed package's Parse,
// which returns no message with an error, DecodeAs returns the message
// even when it breaks its schema, holding what could be decoded, so that
// the caller learns which schema and version judged it (msg.VerdictOf
// reports them); such a message must not be used as a valid one. An
// unknown schema or version gives no message, and an error whose one
// violation, at the document's root, of rule msg.RuleSchema, unwraps to
// schemas.ErrUnknown.
func DecodeAs(name, version string, data []byte) (Message, error) {
	return published.decodeAs(name, version, data)
}

func (s set) decodeAs(name, version string, data []byte) (Message, error) {
	k, err := s.kindAs(name, version)
	if err != nil {
		return nil, err
	}
	m := k.New()
	return m, m.UnmarshalJSON(data)
}

// kindAs is kind, its error an *msg.Error as DecodeAs returns it.
func (s set) kindAs(name, version string) (*msg.Kind, error) {
	k, err := s.kind(name, version)
	if err != nil {
		return nil, &msg.Error{Violations: []*msg.Violation{{Rule: msg.RuleSchema, Message: err.Error(), Err: err}}}
	}
	return k, nil
}

// Decode decodes data as a message of the schema its message_type names,
// at that schema's latest version, the latest minor of its latest major
// (the message carries its family, not its version). Its errors are
// always an *msg.Error. When no schema can be chosen there is no message:
// a document that is not an object, or is not JSON at all, gives the
// violation that says so; an absent message_type one that unwraps to
// ErrNoType, and a null, non-string or unknown one, one that unwraps to
// ErrUnknownType (errors.Is finds either through the *msg.Error).
// Otherwise it is DecodeAs: unlike a typed package's Parse, the message
// is returned even when it breaks its schema, with its *msg.Error, so
// that the caller learns which schema judged it.
//
// When message_type is the first member, or the second after a
// message_id, as this library's encoders write them, Decode finds it with
// a glance at those first bytes and reads the message once; otherwise it
// reads the message as far as message_type first.
func Decode(data []byte) (Message, error) {
	return DecodeOr(data, "")
}

// DecodeOr is Decode, except that a message without a message_type member
// is decoded as a message of the schema named def, at its latest version,
// as streams that mix events with entity messages need. With def "" it is
// Decode.
func DecodeOr(data []byte, def string) (Message, error) {
	k, err := kindOf(data, def)
	if k == nil {
		return nil, err
	}
	m := k.New()
	return m, m.UnmarshalJSON(data)
}

// kindOf returns the kind of the schema DecodeOr judges data by, or nil
// and the error DecodeOr returns when none can be chosen.
func kindOf(data []byte, def string) (*msg.Kind, error) {
	typ, ok := leadingType(data)
	var err error
	if !ok {
		typ, err = messageType(data)
	}
	if errors.Is(err, ErrNoType) && def != "" {
		return published.kindAs(def, "")
	}
	if err != nil {
		return nil, err
	}
	k := latestKind(typ)
	if k == nil {
		// Shortened: a report must not grow with the input.
		value := strconv.Quote(wire.ShortenBytes(typ))
		return nil, unknownType(ErrUnknownType, " "+value, value)
	}
	return k, nil
}

// latestKindOf is kindOf as Decode chooses: by message_type alone.
func latestKindOf(data []byte) (*msg.Kind, error) { return kindOf(data, "") }

// latestKind returns the kind of the messages newLatest makes, nil if it
// makes none: a map look-up, allocating nothing.
func latestKind(name []byte) *msg.Kind {
	return published.kinds.Lookup(string(name), "")
}

// leadingType returns the message_type of a message whose members begin
// as this library's encoders write them: message_type first, or second
// after a message_id whose value is a string of hexadecimal digits and
// hyphens, with any white space between tokens, and the type a string of
// printable ASCII without escapes. For any other beginning ok is false,
// and messageType must read the message. It reads at most a few hundred
// bytes, and what it accepts messageType would read the same way: the
// decoder then checks the rest, that prefix included.
func leadingType(data []byte) (typ []byte, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	i = skipSpace(data, i+1)
	if rest, found := bytes.CutPrefix(data[i:], []byte(`"message_id"`)); found {
		var id []byte
		if id, i, ok = stringAt(data, colon(data, len(data)-len(rest)), 40, &idBytes); !ok || len(id) == 0 {
			return nil, false
		}
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ',' {
			return nil, false
		}
		i = skipSpace(data, i+1)
	}
	rest, found := bytes.CutPrefix(data[i:], []byte(`"message_type"`))
	if !found {
		return nil, false
	}
	typ, _, ok = stringAt(data, colon(data, len(data)-len(rest)), 128, &typeBytes)
	return typ, ok
}

// colon returns the index after the ':' that follows white space at i in
// data, or len(data) if there is none.
func colon(data []byte, i int) int {
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		return len(data)
	}
	return i + 1
}

// stringAt reads, after white space at i, a string of at most max bytes
// of the class allowed, returning its content and the index after it.
func stringAt(data []byte, i, max int, allowed *[256]bool) (s []byte, end int, ok bool) {
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != '"' {
		return nil, 0, false
	}
	rest := data[i+1:]
	if len(rest) > max {
		rest = rest[:max+1]
	}
	for j, c := range rest {
		if !allowed[c] {
			if c != '"' {
				break
			}
			return rest[:j], i + 2 + j, true
		}
	}
	return nil, 0, false
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// idBytes are those leadingType takes in a message_id: hexadecimal digits
// and hyphens; typeBytes those it takes in a message_type: printable ASCII
// but the quote, which ends it, and the backslash, which escapes.
var idBytes, typeBytes = func() (id, typ [256]bool) {
	for c := range 256 {
		id[c] = '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' || c == '-'
		typ[c] = ' ' <= c && c < 0x7f && c != '"' && c != '\\'
	}
	return id, typ
}()

// messageType reads the top-level message_type of a message, reading no
// further than it. Its errors are an *msg.Error: one wrapping ErrNoType
// if there is none, one wrapping ErrUnknownType if it is not a string,
// each listing the known types, and the decoder's if the document is
// malformed or not an object. The name returned is in data.
func messageType(data []byte) ([]byte, error) {
	var d wire.Decoder
	d.Reset(data)
	if !d.Object("", "") {
		d.End()
		return nil, d.Err()
	}
	for i := 0; d.More("", "", '}', i); i++ {
		key := d.Key("", "")
		if d.Failed() {
			break
		}
		if string(key) == "message_type" {
			if d.Null() {
				return nil, unknownType(ErrUnknownType, ": message_type is null", "null")
			}
			if s, ok := d.Bytes("", "/message_type"); ok {
				return s, nil
			}
			if d.Failed() {
				return nil, d.Err()
			}
			return nil, unknownType(ErrUnknownType, ": message_type is "+d.Last()+", not a string", d.Last())
		}
		d.Skip("", "")
	}
	// Having read it all, say what is wrong with what follows it first:
	// a message that is not JSON is not one that lacks a type.
	d.End()
	if d.Failed() {
		return nil, d.Err()
	}
	return nil, unknownType(ErrNoType, " member: the message does not name its schema", "")
}

// unknownType returns the *msg.Error of a message whose schema cannot be
// chosen: one violation at /message_type, of the value given (JSON text,
// "" when absent), unwrapping to sentinel, its text sentinel's followed
// by what and the list of the known types.
func unknownType(sentinel error, what, value string) error {
	return &msg.Error{Violations: []*msg.Violation{{
		Path:    "/message_type",
		Rule:    msg.RuleMessageType,
		Message: sentinel.Error() + what + knownTypes,
		Value:   value,
		Err:     sentinel,
	}}}
}

// knownTypes ends unknownType's messages: made once, since a gate meets
// an event without headers, which names no schema, at every turn.
var knownTypes = " (known types: " + strings.Join(Types(), ", ") + ")"

// DecodeBorrowed is Decode for a caller that owns data, such as an HTTP
// request's body or a broker message's payload: the message it returns
// borrows from data instead of copying what it keeps (its strings, free
// objects and extra members point into data), which saves an allocation
// and a copy of the input. The caller must not modify data, nor reuse its
// memory, while the message or any value taken from it is in use: the
// message would change with it. Strings that had escapes are copied.
// The verdict is Decode's, error for error.
func DecodeBorrowed(data []byte) (Message, error) {
	k, err := kindOf(data, "")
	if k == nil {
		return nil, err
	}
	return k.DecodeBorrowed(data)
}

// Check judges data as Decode does, by the schema its message_type names,
// and returns exactly Decode's error, violation for violation, but
// builds no message: it keeps nothing of data, copies none of it, and
// holds no string, list or map of the message's, so that what it
// allocates, besides the violations it reports, stays below the size of
// data whatever data holds (see msg.Kind's Check). It returns the kind
// that judged data, nil when none could be chosen (as Decode then
// returns no message). It is the way to validate without decoding, as
// msgcheck check and the HTTP validation route do; the gates decode
// (DecodeBorrowed), since they need the message's identity for the copy's
// headers.
func Check(data []byte) (*msg.Kind, error) {
	return CheckOr(data, "")
}

// CheckOr is Check as DecodeOr judges: a message without a message_type
// member is judged by the schema named def, at its latest version.
func CheckOr(data []byte, def string) (*msg.Kind, error) {
	k, err := kindOf(data, def)
	if k == nil {
		return nil, err
	}
	return k, k.Check(data)
}

// CheckAs is Check as DecodeAs judges: by the named schema at version,
// or at its latest version if version is "". An unknown schema or
// version gives no kind and DecodeAs's error.
func CheckAs(name, version string, data []byte) (*msg.Kind, error) {
	k, err := published.kindAs(name, version)
	if err != nil {
		return nil, err
	}
	return k, k.Check(data)
}
