package jsontext

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// plainBytewise is Plain's specification: the length of the prefix of b
// with no quote, backslash, control character or non-ASCII byte.
func plainBytewise(b []byte) int {
	for i, c := range b {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return len(b)
}

// plainMarkingBytewise is plainMarking's specification: Plain's, and
// stopping at the three ASCII characters json.Marshal escapes.
func plainMarkingBytewise(b []byte) int {
	for i, c := range b {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf || c == '<' || c == '>' || c == '&' {
			return i
		}
	}
	return len(b)
}

// TestPlainAgreesWithBytewise puts every byte that needs a look, and its
// plain neighbours, at every position of strings of every length around
// the word size, alone and with a second one after it, so that the word
// loop, the overlapping last word and the short-string loop of Plain and
// plainMarking are each held to the bytewise answer.
func TestPlainAgreesWithBytewise(t *testing.T) {
	for _, f := range []struct {
		name  string
		plain func([]byte) int
		spec  func([]byte) int
	}{
		{"Plain", Plain, plainBytewise},
		{"plainMarking", plainMarking, plainMarkingBytewise},
		// plainEnd from the second byte, which a quote leaves out, as
		// the quote that opens a string does: in a build with
		// GOEXPERIMENT=simd on a CPU with AVX2, its vector loop is held
		// to the same answers (see TestPlainEndPath).
		{"plainEnd", func(b []byte) int { return plainEnd(append([]byte{'"'}, b...), 1, false) - 1 }, plainBytewise},
		{"plainEnd marking", func(b []byte) int { return plainEnd(append([]byte{'"'}, b...), 1, true) - 1 }, plainMarkingBytewise},
	} {
		var special []byte
		for c := range 256 {
			// The bytes that stop it and their neighbours, which differ
			// from them in one bit.
			if f.spec([]byte{byte(c)}) == 0 || f.spec([]byte{byte(c ^ 1)}) == 0 || f.spec([]byte{byte(c ^ 2)}) == 0 ||
				f.spec([]byte{byte(c ^ 4)}) == 0 || c == 0x7f {
				special = append(special, byte(c))
			}
		}
		// Up to three vectors' worth, for plainEnd.
		for n := range 100 {
			base := bytes.Repeat([]byte{'a'}, n)
			if got := f.plain(base); got != n {
				t.Fatalf("%s(%q) = %d, want %d", f.name, base, got, n)
			}
			for i := range n {
				for _, c := range special {
					b := bytes.Clone(base)
					b[i] = c
					if got, want := f.plain(b), f.spec(b); got != want {
						t.Fatalf("%s(%q) = %d, want %d", f.name, b, got, want)
					}
					for j := i + 1; j < n; j += 1 + n/8 {
						b2 := bytes.Clone(b)
						b2[j] = '"'
						if got, want := f.plain(b2), f.spec(b2); got != want {
							t.Fatalf("%s(%q) = %d, want %d", f.name, b2, got, want)
						}
					}
				}
			}
		}
	}
}

// TestPlainEndPath says which loop plainEnd runs, so that a run of the
// tests built with GOEXPERIMENT=simd shows that it held the vector one to
// the bytewise answers.
func TestPlainEndPath(t *testing.T) {
	t.Logf("plainEnd uses vector instructions: %v", simdPlain)
}

func FuzzPlain(f *testing.F) {
	f.Add([]byte(`depot:0001`))
	f.Add([]byte("a\"b\\c\x00d\xe9"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Plain(b), plainBytewise(b); got != want {
			t.Fatalf("Plain(%q) = %d, want %d", b, got, want)
		}
		if got, want := plainMarking(b), plainMarkingBytewise(b); got != want {
			t.Fatalf("plainMarking(%q) = %d, want %d", b, got, want)
		}
		for p := range min(len(b), 40) {
			if got, want := plainEnd(b, p, false), p+plainBytewise(b[p:]); got != want {
				t.Fatalf("plainEnd(%q, %d, false) = %d, want %d", b, p, got, want)
			}
			if got, want := plainEnd(b, p, true), p+plainMarkingBytewise(b[p:]); got != want {
				t.Fatalf("plainEnd(%q, %d, true) = %d, want %d", b, p, got, want)
			}
		}
	})
}

// marshalled is what json.Marshal makes of the JSON text src returned by
// a MarshalJSON method: AppendCanonical's specification.
func marshalled(t *testing.T, src []byte) string {
	t.Helper()
	out, err := json.Marshal(json.RawMessage(src))
	if err != nil {
		t.Fatalf("json.Marshal(%q): %v", src, err)
	}
	return string(out)
}

func TestAppendCanonicalIsWhatMarshalWrites(t *testing.T) {
	for _, src := range []string{
		`{}`, `null`, ` 1 `, "[1, 2,\n\t3]", `{"a" : [ true , null ] , "b":{ }}`,
		`"a b"`, `" <a href=\"x\">&amp;</a> "`, `"\\"`, `"\\<"`, `"\"<\""`,
		"\"\u2028\u2029\u2027\u202a é😀\"", `"\u003c already escaped"`,
		`{"x y": "p q", "n": -1.50e+3}`,
	} {
		got := string(AppendCanonical(nil, []byte(src)))
		if want := marshalled(t, []byte(src)); got != want {
			t.Errorf("AppendCanonical(%q) = %q, want %q", src, got, want)
		}
		if kept := keptCanonical([]byte(src)); kept != got {
			t.Errorf("KeepCanonical of %q = %q, want %q", src, kept, got)
		}
	}
}

// keptCanonical returns what KeepCanonical keeps of the value src holds,
// read by the scanner as a decoder reads a member's value.
func keptCanonical(src []byte) string {
	var s Scanner
	s.Reset(src)
	s.WS()
	start := s.Pos
	s.Skip()
	return string(s.KeepCanonical(start, s.Pos))
}

func FuzzAppendCanonical(f *testing.F) {
	f.Add([]byte(`{"a": "<b>", "c": [1, 2]}`))
	f.Add([]byte("\"\u2028\\\" x\""))
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, reason := Check(src); reason != "" {
			return
		}
		want := marshalled(t, src)
		if got := string(AppendCanonical(nil, src)); got != want {
			t.Fatalf("AppendCanonical(%q) = %q, want %q", src, got, want)
		}
		if got := keptCanonical(src); got != want {
			t.Fatalf("KeepCanonical(%q) = %q, want %q", src, got, want)
		}
	})
}

func TestDescribeNamesWhatItFinds(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "end of input"},
		{"x", "character 'x'"},
		{"\xef\xbb\xbf{}", "a byte order mark (U+FEFF)"},
		{"é", "character U+00E9 'é'"},
		{"\u2028", `character U+2028 '\u2028'`},
		{"\xff", "byte 0xff"},
		{"\x01", "byte 0x1"},
	} {
		if got := Describe([]byte(tc.in), 0); got != tc.want {
			t.Errorf("Describe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPathToFindsTheRepeatedMember pins the steps PathTo gives to the
// offset Check reports for a repeated name, and to other offsets: into
// objects and arrays, past values before it, to a value or a name.
func TestPathToFindsTheRepeatedMember(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want []string
	}{
		{`{"a":1,"a":2}`, []string{"a"}},
		{`{"x":{"a":1,"\u0061":2}}`, []string{"x", "a"}},
		{` [ 0 , {"q":[1,{"a":1}]} , { "b" : { "a/b" : 1 , "a\/b" : 2 } } ] `, []string{"2", "b", "a/b"}},
		{`{"x":[],"y":{},"z":[{"":{"":1,"":2}}]}`, []string{"z", "0", "", ""}},
	} {
		off, reason, cause := CheckCause([]byte(tc.doc))
		if cause != CauseDuplicate {
			t.Fatalf("CheckCause(%s) = %d, %q, %v: want a repeated name", tc.doc, off, reason, cause)
		}
		if got := PathTo([]byte(tc.doc), off); !slices.Equal(got, tc.want) {
			t.Errorf("PathTo(%s, %d) = %q, want %q", tc.doc, off, got, tc.want)
		}
	}
	doc := []byte(`{"a":[1,"xyz",{"b":true}],"c":null}`)
	for _, tc := range []struct {
		at   string // the offset: of the first occurrence of this
		want []string
	}{
		{`{"a"`, nil},
		{`"a"`, []string{"a"}},
		{`[1`, []string{"a"}},
		{`1,`, []string{"a", "0"}},
		{`yz`, []string{"a", "1"}},
		{`true`, []string{"a", "2", "b"}},
		{`"c"`, []string{"c"}},
		{`null`, []string{"c"}},
	} {
		off := bytes.Index(doc, []byte(tc.at))
		if got := PathTo(doc, off); !slices.Equal(got, tc.want) {
			t.Errorf("PathTo(%s, %d) = %q, want %q", doc, off, got, tc.want)
		}
	}
}

// TestDigitsEndAgreesWithBytewise holds digitsEnd to a byte-by-byte
// search, from every offset of inputs of every byte around the digits,
// at every place in a word and near the end of the input.
func TestDigitsEndAgreesWithBytewise(t *testing.T) {
	bytewise := func(b []byte, i int) int {
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
		return i
	}
	for c := range 256 {
		for n := range 20 {
			for at := 0; at <= n; at++ {
				b := bytes.Repeat([]byte("7"), n)
				if at < n {
					b[at] = byte(c)
				}
				b = append(b, "0123"...) // digits after too, so that the end is c's
				for i := range b {
					if got, want := digitsEnd(b, i), bytewise(b, i); got != want {
						t.Fatalf("digitsEnd(%q, %d) = %d, want %d", b, i, got, want)
					}
				}
			}
		}
	}
}

// FuzzStr holds the strings Str reads to encoding/json's reading of them:
// the same content for every string Str accepts, escapes and all, and a
// refusal only where encoding/json refuses too, or where it would repair
// the text (invalid UTF-8, an escaped lone surrogate: decision 11).
func FuzzStr(f *testing.F) {
	for _, s := range []string{
		`"plain"`, `"a\nb\"c\\d\/e\bf\fg\rh\ti"`, `"\u00e9\ud83d\ude00 <&> é"`, `"x\u0041\u2028y"`,
		`"bad \x"`, `"\ud800"`, `"\ud800\u0041"`, `"\u12"`, `"x\`, `"ab`, "\"a\xffb\"", "\"a\x01b\"",
		`"é\"ü"`, `"\"\"\"" tail`, `"` + strings.Repeat(`a\n`, 20) + `"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '"' || len(data) > 1<<12 {
			return
		}
		var s Scanner
		s.Reset(data)
		got := s.Str()
		if !s.Fatal {
			var want string
			if err := json.Unmarshal(data[:s.Pos], &want); err != nil {
				t.Fatalf("Str(%q) = %q, but encoding/json refuses %q: %v", data, got, data[:s.Pos], err)
			}
			if string(got) != want || !utf8.Valid(got) {
				t.Fatalf("Str(%q) = %q, encoding/json reads %q", data, got, want)
			}
			if s.Escaped != (strings.IndexByte(string(data[:s.Pos]), '\\') >= 0) {
				t.Fatalf("Str(%q): Escaped = %v", data, s.Escaped)
			}
			return
		}
		if got != nil || s.Off < 0 || s.Off > len(data) {
			t.Fatalf("Str(%q) failed at %d (%s) but returned %q", data, s.Off, s.Reason, got)
		}
		if s.Reason == "invalid UTF-8" || s.Reason == "escaped lone surrogate" {
			return
		}
		// The string ends at the first quote json reads as its end, if
		// any: each prefix ending in a quote that json accepts whole is
		// one that Str should have accepted.
		for end := 2; end <= len(data); end++ {
			var want string
			if data[end-1] == '"' && json.Unmarshal(data[:end], &want) == nil {
				t.Fatalf("Str(%q) failed at %d (%s), but encoding/json reads %q from %q", data, s.Off, s.Reason, want, data[:end])
			}
		}
	})
}

var sinkStr []byte

// BenchmarkStr reads strings as the decoder does: plain ASCII, which the
// word-at-a-time step takes whole, text with characters outside ASCII,
// which is read a character at a time from the first of them, and text
// with escapes, which is unescaped into the scratch buffer. Skip reads
// them as Check and the free objects do, marking what json.Marshal
// escapes.
func BenchmarkStr(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		{"ascii", `"Fleet tracker 7, depot North, bay 12"`},
		{"nonascii", `"Müller Straße 12, Zürich — café 東京駅 <b>"`},
		{"escaped", `"line one\nline \"two\" \u00e9t\u00e9 Zürich — 東京駅 <b>"`},
	} {
		data := []byte(bc.text)
		b.Run("read/"+bc.name, func(b *testing.B) {
			var s Scanner
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				s.Reset(data)
				sinkStr = s.Str()
			}
		})
		b.Run("skip/"+bc.name, func(b *testing.B) {
			var s Scanner
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				s.Reset(data)
				s.Skip()
			}
		})
	}
}
