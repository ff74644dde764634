package catalogue_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/internal/casetable"
	"github.com/fleetkit/catalogue/internal/jsonobject"
	"github.com/fleetkit/catalogue/internal/oracle"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// loadCases reads the case table of a schema.
func loadCases(t testing.TB, name string) []casetable.Case {
	t.Helper()
	return casetable.Read(t, filepath.Join("schemas", "testdata", "cases"), name)
}

// names returns the catalogue's schema names.
func names() []string { return catalogue.Types() }

// decode is the library's verdict on data as a message of schema name,
// checked for consistency on the way: a message is returned either way,
// an error is always an *msg.Error whose violations all have a rule and a
// message, and a message that decodes cleanly also validates.
func decode(t testing.TB, name string, data []byte) (catalogue.Message, error) {
	t.Helper()
	// The message must keep none of its input, which its caller may
	// reuse: decoded from a copy that is then overwritten, it must still
	// validate, encode and compare as it decoded.
	own := bytes.Clone(data)
	m, err := catalogue.DecodeAs(name, "", own)
	for i := range own {
		own[i] = 'X'
	}
	require.NotNil(t, m)
	// json.Unmarshal, which scans the input itself before handing it to
	// UnmarshalJSON, must give the same verdict.
	viaStdlib, _ := catalogue.New(name, "")
	stdErr := json.Unmarshal(data, viaStdlib)
	require.Equal(t, err == nil, stdErr == nil, "json.Unmarshal disagrees: %v / %v\n%s", err, stdErr, data)
	if err != nil {
		var e *msg.Error
		require.ErrorAs(t, err, &e, "%s", data)
		require.NotEmpty(t, e.Violations)
		for _, v := range e.Violations {
			require.NotEmpty(t, v.Rule, "%s", data)
			require.NotEmpty(t, v.Message, "%s", data)
			require.True(t, v.Path == "" || strings.HasPrefix(v.Path, "/"), "path %q", v.Path)
		}
		return m, err
	}
	require.NoError(t, m.Validate(), "decoded cleanly but does not validate: %s", data)
	return m, nil
}

// agree checks that the library and the oracle give data the same verdict,
// and, when both accept it, that encoding gives a message the oracle
// accepts and that decodes back to an equal value.
func agree(t testing.TB, name string, data []byte) {
	t.Helper()
	want, why := oracle.Verdict(name, data)
	m, err := decode(t, name, data)
	if want != (err == nil) {
		t.Fatalf("%s: oracle says valid=%v %v, library says %v\nmessage: %s", name, want, why, err, data)
	}
	if err != nil {
		return
	}
	roundTrip(t, name, m)
}

// roundTrip checks that a valid message encodes to one the oracle accepts
// and decodes back to an equal value.
func roundTrip(t testing.TB, name string, m catalogue.Message) {
	t.Helper()
	out, err := json.Marshal(m)
	require.NoError(t, err)
	ok, why := oracle.Verdict(name, out)
	require.True(t, ok, "encoding of a valid message is rejected: %v\n%s", why, out)
	back, err := catalogue.DecodeAs(name, "", out)
	require.NoError(t, err, "%s", out)
	require.Equal(t, m, back, "decode(encode(v)) differs from v:\n%s", out)
}

func TestCaseTableAgreesWithOracle(t *testing.T) {
	for _, name := range names() {
		t.Run(name, func(t *testing.T) {
			for _, c := range loadCases(t, name) {
				_, err := decode(t, name, c.Message)
				assert.Equal(t, c.Valid, err == nil, "%s: %s: %v", c.Note, c.Message, err)
				agree(t, name, c.Message)
			}
		})
	}
}

func TestMutationsAgreeWithOracle(t *testing.T) {
	for _, name := range names() {
		t.Run(name, func(t *testing.T) {
			n := 0
			for _, seed := range richestSeeds(t, name, 6) {
				for _, m := range mutations(seed) {
					agree(t, name, m)
					n++
				}
			}
			t.Logf("%d mutations", n)
			require.Greater(t, n, 1000, "the mutation corpus has shrunk")
		})
	}
}

// validSeeds returns the valid messages of a schema's case table.
func validSeeds(t testing.TB, name string) [][]byte {
	var seeds [][]byte
	for _, c := range loadCases(t, name) {
		if c.Valid {
			seeds = append(seeds, c.Message)
		}
	}
	require.NotEmpty(t, seeds)
	return seeds
}

// richestSeeds returns the n valid messages of a schema's case table with
// the most members, so that mutating them reaches every member while the
// corpus stays small enough for every test run.
func richestSeeds(t testing.TB, name string, n int) [][]byte {
	seeds := validSeeds(t, name)
	count := func(b []byte) int { list, _ := members(b); return len(list) }
	slices.SortStableFunc(seeds, func(a, b []byte) int { return count(b) - count(a) })
	return seeds[:min(n, len(seeds))]
}

// A member is one member of an object, its value as JSON text.
type member = jsonobject.Member

// members returns the members of the object data, in order, or false if
// data is not an object.
func members(data []byte) ([]member, bool) {
	list, err := jsonobject.Members(data)
	return list, err == nil
}

// writeObject writes members as an object, keys as given (raw, unquoted).
func writeObject(list []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// withMember returns the object seed with member key set to raw: in its
// place if seed has it, last otherwise.
func withMember(seed []byte, key, raw string) []byte {
	list, _ := members(seed)
	for i, m := range list {
		if m.Name == key {
			list[i].Value = json.RawMessage(raw)
			return writeObject(list)
		}
	}
	return writeObject(append(list, member{Name: key, Value: json.RawMessage(raw)}))
}

// values are the replacement values every member is tried with: each JSON
// type, the format edge classes, integers at and past the catalogue's
// bounds, integer-valued and fractional numbers, enum near-misses.
var values = []string{
	`null`, `true`, `false`, `0`, `-1`, `1`, `9`, `10`, `-0`, `1.0`, `1e2`, `1E+2`, `1.5`, `9.5`, `0.5e1`, `1e-1`, `-1.0`,
	`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`, `1e19`, `1e400`,
	`""`, `"x"`, `" "`, `{}`, `[]`, `["a"]`, `[1]`, `[null]`, `{"a":null}`, `{"id":"x"}`,
	`"6f1c2a9e-3b4d-4c5e-8f70-1a2b3c4d5e6f"`, `"6F1C2A9E-3B4D-4C5E-8F70-1A2B3C4D5E6F"`,
	`"{6f1c2a9e-3b4d-4c5e-8f70-1a2b3c4d5e6f}"`, `"urn:uuid:6f1c2a9e-3b4d-4c5e-8f70-1a2b3c4d5e6f"`,
	`"6f1c2a9e3b4d4c5e8f701a2b3c4d5e6f"`, `"6f1c2a9e-3b4d-4c5e-8f70-1a2b3c4d5e6"`, `"6f1c2a9e-3b4d-4c5e-8f70-1a2b3c4d5e6g"`,
	`" 6f1c2a9e-3b4d-4c5e-8f70-1a2b3c4d5e6f"`, `"6f1c2a9e-3b4d-4c5e-8f70-1a2b3c4d5e6f "`,
	`"2024-02-29T12:00:00Z"`, `"2023-02-29T12:00:00Z"`, `"2024-01-01t00:00:00z"`, `"1998-12-31T23:59:60Z"`,
	`"1998-12-31T15:59:60.123-08:00"`, `"1998-12-31T23:58:60Z"`, `"2024-01-01T00:00:00+24:00"`, `"2024-01-01T00:00:00+23:59"`,
	`"2024-01-01T00:00:00"`, `"2024-01-01T00:00:00,5Z"`, `"2024-01-01T00:00:00.123456789123Z"`, `"2024-13-01T00:00:00Z"`,
	`"2024-01-32T00:00:00Z"`, `"2019"`, `"2024-01-01"`, `"2024-01-01 00:00:00Z"`, `"2024-01-01T24:00:00Z"`,
	`"2024-01-01T00:00:00-00:00"`, `"+2024-01-01T00:00:00Z"`, `"2024-01-01T+1:00:00Z"`,
	`"created"`, `"updated"`, `"deleted"`, `"Created"`, `"CREATED"`, `" created"`,
	`"approved"`, `"suspended"`, `"revoked"`, `"Approved"`, `"REVOKED"`, `"approved "`,
	`"490154203237518"`, `"490154203237519"`, `"49015420323751"`, `"4901542032375180"`, `"49015420323751a"`,
	`"core.device"`, `"CORE"`, `"\u0000"`, `"\ud83d\ude00"`, `"é"`,
}

// mutations returns variants of a valid message: each member absent, and
// given each of values; case twins and repeats of each member name;
// mutations of the nested actor's members; and documents that are not
// objects.
func mutations(seed []byte) [][]byte {
	list, ok := members(seed)
	if !ok {
		return nil
	}
	var out [][]byte
	add := func(m []member) { out = append(out, writeObject(m)) }
	for i, m := range list {
		add(append(clone(list[:i]), list[i+1:]...))
		for _, v := range values {
			c := clone(list)
			c[i].Value = json.RawMessage(v)
			add(c)
		}
		upper := clone(list)
		upper = append(upper, member{Name: strings.ToUpper(m.Name), Value: json.RawMessage(`null`)})
		add(upper)
		title := clone(list)
		title = append(title, member{Name: strings.ToUpper(m.Name[:1]) + m.Name[1:], Value: list[i].Value})
		add(title)
		add(append(clone(list), m))
		if inner, ok := members(m.Value); ok {
			for j := range inner {
				add(with(list, i, writeObject(append(clone(inner[:j]), inner[j+1:]...))))
				for _, v := range values {
					c := clone(inner)
					c[j].Value = json.RawMessage(v)
					add(with(list, i, writeObject(c)))
				}
				add(with(list, i, writeObject(append(clone(inner), inner[j]))))
			}
		}
		var items []json.RawMessage
		if json.Unmarshal(m.Value, &items) == nil && len(items) > 0 {
			for _, v := range []string{`1`, `null`, `""`, `"x"`, `{}`} {
				c := append(append([]json.RawMessage(nil), items...), json.RawMessage(v))
				b, _ := json.Marshal(c)
				add(with(list, i, b))
			}
		}
	}
	add(append(clone(list), member{Name: "unknown", Value: json.RawMessage(`{"nested":[1,{"deep":null}]}`)}))
	// The decoders guess that each member is the one after the last in
	// the schema's order: the members reversed, and reversed with the
	// first repeated, defeat the guess every time.
	reversed := clone(list)
	slices.Reverse(reversed)
	add(reversed)
	add(append(clone(reversed), reversed[0]))
	for _, doc := range []string{`null`, `[]`, `[{}]`, `"x"`, `1`, `true`, `{}`, ``, `{`, string(seed[:len(seed)/2])} {
		out = append(out, []byte(doc))
	}
	out = append(out, append(append([]byte(" \n\t"), seed...), " \r\n"...), append(seed, " x"...), append(seed, seed...))
	return out
}

func clone(list []member) []member { return append([]member(nil), list...) }

func with(list []member, i int, value []byte) []member {
	c := clone(list)
	c[i].Value = value
	return c
}

// TestRawRules pins the rules the oracle's JSON parser cannot see, being
// lenient itself: invalid UTF-8, escaped lone surrogates and repeated
// member names are rejected, with the byte offset or path named.
func TestRawRules(t *testing.T) {
	seed := validSeeds(t, "example.event")[0]
	list, _ := members(seed)
	for _, tc := range []struct {
		name string
		data []byte
		want string // in the error
	}{
		{"invalid UTF-8 in a value", withMember(seed, "x", "\"a\xffb\""), "invalid UTF-8 at byte offset"},
		{"invalid UTF-8 in a name", []byte(strings.Replace(string(seed), `"id"`, "\"i\xc3d\"", 1)), "invalid UTF-8"},
		{"overlong encoding", withMember(seed, "x", "\"\xc0\xaf\""), "invalid UTF-8"},
		{"encoded surrogate", withMember(seed, "x", "\"\xed\xa0\x80\""), "invalid UTF-8"},
		{"lone high surrogate", withMember(seed, "x", `"\ud800"`), "lone surrogate"},
		{"lone low surrogate", withMember(seed, "x", `"\udc00x"`), "lone surrogate"},
		{"reversed pair", withMember(seed, "x", `"\udc00\ud800"`), "lone surrogate"},
		{"duplicate declared member", writeObject(append(clone(list), list[0])), "/" + list[0].Name + ": member appears more than once"},
		{"duplicate extra member", writeObject(append(clone(list), member{Name: "x", Value: json.RawMessage(`1`)}, member{Name: "x", Value: json.RawMessage(`2`)})), "/x: member appears more than once"},
		{"duplicate by escape", []byte(strings.Replace(string(writeObject(append(clone(list), member{Name: "x", Value: json.RawMessage(`1`)}, member{Name: "Y", Value: json.RawMessage(`2`)}))), `"Y"`, `"\u0078"`, 1)), "/x: member appears more than once"},
		{"duplicate nested in an extra member", withMember(seed, "x", `[{"a":1,"b":2,"a":3}]`), `member appears more than once`},
		{"control character", withMember(seed, "x", "\"a\tb\""), "control character"},
		{"trailing comma", []byte(strings.TrimSuffix(string(seed), "}") + ",}"), "trailing comma"},
		{"leading zero", withMember(seed, "x", `01`), "want ',' or '}'"},
		{"nesting too deep", withMember(seed, "x", strings.Repeat("[", 10001)+strings.Repeat("]", 10001)), "nesting deeper than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decode(t, "example.event", tc.data)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			ok, _ := oracle.Verdict("example.event", tc.data)
			assert.False(t, ok, "the oracle should reject it too")
		})
	}
}

// TestMarshalRoundTripsRawValues pins that values held as JSON text
// (unknown members, meta, specification, actor's unknown members) come
// back equal through json.Marshal, which compacts a MarshalJSON method's
// output and escapes '<', '>', '&', U+2028 and U+2029 in it.
func TestMarshalRoundTripsRawValues(t *testing.T) {
	const raw = `{"a b" : [1, 2.50 , null], "html": "<b>&amp;</b>", "sep": "\u2028` + "\u2029" + `"}`
	for _, name := range names() {
		t.Run(name, func(t *testing.T) {
			list, _ := members(richestSeeds(t, name, 1)[0])
			list = append(list, member{Name: "x", Value: json.RawMessage(raw)})
			for i, m := range list {
				switch m.Name {
				case "meta", "specification":
					list[i].Value = json.RawMessage(raw)
				case "actor":
					list[i].Value = json.RawMessage(`{"name": "n", "y": ` + raw + `}`)
				}
			}
			data := writeObject(list)
			m, err := decode(t, name, data)
			require.NoError(t, err, "%s", data)
			roundTrip(t, name, m)
		})
	}
}

func FuzzDecode(f *testing.F) {
	for _, name := range names() {
		for _, c := range loadCases(f, name) {
			f.Add(name, []byte(c.Message))
		}
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		if _, err := schemas.Lookup(name, "1.0"); err != nil {
			return
		}
		if oracle.HugeExponent(data) {
			return // the oracle's math/big would take minutes
		}
		agree(t, name, data)
	})
}

func ExampleDecode() {
	m, err := catalogue.Decode([]byte(`{
		"message_id": "0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f",
		"message_type": "core.association",
		"source_id": "7c2e9a41",
		"tenant_id": "acme",
		"time": "2026-11-23T08:00:00Z",
		"association_id": "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a",
		"device_id": "9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4"
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.SchemaName(), m.SchemaVersion())
	// Output: core.association 1.0
}
