package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/msg"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		in     string
		reason string // "" for valid
	}{
		{`null`, ""},
		{` {"a":[1,-0,1.5e-3,"x",true,false,null,{}]} `, ""},
		{`"\u00e9\ud83d\ude00\n\/"`, ""},
		{`1e400`, ""},
		{``, "unexpected end of input"},
		{`{"a":1,}`, "trailing comma"},
		{`[1,]`, "trailing comma"},
		{`[1 2]`, "want ',' or ']'"},
		{`{"a" 1}`, "want ':'"},
		{`{a:1}`, "want a member name"},
		{`01`, "unexpected character '1' after the document"},
		{`-`, "want a digit in number"},
		{`1.`, "want a digit after decimal point"},
		{`1e`, "want a digit in exponent"},
		{`.5`, "want a value"},
		{`+1`, "want a value"},
		{`NaN`, "want a value"},
		{`tru`, "invalid literal"},
		{`nul`, "invalid literal"},
		{`"abc`, "unterminated string"},
		{"\"a\x01\"", "control character"},
		{"\"\xff\"", "invalid UTF-8"},
		{"\"\xe2\x82\"", "invalid UTF-8"},
		{`"\x"`, "invalid escape"},
		{`"\u12"`, "invalid \\u escape"},
		{`"\ud800"`, "escaped lone surrogate"},
		{`"\udfff"`, "escaped lone surrogate"},
		{`"\ud800\u0041"`, "escaped lone surrogate"},
		{`{"a":1,"a":2}`, `duplicate member name "a"`},
		{`{"a":1,"\u0061":2}`, `duplicate member name "a"`},
		{`{"\u0061":1,"a":2}`, `duplicate member name "a"`},
		{`{"\u0061":1,"b":2,"\u0062":3}`, `duplicate member name "b"`},
		{`{"abcdefghX":1,"abcdefghY":2,"abcdefgh":3,"abcdefg":4}`, ""},
		{`{"abcdefghX":1,"abcdefghY":2,"abcdefghX":3}`, `duplicate member name "abcdefghX"`},
		{`{"ab":1,"ac":2,"ab":3}`, `duplicate member name "ab"`},
		{`{"ab":{"ab":{"ab":1}},"ac":2}`, ""},
		{`[{"a":{"b":1,"b":1}}]`, `duplicate member name "b"`},
		{"\ufeff{}", "want a value"},
		{`{} {}`, "after the document"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, reason := Check([]byte(tc.in))
			if tc.reason == "" {
				assert.Empty(t, reason)
				return
			}
			assert.Contains(t, reason, tc.reason)
		})
	}
}

// TestManyMembers pins that repeated names are found in objects past the
// size where the set of names moves from a list to a map, and that the
// cost stays linear: 100,000 distinct names are checked quickly.
func TestManyMembers(t *testing.T) {
	for _, n := range []int{15, 16, 17, 100, 100000} {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		valid := strings.TrimSuffix(b.String(), ",") + "}"
		_, reason := Check([]byte(valid))
		require.Empty(t, reason, "n=%d", n)
		for _, dup := range []int{0, n / 2, n - 1} {
			_, reason = Check([]byte(b.String() + fmt.Sprintf(`"k%d":0}`, dup)))
			require.Contains(t, reason, "duplicate", "n=%d dup=%d", n, dup)
		}
	}
}

// TestPathsOfViolations pins the JSON Pointers violations carry: member
// names are escaped (RFC 6901) and array items are indexed.
func TestPathsOfViolations(t *testing.T) {
	var d Decoder
	d.Reset([]byte(`{"a/b~c": {"x": 1, "x": 2}, "tags": ["a", 1]}`))
	require.True(t, d.Object("", ""))
	var extra map[string]json.RawMessage
	for i := 0; d.More("", "", '}', i); i++ {
		key := d.Key("", "")
		if string(key) == "tags" {
			require.True(t, d.Array("", "/tags"))
			for j := 0; d.More("", "/tags", ']', j); j++ {
				d.StringItem("", "/tags", j)
			}
			continue
		}
		d.Extra(&extra, "", key)
	}
	d.End()
	var e *msg.Error
	require.ErrorAs(t, d.Err(), &e)
	require.Len(t, e.Violations, 2, "a repeated name deep in a raw value does not stop decoding")
	assert.Equal(t, "/a~1b~0c/x", e.Violations[0].Path, "a repeat is reported at the repeated member")
	assert.Equal(t, msg.RuleDuplicate, e.Violations[0].Rule, "a repeated name is a duplicate at any depth")
	assert.Contains(t, e.Violations[0].Message, "member appears more than once")
	assert.Equal(t, "/tags/1", e.Violations[1].Path)

	d.Reset([]byte(`{"a": [[1], {"b": 2}]}`))
	d.Raw("", "")
	d.End()
	require.NoError(t, d.Err())
	d.Reset([]byte(`{"a": ` + strings.Repeat("[", jsontext.MaxDepth) + strings.Repeat("]", jsontext.MaxDepth) + `}`))
	d.Raw("", "/x")
	d.End()
	require.ErrorAs(t, d.Err(), &e)
	require.Len(t, e.Violations, 1)
	assert.Equal(t, "/x", e.Violations[0].Path)
	assert.Equal(t, msg.RuleDepth, e.Violations[0].Rule, "nesting past the limit is its own rule")

	d.Reset([]byte(`["a", 1, "b", null]`))
	require.True(t, d.Array("", "/tags"))
	for j := 0; d.More("", "/tags", ']', j); j++ {
		d.StringItem("", "/tags", j)
	}
	d.End()
	require.ErrorAs(t, d.Err(), &e)
	require.Len(t, e.Violations, 2)
	assert.Equal(t, "/tags/1", e.Violations[0].Path)
	assert.Equal(t, "1", e.Violations[0].Value)
	assert.Equal(t, "/tags/3", e.Violations[1].Path)
	assert.Equal(t, "want a string, got null", e.Violations[1].Message)
}

// TestKeptStringsSurviveReuse pins that the strings a decoded message
// keeps are not overwritten when the decoder is reset for the next one.
func TestKeptStringsSurviveReuse(t *testing.T) {
	var d Decoder
	d.Reset([]byte(`"first \u00e9"`))
	first, ok := d.String("", "")
	require.True(t, ok)
	d.Reset([]byte(`[1,2]`))
	raw := d.Raw("", "")
	d.Reset([]byte(`[1, "<2>"]`))
	canonical := d.Raw("", "")
	d.Reset([]byte(`"second value, longer"`))
	second, _ := d.String("", "")
	assert.Equal(t, "first é", first)
	assert.Equal(t, "second value, longer", second)
	assert.Equal(t, `[1,2]`, string(raw))
	assert.Equal(t, `[1,"\u003c2\u003e"]`, string(canonical), "raw values are kept canonical")
	assert.Equal(t, len(raw), cap(raw), "a kept raw value must not share spare capacity")
	assert.Equal(t, len(canonical), cap(canonical), "a kept raw value must not share spare capacity")
}

func TestEncoderRefusesWhatItCannotEncode(t *testing.T) {
	declared := func(s string) bool { return s == "id" }
	for name, write := range map[string]func(*Encoder){
		"invalid UTF-8":  func(e *Encoder) { e.String("a\xffb") },
		"empty raw":      func(e *Encoder) { e.Raw(nil) },
		"malformed raw":  func(e *Encoder) { e.Raw(json.RawMessage(`{"a":}`)) },
		"duplicate raw":  func(e *Encoder) { e.Raw(json.RawMessage(`{"a":1,"a":1}`)) },
		"declared extra": func(e *Encoder) { e.Extra(map[string]json.RawMessage{"id": json.RawMessage(`1`)}, declared) },
		"year past 9999": func(e *Encoder) { e.Time(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)) },
		"offset seconds": func(e *Encoder) { e.Time(time.Date(2000, 1, 1, 0, 0, 0, 0, time.FixedZone("", 61))) },
		"invalid UTF-8 extra name": func(e *Encoder) {
			e.Extra(map[string]json.RawMessage{"\xff": json.RawMessage(`1`)}, declared)
		},
	} {
		t.Run(name, func(t *testing.T) {
			var e Encoder
			outer := e.Begin()
			write(&e)
			e.End(outer)
			_, err := e.Bytes()
			assert.Error(t, err)
		})
	}
}

// TestStringIsWhatEncodingJSONWrites pins that a message's strings, and the
// Values of violations, are written as encoding/json writes them (with
// SetEscapeHTML(false)), as every JSON of the library is: the short
// escapes, U+2028 and U+2029 escaped, '<', '>' and '&' as they are.
func TestStringIsWhatEncodingJSONWrites(t *testing.T) {
	for _, in := range []string{"", "plain", "q\"b\\", "\b\f\n\r\t\x01\x1f\x7f", "é😀</>&\u2028\u2029", "a long plain run, then\ta tab"} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(in))
		var e Encoder
		e.String(in)
		got, err := e.Bytes()
		require.NoError(t, err)
		assert.Equal(t, strings.TrimSuffix(want.String(), "\n"), string(got), "%q", in)
		assert.Equal(t, string(got), Quote(in), "%q", in)
	}
}

// TestStringRefusesInvalidUTF8 pins that the encoder fails on a string
// that is not UTF-8, rather than alter it, and that a violation's Value
// shows it as JSON text, each bad byte as \ufffd.
func TestStringRefusesInvalidUTF8(t *testing.T) {
	var e Encoder
	e.String("a\xffb\n")
	_, err := e.Bytes()
	assert.ErrorContains(t, err, "invalid UTF-8")
	assert.Equal(t, `"a\ufffdb\n"`, Quote("a\xffb\n"))
}

// FuzzString holds the encoder's strings to encoding/json's: the same
// text for a string that is UTF-8, a failed encoding for one that is not,
// whatever it holds (the text \ufffd itself among it); and a violation's
// Value to what encoding/json writes, bad bytes included.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\xffb", `\ufffd`, "\\ufffd\xff", "é\u2028\b\x00\"<&>", "\xed\xa0\x80", "\xef\xbf\xbd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(s))
		wantText := strings.TrimSuffix(want.String(), "\n")
		var e Encoder
		e.String(s)
		got, err := e.Bytes()
		if utf8.ValidString(s) {
			require.NoError(t, err)
			require.Equal(t, wantText, string(got))
		} else {
			require.Error(t, err)
		}
		if len(s) <= shortLen {
			require.Equal(t, wantText, Quote(s))
		}
	})
}

// TestStringsEscapesEachItem pins that an array's items are written as
// String writes them, whether they take the copying loop or need escapes.
func TestStringsEscapesEachItem(t *testing.T) {
	list := []string{"", "depot:0001", "q\"b", "cost-centre:0002", "é", "tab\there, then more", "x\x00"}
	var e Encoder
	e.Strings(list)
	got, err := e.Bytes()
	require.NoError(t, err)
	assert.Equal(t, `["","depot:0001","q\"b","cost-centre:0002","é","tab\there, then more","x\u0000"]`, string(got))
	var back []string
	require.NoError(t, json.Unmarshal(got, &back))
	assert.Equal(t, list, back)

	var bad Encoder
	bad.Strings([]string{"ok", "a\xffb"})
	_, err = bad.Bytes()
	assert.Error(t, err, "an item that is not UTF-8 must fail the encoding")
}

func TestShorten(t *testing.T) {
	assert.Equal(t, "abc", Shorten("abc"))
	long := strings.Repeat("é", 40) // 80 bytes
	short := Shorten(long)
	assert.True(t, strings.HasSuffix(short, "…"))
	assert.LessOrEqual(t, len(short), 64+len("…"))
	assert.True(t, ValidStrings(short), "cut on a character boundary")
}

func TestValidStrings(t *testing.T) {
	for _, s := range []string{"", "a", "12345678", "123456789", "abcdefgh\xff", "é", "abcdefghé", "\xffabcdefgh", "abcdefgh\xe2\x82"} {
		assert.Equal(t, utf8.ValidString(s), ValidStrings(s), "%q", s)
	}
	// Each byte outside ASCII, alone or starting a valid sequence, at every
	// position of every length around the word sizes the check reads.
	for n := range 25 {
		for i := range n {
			for _, c := range []string{"\x80", "\xff", "\xc3", "é"} {
				s := strings.Repeat("a", i) + c + strings.Repeat("a", n-i-1)
				require.Equal(t, utf8.ValidString(s), ValidStrings(s), "%q", s)
			}
		}
	}
}

// TestMemberIsOrderBlind pins that Member, which compares each name first
// with the one it expects in the schema's order, finds every member the
// same whatever the order, spacing and escaping of the names: declared
// ones by index, each once, the rest as Undeclared with their names.
func TestMemberIsOrderBlind(t *testing.T) {
	ms := NewMembers("a", "bb", "ccc")
	type read struct {
		j    int
		name string // of an undeclared member
	}
	for _, tc := range []struct {
		in   string
		want []read
		dup  string // the path of the repeated member, if any
	}{
		{`{"a":0,"bb":0,"ccc":0}`, []read{{0, ""}, {1, ""}, {2, ""}}, ""},
		{`{"ccc":0,"bb":0,"a":0}`, []read{{2, ""}, {1, ""}, {0, ""}}, ""},
		{`{"bb":0,"ccc" :0,"a":0}`, []read{{1, ""}, {2, ""}, {0, ""}}, ""},
		{`{"ccc":0,"ccc":0}`, []read{{2, ""}, {Skipped, ""}}, "/ccc"},
		{`{"bb":0,"cé":0,"c\u0063c":0}`, []read{{1, ""}, {Undeclared, "cé"}, {2, ""}}, ""},
		{`{"a":0,"x":0,"bb":0}`, []read{{0, ""}, {Undeclared, "x"}, {1, ""}}, ""},
		{`{ "a" : 0 , "bb"  :0}`, []read{{0, ""}, {1, ""}}, ""},
		{`{"\u0061":0,"b\u0062":0}`, []read{{0, ""}, {1, ""}}, ""},
		{`{"a":0,"\u0061":0}`, []read{{0, ""}, {Skipped, ""}}, "/a"},
		{`{"a":0,"bb":0,"a":0}`, []read{{0, ""}, {1, ""}, {Skipped, ""}}, "/a"},
		{`{"a":0,"bb":0,"bb":0}`, []read{{0, ""}, {1, ""}, {Skipped, ""}}, "/bb"},
		{`{"aa":0,"bbb":0,"cc":0}`, []read{{Undeclared, "aa"}, {Undeclared, "bbb"}, {Undeclared, "cc"}}, ""},
		{`{"a":0,"bb\"":0}`, []read{{0, ""}, {Undeclared, `bb"`}}, ""},
		{`{"a":0,"bb`, []read{{0, ""}, {Skipped, ""}}, ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			var d Decoder
			d.Reset([]byte(tc.in))
			require.True(t, d.Object("", ""))
			var seen Seen
			var got []read
			for i := 0; d.More("", "", '}', i); i++ {
				j, key := d.Member("", ms, &seen)
				got = append(got, read{j, string(key)})
				if j != Skipped {
					d.Skip("", "")
				}
			}
			assert.Equal(t, tc.want, got)
			if tc.dup != "" {
				var e *msg.Error
				require.ErrorAs(t, d.Err(), &e)
				assert.Equal(t, tc.dup, e.Violations[0].Path)
				assert.Equal(t, msg.RuleDuplicate, e.Violations[0].Rule)
			}
		})
	}
}

func TestNewMembersRefusesWhatMemberCannotMatch(t *testing.T) {
	assert.Panics(t, func() { NewMembers(`a"b`) })
	names := make([]string, 65)
	for i := range names {
		names[i] = fmt.Sprint("m", i)
	}
	assert.Panics(t, func() { NewMembers(names...) })
	assert.NotPanics(t, func() { NewMembers(names[:64]...) })
}

// TestUUIDInPlace pins that a uuid read in place, without unescaping, is
// read exactly as one read through the string: the quotes must enclose
// exactly 36 characters, and anything else takes the general path.
func TestUUIDInPlace(t *testing.T) {
	const u = "0c9f4e2a-7d13-4b6e-a8f5-91d2c7e04b38"
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`"` + u + `"`, true},
		{` "` + u + `"`, true},
		{`"` + strings.ToUpper(u) + `"`, true},
		{`"\u0030` + u[1:] + `"`, true},
		{`"` + u + `x"`, false},
		{`"` + u[:35] + `"`, false},
		{`"{` + u[1:35] + `}"`, false},
		{`"` + u, false},
		{`"` + u + `"x`, true}, // the trailing x is End's to refuse
	} {
		var d Decoder
		d.Reset([]byte(tc.in))
		got, ok := d.UUID("", "/id")
		assert.Equal(t, tc.ok, ok, tc.in)
		if tc.ok {
			assert.Equal(t, u, got.String(), tc.in)
			assert.Equal(t, strings.LastIndex(tc.in, `"`)+1, d.Pos, "%s: read to the closing quote", tc.in)
		}
	}
}

// TestStringsReadsEveryItem pins that Strings, which reads plain items in
// place and the others by the general path, gives the items in order
// whatever their mix and number (past the gathering space on the stack),
// and reports the item a violation is at.
func TestStringsReadsEveryItem(t *testing.T) {
	kinds := []string{`"plain"`, `""`, `"esc\"aped"`, `"é"`, `"tab\tbed"`, `"<&>"`, `"\u0041"`}
	for n := range 40 {
		for _, sep := range []string{",", " , "} {
			items := make([]string, n)
			for i := range items {
				items[i] = kinds[(i*5+n)%len(kinds)]
			}
			in := "[" + strings.Join(items, sep) + "]"
			var want []string
			require.NoError(t, json.Unmarshal([]byte(in), &want))
			var d Decoder
			d.Reset([]byte(in))
			got, ok := d.Strings("", "/tags")
			require.True(t, ok, in)
			require.NoError(t, d.Err(), in)
			if n == 0 {
				require.NotNil(t, got, "an empty array is an empty list, not nil")
			}
			require.Equal(t, want, append([]string{}, got...), in)
		}
	}

	var d Decoder
	d.Reset([]byte(`["a", 1, "b", null, "c"]`))
	got, ok := d.Strings("", "/tags")
	require.True(t, ok)
	assert.Equal(t, []string{"a", "b", "c"}, got, "items of the wrong type are left out")
	var e *msg.Error
	require.ErrorAs(t, d.Err(), &e)
	require.Len(t, e.Violations, 2)
	assert.Equal(t, "/tags/1", e.Violations[0].Path)
	assert.Equal(t, "/tags/3", e.Violations[1].Path)

	d.Reset([]byte(`["a", "b` + "\xff" + `"]`))
	_, ok = d.Strings("", "/tags")
	require.False(t, ok)
	require.ErrorAs(t, d.Err(), &e)
	assert.Equal(t, "/tags/1", e.Violations[0].Path, "a syntax error names its item")
}

// TestKeptStringsAreCopies pins that the strings a decoded value keeps
// are copies, whatever order they are kept in: a list keeps its plain
// items after its other ones, which may lie after them in the input.
func TestKeptStringsAreCopies(t *testing.T) {
	in := []byte(`{"a":"x","tags":["p1","é","p2","\u0041"],"b":"y"}`)
	var d Decoder
	d.Reset(in)
	require.True(t, d.Object("", ""))
	var got []string
	for i := 0; d.More("", "", '}', i); i++ {
		switch string(d.Key("", "")) {
		case "tags":
			tags, ok := d.Strings("", "/tags")
			require.True(t, ok)
			got = append(got, tags...)
		default:
			s, ok := d.String("", "")
			require.True(t, ok)
			got = append(got, s)
		}
	}
	d.End()
	require.NoError(t, d.Err())
	for i := range in {
		in[i] = '!'
	}
	assert.Equal(t, []string{"x", "p1", "é", "p2", "A", "y"}, got)
}

// TestTimeViolationValueIsJSONText pins that a time Validate rejects is
// shown as the RFC 3339 text it would be written as, a JSON string like
// every other value, not in Go's format.
func TestTimeViolationValueIsJSONText(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(10000, 1, 2, 3, 4, 5, 600, time.UTC), `"10000-01-02T03:04:05.0000006Z"`},
		{time.Date(2024, 1, 1, 0, 0, 0, 0, time.FixedZone("LMT", -17762)), `"2024-01-01T00:00:00-04:56:02"`},
		{time.Date(-1, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600)), `"-0001-01-01T00:00:00+01:00"`},
	} {
		var e Errors
		e.Time("", "/time", tc.t)
		err, ok := e.Err().(*msg.Error)
		if !ok || len(err.Violations) != 1 {
			t.Fatalf("%v: %v, want one violation", tc.t, e.Err())
		}
		if got := err.Violations[0].Value; got != tc.want {
			t.Errorf("%v: value %s, want %s", tc.t, got, tc.want)
		}
		if !json.Valid([]byte(err.Violations[0].Value)) {
			t.Errorf("%v: value %s is not JSON", tc.t, err.Violations[0].Value)
		}
	}
}
