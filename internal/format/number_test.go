package format

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// intCases pin ParseInt. JSON Schema's integer is the mathematical one.
var intCases = []struct {
	in     string
	n      int64
	reason string
	isInt  bool
}{
	{"0", 0, "", true},
	{"-0", 0, "", true},
	{"1", 1, "", true},
	{"-1", -1, "", true},
	{"42", 42, "", true},
	{"1.0", 1, "", true},
	{"1.000000000000000000000000000000", 1, "", true},
	{"-0.0", 0, "", true},
	{"0.0e5", 0, "", true},
	{"0e-5", 0, "", true},
	{"-0.000e-999999999999", 0, "", true},
	{"0.0e999999999999999999999999", 0, "", true},
	{"1e2", 100, "", true},
	{"1E2", 100, "", true},
	{"1e+2", 100, "", true},
	{"1.5e1", 15, "", true},
	{"1500e-2", 15, "", true},
	{"12.300e1", 123, "", true},
	{"12.3e1", 123, "", true},
	{"1230e-1", 123, "", true},
	{"-1230000e-4", -123, "", true},
	{"0.00000000000000000000000000000000001e35", 1, "", true},
	{"100000000000000000000000000000e-29", 1, "", true},
	{"1000000000000000000000000000000.000000e-29", 10, "", true},
	{"9223372036854775807", math.MaxInt64, "", true},
	{"-9223372036854775808", math.MinInt64, "", true},
	{"9223372036854775807.0", math.MaxInt64, "", true},
	{"922337203685477580.7e1", math.MaxInt64, "", true},
	{"9.223372036854775807e18", math.MaxInt64, "", true},
	{"-9.223372036854775808e18", math.MinInt64, "", true},
	{"-92233720368547758080e-1", math.MinInt64, "", true},
	{"1e18", 1e18, "", true},
	{"9e18", 9e18, "", true},
	{"999999999999999999", 999999999999999999, "", true},
	{"-999999999999999999", -999999999999999999, "", true},
	{"1000000000000000000", 1e18, "", true},
	{"000", 0, reasonNotNumber, false},

	{"9223372036854775808", 0, reasonIntRange, true},
	{"-9223372036854775809", 0, reasonIntRange, true},
	{"9.223372036854775808e18", 0, reasonIntRange, true},
	{"1e19", 0, reasonIntRange, true},
	{"-1e19", 0, reasonIntRange, true},
	{"1e20", 0, reasonIntRange, true},
	{"10000000000000000000", 0, reasonIntRange, true},
	{"99999999999999999999", 0, reasonIntRange, true},
	{"1e999999999999", 0, reasonIntRange, true},
	{"1e99999999999999999999999999999999", 0, reasonIntRange, true},
	{"-1.5e999999999999", 0, reasonIntRange, true},
	{"123456789012345678901234567890", 0, reasonIntRange, true},

	{"1.5", 0, reasonNotInt, false},
	{"-1.5", 0, reasonNotInt, false},
	{"0.1", 0, reasonNotInt, false},
	{"1e-1", 0, reasonNotInt, false},
	{"1.05e1", 0, reasonNotInt, false},
	{"10e-2", 0, reasonNotInt, false},
	{"1e-999999999999", 0, reasonNotInt, false},
	{"1e-99999999999999999999999999999999", 0, reasonNotInt, false},
	{"123456789012345678901234567890e-999999999999", 0, reasonNotInt, false},
	{"9223372036854775807.5", 0, reasonNotInt, false},
	{"1.0000000000000000000000000000001", 0, reasonNotInt, false},
	{"100000000000000000000000000000000001e-1", 0, reasonNotInt, false},

	{"", 0, reasonNotNumber, false},
	{"-", 0, reasonNotNumber, false},
	{"+1", 0, reasonNotNumber, false},
	{"01", 0, reasonNotNumber, false},
	{"-01", 0, reasonNotNumber, false},
	{".5", 0, reasonNotNumber, false},
	{"1.", 0, reasonNotNumber, false},
	{"1.e5", 0, reasonNotNumber, false},
	{"1e", 0, reasonNotNumber, false},
	{"1e+", 0, reasonNotNumber, false},
	{"1e+-1", 0, reasonNotNumber, false},
	{"1x", 0, reasonNotNumber, false},
	{" 1", 0, reasonNotNumber, false},
	{"1 ", 0, reasonNotNumber, false},
	{"0x10", 0, reasonNotNumber, false},
	{"NaN", 0, reasonNotNumber, false},
	{"Infinity", 0, reasonNotNumber, false},
	{"1_000", 0, reasonNotNumber, false},
	{"١", 0, reasonNotNumber, false},
	{"12345678901234567a", 0, reasonNotNumber, false},
	{"--1", 0, reasonNotNumber, false},
	{"1e1.5", 0, reasonNotNumber, false},
}

func TestParseIntTable(t *testing.T) {
	for _, c := range intCases {
		n, reason, isInt := ParseInt([]byte(c.in))
		if n != c.n || reason != c.reason || isInt != c.isInt {
			t.Errorf("ParseInt(%q) = %d, %q, %v; want %d, %q, %v", c.in, n, reason, isInt, c.n, c.reason, c.isInt)
		}
	}
}

// jsonNumber reports whether s is a JSON number by encoding/json's reading of
// a whole JSON text, which also admits surrounding whitespace.
func jsonNumber(s string) bool {
	return json.Valid([]byte(s)) && s != "" && strings.IndexByte("-0123456789", s[0]) >= 0 &&
		s[len(s)-1] >= '0' && s[len(s)-1] <= '9'
}

// checkInt compares ParseInt and ValidNumber on s with encoding/json, the
// oracle and exact big.Rat arithmetic (the last two only for small exponents).
func checkInt(t *testing.T, s string) {
	t.Helper()
	n, reason, isInt := ParseInt([]byte(s))
	valid := jsonNumber(s)
	if ValidNumber([]byte(s)) != valid {
		t.Errorf("ValidNumber(%q) = %v, encoding/json says %v", s, !valid, valid)
	}
	if !valid {
		if reason != reasonNotNumber || isInt || n != 0 {
			t.Errorf("ParseInt(%q) = %d, %q, %v for a non-number", s, n, reason, isInt)
		}
		return
	}
	if !oracleSafeNumber(s) {
		return
	}
	if theirs := oracleInteger(t, s); theirs != isInt {
		t.Errorf("ParseInt(%q) isInt=%v, oracle %v", s, isInt, theirs)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("big.Rat cannot read %q", s)
	}
	switch {
	case !r.IsInt():
		if isInt || reason != reasonNotInt || n != 0 {
			t.Errorf("ParseInt(%q) = %d, %q, %v for a non-integer", s, n, reason, isInt)
		}
	case !r.Num().IsInt64():
		if !isInt || reason != reasonIntRange || n != 0 {
			t.Errorf("ParseInt(%q) = %d, %q, %v beyond int64", s, n, reason, isInt)
		}
	default:
		if !isInt || reason != "" || n != r.Num().Int64() {
			t.Errorf("ParseInt(%q) = %d, %q, %v, want %d", s, n, reason, isInt, r.Num().Int64())
		}
	}
}

func TestParseIntTableAgreesWithOracle(t *testing.T) {
	for _, c := range intCases {
		checkInt(t, c.in)
	}
}

// randomNumberText builds JSON-number-shaped strings around the edges of the
// integers and of int64.
func randomNumberText(r *rand.Rand) string {
	var sb strings.Builder
	if r.IntN(2) == 0 {
		sb.WriteByte('-')
	}
	digits := func(n int) {
		for range n {
			switch r.IntN(4) {
			case 0:
				sb.WriteByte('0')
			case 1:
				sb.WriteByte('9')
			default:
				sb.WriteByte(byte('0' + r.IntN(10)))
			}
		}
	}
	switch r.IntN(5) {
	case 0:
		sb.WriteByte('0')
	case 1:
		sb.WriteString([]string{"9223372036854775807", "9223372036854775808", "922337203685477580"}[r.IntN(3)])
	default:
		sb.WriteByte(byte('1' + r.IntN(9)))
		digits(r.IntN(22))
	}
	if r.IntN(2) == 0 {
		sb.WriteByte('.')
		if r.IntN(2) == 0 {
			digits(1 + r.IntN(22))
		} else {
			sb.WriteString(strings.Repeat("0", 1+r.IntN(5)))
		}
	}
	if r.IntN(2) == 0 {
		sb.WriteString([]string{"e", "E"}[r.IntN(2)])
		sb.WriteString([]string{"", "+", "-"}[r.IntN(3)])
		sb.WriteString(strconv.Itoa(r.IntN(45)))
	}
	return sb.String()
}

func TestParseIntRandomAgreesWithOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	n := randomRounds()
	var ints, inRange int
	for range n {
		s := randomNumberText(r)
		checkInt(t, s)
		if v, reason, isInt := ParseInt([]byte(s)); isInt {
			ints++
			if reason == "" {
				inRange++
				_ = v
			}
		}
		if t.Failed() {
			break
		}
	}
	t.Logf("%d of %d integers, %d in int64 range", ints, n, inRange)
}

func TestParseIntMutationsAgreeWithOracle(t *testing.T) {
	alphabet := []string{"0", "1", "9", "-", "+", ".", "e", "E", " ", "x"}
	for _, seed := range []string{"-9223372036854775808", "12.300e1", "1500e-2", "0.0e5", "-0"} {
		for _, m := range mutations(seed, alphabet) {
			checkInt(t, m)
		}
	}
}

func TestParseIntRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 100000 {
		v := int64(r.Uint64()) >> r.IntN(64)
		texts := []string{strconv.FormatInt(v, 10), strconv.FormatInt(v, 10) + ".000"}
		if v != 0 {
			texts = append(texts, strconv.FormatInt(v, 10)+"0e-1")
		}
		for _, s := range texts {
			if n, reason, isInt := ParseInt([]byte(s)); n != v || reason != "" || !isInt {
				t.Fatalf("ParseInt(%q) = %d, %q, %v", s, n, reason, isInt)
			}
		}
	}
}

// TestParseIntEnormousInputIsFast pins linear time whatever the exponent and
// length: none of these may take long or allocate.
func TestParseIntEnormousInputIsFast(t *testing.T) {
	long := strings.Repeat("9", 1<<20)
	cases := []struct {
		in     string
		reason string
		isInt  bool
	}{
		{"1e" + long, reasonIntRange, true},
		{"1e-" + long, reasonNotInt, false},
		{"0e" + long, "", true},
		{long, reasonIntRange, true},
		{long + "e-" + strconv.Itoa(1<<20), reasonNotInt, false},
		{"1" + strings.Repeat("0", 1<<20) + "e-" + strconv.Itoa(1<<20), "", true},
		{"0." + strings.Repeat("0", 1<<20) + "1e" + strconv.Itoa(1<<20+1), "", true},
		{"0." + strings.Repeat("0", 1<<20) + "1e" + strconv.Itoa(1<<20), reasonNotInt, false},
		{"1e" + strings.Repeat("0", 1<<20) + "1", "", true},
	}
	start := time.Now()
	for _, c := range cases {
		_, reason, isInt := ParseInt([]byte(c.in))
		if reason != c.reason || isInt != c.isInt {
			t.Errorf("ParseInt(%.20q...) = %q, %v; want %q, %v", c.in, reason, isInt, c.reason, c.isInt)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("ParseInt on enormous inputs took %v", d)
	}
}

func FuzzParseInt(f *testing.F) {
	for _, c := range intCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, reason, isInt := ParseInt([]byte(s))
		if reason == "" && !isInt {
			t.Fatalf("ParseInt(%q) = %d with no reason but not an integer", s, n)
		}
		if reason != "" && n != 0 {
			t.Fatalf("ParseInt(%q) failed with %q but returned %d", s, reason, n)
		}
		checkInt(t, s) // skips the oracle for large exponents
		if reason == "" {
			// The canonical spelling reads back the same.
			if m, r, ok := ParseInt(strconv.AppendInt(nil, n, 10)); m != n || r != "" || !ok {
				t.Fatalf("ParseInt(%d) = %d, %q, %v", n, m, r, ok)
			}
		}
	})
}

func BenchmarkParseInt(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"Small", "42"},
		{"Max", "9223372036854775807"},
		{"Exponent", "1.5e3"},
		{"NotInt", "1.5"},
		{"HugeExponent", "1e999999999999"},
	} {
		in := []byte(bc.in)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkInt, sinkReason, sinkBool = ParseInt(in)
			}
		})
	}
}

func BenchmarkValidNumber(b *testing.B) {
	in := []byte("-12.345e-6")
	b.ReportAllocs()
	for b.Loop() {
		sinkBool = ValidNumber(in)
	}
}
