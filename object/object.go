package object

import (
	"encoding/json"
	"iter"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/internal/rawobject"
	"github.com/fleetkit/catalogue/msg"
)

// Object is a JSON object whose members are free, as a vehicle's meta and
// specification are: any name, any JSON value, null included. It holds the
// object's JSON text, checked when the Object is made, and never alters
// its content: decoding and encoding keep every member, the exact text of
// every value (a null, which asks downstream for that key to be deleted;
// every digit of a number) and the members' order.
//
// The text is held in the form json.Marshal writes: without white space
// between tokens, and with '<', '>', '&', U+2028 and U+2029 in strings
// escaped (as \u003c and so on), which denotes the same JSON. An Object
// therefore encodes, through json.Marshal or MarshalJSON alike, to text
// that decodes to an equal Object.
//
// An Object is immutable, and always holds one well-formed object in valid
// UTF-8 with no repeated member name at any depth, so validating a message
// need not look inside it. The zero Object is the empty object, {}.
type Object struct {
	text []byte // never written once set; nil for {}
}

// Parse returns the Object that data holds, or a *msg.Violation saying
// why data is not one JSON object as a message may hold it.
func Parse(data []byte) (Object, error) {
	var s jsontext.Scanner
	s.Reset(data)
	if c := s.WS(); c != '{' {
		if c == 0 {
			return Object{}, &msg.Violation{Rule: msg.RuleSyntax, Message: "want an object, got nothing"}
		}
		return Object{}, &msg.Violation{Rule: msg.RuleType, Message: "want an object"}
	}
	start := s.Pos
	s.Skip()
	end := s.Pos
	s.End()
	if s.Fatal {
		v := &msg.Violation{Rule: msg.Rule(s.Cause.Rule()), Message: s.Reason + " at byte offset " + strconv.Itoa(s.Off)}
		if s.Cause == jsontext.CauseDuplicate {
			v.Path = pointerTo("", data, s.Off) // the repeated member's own
		}
		return Object{}, v
	}
	return newObject(jsontext.AppendCanonical(nil, data[start:end])), nil
}

// newObject returns the Object of text, which holds the empty object as
// the zero Object, so that all empty objects written alike are equal.
func newObject(text []byte) Object {
	if string(text) == "{}" {
		return Object{}
	}
	return Object{text: text}
}

// New returns an Object of the given members, sorted by name. Each value
// must be one JSON value, as Parse checks it; a nil or empty value is not
// null, which is json.RawMessage("null").
func New(members map[string]json.RawMessage) (Object, error) {
	names := make([]string, 0, len(members))
	for name := range members {
		names = append(names, name)
	}
	slices.Sort(names)
	b := []byte{'{'}
	for i, name := range names {
		if !utf8.ValidString(name) {
			return Object{}, &msg.Violation{Path: msg.Pointer("", name), Rule: msg.RuleSyntax, Message: "invalid UTF-8 in member name"}
		}
		switch off, reason, cause := jsontext.CheckCause(members[name]); {
		case cause == jsontext.CauseDuplicate:
			return Object{}, &msg.Violation{Path: pointerTo(msg.Pointer("", name), members[name], off), Rule: msg.RuleDuplicate,
				Message: reason + " at byte offset " + strconv.Itoa(off) + " of the value"}
		case reason != "":
			return Object{}, &msg.Violation{Path: msg.Pointer("", name), Rule: msg.RuleSyntax,
				Message: "not a JSON value: " + reason + " at byte offset " + strconv.Itoa(off)}
		}
		if i > 0 {
			b = append(b, ',')
		}
		quoted, _ := json.Marshal(name) // valid UTF-8, so it cannot fail
		b = append(b, quoted...)
		b = append(b, ':')
		b = jsontext.AppendCanonical(b, members[name])
	}
	// Checked member by member; names from a map cannot repeat.
	return newObject(append(b, '}')), nil
}

// The decoders of this module make an Object of the text they checked
// as they read it, through rawobject: see the package doc.
func init() { rawobject.Register(newObject) }

// pointerTo returns the JSON Pointer of the value at byte offset off of
// the JSON text data, which is the value at the pointer base.
func pointerTo(base string, data []byte, off int) string {
	for _, step := range jsontext.PathTo(data, off) {
		base = msg.Pointer(base, step)
	}
	return base
}

// String returns the object's JSON text.
func (o Object) String() string {
	if o.text == nil {
		return "{}"
	}
	return string(o.text)
}

// AppendJSON appends the object's JSON text to b.
func (o Object) AppendJSON(b []byte) []byte {
	if o.text == nil {
		return append(b, "{}"...)
	}
	return append(b, o.text...)
}

// MarshalJSON returns the object's JSON text.
func (o Object) MarshalJSON() ([]byte, error) {
	return o.AppendJSON(nil), nil
}

// UnmarshalJSON sets o to the object data holds, as Parse does.
func (o *Object) UnmarshalJSON(data []byte) error {
	p, err := Parse(data)
	if err != nil {
		return err
	}
	*o = p
	return nil
}

// All returns the members of o, in order: each name, unescaped, and the
// JSON text of its value, which is the caller's to keep.
func (o Object) All() iter.Seq2[string, json.RawMessage] {
	return func(yield func(string, json.RawMessage) bool) {
		if o.text == nil {
			return
		}
		var s jsontext.Scanner
		s.Reset(o.text)
		s.WS()
		s.Enter()
		for i := 0; s.Next('}', i); i++ {
			name := string(s.Name())
			s.WS()
			start := s.Pos
			s.Skip()
			if !yield(name, append(json.RawMessage(nil), o.text[start:s.Pos]...)) {
				return
			}
		}
	}
}

// Get returns the JSON text of the value of the member named name, and
// whether o has one.
func (o Object) Get(name string) (json.RawMessage, bool) {
	for n, v := range o.All() {
		if n == name {
			return v, true
		}
	}
	return nil, false
}

// Len returns the number of members of o.
func (o Object) Len() int {
	n := 0
	for range o.All() {
		n++
	}
	return n
}

// Map returns the members of o as a map.
func (o Object) Map() map[string]json.RawMessage {
	m := make(map[string]json.RawMessage)
	for n, v := range o.All() {
		m[n] = v
	}
	return m
}
