package nats

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fleetkit/catalogue/msg"
)

// VerdictHeader is the header of a dead letter that holds its Verdict, as
// one line of JSON.
const VerdictHeader = "Catalogue-Verdict"

// OriginalPrefix goes before the name of each JetStream header (Nats-*)
// of a message that is published again, as a dead letter or by a gate:
// kept, but no longer obeyed.
const OriginalPrefix = "Catalogue-Original-"

// MaxVerdictBytes bounds the JSON of a Verdict: violations beyond it are
// counted in More rather than listed, so that a dead letter is never much
// larger than the message it holds.
const MaxVerdictBytes = 32 << 10

// A Verdict says why a message was dead-lettered: in the shape of the
// lines of msgcheck check -json, the file and line replaced by where the
// message was (subject, stream and sequence), and the violations in
// msg.Violation's JSON form.
type Verdict struct {
	Subject  string `json:"subject"`  // the subject the message was published to
	Stream   string `json:"stream"`   // the stream it was read from
	Sequence uint64 `json:"sequence"` // its sequence in that stream
	// Schema is the name of the schema the message was judged by, "" if
	// none could be chosen.
	Schema string `json:"schema"`
	// Valid is false for a message that breaks its schema or its headers
	// contradict it; true for a valid message the handler failed on as
	// many times as it may be delivered.
	Valid      bool             `json:"valid"`
	Violations []*msg.Violation `json:"violations,omitempty"`
	// More counts the violations not listed: those the decoder only
	// counted, past msg.MaxViolations (msg.Error's Omitted), and those
	// left out to keep the verdict within MaxVerdictBytes.
	More int `json:"more,omitempty"`
	// Deliveries is how many times the message was delivered.
	Deliveries uint64 `json:"deliveries"`
	// Error is the handler's last error, for a valid message.
	Error string `json:"error,omitempty"`
}

// verdictOf returns the verdict on a message whose decoding failed with
// err, as msg.VerdictOf makes it, the omitted count in More.
func verdictOf(err error) Verdict {
	v := msg.VerdictOf(nil, err)
	return Verdict{Violations: v.Violations, More: v.Omitted}
}

// encode returns v as JSON, its violations cut to keep it within
// MaxVerdictBytes.
func (v Verdict) encode() []byte {
	for {
		b, err := json.Marshal(v)
		if err != nil {
			// Strings, numbers and msg.Violations always encode.
			panic("nats: " + err.Error())
		}
		if len(b) <= MaxVerdictBytes || len(v.Violations) == 0 {
			return b
		}
		cut := max(1, len(v.Violations)/2)
		v.More += cut
		v.Violations = v.Violations[:len(v.Violations)-cut]
	}
}

// forwardHeaders returns a copy of h for a message published again: the
// JetStream headers renamed with OriginalPrefix, the rest as they are.
func forwardHeaders(h natsgo.Header) natsgo.Header {
	out := make(natsgo.Header, len(h)+2) // room for Nats-Msg-Id and a verdict
	for k, vs := range h {
		if len(k) >= 5 && strings.EqualFold(k[:5], "nats-") {
			k = OriginalPrefix + k
		}
		// The values are shared, not copied: headers are replaced with
		// Set, never appended to, here. Clip makes a second name that
		// lands on k (Nats-X beside Catalogue-Original-Nats-X) copy them.
		if prev, ok := out[k]; ok {
			vs = append(slices.Clip(prev), vs...)
		}
		out[k] = vs
	}
	return out
}

// deadLetter returns the dead letter of m, to subject.
func deadLetter(subject string, m jetstream.Msg, md *jetstream.MsgMetadata, v Verdict) *natsgo.Msg {
	v.Subject, v.Stream, v.Sequence, v.Deliveries = m.Subject(), md.Stream, md.Sequence.Stream, md.NumDelivered
	out := &natsgo.Msg{Subject: subject, Header: forwardHeaders(m.Headers()), Data: m.Data()}
	out.Header.Set(VerdictHeader, string(v.encode()))
	out.Header.Set(jetstream.MsgIDHeader, md.Stream+":"+strconv.FormatUint(md.Sequence.Stream, 10))
	return out
}

// ParseVerdict returns the verdict of a dead letter, from its headers.
func ParseVerdict(h natsgo.Header) (Verdict, error) {
	var v Verdict
	s := h.Get(VerdictHeader)
	if s == "" {
		return v, errors.New("nats: no " + VerdictHeader + " header: not a dead letter")
	}
	err := json.Unmarshal([]byte(s), &v)
	return v, err
}
