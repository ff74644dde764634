package format

import (
	"math/rand/v2"
	"testing"
)

// parseUUIDBytes is ParseUUID a digit at a time, from hexVal, as it was
// before it read eight at a time: the reference the word-wise one is held
// to.
func parseUUIDBytes(b []byte) (u [16]byte, reason string) {
	if len(b) != uuidLen {
		return u, reasonUUIDLen
	}
	var bad uint8
	at := [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}
	for k, i := range at {
		hi, lo := hexVal[b[i]], hexVal[b[i+1]]
		bad |= hi | lo
		u[k] = hi<<4 | lo
	}
	if bad > 0xf || b[8] != '-' || b[13] != '-' || b[18] != '-' || b[23] != '-' {
		return [16]byte{}, uuidReason(b)
	}
	return u, ""
}

// TestParseUUIDReadsEveryByte holds ParseUUID, which reads eight digits
// at a time, to the reference that reads one, for every value of every
// byte of uuids in lower, upper and mixed case: the words' tests of a
// range must neither carry from one byte into the next nor let a byte
// outside ASCII through.
func TestParseUUIDReadsEveryByte(t *testing.T) {
	bases := []string{
		"2eb8aa08-aa98-11ea-b4aa-73b441d16380",
		"2EB8AA08-AA98-11EA-B4AA-73B441D16380",
		"00000000-0000-0000-0000-000000000000",
		"ffffffff-ffff-ffff-ffff-ffffffffffff",
		"FfFfFfFf-9a9A-0f0F-aFaF-0123456789aB",
	}
	check := func(in []byte) {
		t.Helper()
		u, reason := ParseUUID(in)
		wu, wreason := parseUUIDBytes(in)
		if u != wu || reason != wreason {
			t.Fatalf("ParseUUID(%q) = %x, %q; a digit at a time, %x, %q", in, u, reason, wu, wreason)
		}
	}
	for _, base := range bases {
		for pos := range uuidLen {
			for c := range 256 {
				in := []byte(base)
				in[pos] = byte(c)
				check(in)
			}
		}
	}
	// Two bytes changed at once, one of them outside ASCII or near a
	// range's end, so that a carry from one could reach the other.
	edges := []byte{0x00, 0x2f, 0x30, 0x39, 0x3a, 0x40, 0x41, 0x46, 0x47, 0x60, 0x61, 0x66, 0x67, 0x7f, 0x80, 0xb0, 0xc6, 0xe6, 0xff}
	for pos := range uuidLen {
		for _, c := range edges {
			for next := pos + 1; next < min(pos+9, uuidLen); next++ {
				for _, d := range edges {
					in := []byte(bases[0])
					in[pos], in[next] = c, d
					check(in)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(9, 10))
	digits := "0123456789abcdefABCDEF"
	for range 200000 {
		in := make([]byte, uuidLen)
		for i := range in {
			switch {
			case i == 8 || i == 13 || i == 18 || i == 23:
				in[i] = '-'
			default:
				in[i] = digits[r.IntN(len(digits))]
			}
		}
		if r.IntN(2) == 0 {
			in[r.IntN(uuidLen)] = byte(r.Uint32())
		}
		check(in)
	}
}
