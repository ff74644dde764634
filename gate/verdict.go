package gate

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/ndjson"
)

// MaxVerdictBytes bounds the JSON of a Verdict: violations beyond it are
// counted in More rather than listed, so that a dead letter is never much
// larger than the message it holds.
const MaxVerdictBytes = 32 << 10

// A Place is where an input message was on its broker: enough to find it
// again, or to tell an operator where to look.
type Place struct {
	// Subject is the subject (NATS) or topic (Kafka) the message was
	// published to.
	Subject string `json:"subject"`
	// Stream is the stream it was read from (NATS).
	Stream string `json:"stream,omitempty"`
	// Sequence is its sequence in that stream (NATS), or its offset
	// (Kafka).
	Sequence uint64 `json:"sequence"`
}

// A Verdict says why a message was dead-lettered: in the shape of the
// lines of msgcheck check -json, the file and line replaced by where the
// message was (its Place), and the violations in msg.Violation's JSON
// form. A binding carries it in a header of the dead letter, as one line
// of JSON.
type Verdict struct {
	Place
	// Schema is the name of the schema the message was judged by, "" if
	// none could be chosen.
	Schema string `json:"schema"`
	// Valid is true for a message its schema accepts: one a consumer's
	// handler failed on as many times as it may be delivered, or one a
	// gate could not forward (msg.RuleDuplicateID, msg.RuleTooLarge).
	Valid      bool             `json:"valid"`
	Violations []*msg.Violation `json:"violations,omitempty"`
	// More counts the violations not listed: those the decoder only
	// counted, past msg.MaxViolations (msg.Error's Omitted), and those
	// left out to keep the verdict within its bound.
	More int `json:"more,omitempty"`
	// Deliveries is how many times the message was delivered.
	Deliveries uint64 `json:"deliveries"`
	// Error is the handler's last error, for a valid message.
	Error string `json:"error,omitempty"`
	// Truncated says that the dead letter holds only the first bytes of
	// the message's body, as many as the broker's limit left room for;
	// BodySize is then the size of the whole body.
	Truncated bool `json:"truncated,omitempty"`
	BodySize  int  `json:"body_size,omitempty"`
	// HeadersDropped says that the dead letter does not carry the
	// message's own headers, which left no room for the verdict.
	HeadersDropped bool `json:"headers_dropped,omitempty"`
}

// RuleSchema is the rule of the violation of a message whose headers name
// no schema of the catalogue (ce-dataschema or ce-type). One whose
// message_type is absent or names none has, as msgcheck reports it, a
// violation at /message_type of rule ndjson.RuleMessageType.
const RuleSchema msg.Rule = "schema"

// VerdictOf returns the verdict on a message whose decoding gave m and
// err (as ce.Binding's Decode returns them): err's violations, and in
// More those it counted past msg.MaxViolations, or one violation saying
// why no schema was chosen. Its Place and Deliveries are left for the
// caller. A nil err gives a valid verdict with no violation.
func VerdictOf(m catalogue.Message, err error) Verdict {
	var v Verdict
	if m != nil {
		v.Schema = m.SchemaName()
	}
	switch e, ok := errors.AsType[*msg.Error](err); {
	case err == nil:
		v.Valid = true
	case ok:
		v.Violations, v.More = e.Violations, e.Omitted
	case errors.Is(err, catalogue.ErrUnknownType) || errors.Is(err, catalogue.ErrNoType):
		v.Violations = []*msg.Violation{{Path: "/message_type", Rule: ndjson.RuleMessageType, Message: err.Error()}}
	default:
		v.Violations = []*msg.Violation{{Rule: RuleSchema, Message: err.Error()}}
	}
	return v
}

// Encode returns v as JSON, its violations cut to keep it within limit
// bytes (and MaxVerdictBytes), those cut counted in More. It returns
// ErrTooLarge if v does not fit even with no violation listed.
func (v Verdict) Encode(limit int) ([]byte, error) {
	limit = min(limit, MaxVerdictBytes)
	for {
		b, err := json.Marshal(v)
		if err != nil {
			// Strings, numbers and msg.Violations always encode.
			panic("gate: " + err.Error())
		}
		if len(b) <= limit {
			return b, nil
		}
		if len(v.Violations) == 0 {
			return nil, fmt.Errorf("%w: a verdict of %d bytes, with room for %d", ErrTooLarge, len(b), limit)
		}
		cut := max(1, len(v.Violations)/2)
		v.More += cut
		v.Violations = v.Violations[:len(v.Violations)-cut]
	}
}

// ParseVerdict reads the JSON of a verdict, as Encode writes it.
func ParseVerdict(data []byte) (Verdict, error) {
	var v Verdict
	err := json.Unmarshal(data, &v)
	return v, err
}

// ErrTooLarge is the error of a copy or a dead letter larger than the
// broker stores.
var ErrTooLarge = errors.New("larger than the broker stores")

// Fit returns the verdict's JSON and the body of a dead letter with room
// bytes for the two together: the whole body if it fits beside the
// verdict; else as much of it as fits beside the verdict marked
// Truncated, its violations cut if need be to leave the body at least
// half the room. It returns ErrTooLarge if not even a verdict with no
// violation listed fits.
func Fit(v Verdict, body []byte, room int) (verdict, cut []byte, err error) {
	j, err := v.Encode(room)
	if err != nil {
		return nil, nil, err
	}
	if len(j)+len(body) <= room {
		return j, body, nil
	}
	v.Truncated, v.BodySize = true, len(body)
	if j, err = v.Encode(room / 2); err != nil {
		if j, err = v.Encode(room); err != nil {
			return nil, nil, err
		}
	}
	return j, body[:max(0, min(len(body), room-len(j)))], nil
}
