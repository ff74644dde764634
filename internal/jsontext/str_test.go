package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

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
