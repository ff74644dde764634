// Package short cuts the values and names a violation shows to a few
// dozen bytes: enough to recognise them, and little enough that a report
// of msg.MaxViolations violations stays small however long they are. The
// decoder (package wire) and the CloudEvents binding (package ce), which
// quotes headers, shorten alike through it.
package short

import (
	"unicode/utf8"

	"github.com/fleetkit/catalogue/msg"
)

// Len is how many bytes of a value or a member name a violation shows at
// most.
const Len = 64

// Quote returns s as a JSON string, for the Value of a violation, as
// msg.AppendJSONString writes it: a byte that is not UTF-8 as \ufffd, so
// that the Value is always JSON text. A long s is shortened as String
// shortens JSON text: its first bytes, quoted, and an ellipsis where the
// rest and the closing quote would be.
func Quote(s string) string {
	if len(s) <= Len {
		return string(msg.AppendJSONString(nil, s))
	}
	b := msg.AppendJSONString(nil, s[:cut(s, Len)])
	return string(append(b[:len(b)-1], "…"...))
}

// String cuts s to at most Len bytes, on a character boundary, marking
// the cut with an ellipsis.
func String(s string) string {
	if len(s) <= Len {
		return s
	}
	return s[:cut(s, Len)] + "…"
}

// Bytes is String(string(b)), without copying more of b than it keeps.
func Bytes(b []byte) string {
	if len(b) <= Len {
		return string(b)
	}
	return string(b[:cut(string(b), Len)]) + "…" // string(b) here is not copied
}

// cut returns where to cut s, long as it is, to at most max bytes: on a
// character boundary, if one is near.
func cut(s string, max int) int {
	n := max
	for n > max-utf8.UTFMax && !utf8.RuneStart(s[n]) {
		n--
	}
	if !utf8.RuneStart(s[n]) {
		return max // not UTF-8: any place will do
	}
	return n
}
