package vocabulary_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/oracle"
	"github.com/fleetkit/catalogue/internal/vocabulary"
	"github.com/fleetkit/catalogue/internal/vocabulary/reading"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

const name, version = "demo.reading", "1.0"

var judge = mustOracle()

func mustOracle() *oracle.Oracle {
	c, err := schemas.Load(os.DirFS("../../testdata/fixture-vocabulary"))
	if err != nil {
		panic(err)
	}
	o, err := oracle.New(c)
	if err != nil {
		panic(err)
	}
	return o
}

// base is a message the schema accepts, member by member, in order.
var base = [][2]string{
	{"message_id", `"7c9e6679-7425-40de-944b-e07fc1f90ae7"`},
	{"time", `"2024-05-01T12:00:00Z"`},
	{"reading_id", `"0f8fad5b-d9cb-469f-a165-70867728950e"`},
	{"code", `"AB-123"`},
	{"value", `21.5`},
}

// values are the values the corpus gives each member, on and around each
// keyword's edge; "" stands for the member being absent.
var values = map[string][]string{
	"code":     {"", `"AB-12"`, `"AB-1234"`, `"ab-123"`, `"ZZ-000"`, `"AB_123"`, `5`, `"AB-12\u0663"`, `"AB-12\n"`, `"AB-123\n"`},
	"value":    {"", `-50`, `-50.0000000000000000001`, `150`, `150.0000000000000000001`, `1e2`, `-5e1`, `0.1`, `"1"`, `null`},
	"step":     {"", `0`, `5`, `5.0`, `7`, `995`, `1000`, `-5`, `1e3`, `2.5`},
	"ratio":    {"", `0`, `0.5`, `1`, `0.999999999999999999999`, `1e-30`, `-0.1`},
	"unit":     {"", `"celsius"`, `"kelvin"`, `""`, `null`},
	"level":    {"", `1`, `3`, `3.0`, `4`, `0`, `"1"`},
	"checked":  {"", `true`, `false`, `1`},
	"tags":     {"", `[]`, `["a"]`, `["a","b","c","d"]`, `["a","b","c","d","e"]`, `["a","a"]`, `["a","\u0061"]`, `[1]`},
	"samples":  {"", `[]`, `[1,"1",null]`, `[1,1.0]`, `[{"a":1,"b":2},{"b":2,"a":1}]`, `[[1],[1,0]]`, `[1,2,3,4]`},
	"note":     {"", `""`, `"all lower case"`, `"Upper"`, `"twenty one characters"`, `"ab\ncd"`, `"a\u00a0b"`, `"a\u2028b\ufeff"`, `"a\u3000\r\n"`, `"a\u200bb"`, `"a\u180e"`, `"\u0085"`},
	"limits":   {"", `{}`, `{"low":1}`, `{"high":2}`, `{"low":1,"high":2}`, `{"low":1,"other":2}`, `{"low":1.5}`},
	"station":  {"", `{}`, `{"name":""}`, `{"name":"x"}`, `{"name":"` + strings.Repeat("n", 31) + `"}`, `{"name":"x","more":1}`},
	"points":   {"", `[]`, `[{"x":0}]`, `[{"x":1,"label":"ab"},{"x":2}]`, `[{"x":-1}]`, `[{"label":"a"}]`, `[{"x":1,"label":"abcde"}]`, `[{"x":1,"y":2}]`, `[{"x":1},{"x":1},{"x":1},{"x":1}]`, `[1]`},
	"evens":    {"", `[]`, `[2,4,0,-2]`, `[3]`, `[2.0]`, `[2.5]`, `["2"]`},
	"setting":  {"", `"abc"`, `"abcd"`, `0`, `-1`, `1.0`, `1.5`, `{"mode":"x"}`, `{}`, `null`, `true`, `[]`},
	"retired":  {"", `null`, `1`, `{}`},
	"labels":   {"", `{}`, `{"abc":1}`, `{"abcdef":1}`, `{"aB":1}`, `{"Main":"x"}`, `{"abc":1,"Zed":2}`},
	"marker":   {"", `1`, `1.0`, `"one"`, `[1,{"a":2}]`, `[1, {"a": 2.0}]`, `[{"a":2},1]`, `{"b":[true]}`, `{"b":[false]}`, `null`, `2`},
	"shape":    {"", `[1,"x"]`, `[1.0,"x"]`, `["x",1]`, `[1]`, `"x"`},
	"scale":    {"", `1`, `1.0`, `2e1`, `20.0`, `0.5`, `2`, `"1"`},
	"cleared":  {"", `null`, `0`, `""`},
	"anything": {"", `null`, `[1,{"a":[]}]`, `"x"`},
	"band":     {"", `3`, `7`, `7.0`, `7.5`, `10.5`, `12`, `21`, `-1.5`, `"7"`, `null`},
	"reach":    {"", `0`, `-1`, `2.0`, `"abc"`, `"abcd"`, `null`, `true`, `1.5`, `[]`},
	"extras":   {"", `{}`, `{"id":1}`, `{"id":-1}`, `{"x-a":"abc"}`, `{"x-a":"abcd"}`, `{"x-n":"12"}`, `{"x-n":"1a"}`, `{"x-n":"\u0661\u0662"}`, `{"x-n":"12\n"}`, `{"x-n1":"1234"}`, `{"x-a":1}`, `{"other":true}`, `{"other":1}`, `{"other":true,"x-b":"b","id":0}`},
	"choice":   {"", `{}`, `{"a":1}`, `{"b":1}`, `{"a":1,"b":2}`, `{"a":"x"}`, `{"a":"x","b":1}`, `[]`},
	"grid":     {"", `[]`, `[[{"v":1}]]`, `[[]]`, `[[{"v":-1}]]`, `[[{"w":1}]]`, `[[{"v":1}],[{"v":2},{"v":0}]]`, `[[{"v":1}],[{"v":1}],[{"v":1}]]`, `[{"v":1}]`, `[[1]]`},
	"matrix":   {"", `[]`, `[[]]`, `[["a","b"],["a"]]`, `[["a","a"]]`, `[[1]]`, `["a"]`},
	"empty":    {"", `[]`, `[1]`, `[null]`, `[[]]`, `{}`},
	"unlike":   {"", `"abc"`, `"xab"`, `"abcde"`, `"x"`, `""`, `1`},
	"outside":  {"", `2`, `3`, `4.5`, `5`, `5.0`, `5.5`, `"4"`},
	"sign":     {"", `0`, `10`, `10.5`, `-5`, `-6`, `-0.5`, `"x"`},
	"hits":     {"", `[]`, `["a"]`, `["b"]`, `["a","ab"]`, `["a","a","a"]`, `[1,"a",null]`, `[{"a":1}]`, `["a\u2028"]`, `["a\r"]`, `["a\u0085"]`, `["a\ud83d\ude00"]`, `["abc"]`, `["é b é"]`, `["ébé"]`, `["_b"]`, `["a\n"]`},
	"shade":    {"", `"red"`, `"blue"`, `"green"`, `"greens"`, `"purple!"`, `1`},
	"needs":    {"", `{}`, `{"a":1}`, `{"a":1,"b":2}`, `{"c":1}`, `{"b":1}`, `[]`},
	"tagged":   {"", `{}`, `{"t1":1}`, `{"t1":null}`, `{"t1":"x"}`, `{"t1":1.5}`, `{"u":1}`, `{"t":1}`, `{"m1":6}`, `{"m1":"x"}`, `{"m1":5.5}`, `{"t123":1}`, `{"t12":1,"m":[]}`, `{"c1":1}`, `{"c1":1.0}`, `{"c1":2}`, `{"c1":"1"}`},
	"grade":    {"", `"ab"`, `"xyz"`, `"xa"`, `"abc"`, `"a@b.co"`, `"x@b.co"`, `""`, `1`},
}

// order is the order the corpus writes members in.
var order = []string{"message_id", "time", "reading_id", "code", "value", "step", "ratio", "unit", "level", "checked", "tags", "samples", "note", "limits", "station", "points", "evens", "setting", "retired", "labels", "marker", "shape", "scale", "cleared", "anything", "band", "grade", "reach", "extras", "choice", "grid", "matrix", "empty", "unlike", "outside", "sign", "hits", "shade", "needs", "tagged"}

// corpus is the base message changed in one member, and in every pair
// of members, in every way values lists.
var corpus = oracle.Corpus{Base: base, Values: values, Order: order}

// TestEveryKeywordAgreesWithTheOracle holds the generated type to the
// oracle on every message of the corpus: decoding accepts exactly what
// the schema does, a valid message passes Validate and re-encodes as one
// the schema accepts, and an invalid one is refused with an *msg.Error
// whose every violation names a rule of package msg.
func TestEveryKeywordAgreesWithTheOracle(t *testing.T) {
	k := vocabulary.Kinds.Lookup(name, version)
	require.NotNil(t, k)
	valid := 0
	rules := map[msg.Rule]bool{}
	for _, data := range corpus.Messages() {
		ok, err := judge.Hold(t, k, data)
		if ok {
			valid++
		}
		if e, isMsg := errors.AsType[*msg.Error](err); isMsg {
			for _, v := range e.Violations {
				rules[v.Rule] = true
			}
		}
	}
	t.Logf("%d messages, %d valid", len(corpus.Messages()), valid)
	assert.Greater(t, valid, 100)
	// Every keyword of the schema is seen breaking, under its own rule.
	for _, r := range []msg.Rule{msg.RulePattern, msg.RuleMinLength, msg.RuleMaxLength, msg.RuleMinimum, msg.RuleMaximum,
		msg.RuleExclusiveMinimum, msg.RuleExclusiveMaximum, msg.RuleMultipleOf, msg.RuleConst, msg.RuleEnum,
		msg.RuleMinItems, msg.RuleMaxItems, msg.RuleUniqueItems, msg.RuleAdditionalProperties,
		msg.RuleMinProperties, msg.RuleMaxProperties, msg.RuleDependentRequired, msg.RuleRequired, msg.RuleType, msg.RuleFalse, msg.RulePropertyNames, msg.RuleOneOf, msg.RuleAnyOf, msg.RuleNot, msg.RuleThen, msg.RuleElse, msg.RuleContains, msg.RuleMaxContains, msg.RuleDependentSchemas} {
		assert.True(t, rules[r], "no message of the corpus breaks rule %s", r)
	}
}

func FuzzVocabulary(f *testing.F) {
	for i, data := range corpus.Messages() {
		if i%16 == 0 {
			f.Add(data)
		}
	}
	k := vocabulary.Kinds.Lookup(name, version)
	f.Fuzz(func(t *testing.T, data []byte) {
		if oracle.HugeExponent(data) {
			return // the oracle's math/big would take minutes
		}
		want, why := judge.Verdict(name, version, data)
		if err := k.New().UnmarshalJSON(data); want != (err == nil) {
			t.Fatalf("%q: oracle says %v (%v), decoding says %v", data, want, why, err)
		}
	})
}

// TestUnionHoldsExactlyOne pins that a union member built by hand must
// hold exactly one value: Validate says so under the schema's keyword,
// and encoding one that holds none fails rather than write nothing.
func TestUnionHoldsExactlyOne(t *testing.T) {
	m, err := reading.Parse(corpus.With(map[string]string{"setting": `"ab"`}))
	require.NoError(t, err)
	require.NotNil(t, m.Setting)
	v, ok := m.Setting.Get()
	require.True(t, ok)
	require.NotNil(t, v.String)
	assert.Equal(t, "ab", *v.String)

	n := int64(2)
	v.Integer = &n
	m.Setting = msg.Of(v)
	var e *msg.Error
	require.ErrorAs(t, m.Validate(), &e)
	assert.Equal(t, msg.RuleOneOf, e.Violations[0].Rule)
	assert.Equal(t, "/setting", e.Violations[0].Path)

	m.Setting = msg.Of(reading.Setting{})
	require.ErrorAs(t, m.Validate(), &e)
	_, err = m.MarshalJSON()
	assert.ErrorContains(t, err, "holds no value")

	m.Setting = msg.Of(reading.Setting{Integer: &n})
	require.NoError(t, m.Validate())
	out, err := m.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(out), `"setting":2`)
}

// TestExtraMembersAreJudged pins that the members patternProperties and
// additionalProperties judge are kept in Extra and checked where they
// are, by decoding and, once set by hand, by Validate.
func TestExtraMembersAreJudged(t *testing.T) {
	for data, want := range map[string][2]string{
		`{"x-a":"abcd"}`:       {"/extras/x-a", string(msg.RuleMaxLength)},
		`{"x-n1":"1a"}`:        {"/extras/x-n1", string(msg.RulePattern)},
		`{"other":1}`:          {"/extras/other", string(msg.RuleType)},
		`{"id":-1}`:            {"/extras/id", string(msg.RuleMinimum)},
		`{"a/b~":1}`:           {"/extras/a~1b~0", string(msg.RuleType)},
		`{"x-n":"7","x-a":""}`: {"", ""},
	} {
		_, err := reading.Parse(corpus.With(map[string]string{"extras": data}))
		if want[0] == "" {
			assert.NoError(t, err, data)
			continue
		}
		var e *msg.Error
		require.ErrorAs(t, err, &e, data)
		require.Len(t, e.Violations, 1, "%s: %v", data, err)
		assert.Equal(t, want[0], e.Violations[0].Path, data)
		assert.Equal(t, msg.Rule(want[1]), e.Violations[0].Rule, data)
	}

	m, err := reading.Parse(corpus.With(map[string]string{"extras": `{"x-a":"ab"}`, "tagged": `{"t1":1}`}))
	require.NoError(t, err)
	assert.JSONEq(t, `"ab"`, string(m.Extras.Extra["x-a"]))
	m.Extras.Extra["x-a"] = []byte(`"abcd"`)
	m.Tagged.Extra["zz"] = []byte(`1`)
	m.Tagged.Extra["m1"] = []byte(`9`)
	var e *msg.Error
	require.ErrorAs(t, m.Validate(), &e)
	got := map[string]msg.Rule{}
	for _, v := range e.Violations {
		got[v.Path] = v.Rule
	}
	assert.Equal(t, map[string]msg.Rule{"/extras/x-a": msg.RuleMaxLength, "/tagged/zz": msg.RuleAdditionalProperties, "/tagged/m1": msg.RuleMaximum}, got)
}
