package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/msg"
)

// decodeExtras decodes data, an object, in mode m, as generated code
// decodes an object with no declared member: each member is an extra one,
// but for "free", a free object, and "any", any value, so that every
// reader that takes a value whole is used. It returns the violations, and
// how many were found in all.
func decodeExtras(t *testing.T, data string, m Mode) ([]*msg.Violation, int) {
	t.Helper()
	var d Decoder
	d.ResetMode([]byte(data), m)
	var extra map[string]json.RawMessage
	if d.Object("", "") {
		for i := 0; d.More("", "", '}', i); i++ {
			switch key := d.Key("", ""); string(key) {
			case "free":
				d.FreeObject("", "/free")
			case "any":
				d.AnyValue("", "/any")
			case "list":
				d.RawArray("", "/list")
			default:
				d.Extra(&extra, "", key)
			}
		}
		d.End()
	}
	n := d.Len()
	var e *msg.Error
	if err := d.Err(); err != nil {
		require.ErrorAs(t, err, &e)
		return e.Violations, n
	}
	return nil, n
}

// A repeated member name inside a value read whole is a violation at the
// repeated member, and decoding goes on past it, as it does past a
// repeat among the members the decoder reads itself: every violation of
// the message is reported at once, the same in every mode. Each object
// gives its first repeat.
func TestRepeatsInValuesReadWholeDoNotStopDecoding(t *testing.T) {
	many := func(n int, repeat string) string {
		var b strings.Builder
		b.WriteString(`{`)
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		b.WriteString(`"` + repeat + `":0}`)
		return b.String()
	}
	for _, tc := range []struct {
		name, in string
		want     []string // path: rule, in order
	}{
		{"every value", `{"a":{"x":1,"x":2},"free":{"y":[],"y":{}},"any":[{"z":1,"z":2}],"b":1,"b":2}`,
			[]string{"/a/x: duplicate", "/free/y: duplicate", "/any/0/z: duplicate", "/b: duplicate"}},
		{"each object its first", `{"a":{"x":1,"x":2,"x":3,"w":{"v":0,"v":0}},"b":[{"u":1,"u":1},{"u":1,"u":1}]}`,
			[]string{"/a/x: duplicate", "/a/w/v: duplicate", "/b/0/u: duplicate", "/b/1/u: duplicate"}},
		{"escaped names", `{"a~/":{"x\u002fy":1,"x/y":2}}`, []string{"/a~0~1/x~1y: duplicate"}},
		{"items of a list", `{"list":[1,{"x":1,"x":2},{"y":[{"q":1,"q":1}]}],"list2":1}`,
			[]string{"/list/1/x: duplicate", "/list/2/y/0/q: duplicate"}},
		{"in a table of names", `{"a":` + many(100, "k50") + `,"b":1,"b":2}`, []string{"/a/k50: duplicate", "/b: duplicate"}},
		{"gathered names", `{"a":` + many(5000, "k4999") + `,"free":` + many(5000, "k0") + `}`,
			[]string{"/a/k4999: duplicate", "/free/k0: duplicate"}},
		{"a syntax error after", `{"a":{"x":1,"x":2},"b":{"y":1,"y":2,}`,
			[]string{"/a/x: duplicate", "/b/y: duplicate", "/b: syntax"}},
		{"a syntax error before the repeat's object ends", `{"a":{"x":1,"x":2,"y":tru}}`,
			[]string{"/a/x: duplicate", "/a: syntax"}},
		// Found by FuzzDecode (package ce): a member whose value holds a
		// repeat was not kept in modes Copy and Borrow, so that a repeat
		// of its own name went unreported, where mode Judge reported it.
		{"a repeat of a member whose value holds one", `{"a":{"x":1,"x":2},"a":0}`,
			[]string{"/a/x: duplicate", "/a: duplicate"}},
		{"the same, before a syntax error", `{"a":{"x":1,"x":2},"a":000}`,
			[]string{"/a/x: duplicate", "/a: duplicate", ": syntax"}},
	} {
		for _, m := range []Mode{Copy, Borrow, Judge} {
			got, n := decodeExtras(t, tc.in, m)
			var short []string
			for _, v := range got {
				short = append(short, v.Path+": "+string(v.Rule))
			}
			assert.Equal(t, tc.want, short, "%s, mode %d", tc.name, m)
			assert.Equal(t, len(tc.want), n, "%s, mode %d", tc.name, m)
			for _, v := range got {
				if v.Rule == msg.RuleDuplicate && strings.Count(v.Path, "/") > 1 {
					assert.Regexp(t, `^member appears more than once \(byte offset \d+\)$`, v.Message, "%s: %s", tc.name, v.Path)
				}
			}
		}
	}
}

// The byte offset a repeat names is that of the repeated name in the
// input, and its path gives the name as it reads, unescaped.
func TestRepeatNamesItsOffsetAndName(t *testing.T) {
	in := `{"a":  {"x\u0079":1, "xy":2}}`
	got, _ := decodeExtras(t, in, Copy)
	require.Len(t, got, 1)
	at := strings.Index(in, `"xy"`)
	assert.Equal(t, "/a/xy", got[0].Path)
	assert.Equal(t, fmt.Sprintf("member appears more than once (byte offset %d)", at), got[0].Message)
}

// Past msg.MaxViolations, repeats are counted, not listed, and their
// paths are not looked for: a message of a million repeats costs a scan.
func TestRepeatsPastTheCapAreCounted(t *testing.T) {
	const n = 3 * msg.MaxViolations
	var b strings.Builder
	b.WriteString(`{"a":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"x":1,"x":2}`)
	}
	b.WriteString(`],"b":{"y":1,"y":1}}`)
	for _, m := range []Mode{Copy, Judge} {
		got, count := decodeExtras(t, b.String(), m)
		require.Len(t, got, msg.MaxViolations)
		assert.Equal(t, n+1, count, "every repeat is counted")
		assert.Equal(t, fmt.Sprintf("/a/%d/x", msg.MaxViolations-1), got[msg.MaxViolations-1].Path)
	}
}
