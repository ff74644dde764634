package imei_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/imei"
)

// The worked example of 3GPP TS 23.003 Annex B.
const (
	annexBBody  = "26053179311383"
	annexBDigit = 7
	annexBIMEI  = "260531793113837"
)

func TestAnnexBExample(t *testing.T) {
	d, err := imei.CheckDigit(annexBBody)
	require.NoError(t, err)
	assert.Equal(t, annexBDigit, d)
	assert.True(t, imei.Valid(annexBIMEI))
	assert.NoError(t, imei.Check(annexBIMEI))
}

// checkCase is one input to Valid and Check. For an invalid input, err
// is the *Error Check must return, and msg its text.
type checkCase struct {
	name string
	in   string
	err  *imei.Error // nil for a valid IMEI
	msg  string
}

func valid(name, in string) checkCase { return checkCase{name: name, in: in} }

func badLength(name, in string) checkCase {
	return checkCase{name, in, lengthError(in, 15), "length is " + strconv.Itoa(len(in)) + ", want 15"}
}

func badDigit(name, in string, pos int, char, msg string) checkCase {
	return checkCase{name, in, digitError(in, 15, pos, char), msg}
}

func badCheckDigit(name, in string, got, want int, msg string) checkCase {
	return checkCase{name, in, &imei.Error{Kind: imei.KindCheckDigit, Len: 15, WantLen: 15, Pos: -1, Got: got, Want: want}, msg}
}

// lengthError is the *Error of in, whose length is not wantLen.
func lengthError(in string, wantLen int) *imei.Error {
	return &imei.Error{Kind: imei.KindLength, Len: len(in), WantLen: wantLen, Pos: -1, Got: -1, Want: -1}
}

// digitError is the *Error of in, of length wantLen, whose character
// char at byte pos is not an ASCII digit.
func digitError(in string, wantLen, pos int, char string) *imei.Error {
	return &imei.Error{Kind: imei.KindDigit, Len: len(in), WantLen: wantLen, Pos: pos, Char: char, Got: -1, Want: -1}
}

// assertError asserts that err is an *imei.Error equal to want, and says
// msg.
func assertError(t *testing.T, err error, want *imei.Error, msg string) {
	t.Helper()
	var e *imei.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, want, e)
	assert.Equal(t, msg, err.Error())
}

var checkCases = []checkCase{
	valid("Annex B example", annexBIMEI),
	valid("Wikipedia example", "490154203237518"),
	valid("GSMA TAC 35", "352099001761481"),
	valid("GSMA TAC 35, check digit 9", "356938035643809"),
	valid("TAC 86", "864987023456786"),
	valid("leading zero", "012345678901237"),
	valid("TAC 99", "990000000000002"),
	valid("all zeros", "000000000000000"),

	badCheckDigit("check digit off by one", "260531793113838", 8, 7, "check digit is 8, want 7"),
	badCheckDigit("check digit zero", "260531793113830", 0, 7, "check digit is 0, want 7"),
	badCheckDigit("one body digit wrong", "260531793113827", 7, 9, "check digit is 7, want 9"),
	badCheckDigit("first two digits swapped", "206531793113837", 7, 4, "check digit is 7, want 4"),
	badCheckDigit("last two body digits swapped", "490154203237158", 8, 3, "check digit is 8, want 3"),

	badLength("empty: not set is the message's rule, not an IMEI", ""),
	badLength("14 digits, the body alone", annexBBody),
	badLength("16 digits, an IMEISV", "2605317931138301"),
	badLength("16 digits, IMEI plus a digit", annexBIMEI+"0"),
	badLength("short letters fail on length first", "abc"),
	badLength("leading space on a full IMEI", " "+annexBIMEI),
	badLength("trailing newline on a full IMEI", annexBIMEI+"\n"),
	badLength("hyphenated display form", "26-053179-311383-7"),
	// Multibyte digits make the string longer than 15 bytes, so a
	// 15-character string with one fails on length, not on the digit.
	badLength("Arabic-Indic check digit, 15 characters", annexBBody+"٧"),
	badLength("fullwidth check digit, 15 characters", annexBBody+"７"),
	badLength("all fullwidth digits", "２６０５３１７９３１１３８３７"),

	badDigit("leading space in 15 bytes", " "+annexBBody, 0, " ", "non-digit ' ' at position 0"),
	badDigit("trailing space in 15 bytes", annexBBody+" ", 14, " ", "non-digit ' ' at position 14"),
	badDigit("letter", "260x31793113837", 3, "x", "non-digit 'x' at position 3"),
	badDigit("letter as check digit", annexBBody+"X", 14, "X", "non-digit 'X' at position 14"),
	badDigit("plus sign", "+"+annexBBody, 0, "+", "non-digit '+' at position 0"),
	badDigit("minus sign", "-"+annexBBody, 0, "-", "non-digit '-' at position 0"),
	badDigit("hyphen inside", "2605-3179311383", 4, "-", "non-digit '-' at position 4"),
	badDigit("NUL byte", "\x00"+annexBBody, 0, "\x00", `non-digit '\x00' at position 0`),
	badDigit("invalid UTF-8 byte", annexBBody+"\xff", 14, "\xff", `non-digit '\xff' at position 14`),
	// 13 ASCII digits and a 2-byte Arabic-Indic three make 15 bytes; the
	// rune straddles the body and check digit and is reported whole.
	badDigit("Arabic-Indic digit in 15 bytes", "2605317931138٣", 13, "٣", "non-digit '٣' at position 13"),
	badDigit("fullwidth digit in 15 bytes", "260531793113３", 12, "３", "non-digit '３' at position 12"),
	badDigit("non-digit reported before a wrong check digit", "x60531793113838", 0, "x", "non-digit 'x' at position 0"),
}

func TestValid(t *testing.T) {
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.err == nil, imei.Valid(tc.in), "Valid(%q)", tc.in)
		})
	}
}

func TestCheckReportsFirstFailedRule(t *testing.T) {
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			err := imei.Check(tc.in)
			if tc.err == nil {
				assert.NoError(t, err)
				return
			}
			assertError(t, err, tc.err, tc.msg)
		})
	}
}

func TestCheckReturnsUntypedNil(t *testing.T) {
	// A nil *Error inside a non-nil error interface would make every
	// caller's err != nil test true.
	if err := imei.Check(annexBIMEI); err != nil {
		t.Fatalf("Check(%q) = %#v, want nil", annexBIMEI, err)
	}
}

func TestCheckDigit(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		digit int         // -1 when an error is expected
		err   *imei.Error // the error expected, and its text
		msg   string
	}{
		{"Annex B example", annexBBody, 7, nil, ""},
		{"Wikipedia example", "49015420323751", 8, nil, ""},
		{"GSMA TAC 35", "35209900176148", 1, nil, ""},
		{"check digit 9", "35693803564380", 9, nil, ""},
		{"all zeros", "00000000000000", 0, nil, ""},
		{"empty", "", -1, lengthError("", 14), "length is 0, want 14"},
		{"a whole IMEI is not a body", annexBIMEI, -1, lengthError(annexBIMEI, 14), "length is 15, want 14"},
		{"13 digits", "2605317931138", -1, lengthError("2605317931138", 14), "length is 13, want 14"},
		{"Arabic-Indic digit makes 15 bytes", "2605317931138٣", -1, lengthError("2605317931138٣", 14), "length is 15, want 14"},
		{"letter", "2605317931138a", -1, digitError("2605317931138a", 14, 13, "a"), "non-digit 'a' at position 13"},
		{"sign", "+2605317931138", -1, digitError("+2605317931138", 14, 0, "+"), "non-digit '+' at position 0"},
		{"Arabic-Indic digit in 14 bytes", "260531793113٣", -1, digitError("260531793113٣", 14, 12, "٣"), "non-digit '٣' at position 12"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := imei.CheckDigit(tc.body)
			assert.Equal(t, tc.digit, d)
			if tc.digit >= 0 {
				require.NoError(t, err)
				assert.True(t, imei.Valid(tc.body+strconv.Itoa(d)), "body plus its check digit is valid")
				return
			}
			assertError(t, err, tc.err, tc.msg)
		})
	}
}

func TestKindString(t *testing.T) {
	assert.Equal(t, "length", imei.KindLength.String())
	assert.Equal(t, "digit", imei.KindDigit.String())
	assert.Equal(t, "check digit", imei.KindCheckDigit.String())
	assert.Equal(t, "Kind(0)", imei.Kind(0).String())
}

func TestErrorWrapsWithFieldPath(t *testing.T) {
	// Messages carry no "imei:" prefix so that callers can put the field
	// path in front, and the *Error stays reachable through the wrap.
	err := fmt.Errorf("/imei: %w", imei.Check("260531793113838"))
	assert.EqualError(t, err, "/imei: check digit is 8, want 7")
	var e *imei.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, imei.KindCheckDigit, e.Kind)
}

// digitsOnly is the reference's own reading of "15 ASCII digits".
var digitsOnly = regexp.MustCompile(`^[0-9]{15}$`)

// reference is an independent statement of the rule: the textbook Luhn
// test over all 15 digits, walking from the right and doubling every
// second digit, passes when the sum is a multiple of 10.
func reference(s string) bool {
	if !digitsOnly.MatchString(s) {
		return false
	}
	sum := 0
	for i := 0; i < len(s); i++ {
		d, _ := strconv.Atoi(s[len(s)-1-i : len(s)-i])
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d = d/10 + d%10
			}
		}
		sum += d
	}
	return sum%10 == 0
}

func TestValidAgreesWithReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	var nValid int
	buf := make([]byte, 15)
	for range n {
		for i := range buf {
			buf[i] = byte('0' + r.IntN(10))
		}
		switch r.IntN(8) {
		case 0: // a non-digit byte somewhere
			buf[r.IntN(15)] = byte(r.IntN(256))
		case 1: // a valid IMEI, so that both outcomes are well covered
			d, err := imei.CheckDigit(string(buf[:14]))
			require.NoError(t, err)
			buf[14] = byte('0' + d)
		}
		s := string(buf)
		want := reference(s)
		if want {
			nValid++
		}
		if got := imei.Valid(s); got != want {
			t.Fatalf("Valid(%q) = %v, reference says %v", s, got, want)
		}
		if got := imei.Check(s) == nil; got != want {
			t.Fatalf("Check(%q) == nil is %v, reference says %v", s, got, want)
		}
	}
	// Guard against a generator that only ever produces one outcome.
	assert.Greater(t, nValid, n/10)
	assert.Less(t, nValid, n/2)
}

func TestReferenceAgreesWithAnnexB(t *testing.T) {
	// The reference is only useful if it is itself right.
	assert.True(t, reference(annexBIMEI))
	assert.False(t, reference("260531793113838"))
	assert.False(t, reference(annexBBody))
}

func TestNoAllocations(t *testing.T) {
	// Valid and Check run on every device message; CheckDigit on every
	// IMEI a producer builds.
	in, body := annexBIMEI, annexBBody
	tests := []struct {
		name string
		f    func()
	}{
		{"Valid, valid input", func() { _ = imei.Valid(in) }},
		{"Valid, invalid input", func() { _ = imei.Valid("260531793113838") }},
		{"Check, valid input", func() { _ = imei.Check(in) }},
		{"CheckDigit, valid body", func() { _, _ = imei.CheckDigit(body) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Zero(t, testing.AllocsPerRun(100, tc.f))
		})
	}
}

var sink bool

func BenchmarkValid(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sink = imei.Valid(annexBIMEI)
	}
}

func BenchmarkCheck(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sink = imei.Check(annexBIMEI) == nil
	}
}
