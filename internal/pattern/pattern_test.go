package pattern

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPatternsMatchAsECMA262 pins, for each pattern, strings that
// ECMA-262 (with the u flag) matches and does not: where RE2 reads the
// same text otherwise, the translation must follow ECMA-262.
func TestPatternsMatchAsECMA262(t *testing.T) {
	for _, tc := range []struct {
		pattern     string
		match, miss []string
	}{
		{`^\s$`, []string{" ", "\t", "\u00a0", "\u2028", "\ufeff", "\v"}, []string{"a", "\u200b"}},
		{`^\S$`, []string{"a", "\u200b"}, []string{"\u00a0", " "}},
		{`^.$`, []string{"a", "😀", "\u0085"}, []string{"\n", "\r", "\u2028", "\u2029"}},
		{`^[]$`, nil, []string{"", "a", "]"}},
		{`^[^]$`, []string{"\n", "a"}, []string{""}},
		{`^[[:a]+$`, []string{"[:", "a[a"}, []string{"b"}},
		{`^[\s]$`, []string{"\u3000"}, []string{"x"}},
		{`^[\Sa]$`, []string{"x", "a", "\u200b", "😀", "\x00", "\u2027", "\ufefe", "\uff00"}, []string{" ", "\u00a0", "\u2028", "\ufeff", "\u3000", "\t", "\v"}},
		{`^[^\S]$`, []string{" ", "\u00a0", "\u205f"}, []string{"x", "\u200b"}},
		{`^[\b]$`, []string{"\b"}, []string{"b"}},
		{`^\d+$`, []string{"0123456789"}, []string{"٣"}},
		{`^\w$`, []string{"_", "Z"}, []string{"é"}},
		{`\bfoo\b`, []string{"a foo b"}, []string{"afoo"}},
		{`^\u00e9\x41\u{1F600}$`, []string{"éA😀"}, []string{"eA😀"}},
		{`^\ud83d\ude00$`, []string{"😀"}, []string{"\xed\xa0\xbd"}},
		{`^\p{Lu}\P{L}$`, []string{"É1"}, []string{"é1", "ÉÉ"}},
		{`^\cJ$`, []string{"\n"}, []string{"J"}},
		{`^a{2,3}?$`, []string{"aa", "aaa"}, []string{"a", "aaaa"}},
		{`^(?<x>a)(?:b)$`, []string{"ab"}, []string{"a"}},
		{`a\/b\.c`, []string{"xa/b.cx"}, []string{"a/bxc"}},
		{`^\0$`, []string{"\x00"}, []string{"0"}},
	} {
		re, err := ToRE2(tc.pattern)
		require.NoError(t, err, tc.pattern)
		r := regexp.MustCompile(re)
		for _, s := range tc.match {
			assert.True(t, r.MatchString(s), "%s (as %s) should match %q", tc.pattern, re, s)
		}
		for _, s := range tc.miss {
			assert.False(t, r.MatchString(s), "%s (as %s) should not match %q", tc.pattern, re, s)
		}
	}
}

// TestPatternsRefused pins that what RE2 lacks or reads otherwise is
// refused, saying why, rather than compiled into something else.
func TestPatternsRefused(t *testing.T) {
	for pattern, why := range map[string]string{
		`(a)\1`:            "backreference",
		`(?<n>a)\k<n>`:     "backreference",
		`a(?=b)`:           "lookaround",
		`a(?!b)`:           "lookaround",
		`(?<=a)b`:          "lookaround",
		`(?<!a)b`:          "lookaround",
		`\p{Letter}`:       "property escape",
		`\p{Script=Greek}`: "property escape",
		`\a`:               "u flag",
		`\z`:               "u flag",
		`a{`:               "not a quantifier",
		`a{1001}`:          "the regexp of Go refuses",
		`\ud800`:           "lone surrogate",
		`(?i)a`:            "group modifier",
		`\01`:              "octal",
		`[a`:               "without its ']'",
		`[[:alpha:]]`:      "lone",
	} {
		_, err := ToRE2(pattern)
		assert.ErrorContains(t, err, why, pattern)
	}
}
