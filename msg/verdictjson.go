package msg

import (
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// This file writes the JSON of a verdict by hand, byte for byte as
// encoding/json writes it with SetEscapeHTML(false): a broker's gate
// writes one for every dead letter, and encoding/json's reflection cost
// it more than judging the message did. TestAppendJSONIsEncodingJSON
// and FuzzAppendJSON hold the two to each other.

// AppendJSON appends the JSON of v to b and returns the extended slice:
// the form MarshalHeader writes, exactly as encoding/json writes v with
// SetEscapeHTML(false) (json.Marshal differs only in escaping '<', '>'
// and '&'), without a cap on its size. A struct that embeds a Verdict
// has this method too, but it writes only the verdict's members: see
// HeaderAppender.
func (v Verdict) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = v.AppendMembers(b)
	return append(b, '}')
}

// AppendMembers appends the members of v's JSON to b, without the braces
// around them: for a HeaderAppender, which writes them among its own where
// encoding/json writes the members of an embedded Verdict. The first,
// "schema", is always written; "violations" and "omitted", the members
// MarshalHeader cuts, never come first.
func (v Verdict) AppendMembers(b []byte) []byte {
	b = append(b, `"schema":`...)
	b = AppendJSONString(b, v.Schema)
	if v.Version != "" {
		b = append(b, `,"version":`...)
		b = AppendJSONString(b, v.Version)
	}
	b = append(b, `,"valid":`...)
	b = strconv.AppendBool(b, v.Valid)
	if len(v.Violations) > 0 {
		b = append(b, `,"violations":[`...)
		for i, x := range v.Violations {
			if i > 0 {
				b = append(b, ',')
			}
			b = x.AppendJSON(b)
		}
		b = append(b, ']')
	}
	if v.Omitted != 0 {
		b = append(b, `,"omitted":`...)
		b = strconv.AppendInt(b, int64(v.Omitted), 10)
	}
	return b
}

// fitting returns how many of v's violations, the first ones, its JSON
// lists within limit bytes, when it is size bytes long listing them all:
// the most that fit, and 0 if none do; fewer than it lists, whatever the
// limit. It knows the size of each shorter list from that of each
// violation it leaves out, which it writes once into one, and from how
// AppendMembers writes the members it cuts: `,"violations":[...]`, left
// out when empty, and `,"omitted":N`, left out when N is 0. It returns
// one for the next call to reuse.
func (v *Verdict) fitting(size, limit int, one []byte) (int, []byte) {
	n := len(v.Violations)
	for k := n - 1; k >= 0; k-- { // size is the length listing k+1
		one = v.Violations[k].AppendJSON(one[:0])
		if k > 0 {
			size -= len(",") + len(one)
		} else {
			size -= len(`,"violations":[]`) + len(one)
		}
		size += omittedSize(v.Omitted+n-k) - omittedSize(v.Omitted+n-k-1)
		if size <= limit {
			return k, one
		}
	}
	return 0, one
}

// omittedSize returns the length of the "omitted" member AppendMembers
// writes for n: none for 0.
func omittedSize(n int) int {
	if n == 0 {
		return 0
	}
	var digits [20]byte
	return len(`,"omitted":`) + len(strconv.AppendInt(digits[:0], int64(n), 10))
}

// AppendJSON appends the JSON of v to b, as encoding/json writes it with
// SetEscapeHTML(false), and returns the extended slice; a nil v is null.
func (v *Violation) AppendJSON(b []byte) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"path":`...)
	b = AppendJSONString(b, v.Path)
	b = append(b, `,"rule":`...)
	b = AppendJSONString(b, string(v.Rule))
	b = append(b, `,"message":`...)
	b = AppendJSONString(b, v.Message)
	if v.Value != "" {
		b = append(b, `,"value":`...)
		b = AppendJSONString(b, v.Value)
	}
	return append(b, '}')
}

// AppendJSONString appends s to b as a JSON string, exactly as
// encoding/json writes a string with SetEscapeHTML(false), and returns
// the extended slice: '"' and '\\' escaped with a backslash, the control
// characters as \b, \f, \n, \r, \t or \u00XX, each byte that is not part
// of valid UTF-8 as \ufffd, U+2028 and U+2029 as \u2028 and \u2029, and
// every other character, '<', '>' and '&' among them, as it is.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if i+8 <= len(s) {
			if n := plainBytes(le64(s[i:])); n > 0 {
				i += n
				continue
			}
		} else if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigit[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigit = "0123456789abcdef"

// le64 returns the first 8 bytes of s as a little-endian word.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// plainBytes returns how many of the 8 bytes of the word w (see le64),
// from the first, are ASCII that a JSON string holds as it is: none a
// control, '"', '\\' or past ASCII. A string of text, the usual case, is
// so copied eight bytes at a time, and the first byte that needs a closer
// look is found without going back over those before it.
func plainBytes(w uint64) int {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	// A byte below 0x20, or equal to '"' or '\\', borrows in its
	// subtraction and so sets its high bit; a byte past ASCII has it set
	// already. A borrow can set high bits above such a byte too, but
	// never below it: the lowest high bit set is the first byte that
	// needs a look.
	m := (w | (w - ones*0x20) | (quote-ones)&^quote | (backslash-ones)&^backslash) & high
	return bits.TrailingZeros64(m) / 8
}

// A HeaderAppender is a VerdictHolder that writes its own JSON, as
// encoding/json would write it with SetEscapeHTML(false), so that
// MarshalHeader need not reflect on it: AppendHeader appends to b the
// JSON object of the holder, its Verdict's members written by
// Verdict.AppendMembers where encoding/json writes those of an embedded
// Verdict. MarshalHeader writes any other holder with encoding/json.
//
// A Verdict is not a HeaderAppender, so a struct that embeds one is
// written with encoding/json until it implements AppendHeader itself.
// But a struct that embeds a HeaderAppender has its AppendHeader, which
// writes none of the struct's own fields: such a struct must implement
// AppendHeader too, as with a json.Marshaler.
type HeaderAppender interface {
	VerdictHolder
	AppendHeader(b []byte) []byte
}
