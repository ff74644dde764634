package msg_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/msg"
)

// encodingJSON returns the JSON of x as encoding/json writes it with
// SetEscapeHTML(false): what AppendJSON must write, byte for byte.
func encodingJSON(t testing.TB, x any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(x))
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// same fails t unless got is want, showing where they part.
func same(t testing.TB, want, got []byte, what string) {
	t.Helper()
	if bytes.Equal(want, got) {
		return
	}
	i := 0
	for i < min(len(want), len(got)) && want[i] == got[i] {
		i++
	}
	from := max(0, i-40)
	t.Fatalf("%s: %d bytes, encoding/json %d; from byte %d, %q where encoding/json writes %q",
		what, len(got), len(want), i, got[from:min(len(got), i+40)], want[from:min(len(want), i+40)])
}

// pieces are what a hostile string is made of: every ASCII byte, the
// escapes of HTML, the separators JSON lets through but JavaScript does
// not, characters of two to four bytes, and bytes that are not UTF-8 on
// their own or as the start of a character cut short.
var pieces = func() []string {
	p := []string{"<", ">", "&", `"`, `\`, "\u2028", "\u2029", "\u2027", "\u202a", "é", "\U0001F600", "\x80", "\xff", "\xc0", "\xe2\x80", "\xf0\x9f\x98", "\xed\xa0\x80", "\u00a0", "\u0085"}
	for c := range 0x80 {
		p = append(p, string(rune(c)))
	}
	return p
}()

// hostileString returns a string of up to n pieces, now and then a long
// one, now and then empty.
func hostileString(r *rand.Rand, n int) string {
	switch r.IntN(10) {
	case 0:
		return ""
	case 1:
		return strings.Repeat(pieces[r.IntN(len(pieces))], 1000+r.IntN(2000))
	}
	var b strings.Builder
	for range r.IntN(n + 1) {
		if r.IntN(2) == 0 {
			b.WriteString("plain text ")
		}
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// randomVerdict returns a verdict with up to n violations, some of them
// nil; its list nil, empty or not; its Omitted zero, positive or not.
func randomVerdict(r *rand.Rand, n int) msg.Verdict {
	v := msg.Verdict{Schema: hostileString(r, 8), Valid: r.IntN(2) == 0}
	if r.IntN(2) == 0 {
		v.Version = hostileString(r, 4)
	}
	switch r.IntN(4) {
	case 0:
	case 1:
		v.Violations = []*msg.Violation{}
	default:
		for range r.IntN(n + 1) {
			if r.IntN(20) == 0 {
				v.Violations = append(v.Violations, nil)
				continue
			}
			v.Violations = append(v.Violations, &msg.Violation{
				Path: hostileString(r, 8), Rule: msg.Rule(hostileString(r, 2)),
				Message: hostileString(r, 30), Value: hostileString(r, 30),
				Err: fmt.Errorf("not written"),
			})
		}
	}
	switch r.IntN(3) {
	case 1:
		v.Omitted = r.IntN(1000)
	case 2:
		v.Omitted = -r.IntN(1 << 40)
	}
	return v
}

func TestAppendJSONStringIsEncodingJSON(t *testing.T) {
	for _, s := range pieces {
		assert.Equal(t, string(encodingJSON(t, s)), string(msg.AppendJSONString(nil, s)), "%q", s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		s := hostileString(r, 50)
		require.Equal(t, string(encodingJSON(t, s)), string(msg.AppendJSONString([]byte("kept"), s)[4:]), "%q", s)
	}
}

// TestAppendJSONStringFindsEachByteInAWord pins the eight-bytes-at-a-time
// copy: a byte that needs a look, at every place of a word and after
// another one, is found and written as encoding/json writes it.
func TestAppendJSONStringFindsEachByteInAWord(t *testing.T) {
	for _, special := range []string{"\"", "\\", "\n", "\x00", "\x1f", "é", "\u2028", "\xff", " ", "\x7f"} {
		for at := range 17 {
			for _, after := range []string{"", special, "\t"} {
				s := strings.Repeat("a", at) + special + after + strings.Repeat("b", 9)
				require.Equal(t, string(encodingJSON(t, s)), string(msg.AppendJSONString(nil, s)), "%q", s)
			}
		}
	}
}

// fastLocated is located, written without reflection.
type fastLocated struct{ located }

func (x *fastLocated) AppendHeader(b []byte) []byte {
	b = append(b, `{"subject":`...)
	b = msg.AppendJSONString(b, x.Subject)
	b = append(b, ',')
	b = x.Verdict.AppendMembers(b)
	b = append(b, `,"deliveries":`...)
	b = append(b, fmt.Sprint(x.Deliveries)...)
	return append(b, '}')
}

// The hand-written JSON of a verdict is encoding/json's, byte for byte,
// for the verdict alone and for a struct that embeds it, whole and cut by
// MarshalHeader to the most violations that fit the limit.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cut := 0
	for i := range 600 {
		v := randomVerdict(r, 3+i%5*40)
		same(t, encodingJSON(t, v), v.AppendJSON(nil), "AppendJSON")
		for _, x := range v.Violations {
			same(t, encodingJSON(t, x), x.AppendJSON(nil), "Violation.AppendJSON")
		}
		limit := msg.MaxVerdictBytes
		if i%2 == 1 {
			limit = r.IntN(2 * len(v.AppendJSON(nil)))
		}
		got, err := msg.MarshalHeader(&v, limit)
		require.NoError(t, err)
		checkHeader(t, &v, &v, limit, got)
		if len(got) < len(v.AppendJSON(nil)) {
			cut++
		}

		l := located{Subject: hostileString(r, 5), Verdict: v, Deliveries: r.IntN(3)}
		got, err = msg.MarshalHeader(&l, limit)
		require.NoError(t, err)
		checkHeader(t, &l, &l.Verdict, limit, got)
		fast, err := msg.MarshalHeader(&fastLocated{l}, limit)
		require.NoError(t, err)
		same(t, got, fast, "MarshalHeader of a HeaderAppender")
	}
	assert.Greater(t, cut, 100, "the test must cut many verdicts")
}

// checkHeader fails t unless got is the JSON of x, whose verdict is v,
// that MarshalHeader(x, limit) must write: encoding/json's, byte for
// byte, listing the first k of v's violations and counting the rest in
// Omitted; within limit (and MaxVerdictBytes) unless k is 0; and k the
// most that fit there.
//
// That no more fit, it checks for two counts only: the JSON grows with
// each violation listed (by 5 bytes at least, as Omitted shrinks by a
// digit at most), but where Omitted would be 0, and its member left out.
// So listing k+1 violations, and listing as many as make Omitted 0, are
// the shortest of those that list more than k.
func checkHeader(t testing.TB, x msg.VerdictHolder, v *msg.Verdict, limit int, got []byte) {
	t.Helper()
	limit = min(limit, msg.MaxVerdictBytes)
	var listed struct {
		Violations []json.RawMessage `json:"violations"`
	}
	require.NoError(t, json.Unmarshal(got, &listed), "%s", got)
	k := len(listed.Violations)
	require.LessOrEqual(t, k, len(v.Violations))
	same(t, listing(t, x, v, k), got, "MarshalHeader")
	if k > 0 && len(got) > limit {
		t.Fatalf("MarshalHeader listed %d violations in %d bytes, over its limit of %d", k, len(got), limit)
	}
	for _, more := range []int{k + 1, len(v.Violations) + v.Omitted} {
		if more <= k || more > len(v.Violations) {
			continue
		}
		if b := listing(t, x, v, more); len(b) <= limit {
			t.Fatalf("MarshalHeader listed %d violations in %d bytes, but %d fit in %d, within %d", k, len(got), more, len(b), limit)
		}
	}
}

// listing returns the JSON of x, whose verdict is v, written by
// encoding/json listing the first n of v's violations, the others counted
// in Omitted; it leaves x as it was.
func listing(t testing.TB, x msg.VerdictHolder, v *msg.Verdict, n int) []byte {
	list, omitted := v.Violations, v.Omitted
	defer func() { v.Violations, v.Omitted = list, omitted }()
	v.Omitted += len(v.Violations) - n
	v.Violations = v.Violations[:n]
	return encodingJSON(t, x)
}

// A cut lists the most violations that fit, the fewest left out: down to
// the byte, and where listing fewer would be longer, as when the count of
// those left out makes its member appear, or makes a negative Omitted 0.
func TestMarshalHeaderListsTheMostThatFit(t *testing.T) {
	one := &msg.Violation{Path: "/a", Rule: msg.RuleType, Message: "want a string"}
	for _, v := range []msg.Verdict{
		{Schema: "core.device", Violations: []*msg.Violation{one, one, one, one, one, one, one, one, one, one, one}},
		{Schema: "core.device", Violations: []*msg.Violation{one, one, one}, Omitted: 98},
		{Schema: "core.device", Violations: []*msg.Violation{one, nil, nil, one}, Omitted: -2},
		{Schema: "core.device", Violations: []*msg.Violation{nil, nil, nil}},
		{Schema: "core.device", Violations: []*msg.Violation{nil, nil, one}, Omitted: -1},
	} {
		for k := range len(v.Violations) + 1 {
			size := len(listing(t, &v, &v, k))
			for _, limit := range []int{size - 1, size, size + 1} {
				most := -1 // listing none is the JSON MarshalHeader writes when none fit
				for n := range len(v.Violations) + 1 {
					if len(listing(t, &v, &v, n)) <= limit {
						most = n
					}
				}
				got, err := msg.MarshalHeader(&v, limit)
				require.NoError(t, err)
				same(t, listing(t, &v, &v, max(most, 0)), got, fmt.Sprintf("MarshalHeader(%s, %d)", v.AppendJSON(nil), limit))
			}
		}
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("core.device", "1.0", false, "/imei", "imei", "not an IMEI", `"1"`, 3, uint8(2), 32<<10)
	f.Add("", "", true, "", "", "", "", 0, uint8(0), 0)
	f.Add("<&>", "\u2028", false, "\x00\x1f\x7f", "\xff", "\"\\\b\f\n\r\t", "\xe2\x80", -1, uint8(255), 3000)
	f.Fuzz(func(t *testing.T, schema, version string, valid bool, path, rule, message, value string, omitted int, n uint8, limit int) {
		v := msg.Verdict{Schema: schema, Version: version, Valid: valid, Omitted: omitted}
		if n&1 == 1 {
			v.Violations = []*msg.Violation{}
		}
		for i := range int(n >> 1) {
			x := &msg.Violation{Path: path, Rule: msg.Rule(rule), Message: message, Value: value}
			switch i % 4 {
			case 1:
				x = nil
			case 2:
				x = &msg.Violation{Path: message, Rule: msg.Rule(value), Message: path, Value: rule}
			}
			v.Violations = append(v.Violations, x)
		}
		same(t, encodingJSON(t, v), v.AppendJSON(nil), "AppendJSON")
		got, err := msg.MarshalHeader(&v, limit)
		require.NoError(t, err)
		checkHeader(t, &v, &v, limit, got)
	})
}

// BenchmarkMarshalHeader compares MarshalHeader of a Verdict written by
// hand with the same written by encoding/json (a holder msg does not know
// of), on a verdict of three violations.
func BenchmarkMarshalHeader(b *testing.B) {
	v := msg.Verdict{Schema: "core.device", Version: "1.0"}
	for i := range 3 {
		v.Violations = append(v.Violations, &msg.Violation{Path: fmt.Sprintf("/x%d", i), Rule: msg.RuleType, Message: "want a string, got a number", Value: "1"})
	}
	for _, c := range []struct {
		name string
		x    msg.VerdictHolder
	}{
		{"encoding-json", &located{Verdict: v}},
		{"by-hand", &fastLocated{located{Verdict: v}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := msg.MarshalHeader(c.x, msg.MaxVerdictBytes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
