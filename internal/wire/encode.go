package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/fleetkit/catalogue/internal/format"
	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/internal/short"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/object"
	"github.com/google/uuid"
)

// An Encoder appends a message's JSON to B. Generated code writes members
// with Member and the value methods; a value that cannot be encoded
// without altering it (invalid UTF-8, malformed raw JSON, a time RFC 3339
// cannot express) makes Bytes fail rather than write something else.
type Encoder struct {
	B   []byte
	n   int // members written in the object being written
	err error
}

// Begin starts an object, returning the state of the enclosing one for
// End to restore.
func (e *Encoder) Begin() (outer int) {
	outer, e.n = e.n, 0
	e.B = append(e.B, '{')
	return outer
}

// Member writes the separator and the quoted name of the next member;
// quoted is the name already in quotes and followed by a colon.
func (e *Encoder) Member(quoted string) {
	if e.n > 0 {
		e.B = append(e.B, ',')
	}
	e.n++
	e.B = append(e.B, quoted...)
}

// End closes the object, given what Begin returned.
func (e *Encoder) End(outer int) {
	e.B = append(e.B, '}')
	e.n = outer
}

// Bytes returns the encoded message, or the first error met.
func (e *Encoder) Bytes() ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	return e.B, nil
}

func (e *Encoder) fail(what string) {
	if e.err == nil {
		e.err = errors.New(what)
	}
}

// Null writes null.
func (e *Encoder) Null() { e.B = append(e.B, "null"...) }

// Bool writes a boolean.
func (e *Encoder) Bool(v bool) { e.B = strconv.AppendBool(e.B, v) }

// Int writes an integer.
func (e *Encoder) Int(v int64) { e.B = strconv.AppendInt(e.B, v, 10) }

// UUID writes a uuid string.
func (e *Encoder) UUID(u uuid.UUID) {
	e.B = append(e.B, '"')
	e.B = format.AppendUUID(e.B, u)
	e.B = append(e.B, '"')
}

// Time writes a date-time string.
func (e *Encoder) Time(t time.Time) {
	e.B = append(e.B, '"')
	var reason string
	e.B, reason = format.AppendDateTimeReason(e.B, t)
	if reason != "" {
		e.fail("cannot encode " + t.String() + " as a date-time: " + reason)
	}
	e.B = append(e.B, '"')
}

// String writes a string as every JSON of the library writes one, and as
// encoding/json does (see msg.AppendJSONString). A string that is not
// UTF-8 fails the encoding, where encoding/json would alter it.
func (e *Encoder) String(s string) {
	if jsontext.Plain(unsafe.Slice(unsafe.StringData(s), len(s))) == len(s) { // read, never written
		e.B = append(e.B, '"')
		e.B = append(e.B, s...)
		e.B = append(e.B, '"')
		return
	}
	n := len(e.B)
	e.B = msg.AppendJSONString(e.B, s)
	// It writes each byte that is not UTF-8 as \ufffd: only where it
	// wrote that (or s holds that text itself) need s be checked.
	if bytes.Contains(e.B[n:], []byte(`\ufffd`)) && !utf8.ValidString(s) {
		e.fail("cannot encode string " + strconv.Quote(Shorten(s)) + ": invalid UTF-8")
	}
}

// Strings writes an array of strings. Arrays can be long, so strings
// that need no escaping are copied in this loop, on a local slice; the
// rest go through String.
func (e *Encoder) Strings(list []string) {
	b := append(e.B, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		if jsontext.Plain(unsafe.Slice(unsafe.StringData(s), len(s))) == len(s) { // read, never written
			b = append(b, '"')
			b = append(b, s...)
			b = append(b, '"')
			continue
		}
		e.B = b
		e.String(s)
		b = e.B
	}
	e.B = append(b, ']')
}

// Raw writes a JSON value in canonical form (see
// jsontext.AppendCanonical), the form decoding keeps raw values in.
func (e *Encoder) Raw(raw json.RawMessage) {
	if len(raw) == 0 {
		e.fail("cannot encode an empty raw value: null is json.RawMessage(\"null\")")
		return
	}
	if off, reason := Check(raw); reason != "" {
		e.fail("cannot encode raw value " + strconv.Quote(Shorten(string(raw))) + ": " + reason + " at byte offset " + strconv.Itoa(off))
		return
	}
	e.B = jsontext.AppendCanonical(e.B, raw)
}

// Object writes a free-form object.
func (e *Encoder) Object(o object.Object) {
	e.B = o.AppendJSON(e.B)
}

// Extra writes the members of extra, sorted by name, after those already
// written. A name the schema declares cannot be written: the message
// would be read back with it as that member.
func (e *Encoder) Extra(extra map[string]json.RawMessage, declared func(string) bool) {
	if len(extra) == 0 {
		return
	}
	for _, k := range sortedKeys(extra) {
		if declared(k) {
			e.fail("cannot encode extra member " + strconv.Quote(k) + ": the schema declares a member of that name")
		}
		if e.n > 0 {
			e.B = append(e.B, ',')
		}
		e.n++
		e.String(k)
		e.B = append(e.B, ':')
		e.Raw(extra[k])
	}
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Quote returns s as a JSON string, for the Value of a violation,
// shortened if long (see short.Quote).
func Quote(s string) string { return short.Quote(s) }

// shortLen is how many bytes of a value or a member name a violation
// shows at most (short.Len).
const shortLen = short.Len

// Shorten cuts s to at most 64 bytes, on a character boundary, marking the
// cut with an ellipsis.
func Shorten(s string) string { return short.String(s) }

// ShortenBytes is Shorten(string(b)), without copying more of b than it
// keeps.
func ShortenBytes(b []byte) string { return short.Bytes(b) }

// PathToken returns a member name as it is shown in the path of a
// violation: a JSON Pointer reference token, shortened like Shorten if the
// name is long, so that a member with a name of a megabyte does not make
// every report of it a megabyte.
func PathToken(name string) string {
	return Pointer(Shorten(name))
}

// Pointer escapes a member name as a JSON Pointer reference token.
func Pointer(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return msg.Pointer("", name)[1:] // the library's one escaper
}
