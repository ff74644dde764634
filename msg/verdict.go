package msg

import (
	"bytes"
	"encoding/json"
	"errors"
)

// A Verdict is the library's verdict on one message: whether it is valid,
// the schema and version it was judged by, and, for an invalid message,
// its violations, at most MaxViolations of them, and how many more were
// found. VerdictOf makes one from what any decoder of the library
// returns.
//
// Its JSON form is the one every binding reports, msgcheck check -json,
// the HTTP validation route and the dead letters of a broker alike:
//
//	{"schema":"core.device","version":"1.0","valid":false,"violations":[{"path":"/imei","rule":"imei","message":"...","value":"..."}],"omitted":3}
//
// with "version", "violations" and "omitted" left out when empty, and
// "schema" "" when no schema could be chosen. A binding adds where the
// message was by embedding a Verdict in a struct of its own, whose fields
// encoding/json writes beside the verdict's: msgcheck adds "file" and
// "line".
type Verdict struct {
	// Schema is the name of the schema the message was judged by, or ""
	// if none could be chosen (its message_type is absent or unknown).
	Schema string `json:"schema"`
	// Version is the version of the schema the message was judged by, ""
	// if none was chosen.
	Version string `json:"version,omitempty"`
	// Valid reports whether the message is valid.
	Valid bool `json:"valid"`
	// Violations lists the violations of an invalid message, in the order
	// they were found; nil for a valid one.
	Violations []*Violation `json:"violations,omitempty"`
	// Omitted counts the violations found but not listed: those beyond
	// MaxViolations (Error.Omitted), and those MarshalHeader leaves out.
	Omitted int `json:"omitted,omitempty"`
}

// VerdictOf returns the verdict on a message that a decoder of the
// library returned as m with err: valid when err is nil, judged by m's
// schema and version when m is not nil, and listing the violations of
// err. Every error the library returns about a message is an *Error, or
// wraps one, and gives its violations and Omitted count; any other error,
// such as one saying that a header or an argument names no schema of the
// catalogue, gives one violation at the document's root, of rule
// RuleSchema, whose message is err's text.
func VerdictOf(m Message, err error) Verdict {
	v := Verdict{Valid: err == nil}
	if m != nil {
		v.Schema, v.Version = m.SchemaName(), m.SchemaVersion()
	}
	if e, ok := errors.AsType[*Error](err); ok {
		v.Violations, v.Omitted = e.Violations, e.Omitted
	} else if err != nil {
		v.Violations = []*Violation{{Rule: RuleSchema, Message: err.Error(), Err: err}}
	}
	return v
}

// Err returns nil for a valid verdict, and otherwise an *Error listing its
// violations, whose text is how a report on one line shows them.
func (v Verdict) Err() error {
	if v.Valid {
		return nil
	}
	return &Error{Violations: v.Violations, Omitted: v.Omitted}
}

// verdict lets MarshalHeader reach the Verdict of a struct that embeds
// one.
func (v *Verdict) verdict() *Verdict { return v }

// A VerdictHolder is a *Verdict, or a pointer to a struct that embeds a
// Verdict, as a binding's record of a verdict does to add where the
// message was: any such pointer is one.
type VerdictHolder interface{ verdict() *Verdict }

// MaxVerdictBytes bounds the JSON that MarshalHeader writes, so that the
// header that carries a verdict, as a broker's dead letter does, is never
// much larger than the message it is about, whatever the violations hold.
const MaxVerdictBytes = 32 << 10

// MarshalHeader returns the JSON of x, on one line, as a header carries
// it: listing the most of its verdict's violations, the first ones, that
// keep it within limit bytes, and never more than MaxVerdictBytes, those
// it leaves out counted in Omitted. Only the violations are cut: the
// fields a binding adds are the binding's to bound, so the JSON is longer
// than limit when it is even with no violation listed. x itself is left
// as it was. Characters are written as they are, but for those
// encoding/json always escapes ('<', '>' and '&' are not).
//
// The JSON is encoding/json's, byte for byte, written without reflection
// for a *Verdict and a HeaderAppender, and by encoding/json for any other
// holder. A cut writes the JSON twice, whole and cut, and measures once
// each violation it leaves out.
func MarshalHeader(x VerdictHolder, limit int) ([]byte, error) {
	limit = min(limit, MaxVerdictBytes)
	v := x.verdict()
	list, omitted := v.Violations, v.Omitted
	defer func() { v.Violations, v.Omitted = list, omitted }()
	var b, one []byte // the JSON of x, and of a violation, to measure it
	for {
		var err error
		b, err = marshalHeader(b[:0], x)
		if err != nil || len(b) <= limit || len(v.Violations) == 0 {
			return b, err
		}
		// One round does, unless x's JSON does not hold its verdict's
		// members as AppendMembers writes them (a field of x's own
		// shadows one): each round cuts at least one violation.
		var n int
		n, one = v.fitting(len(b), limit, one)
		v.Omitted += len(v.Violations) - n
		v.Violations = v.Violations[:n]
	}
}

// marshalHeader returns the JSON of x, uncut: appended to b by hand
// where x says how, else by encoding/json.
func marshalHeader(b []byte, x VerdictHolder) ([]byte, error) {
	switch x := x.(type) {
	case *Verdict:
		return x.AppendJSON(orNew(b)), nil
	case HeaderAppender:
		return x.AppendHeader(orNew(b)), nil
	}
	return Marshal(x)
}

// orNew returns b, or if it is nil, a buffer with room for a dead
// letter's verdict, most often.
func orNew(b []byte) []byte {
	if b == nil {
		return make([]byte, 0, 512)
	}
	return b
}

// Marshal returns the JSON of x as json.Marshal does, but with '<', '>'
// and '&' written as they are, not as \u003c and so on: a verdict, a
// report or an answer is read by people and programs, not embedded in
// HTML, and \u003c for '<' in a message or a value only hides what it
// says. It is how the library writes its JSON: AppendJSONString writes a
// string the same way.
func Marshal(x any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}
