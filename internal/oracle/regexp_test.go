package oracle

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestECMARegexSuite holds the oracle's validator to the official suite's
// optional/ecmascript-regex groups of both drafts: each group whose schema
// it compiles, it must judge as the suite does; the groups it refuses are
// those whose property escapes regexp2 does not know, listed here.
func TestECMARegexSuite(t *testing.T) {
	refused := map[string]bool{
		"patterns always use unicode semantics with pattern":           true, // \p{Letter}
		"pattern with non-ASCII digits":                                true, // \p{digit}
		"patterns always use unicode semantics with patternProperties": true,
		"patternProperties with non-ASCII digits":                      true,
	}
	for _, draft := range []string{"draft7", "draft2020-12"} {
		data, err := os.ReadFile("../../testdata/json-schema-test-suite/" + draft + "/optional/ecmascript-regex.json")
		require.NoError(t, err)
		var groups []struct {
			Description string
			Schema      json.RawMessage
			Tests       []struct {
				Description string
				Data        json.RawMessage
				Valid       bool
			}
		}
		require.NoError(t, json.Unmarshal(data, &groups))
		passed := 0
		for i, g := range groups {
			c := NewCompiler()
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(g.Schema))
			require.NoError(t, err)
			url := "https://example.com/" + draft + "/" + string(rune('a'+i)) + ".json"
			require.NoError(t, c.AddResource(url, doc))
			sch, err := c.Compile(url)
			if refused[g.Description] {
				assert.Error(t, err, "%s: %s compiles now: move it out of the refused list", draft, g.Description)
				continue
			}
			require.NoError(t, err, "%s: %s", draft, g.Description)
			for _, tc := range g.Tests {
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(tc.Data))
				require.NoError(t, err)
				assert.Equal(t, tc.Valid, sch.Validate(inst) == nil, "%s: %s: %s", draft, g.Description, tc.Description)
			}
			passed++
		}
		t.Logf("%s: %d groups passed, %d refused", draft, passed, len(groups)-passed)
		assert.Equal(t, len(groups)-len(refused), passed, draft)
	}
}

// TestECMARegexCorrections pins each place where the oracle corrects
// regexp2 toward ECMA-262 (see regexp.go), and that the rewrite leaves
// classes and escapes alone: each case fails without its correction.
func TestECMARegexCorrections(t *testing.T) {
	for _, tc := range []struct {
		pattern     string
		match, miss []string
	}{
		// The dot excludes the four line terminators, and no more.
		{`^.$`, []string{"a", "\u0085", "😀", "\u2027", "\u202a"}, []string{"\n", "\r", "\u2028", "\u2029", ""}},
		{`^[.]$`, []string{"."}, []string{"a"}},
		{`^\.$`, []string{"."}, []string{"a"}},
		{`^[\].]$`, []string{"]", "."}, []string{"a"}},
		{`^[]a.$`, nil, []string{"a.", "ab"}},
		{`^[^].$`, []string{"\n.", "\nx"}, []string{"\n\u2028"}},
		// \b and \B over ASCII word characters only.
		{`\bfoo\b`, []string{"éfooé", "a foo", "foo"}, []string{"afoo", "foo_", "foo1"}},
		{`\Bé`, []string{"éé", "é", "-é"}, []string{"aé", "_é"}},
		{`^a\B`, []string{"ab"}, []string{"a", "a-", "aé"}},
		{`^[\b]$`, []string{"\b"}, []string{"b"}},
		{`^\\b$`, []string{`\b`}, []string{"b"}},
		// A pair of \u escapes is one code point; a lone one is not.
		{`^\ud83d\ude00$`, []string{"😀"}, []string{"a"}},
		{`^[\ud83d\ude00-\ud83d\ude02]$`, []string{"😁"}, []string{"😃"}},
		{`^\u{1F600}$`, []string{"😀"}, []string{"a"}},
		{`^\\ud83d\\ude00$`, []string{`\ud83d\ude00`}, []string{"😀"}},
		// What regexp2 already reads as ECMA-262 does.
		{`^abc$`, []string{"abc"}, []string{"abc\n"}},
		{`^\d$`, []string{"7"}, []string{"٣"}},
		{`^\w$`, []string{"_"}, []string{"é"}},
		{`^\s$`, []string{"\u00a0", "\ufeff", "\u2028", "\v"}, []string{"\u180e", "\u200b"}},
	} {
		for _, s := range tc.match {
			re, err := CompileECMA(tc.pattern)
			require.NoError(t, err, tc.pattern)
			ok := re.MatchString(s)
			assert.True(t, ok, "%s should match %q (read as %s)", tc.pattern, s, ecmaRewrite(tc.pattern))
		}
		for _, s := range tc.miss {
			re, err := CompileECMA(tc.pattern)
			require.NoError(t, err, tc.pattern)
			ok := re.MatchString(s)
			assert.False(t, ok, "%s should not match %q (read as %s)", tc.pattern, s, ecmaRewrite(tc.pattern))
		}
	}
}

// TestECMARegexTimeout pins that a match that backtracks without end
// stops, and says so, rather than hanging a test or guessing.
func TestECMARegexTimeout(t *testing.T) {
	re, err := CompileECMA(`^(a+)+$`)
	require.NoError(t, err)
	re.(*ecmaRegexp).re.MatchTimeout = 1e6 // 1ms, so that the test is quick
	defer func() {
		assert.Contains(t, recover(), `oracle: pattern "^(a+)+$" on a string of 41 bytes: match timeout`)
	}()
	re.MatchString(strings.Repeat("a", 40) + "b")
	t.Error("a match of exponential time ended")
}
