package msg

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape returns s as one line of a report may show it, on a terminal or
// in a log, as Violation.Error writes paths and messages: a message can
// hold any character in a member name or a string value, and printed as
// they are, a line feed would start a line that looks like another
// report, a carriage return or an escape sequence would overwrite what
// came before, and a bidirectional override would reorder what follows.
// Use it for any text that came from a message, or from its source (a
// file name), that a report of one's own prints beside violations.
//
// Escape writes every character that could end a line, move the cursor
// or change how a terminal draws what follows as an escape: the C0
// controls (\x00 to \x1f) and DEL as \xNN, the C1 controls (U+0080 to
// U+009F), the line and paragraph separators (U+2028, U+2029) and the
// bidirectional controls as \uNNNN, and each byte that is not part of
// valid UTF-8 as \xNN. Every other character, backslash included,
// is kept: the result is for people to read, not to parse back.
func Escape(s string) string {
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
		i++ // printable ASCII, the usual case, is kept at no cost
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
			i++
			continue
		}
		if c < utf8.RuneSelf { // a C0 control or DEL
			writeHex(&b, `\x`, uint32(c), 2)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHex(&b, `\x`, uint32(c), 2)
		case unsafeRune(r):
			writeHex(&b, `\u`, uint32(r), 4)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether r, outside ASCII, is a control a terminal or
// a text viewer acts on rather than draws.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1 controls, CSI (U+009B) among them
		return true
	case r == '\u2028' || r == '\u2029': // line and paragraph separators
		return true
	case r == '\u200e' || r == '\u200f' || r == '\u061c': // directional marks
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069': // bidirectional embeddings, overrides, isolates
		return true
	}
	return false
}

func writeHex(b *strings.Builder, prefix string, v uint32, digits int) {
	b.WriteString(prefix)
	h := strconv.FormatUint(uint64(v), 16)
	for range digits - len(h) {
		b.WriteByte('0')
	}
	b.WriteString(h)
}
