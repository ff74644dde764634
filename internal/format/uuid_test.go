package format

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// uuidCases pin ParseUUID; (suite) marks the JSON-Schema-Test-Suite's
// optional/format/uuid.json.
var uuidCases = []struct {
	in   string
	want string
}{
	{"2EB8AA08-AA98-11EA-B4AA-73B441D16380", ""},              // suite: all upper-case
	{"2eb8aa08-aa98-11ea-b4aa-73b441d16380", ""},              // suite: all lower-case
	{"2eb8aa08-AA98-11ea-B4Aa-73B441D16380", ""},              // suite: mixed case
	{"00000000-0000-0000-0000-000000000000", ""},              // suite: all zeroes
	{"98d80576-482e-427f-8434-7f86890ab222", ""},              // suite: version 4
	{"99c17cbb-656f-564a-940f-1a4568f03487", ""},              // suite: version 5
	{"99c17cbb-656f-664a-940f-1a4568f03487", ""},              // suite: hypothetical version 6
	{"99c17cbb-656f-f64a-940f-1a4568f03487", ""},              // suite: hypothetical version 15
	{"ffffffff-ffff-ffff-ffff-ffffffffffff", ""},              // max UUID
	{"FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", ""},              // max UUID, upper-case
	{"2eb8aa08-aa98-11ea-b4aa-73b441d1638", reasonUUIDLen},    // suite: missing character
	{"2eb8aa08-aa98-11ea-b4ga-73b441d16380", uuidNonHex[21]},  // suite: invalid character
	{"2eb8aa08-aa98-11ea-b4aa73b441d16380", reasonUUIDLen},    // suite: missing section
	{"2eb8aa08aa9811eab4aa73b441d16380", reasonUUIDLen},       // suite: bad hyphen count
	{"2eb8aa08aa98-11ea-b4aa73b441d16380-", reasonUUIDLen},    // suite: wrong hyphen placement
	{"2eb8aa08aa9811eab4aa73b441d16380----", uuidNoHyphen[8]}, // suite: hyphens at the end
	{"2eb8-aa08-aa98-11ea-b4aa73b441d16380", uuidNonHex[4]},   // suite: wrong hyphen placement
	{"{2eb8aa08-aa98-11ea-b4aa-73b441d16380}", reasonUUIDLen}, // braces
	{"{2eb8aa08-aa98-11ea-b4aa-73b441d163}", uuidNonHex[0]},   // braces, 36 characters
	{"urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380", reasonUUIDLen},
	{" 2eb8aa08-aa98-11ea-b4aa-73b441d16380", reasonUUIDLen},
	{"2eb8aa08-aa98-11ea-b4aa-73b441d16380 ", reasonUUIDLen},
	{" eb8aa08-aa98-11ea-b4aa-73b441d16380", uuidNonHex[0]},
	{"2eb8aa08-aa98-11ea-b4aa-73b441d1638 ", uuidNonHex[35]},
	{"2eb8aa08-aa98-11ea-b4aa-73b441d1638\n", uuidNonHex[35]},
	{"2eb8aa08-aa98-11ea-b4aa-73b441d1638g", uuidNonHex[35]},
	{"2eb8aa08-aa98-11ea-b4aa-73b441d1638G", uuidNonHex[35]},
	{"2eb8aa08_aa98-11ea-b4aa-73b441d16380", uuidNoHyphen[8]},
	{"2eb8aa08-aa98_11ea-b4aa-73b441d16380", uuidNoHyphen[13]},
	{"2eb8aa08-aa98-11ea_b4aa-73b441d16380", uuidNoHyphen[18]},
	{"2eb8aa08-aa98-11ea-b4aa_73b441d16380", uuidNoHyphen[23]},
	{"2eb8aa0-8aa98-11ea-b4aa-73b441d16380", uuidNonHex[7]},
	{"2eb8aa08-aa98-11ea-b4aa-73b441d1638é", reasonUUIDLen}, // 37 bytes
	{"2eb8aa08-aa98-11ea-b4aa-73b441d163é", uuidNonHex[34]},
	{"2eb8aa08-aa98-11ea-b4aa-73b441d1638\x00", uuidNonHex[35]},
	{"+eb8aa08-aa98-11ea-b4aa-73b441d16380", uuidNonHex[0]},
	{"", reasonUUIDLen},
}

func TestParseUUIDTable(t *testing.T) {
	for _, c := range uuidCases {
		u, reason := ParseUUID([]byte(c.in))
		if reason != c.want {
			t.Errorf("ParseUUID(%q) reason = %q, want %q", c.in, reason, c.want)
		}
		if reason != "" {
			if u != ([16]byte{}) {
				t.Errorf("ParseUUID(%q) failed but returned %x", c.in, u)
			}
			continue
		}
		if want := uuid.MustParse(c.in); u != want {
			t.Errorf("ParseUUID(%q) = %x, want %x", c.in, u, want)
		}
		if got := string(AppendUUID(nil, u)); got != strings.ToLower(c.in) {
			t.Errorf("AppendUUID(ParseUUID(%q)) = %q", c.in, got)
		}
	}
}

func TestUUIDReasons(t *testing.T) {
	if got, want := uuidNonHex[0], "non-hex character at position 1"; got != want {
		t.Errorf("uuidNonHex[0] = %q, want %q", got, want)
	}
	if got, want := uuidNoHyphen[23], "want '-' at position 24"; got != want {
		t.Errorf("uuidNoHyphen[23] = %q, want %q", got, want)
	}
}

func checkUUIDOracle(t *testing.T, s string) {
	t.Helper()
	_, reason := ParseUUID([]byte(s))
	if ours, theirs := reason == "", oracleUUID(t, s); ours != theirs {
		t.Errorf("ParseUUID(%q) valid=%v (reason %q), oracle valid=%v", s, ours, reason, theirs)
	}
}

var uuidAlphabet = []string{
	"0", "9", "a", "f", "A", "F", "g", "G", "-", "_", " ", "{", "}", ":", "\x00", "é", "０",
}

func TestParseUUIDAgreesWithOracle(t *testing.T) {
	for _, c := range uuidCases {
		checkUUIDOracle(t, c.in)
	}
	seeds := []string{
		"2eb8aa08-AA98-11ea-B4Aa-73B441D16380",
		"00000000-0000-0000-0000-000000000000",
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		var u [16]byte
		for i := range u {
			u[i] = byte(r.Uint32())
		}
		seeds = append(seeds, string(AppendUUID(nil, u)))
	}
	for _, seed := range seeds {
		for _, m := range mutations(seed, uuidAlphabet) {
			checkUUIDOracle(t, m)
		}
	}
}

func TestUUIDRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 100000 {
		var u [16]byte
		for i := range u {
			u[i] = byte(r.Uint32())
		}
		text := AppendUUID(nil, u)
		if want := uuid.UUID(u).String(); string(text) != want {
			t.Fatalf("AppendUUID(%x) = %q, want %q", u, text, want)
		}
		// Upper-case some digits: parsing is case-insensitive.
		for i := range text {
			if r.IntN(2) == 0 && text[i] >= 'a' {
				text[i] -= 'a' - 'A'
			}
		}
		back, reason := ParseUUID(text)
		if reason != "" || back != u {
			t.Fatalf("ParseUUID(%q) = %x, %q; want %x", text, back, reason, u)
		}
	}
}

func TestAppendUUIDAppends(t *testing.T) {
	u := uuid.MustParse("2eb8aa08-aa98-11ea-b4aa-73b441d16380")
	got := AppendUUID([]byte("id="), u)
	if string(got) != "id=2eb8aa08-aa98-11ea-b4aa-73b441d16380" {
		t.Errorf("got %q", got)
	}
	buf := make([]byte, 2, 64)
	got = AppendUUID(buf, u)
	if &got[0] != &buf[0] || len(got) != 38 {
		t.Errorf("AppendUUID did not reuse a buffer with room")
	}
}

func FuzzParseUUID(f *testing.F) {
	for _, c := range uuidCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, reason := ParseUUID([]byte(s))
		checkUUIDOracle(t, s)
		if reason != "" {
			return
		}
		if want, err := uuid.Parse(s); err != nil || u != want {
			t.Errorf("ParseUUID(%q) = %x, google/uuid says %x, %v", s, u, want, err)
		}
		if got := string(AppendUUID(nil, u)); got != strings.ToLower(s) {
			t.Errorf("AppendUUID(ParseUUID(%q)) = %q", s, got)
		}
	})
}

var benchUUID = []byte("2eb8aa08-AA98-11ea-B4Aa-73B441D16380")

func BenchmarkParseUUID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkUUID, sinkReason = ParseUUID(benchUUID)
	}
}

func BenchmarkParseUUIDInvalid(b *testing.B) {
	in := []byte("2eb8aa08-AA98-11ea-B4Aa-73B441D1638g")
	b.ReportAllocs()
	for b.Loop() {
		sinkUUID, sinkReason = ParseUUID(in)
	}
}

func BenchmarkAppendUUID(b *testing.B) {
	u, _ := ParseUUID(benchUUID)
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		sinkBytes = AppendUUID(buf[:0], u)
	}
}

// TestAppendUUIDWritesEveryByte holds the unrolled writer to fmt's
// hexadecimal, for every value of every byte.
func TestAppendUUIDWritesEveryByte(t *testing.T) {
	for pos := range 16 {
		for b := range 256 {
			var u [16]byte
			u[pos] = byte(b)
			want := fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
			if got := string(AppendUUID([]byte("x"), u)); got != "x"+want {
				t.Fatalf("AppendUUID(%x) = %q, want %q", u, got, "x"+want)
			}
		}
	}
}
