package imei

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"
)

const (
	length     = 15 // bytes in an IMEI
	bodyLength = 14 // bytes in the body the check digit covers
)

// doubled[d] is the Luhn contribution of digit d at a doubled position:
// 2d with its two digits added.
var doubled = [10]int{0, 2, 4, 6, 8, 1, 3, 5, 7, 9}

// Valid reports whether s is an IMEI: exactly 15 ASCII digits ('0' to '9')
// whose last digit is the Luhn check digit of the first 14.
//
// Valid("") is false. The catalogue's device message treats an empty imei
// as "not set" (decision 6); that rule belongs to the message, which checks
// for "" before calling Valid, not to this package.
//
// Valid does not allocate.
func Valid(s string) bool {
	if len(s) != length {
		return false
	}
	// The same test as Check's, eight digits at a time: a message's
	// Validate calls Valid, so it is on the hot path of every device.
	lo := binary.LittleEndian.Uint64([]byte(s[:8]))
	hi := binary.LittleEndian.Uint64([]byte(s[7:])) >> 8 // bytes 8 to 14
	if !allDigits(lo) || !allDigits(hi|'0'<<56) {
		return false
	}
	const zeros = 0x3030303030303030                              // '0' in every byte
	body := digitSum(lo-zeros) + digitSum(hi&(1<<48-1)-zeros>>16) // hi's 6 body digits
	return int(s[bodyLength]-'0') == (10-body%10)%10
}

// allDigits reports whether the eight bytes of w are all ASCII digits.
// Below the lowest byte that is not, no byte borrows or carries, so that
// byte sets its high bit in one of the two terms.
func allDigits(w uint64) bool {
	return ((w+0x4646464646464646)|(w-0x3030303030303030))&0x8080808080808080 == 0
}

// digitSum returns the Luhn sum of the digits 0 to 9 in the bytes of d,
// read as positions 0 to 7 of an IMEI's body (or 8 to 15, with the same
// parity): the digits in odd bytes doubled, with the two digits of the
// product added (2d, less 9 from d = 5 on).
func digitSum(d uint64) int {
	const odd = 0xff00ff00ff00ff00
	e := d & odd
	ge5 := (e + 0x7b7b7b7b7b7b7b7b) & 0x8080808080808080 >> 7 // 1 in each byte of e from 5 on
	v := d&^odd + 2*e - 9*ge5                                 // each byte at most 18
	return int(v * 0x0101010101010101 >> 56)                  // their sum, at most 144
}

// Check returns nil if s is an IMEI (see Valid). Otherwise it returns an
// *Error describing the first rule s breaks, checked in this order: the
// length must be 15 bytes; every byte must be an ASCII digit; the last digit
// must be the check digit of the first 14.
//
// Because the length is counted in bytes, a 15-character string holding a
// multibyte digit such as '٣' or '３' fails on its length, not on the digit.
//
// Check does not allocate when s is valid.
func Check(s string) error {
	if len(s) != length {
		return lengthError(s, length)
	}
	want, bad := luhn(s[:bodyLength])
	if bad >= 0 {
		return digitError(s, bad, length)
	}
	got := int(s[bodyLength]) - '0'
	if got < 0 || got > 9 {
		return digitError(s, bodyLength, length)
	}
	if got != want {
		return &Error{Kind: KindCheckDigit, Len: length, WantLen: length, Pos: -1, Got: got, Want: want}
	}
	return nil
}

// CheckDigit returns the Luhn check digit (0 to 9) of body, which must be
// the 14 ASCII digits of an IMEI without its check digit. Appending the
// digit to body gives a valid IMEI. If body is not 14 ASCII digits,
// CheckDigit returns -1 and an *Error of kind KindLength or KindDigit.
//
// CheckDigit does not allocate when body is valid.
func CheckDigit(body string) (int, error) {
	if len(body) != bodyLength {
		return -1, lengthError(body, bodyLength)
	}
	d, bad := luhn(body)
	if bad >= 0 {
		return -1, digitError(body, bad, bodyLength)
	}
	return d, nil
}

// luhn returns the check digit of the 14-byte body, or the index of the
// first byte that is not an ASCII digit (bad is -1 when there is none).
//
// Counting from the check digit leftwards, every second digit is doubled;
// with a 14-digit body those are the odd indexes from the left, so the
// body is read in pairs, the second of each doubled.
func luhn(body string) (digit, bad int) {
	sum := 0
	for i := 0; i+1 < len(body); i += 2 {
		d, e := uint(body[i])-'0', uint(body[i+1])-'0'
		if d > 9 {
			return -1, i
		}
		if e > 9 {
			return -1, i + 1
		}
		sum += int(d) + doubled[e]
	}
	return (10 - sum%10) % 10, -1
}

func lengthError(s string, want int) *Error {
	return &Error{Kind: KindLength, Len: len(s), WantLen: want, Pos: -1, Got: -1, Want: -1}
}

// digitError reports the character at byte i of s. All bytes before i are
// ASCII digits, so i starts a rune (or is an invalid byte); decoding from s
// rather than from a body slice keeps a rune that straddles the body's end
// whole.
func digitError(s string, i, want int) *Error {
	_, n := utf8.DecodeRuneInString(s[i:])
	return &Error{Kind: KindDigit, Len: len(s), WantLen: want, Pos: i, Char: s[i : i+n], Got: -1, Want: -1}
}

// Kind says which rule an IMEI, or a body given to CheckDigit, breaks.
type Kind int

// The rules, in the order Check and CheckDigit check them. The zero Kind is
// none of them.
const (
	KindLength     Kind = iota + 1 // not the required number of bytes
	KindDigit                      // a byte that is not an ASCII digit
	KindCheckDigit                 // the last digit is not the Luhn check digit of the others
)

// String returns a short lower-case name for k, such as "check digit".
func (k Kind) String() string {
	switch k {
	case KindLength:
		return "length"
	case KindDigit:
		return "digit"
	case KindCheckDigit:
		return "check digit"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Error describes why a string is not an IMEI (from Check) or not an IMEI
// body (from CheckDigit). Fields that do not apply to its Kind hold -1
// (or "" for Char), so a zero digit is never mistaken for "not set".
type Error struct {
	Kind Kind // the rule that failed

	Len     int // length of the checked string in bytes
	WantLen int // length required: 15 for an IMEI, 14 for a body

	// Pos is the 0-based byte index of the first byte that is not an ASCII
	// digit (KindDigit), and -1 for other kinds. A wrong check digit has no
	// position: any one of the 15 digits may be the mistaken one.
	Pos int

	// Char is the character at Pos (KindDigit): one UTF-8 encoded rune, or
	// a single byte where the string is not valid UTF-8.
	Char string

	Got  int // check digit found, 0 to 9 (KindCheckDigit)
	Want int // check digit the first 14 digits require (KindCheckDigit)
}

// Error returns a lower-case message that says what was expected, such as
// "length is 14, want 15", "non-digit 'x' at position 3" or
// "check digit is 8, want 7". It has no "imei:" prefix.
func (e *Error) Error() string {
	switch e.Kind {
	case KindLength:
		return "length is " + strconv.Itoa(e.Len) + ", want " + strconv.Itoa(e.WantLen)
	case KindDigit:
		return "non-digit " + quoteChar(e.Char) + " at position " + strconv.Itoa(e.Pos)
	case KindCheckDigit:
		return "check digit is " + strconv.Itoa(e.Got) + ", want " + strconv.Itoa(e.Want)
	}
	return "invalid IMEI (" + e.Kind.String() + ")"
}

// quoteChar quotes c as a Go rune literal, or as '\xNN' when c is a byte
// that is not valid UTF-8 (strconv.QuoteRune would show U+FFFD instead,
// hiding what was actually sent).
func quoteChar(c string) string {
	r, n := utf8.DecodeRuneInString(c)
	if r == utf8.RuneError && n <= 1 {
		if c == "" {
			return "''"
		}
		const hex = "0123456789abcdef"
		return `'\x` + string(hex[c[0]>>4]) + string(hex[c[0]&0xf]) + `'`
	}
	return strconv.QuoteRune(r)
}
