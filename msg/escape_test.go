package msg

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	tests := map[string]string{
		"":                     "",
		"/actor/id":            "/actor/id",
		"a\nb":                 `a\x0ab`,
		"\r\x1b[31m":           `\x0d\x1b[31m`,
		"\x00\x7f":             `\x00\x7f`,
		"\u0085\u009b":         `\u0085\u009b`,
		"a\u2028b\u2029":       `a\u2028b\u2029`,
		"\u202eevil\u2066":     `\u202eevil\u2066`,
		"\xff\xc3(":            `\xff\xc3(`,
		`back\slash`:           `back\slash`,
		"née ☃ \U0001F600 tab": "née ☃ \U0001F600 tab",
	}
	for in, want := range tests {
		assert.Equal(t, want, Escape(in), "%q", in)
	}
}

// TestEscapeLeavesNoControl checks every byte and every character up to
// U+2FFF: none the result holds is one Escape must escape.
func TestEscapeLeavesNoControl(t *testing.T) {
	var inputs []string
	for b := range 256 {
		inputs = append(inputs, string([]byte{byte(b)}))
	}
	for r := rune(0); r < 0x3000; r++ {
		inputs = append(inputs, string(r))
	}
	for _, in := range inputs {
		out := Escape(in)
		assert.True(t, utf8.ValidString(out), "%q", in)
		for _, r := range out {
			assert.False(t, r < 0x20 || r == 0x7f || unsafeRune(r), "%q gives %q", in, out)
		}
	}
}

func TestEscapeOfPrintableASCIIAllocatesNothing(t *testing.T) {
	s := "/actor/id: want a string, got a number"
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Escape(s) }))
}

// FuzzEscape checks that no input, however malformed, leaves in the
// result a byte that is not UTF-8 or a character Escape must escape, and
// that printable ASCII comes back as it is.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\x1b[31m", "\u2028", "\xff\xc3", "née"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		if !utf8.ValidString(out) {
			t.Fatalf("%q gives %q, not UTF-8", s, out)
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f || unsafeRune(r) {
				t.Fatalf("%q gives %q, with %U", s, out, r)
			}
		}
		printable := true
		for i := 0; i < len(s); i++ {
			printable = printable && s[i] >= 0x20 && s[i] < 0x7f
		}
		if printable && out != s {
			t.Fatalf("%q gives %q", s, out)
		}
	})
}
