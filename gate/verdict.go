package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/msg"
)

// A Place is where an input message was on its broker: enough to find it
// again, or to tell an operator where to look.
type Place struct {
	// Subject is the subject (NATS) or topic (Kafka) the message was
	// published to.
	Subject string `json:"subject"`
	// Stream is the stream it was read from (NATS).
	Stream string `json:"stream,omitempty"`
	// Partition is the partition of the topic it was read from (Kafka);
	// left out for partition 0, and on NATS.
	Partition int32 `json:"partition,omitempty"`
	// Sequence is its sequence in that stream (NATS), or its offset in
	// that partition (Kafka).
	Sequence uint64 `json:"sequence"`
}

// A Verdict says why a message was dead-lettered: the library's verdict
// on it (msg.Verdict, in the JSON form every binding reports), where the
// message was (its Place), how many times it was delivered, and whether
// its dead letter had to be cut to fit. A binding carries it in a header
// of the dead letter, as one line of JSON:
//
//	{"subject":"fleet.in.sample","stream":"IN","sequence":6,"schema":"core.device","version":"1.0","valid":false,"violations":[...],"deliveries":1}
//
// Valid is the schema's verdict: a message its schema accepts is
// dead-lettered with "valid":true when a gate could not forward it (a
// violation of rule msg.RuleDuplicateID or msg.RuleTooLarge), or when a
// consumer's handler failed on it as many times as it may be delivered
// (Error).
type Verdict struct {
	Place
	msg.Verdict
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
	// message's own headers (on Kafka, nor its key), which would have
	// crowded out the verdict and the body (see FitDeadLetter).
	HeadersDropped bool `json:"headers_dropped,omitempty"`
}

// AppendHeader appends the JSON of v to b and returns the extended
// slice: byte for byte what encoding/json writes with SetEscapeHTML(false),
// Place's members, then msg.Verdict's, then v's own, without reflection.
// It makes *Verdict a msg.HeaderAppender, which msg.MarshalHeader, and
// so Encode, write with it. A struct that embeds a Verdict has this method
// too, which writes none of its own fields: it must implement AppendHeader
// itself to be written by msg.MarshalHeader.
func (v *Verdict) AppendHeader(b []byte) []byte {
	b = append(b, `{"subject":`...)
	b = msg.AppendJSONString(b, v.Subject)
	if v.Stream != "" {
		b = append(b, `,"stream":`...)
		b = msg.AppendJSONString(b, v.Stream)
	}
	if v.Partition != 0 {
		b = append(b, `,"partition":`...)
		b = strconv.AppendInt(b, int64(v.Partition), 10)
	}
	b = append(b, `,"sequence":`...)
	b = strconv.AppendUint(b, v.Sequence, 10)
	b = append(b, ',')
	b = v.Verdict.AppendMembers(b)
	b = append(b, `,"deliveries":`...)
	b = strconv.AppendUint(b, v.Deliveries, 10)
	if v.Error != "" {
		b = append(b, `,"error":`...)
		b = msg.AppendJSONString(b, v.Error)
	}
	if v.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	if v.BodySize != 0 {
		b = append(b, `,"body_size":`...)
		b = strconv.AppendInt(b, int64(v.BodySize), 10)
	}
	if v.HeadersDropped {
		b = append(b, `,"headers_dropped":true`...)
	}
	return append(b, '}')
}

// VerdictOf returns the verdict on a message whose decoding gave m and
// err (as ce.Binding's Decode returns them), as msg.VerdictOf makes it.
// Its Place and Deliveries are left for the caller.
func VerdictOf(m catalogue.Message, err error) Verdict {
	return Verdict{Verdict: msg.VerdictOf(m, err)}
}

// Encode returns v as JSON, as msg.MarshalHeader writes it: listing the
// most of its violations that keep it within limit bytes (and
// msg.MaxVerdictBytes), those left out counted in Omitted. With no
// violation left, a long handler's Error and then a long Subject (which a
// producer chooses) are cut too, each ending in "...". It returns an
// error wrapping ErrTooLarge if v does not fit even then.
func (v Verdict) Encode(limit int) ([]byte, error) {
	for {
		b, err := msg.MarshalHeader(&v, limit)
		if err != nil {
			return nil, err
		}
		if len(b) <= limit {
			return b, nil
		}
		// MarshalHeader wrote more than limit with no violation listed:
		// leave them out here too, and cut what is the gate's own.
		v.Omitted += len(v.Violations)
		v.Violations = nil
		over := len(b) - limit
		switch {
		case len(v.Error) > 16:
			v.Error = shorten(v.Error, over)
		case len(v.Subject) > 16:
			v.Subject = shorten(v.Subject, over)
		default:
			return nil, fmt.Errorf("%w: a verdict of %d bytes, with room for %d", ErrTooLarge, len(b), limit)
		}
	}
}

// shorten returns s less at least over bytes (more if its JSON escapes
// them), ending in "...", and no shorter than 16 bytes.
func shorten(s string, over int) string {
	n := max(13, len(s)-over-3)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
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
