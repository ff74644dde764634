package format

import (
	"encoding/binary"
	"slices"
	"strconv"
)

// uuidLen is the length of the textual 8-4-4-4-12 form.
const uuidLen = 36

// hexVal maps a byte to its hexadecimal value, or to 0xff when it is not a
// hex digit: uuidReason's test of a digit.
var hexVal = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = uint8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = uint8(c - 'a' + 10)
		t[c-'a'+'A'] = uint8(c - 'a' + 10)
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// Reasons reported by ParseUUID, built once so that failing is as
// allocation-free as succeeding. Positions count bytes from 1.
const reasonUUIDLen = "want 36 characters in 8-4-4-4-12 form"

var (
	uuidNonHex   = uuidPositionReasons("non-hex character at position ")
	uuidNoHyphen = uuidPositionReasons("want '-' at position ")
)

func uuidPositionReasons(prefix string) (r [uuidLen]string) {
	for i := range r {
		r[i] = prefix + strconv.Itoa(i+1)
	}
	return r
}

// ParseUUID parses the textual form of a UUID as RFC 9562 defines it:
// exactly 36 bytes, 32 hexadecimal digits in either case grouped 8-4-4-4-12
// and separated by hyphens. Braces, a "urn:uuid:" prefix, the form without
// hyphens and surrounding whitespace are all rejected.
//
// reason is empty when b is a UUID; otherwise it says what is wrong, naming
// the first offending character by its byte position counted from 1. ParseUUID
// never allocates.
func ParseUUID(b []byte) (u [16]byte, reason string) {
	if len(b) != uuidLen {
		return u, reasonUUIDLen
	}
	b = b[:uuidLen:uuidLen]
	// Eight digits at a time (see hexWord), the groups of four two at a
	// time, at constant indexes, so that no access is bounds-checked.
	le := binary.LittleEndian
	w0 := le.Uint64(b[0:8])
	w1 := uint64(le.Uint32(b[9:13])) | uint64(le.Uint32(b[14:18]))<<32
	w2 := uint64(le.Uint32(b[19:23])) | uint64(le.Uint32(b[24:28]))<<32
	w3 := le.Uint64(b[28:36])
	if notHex(w0)|notHex(w1)|notHex(w2)|notHex(w3) != 0 || b[8] != '-' || b[13] != '-' || b[18] != '-' || b[23] != '-' {
		return u, uuidReason(b)
	}
	le.PutUint32(u[0:4], hexWord(w0))
	le.PutUint32(u[4:8], hexWord(w1))
	le.PutUint32(u[8:12], hexWord(w2))
	le.PutUint32(u[12:16], hexWord(w3))
	return u, ""
}

// notHex flags, in the high bit of each byte, the bytes of w that are not
// hexadecimal digits in either case, if there are any: it is 0 exactly
// when every byte of w is one.
//
// Each test of a byte c is one of its range: c+(0x80-lo) has its high
// bit set when c >= lo, and no sum carries out of its byte while c is
// below 0x80. A byte from 0x80 up, whose sums may carry into the byte
// above it, is flagged by its own high bit, whatever the tests of the
// others then say. A letter is c|0x20 from 'a' to 'f'.
func notHex(w uint64) uint64 {
	l := w | 0x2020202020202020
	digit := (w + 0x5050505050505050) &^ (w + 0x4646464646464646)  // '0' to '9'
	letter := (l + 0x1f1f1f1f1f1f1f1f) &^ (l + 0x1919191919191919) // 'a' to 'f'
	return (^(digit | letter) | w) & 0x8080808080808080
}

// hexWord decodes eight hexadecimal digits w, which notHex passes, the
// first in its low byte, into four bytes, the first in the low byte of
// the result. A digit is worth its low four bits, and a letter 9 more:
// bit 6 is set in letters only.
func hexWord(w uint64) uint32 {
	n := w&0x0f0f0f0f0f0f0f0f + (w>>6&0x0101010101010101)*9
	// Each pair of digits into its byte, then the bytes together.
	p := (n<<4 | n>>8) & 0x00ff00ff00ff00ff
	p = (p | p>>8) & 0x0000ffff0000ffff
	return uint32(p | p>>16)
}

// uuidReason finds the first offending character of a 36-byte b that
// ParseUUID rejected.
func uuidReason(b []byte) string {
	for i, c := range b {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return uuidNoHyphen[i]
			}
		default:
			if hexVal[c] > 0xf {
				return uuidNonHex[i]
			}
		}
	}
	return reasonUUIDLen // unreachable for input ParseUUID rejected
}

// AppendUUID appends the canonical, lower-case 8-4-4-4-12 form of u to dst
// and returns the extended buffer. It does not allocate when dst has room
// for 36 more bytes.
func AppendUUID(dst []byte, u [16]byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, uuidLen)[:n+uuidLen]
	// Unrolled, two digits a byte from one table, and at constant
	// indexes of an array, so that no store is bounds-checked: a record
	// of a Kafka producer writes half a dozen of them.
	out := (*[uuidLen]byte)(dst[n:])
	le := binary.LittleEndian
	le.PutUint16(out[0:], hexPairs[u[0]])
	le.PutUint16(out[2:], hexPairs[u[1]])
	le.PutUint16(out[4:], hexPairs[u[2]])
	le.PutUint16(out[6:], hexPairs[u[3]])
	out[8] = '-'
	le.PutUint16(out[9:], hexPairs[u[4]])
	le.PutUint16(out[11:], hexPairs[u[5]])
	out[13] = '-'
	le.PutUint16(out[14:], hexPairs[u[6]])
	le.PutUint16(out[16:], hexPairs[u[7]])
	out[18] = '-'
	le.PutUint16(out[19:], hexPairs[u[8]])
	le.PutUint16(out[21:], hexPairs[u[9]])
	out[23] = '-'
	le.PutUint16(out[24:], hexPairs[u[10]])
	le.PutUint16(out[26:], hexPairs[u[11]])
	le.PutUint16(out[28:], hexPairs[u[12]])
	le.PutUint16(out[30:], hexPairs[u[13]])
	le.PutUint16(out[32:], hexPairs[u[14]])
	le.PutUint16(out[34:], hexPairs[u[15]])
	return dst
}

// hexPairs maps a byte to its two lower-case hexadecimal digits, the
// first in the low byte, as binary.LittleEndian writes them.
var hexPairs = func() (t [256]uint16) {
	for i := range t {
		t[i] = uint16(hexDigits[i>>4]) | uint16(hexDigits[i&0xf])<<8
	}
	return t
}()
