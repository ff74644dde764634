package format

import (
	"encoding/binary"
	"slices"
	"strconv"
)

// uuidLen is the length of the textual 8-4-4-4-12 form.
const uuidLen = 36

// hexVal maps a byte to its hexadecimal value, or to 0xff when it is not a
// hex digit, so that a single OR over all lookups detects any bad byte.
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
	// Unrolled, with constant indexes, so that no access is bounds-checked.
	var bad uint8
	pair := func(i int) byte {
		hi, lo := hexVal[b[i]], hexVal[b[i+1]]
		bad |= hi | lo
		return hi<<4 | lo
	}
	u = [16]byte{
		pair(0), pair(2), pair(4), pair(6), pair(9), pair(11), pair(14), pair(16),
		pair(19), pair(21), pair(24), pair(26), pair(28), pair(30), pair(32), pair(34),
	}
	if bad > 0xf || b[8] != '-' || b[13] != '-' || b[18] != '-' || b[23] != '-' {
		return [16]byte{}, uuidReason(b)
	}
	return u, ""
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
