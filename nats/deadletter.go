package nats

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fleetkit/catalogue/gate"
)

// VerdictHeader is the header of a dead letter that holds its verdict
// (gate.Verdict), as one line of JSON.
const VerdictHeader = "Catalogue-Verdict"

// OriginalPrefix goes before the name of each JetStream header (Nats-*)
// of a message that is published again, as a dead letter or by a gate,
// and of a header of the original named VerdictHeader (in any case):
// kept, but no longer obeyed, nor read as a verdict. A dead letter
// renames a Status header, and header names NATS does not publish,
// percent-escaped, the same way.
const OriginalPrefix = "Catalogue-Original-"

// forwardHeaders returns a copy of h for a message published again: the
// JetStream headers renamed with OriginalPrefix, and any named
// VerdictHeader in any case too, so that the one verdict a consumer finds
// is the gate's, on a dead letter, and none on a copy; for a dead letter
// (dead), Status and names NATS does not publish too (see
// OriginalPrefix); the rest as they are, with room for more headers to
// be added. A Nats-Msg-Id whose value is sameID is left
// out rather than renamed: the copy's own Nats-Msg-Id says it.
func forwardHeaders(h natsgo.Header, sameID string, more int, dead bool) natsgo.Header {
	// Room for all: a map that grows past 8 becomes a table, the group
	// it had garbage.
	return forwardInto(make(natsgo.Header, len(h)+more), h, sameID, dead)
}

// forwardInto is forwardHeaders into out, an empty map, which it
// returns.
func forwardInto(out, h natsgo.Header, sameID string, dead bool) natsgo.Header {
	for k, vs := range h {
		switch {
		case k == jetstream.MsgIDHeader:
			if len(vs) == 1 && vs[0] == sameID {
				continue
			}
			k = originalMsgID // the most frequent: a bare message's only header
		case len(k) >= 5 && strings.EqualFold(k[:5], "nats-") || strings.EqualFold(k, VerdictHeader) || dead && k == statusHeader:
			k = OriginalPrefix + escapeKey(k)
		case !validKey(k):
			// Only a dead letter has one (see judge).
			k = OriginalPrefix + escapeKey(k)
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

// originalMsgID is the name a Nats-Msg-Id is kept under, renamed.
const originalMsgID = OriginalPrefix + jetstream.MsgIDHeader

// statusHeader is the header by which nats.go tells the server's status
// answers (no messages, timeout) from messages: its reader takes a
// message with an empty body and this header for one, and drops it. A
// dead letter of an empty message that came with one renames it.
const statusHeader = "Status"

// validKeys marks the bytes nats.go publishes in a header name: printable
// ASCII but for separators (its isHeaderKeyValid). A stored message may
// have others (the server does not check), and nats.go then refuses to
// publish its copy or its dead letter.
var validKeys = func() (t [256]bool) {
	for c := byte(33); c <= 126; c++ {
		t[c] = !strings.ContainsRune(`"()/,:;<=>?@[\]{}`, rune(c))
	}
	return t
}()

// validKey reports whether nats.go publishes a header named k.
func validKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if !validKeys[k[i]] {
			return false
		}
	}
	return k != ""
}

// escapeKey returns k with every byte nats.go does not publish in a
// header name, and '%', percent-escaped, as a URL escapes a byte.
func escapeKey(k string) string {
	if validKey(k) && !strings.Contains(k, "%") {
		return k
	}
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		if c := k[i]; validKeys[c] && c != '%' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// headerSize returns the size of h as NATS sends it, an upper bound of
// what the server counts against its limit on a message (nats.go trims
// the values it sends).
func headerSize(h natsgo.Header) int {
	if len(h) == 0 {
		return 0
	}
	n := len(headerFraming)
	for k, vs := range h {
		for _, v := range vs {
			n += fieldSize(k, v)
		}
	}
	return n
}

// headerFraming is what NATS sends around a message's header lines.
const headerFraming = "NATS/1.0\r\n\r\n"

// fieldSize returns the size of the header line k: v as NATS sends it.
func fieldSize(k, v string) int { return len(k) + len(": \r\n") + len(v) }

// deadLetterID returns the Nats-Msg-Id of the dead letter of the message
// at sequence seq of the stream incarnation (see incarnation): a dead
// letter published again, after a failure or for a redelivery, is then a
// duplicate JetStream drops, while that of another message at the same
// sequence of a stream made again is not.
func deadLetterID(incarnation string, seq uint64) string {
	return incarnation + ":" + strconv.FormatUint(seq, 10)
}

// deadLetter returns the dead letter of m, to subject, with verdict v, no
// larger than limit bytes: the original's headers (see forwardHeaders),
// Nats-Msg-Id (deadLetterID), VerdictHeader, and the body, the
// original's headers dropped and the body cut as gate.FitDeadLetter
// decides. Its headers are into, an empty map to reuse, if it is not
// nil. It returns an error wrapping gate.ErrTooLarge if not even the
// verdict fits.
func deadLetter(subject string, m message, v gate.Verdict, incarnation string, limit int, into natsgo.Header) (natsgo.Msg, error) {
	id := deadLetterID(incarnation, v.Sequence)
	var h natsgo.Header
	if into != nil {
		h = forwardInto(into, m.Headers(), "", true)
	} else {
		h = forwardHeaders(m.Headers(), "", 2, true) // Nats-Msg-Id and the verdict
	}
	h.Set(jetstream.MsgIDHeader, id)
	verdictField := fieldSize(VerdictHeader, "")
	overhead := len(headerFraming) + fieldSize(jetstream.MsgIDHeader, id) + verdictField
	d, err := gate.FitDeadLetter(v, m.Data(), gate.DeadLetterSize{
		Limit:    limit,
		Overhead: overhead,
		Headers:  headerSize(h) + verdictField - overhead,
	})
	if err != nil {
		return natsgo.Msg{}, err
	}
	if !d.KeepHeaders {
		h = natsgo.Header{jetstream.MsgIDHeader: {id}}
	}
	h.Set(VerdictHeader, string(d.Verdict))
	return natsgo.Msg{Subject: subject, Header: h, Data: d.Body}, nil
}

// message is a message received, as jetstream.Msg reads it: what a dead
// letter is made of.
type message interface {
	Headers() natsgo.Header
	Data() []byte
}

// ParseVerdict returns the verdict of a dead letter, from its headers.
func ParseVerdict(h natsgo.Header) (gate.Verdict, error) {
	s := h.Get(VerdictHeader)
	if s == "" {
		return gate.Verdict{}, errors.New("nats: no " + VerdictHeader + " header: not a dead letter")
	}
	return gate.ParseVerdict([]byte(s))
}
