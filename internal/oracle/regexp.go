package oracle

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// JSON Schema's pattern and patternProperties are ECMA-262 regular
// expressions; 2020-12 (core §6.4) says to read them with the u flag, so
// that a string is a sequence of code points, and the suite's
// optional/ecmascript-regex tests hold draft-07 to the same reading. The
// validator's default engine is Go's regexp (RE2), which reads \s, the dot
// and many escapes otherwise, so the oracle gives it an ECMA-262 engine:
// github.com/dlclark/regexp2 with its ECMAScript and Unicode (u flag)
// options. regexp2 matches over code points, as the u flag asks.
//
// regexp2 departs from ECMA-262 in three places that change a verdict on a
// string, each found by a test of this package and corrected here by a
// rewrite of the pattern before regexp2 reads it, as narrow as it can be:
//
//   - its dot also matches U+2028 and U+2029, which ECMA-262's does not
//     (LineTerminator): a dot outside a class becomes
//     [^\n\r\u2028\u2029];
//   - its \b and \B judge word characters by Unicode letters and digits,
//     where ECMA-262's (without the i flag) are [A-Za-z0-9_]: they become
//     lookarounds over that class;
//   - it reads \uD83D\uDE00 as two lone surrogates, where with the u flag
//     a pair of escapes is one code point: the pair becomes \u{1F600}.
//
// What regexp2 does not know, it refuses, so the oracle refuses the schema
// rather than judging by another meaning: property escapes by long name or
// by script (\p{Letter}, \p{Script=Greek}). It is more lenient than
// ECMA-262 in what it compiles (it takes \a, (?i) and a lone '{'), which
// changes no verdict of a pattern that ECMA-262 accepts.

// ecmaMatchTimeout bounds one match. regexp2 backtracks, so a hostile
// pattern could take exponential time; a match that runs out of time panics
// (see ecmaRegexp.MatchString), since no verdict of the oracle may be a
// guess.
const ecmaMatchTimeout = 5 * time.Second

// ecmaRegexp is a pattern compiled by regexp2, as the validator's Regexp.
type ecmaRegexp struct {
	re  *regexp2.Regexp
	src string // the pattern as written in the schema
}

// CompileECMA compiles the ECMA-262 pattern p, read with the u flag: it is
// the regexp engine of the oracle's validator, for tests that hold another
// reading of patterns to it. Its MatchString reports whether the pattern
// matches somewhere in a string, as ECMA-262's RegExp.prototype.test does.
func CompileECMA(p string) (jsonschema.Regexp, error) {
	re, err := regexp2.Compile(ecmaRewrite(p), regexp2.ECMAScript|regexp2.Unicode)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = ecmaMatchTimeout
	return &ecmaRegexp{re: re, src: p}, nil
}

// MatchString reports whether s has a match of the pattern anywhere, as
// ECMA-262's RegExp.prototype.test does. A match that runs out of time
// panics: the oracle cannot judge, and a test must not take a guess for a
// verdict.
func (r *ecmaRegexp) MatchString(s string) bool {
	ok, err := r.re.MatchString(s)
	if err != nil {
		panic(fmt.Sprintf("oracle: pattern %q on a string of %d bytes: %v", r.src, len(s), err))
	}
	return ok
}

// String returns the pattern as written in the schema.
func (r *ecmaRegexp) String() string { return r.src }

// ecmaWordClass is ECMA-262's word characters without the i flag.
const ecmaWordClass = `[A-Za-z0-9_]`

// ecmaRewrite corrects, in p, the three places where regexp2 departs from
// ECMA-262 (see above). It reads only what it must: escapes, to skip them
// whole, and classes, inside which a dot is a dot and \b a backspace.
func ecmaRewrite(p string) string {
	var out strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			if r, n, ok := surrogatePair(p[i:]); ok {
				fmt.Fprintf(&out, `\u{%x}`, r)
				i += n - 1
				continue
			}
			switch e := p[i+1]; {
			case e == 'b' && !inClass:
				out.WriteString(`(?:(?<=` + ecmaWordClass + `)(?!` + ecmaWordClass + `)|(?<!` + ecmaWordClass + `)(?=` + ecmaWordClass + `))`)
			case e == 'B' && !inClass:
				out.WriteString(`(?:(?<=` + ecmaWordClass + `)(?=` + ecmaWordClass + `)|(?<!` + ecmaWordClass + `)(?!` + ecmaWordClass + `))`)
			default:
				out.WriteByte(c)
				out.WriteByte(e)
			}
			i++
		case c == '[' && !inClass:
			inClass = true
			out.WriteByte(c)
			// ECMA-262 ends a class at the first unescaped ']', so [] is
			// empty and []a] is [] then "a]"; a '^' first only negates.
			if i+1 < len(p) && p[i+1] == '^' {
				out.WriteByte('^')
				i++
			}
		case c == ']' && inClass:
			inClass = false
			out.WriteByte(c)
		case c == '.' && !inClass:
			out.WriteString(`[^\n\r\u2028\u2029]`)
		default:
			out.WriteByte(c)
		}
	}
	return out.String()
}

// surrogatePair reads, at the start of s, two \uXXXX escapes that are a
// UTF-16 surrogate pair, and returns the code point and the length read.
func surrogatePair(s string) (rune, int, bool) {
	if len(s) < 12 || s[1] != 'u' || s[6] != '\\' || s[7] != 'u' {
		return 0, 0, false
	}
	hi, err1 := strconv.ParseUint(s[2:6], 16, 32)
	lo, err2 := strconv.ParseUint(s[8:12], 16, 32)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	r := utf16.DecodeRune(rune(hi), rune(lo))
	if r == utf16.DecodeRune(0, 0) { // U+FFFD: not a pair
		return 0, 0, false
	}
	return r, 12, true
}
