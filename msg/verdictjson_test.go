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
// for the verdict alone and for a struct that embeds it, whole and cut
// by MarshalHeader as it cut them with encoding/json.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cut := 0
	for i := range 600 {
		v := randomVerdict(r, 3+i%5*40)
		same(t, encodingJSON(t, v), v.AppendJSON(nil), "AppendJSON")
		for _, x := range v.Violations {
			same(t, encodingJSON(t, x), x.AppendJSON(nil), "Violation.AppendJSON")
		}
		want := marshalHeaderByReflection(t, &v)
		if len(want) < len(encodingJSON(t, v)) {
			cut++
		}
		got, err := msg.MarshalHeader(&v)
		require.NoError(t, err)
		same(t, want, got, "MarshalHeader of a *Verdict")

		l := located{Subject: hostileString(r, 5), Verdict: v, Deliveries: r.IntN(3)}
		want = marshalHeaderByReflection(t, &l)
		got, err = msg.MarshalHeader(&l)
		require.NoError(t, err)
		same(t, want, got, "MarshalHeader of a holder msg does not know of")
		got, err = msg.MarshalHeader(&fastLocated{l})
		require.NoError(t, err)
		same(t, want, got, "MarshalHeader of a HeaderAppender")
	}
	assert.Greater(t, cut, 20, "the test must cut some verdicts")
}

// marshalHeaderByReflection is MarshalHeader as it was written before it
// wrote JSON by hand: encoding/json, again for each round of cuts.
func marshalHeaderByReflection(t testing.TB, x msg.VerdictHolder) []byte {
	var v *msg.Verdict
	switch x := x.(type) {
	case *msg.Verdict:
		v = x
	case *located:
		v = &x.Verdict
	}
	list, omitted := v.Violations, v.Omitted
	defer func() { v.Violations, v.Omitted = list, omitted }()
	for {
		b := encodingJSON(t, x)
		if len(b) <= msg.MaxVerdictBytes || len(v.Violations) == 0 {
			return b
		}
		over := len(b) - msg.MaxVerdictBytes + len(`,"omitted":`) + 20
		n := len(v.Violations)
		for n > 0 && over > 0 {
			n--
			over -= len(encodingJSON(t, v.Violations[n])) + 1
		}
		v.Omitted += len(v.Violations) - n
		v.Violations = v.Violations[:n]
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("core.device", "1.0", false, "/imei", "imei", "not an IMEI", `"1"`, 3, uint8(2))
	f.Add("", "", true, "", "", "", "", 0, uint8(0))
	f.Add("<&>", "\u2028", false, "\x00\x1f\x7f", "\xff", "\"\\\b\f\n\r\t", "\xe2\x80", -1, uint8(255))
	f.Fuzz(func(t *testing.T, schema, version string, valid bool, path, rule, message, value string, omitted int, n uint8) {
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
		got, err := msg.MarshalHeader(&v)
		require.NoError(t, err)
		same(t, marshalHeaderByReflection(t, &v), got, "MarshalHeader")
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
				if _, err := msg.MarshalHeader(c.x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
