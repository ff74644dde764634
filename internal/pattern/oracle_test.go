package pattern

import (
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetkit/catalogue/internal/oracle"
)

// divergent are patterns whose meaning differs between ECMA-262 and RE2,
// or that only one of them can write: the translation must carry each
// exactly or refuse it.
var divergent = []string{
	`.`, `^.$`, `^..$`, `a.b`, `^.*$`, `^.+$`, `[.]`, `\.`,
	`\d`, `^\d+$`, `\D`, `^\D*$`, `[\d]`, `[^\d]`, `[\D]`,
	`\w`, `^\w+$`, `\W`, `[\w-]`, `[^\w]`,
	`\s`, `^\s$`, `\S`, `^\S+$`, `[\s]`, `[^\s]`, `[\sa]`, `[\S]`, `[^\S]`, `[\S\s]`, `^[\Sa]+$`,
	`\b`, `\bfoo\b`, `\B`, `a\B`, `\Bé`, `[\b]`, `^\w\b`,
	`$`, `^$`, `a$`, `^a$`, `a$|b`, `^(a|b)$`, `^`, `^\n`, `\n$`, `^abc$`,
	`[]`, `[^]`, `^[]$`, `^[^]$`, `a[]`, `a|[]`, `[^]*`,
	`[[]`, `[[:a]`, `[a-]`, `[-a]`, `[\-]`, `[\]]`, `[\\]`, `[a\-z]`, `[^-]`,
	`\u00e9`, `\x41`, `\u{1F600}`, `\ud83d\ude00`, `[\u2028\u2029]`, `\cJ`, `\0`, `\t\v\f`,
	`\u2028`, `\u00a0`, `\ufeff`, `\/`, `\-`,
	`a{2}`, `a{1,2}`, `^a{0,}$`, `a{2,3}?`, `^.{2}$`, `^\s{1,2}$`, `a{`, `{1}`, `a{,2}`, `a{2,1}`,
	`\p{L}`, `\p{Lu}`, `\P{L}`, `\p{Nd}`, `^\p{Zs}$`, `\p{Letter}`,
	`(?<x>a)`, `(?:a|b)+`, `(a)\1`, `a(?=b)`, `(?i)a`, `\a`, `\z`, `\Z`, `\A`, `\Q`,
	`x*?`, `(?s).`, `(?m)^a$`, `a++`, `\$`, `\^`,
	// The patterns of the suite's optional/ecmascript-regex groups.
	`^\t$`, `^\cC$`, `^\cc$`, `^\W$`, `\p{Letter}cole`, `\wcole`, `[a-z]cole`, `^\p{digit}+$`,
}

// stringAlphabet holds the characters the two engines read differently,
// and some they read alike.
var stringAlphabet = []string{
	"a", "b", "z", "A", "é", "É", "0", "9", "٣", "\u09ea", "_", "-", ".", " ",
	"\n", "\r", "\u2028", "\u2029", "\u0085", "\t", "\v", "\f", "\b", "\x00",
	"\u00a0", "\ufeff", "\u3000", "\u2003", "\u180e", "\u200b", "😀", "😁", "[", "]", "\\", "f", "o",
	"\u07c0", "\u2013", "\x01", "\x03",
}

// randomPattern builds a pattern from atoms that ECMA-262 and RE2 read
// differently, with quantifiers, groups and alternation.
func randomPattern(r *rand.Rand) string {
	atoms := []string{
		"a", "b", "é", ".", `\d`, `\D`, `\w`, `\W`, `\s`, `\S`, `\b`, `\B`, "^", "$",
		`[a-c]`, `[^a]`, `[\s]`, `[^\s]`, `[\S]`, `[^\S\d]`, `[\d\-x]`, `[\b]`, `[]`, `[^]`, `[\w.]`, `[^\W_]`,
		`\n`, `\r`, `\u2028`, `\u00a0`, `\x2D`, `\.`, `\p{L}`, `\p{Nd}`, `\P{Zs}`,
	}
	quants := []string{"", "", "", "*", "+", "?", "{2}", "{1,2}", "{0,}", "*?", "{0,1}?"}
	var piece func(depth int) string
	piece = func(depth int) string {
		var sb strings.Builder
		for n := 1 + r.IntN(3); n > 0; n-- {
			if depth < 2 && r.IntN(5) == 0 {
				sb.WriteString("(" + []string{"", "?:"}[r.IntN(2)] + piece(depth+1))
				if r.IntN(3) == 0 {
					sb.WriteString("|" + piece(depth+1))
				}
				sb.WriteString(")")
			} else {
				sb.WriteString(atoms[r.IntN(len(atoms))])
			}
			sb.WriteString(quants[r.IntN(len(quants))])
		}
		return sb.String()
	}
	p := piece(0)
	if r.IntN(4) == 0 {
		p += "|" + piece(0)
	}
	return p
}

func randomString(r *rand.Rand) string {
	var sb strings.Builder
	for n := r.IntN(7); n > 0; n-- {
		sb.WriteString(stringAlphabet[r.IntN(len(stringAlphabet))])
	}
	return sb.String()
}

// TestTranslationAgreesWithOracle holds ToRE2 to the test oracle's
// ECMA-262 engine (internal/oracle, regexp2 in ECMAScript mode with the u
// flag): for every pattern it translates, its verdict on every string,
// hand-picked and random, with line terminators and non-ASCII among them,
// is the oracle's. A pattern it refuses is counted by reason; one the
// oracle cannot compile must be refused too.
func TestTranslationAgreesWithOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 2026))
	patterns := append([]string(nil), divergent...)
	for range 400 {
		patterns = append(patterns, randomPattern(r))
	}
	var strs []string
	// Every string of up to two characters, and random longer ones.
	strs = append(strs, "")
	for _, a := range stringAlphabet {
		strs = append(strs, a)
		for _, b := range stringAlphabet {
			strs = append(strs, a+b)
		}
	}
	for range 300 {
		strs = append(strs, randomString(r))
	}
	strs = append(strs, "foo", "a foo b", "éfooé", "afoo", "abc", "abc\n", "\nabc", "a\nb", "aa", "aaa", "a{", "a{2}", "l'école", "l'ecole", "L'ÉCOLE")

	translated, compared, oracleRefused := 0, 0, 0
	refused := map[string]int{}
	for _, p := range patterns {
		ecma, oerr := oracle.CompileECMA(p)
		re2, err := ToRE2(p)
		if err != nil {
			refused[reason(err.Error())]++
			continue
		}
		if oerr != nil {
			oracleRefused++
			t.Errorf("%s: translated to %s, but the oracle refuses it: %v", p, re2, oerr)
			continue
		}
		translated++
		got := regexp.MustCompile(re2)
		for _, s := range strs {
			compared++
			if want := ecma.MatchString(s); got.MatchString(s) != want {
				t.Errorf("%s (as %s) on %q: %v, the oracle says %v", p, re2, s, !want, want)
			}
		}
	}
	var reasons []string
	for why, n := range refused {
		reasons = append(reasons, strings.Repeat(" ", 4)+why+": "+strconv.Itoa(n))
	}
	sort.Strings(reasons)
	t.Logf("%d patterns: %d translated and compared on %d strings (%d verdicts), %d refused by ToRE2:\n%s",
		len(patterns), translated, len(strs), compared, len(patterns)-translated-oracleRefused, strings.Join(reasons, "\n"))
	if translated < len(patterns)/2 {
		t.Errorf("only %d of %d patterns translated: the test compares too little", translated, len(patterns))
	}
}

// reason is an error's message without the quoted part, to count refusals
// by kind.
func reason(msg string) string {
	if i := strings.IndexAny(msg, `"\`); i > 0 {
		return strings.TrimSpace(msg[:i])
	}
	return msg
}
