package object_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/object"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // in the error; "" for valid
	}{
		{`{}`, ""},
		{` {"a":null, "b":[1e400,{"c":-0.5}], "é":"\u00e9"} `, ""},
		{`{"a":1,"a":2}`, "duplicate member name"},
		{`{"a":{"b":1,"b":2}}`, "duplicate member name"},
		{`{"a":"\ud800"}`, "lone surrogate"},
		{"{\"a\":\"\xff\"}", "invalid UTF-8"},
		{`{"a":1,}`, "trailing comma"},
		{`{"a":1} x`, "after the document"},
		{`[1]`, "want an object"},
		{`null`, "want an object"},
		{``, "want an object, got nothing"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			o, err := object.Parse([]byte(tc.in))
			if tc.want == "" {
				require.NoError(t, err)
				var back object.Object
				require.NoError(t, json.Unmarshal([]byte(o.String()), &back))
				assert.Equal(t, o, back)
				return
			}
			var v *msg.Violation
			require.ErrorAs(t, err, &v)
			assert.Contains(t, v.Message, tc.want)
		})
	}
}

// TestObjectRepeatIsReportedAtTheRepeatedMember pins that a repeated
// name in an Object is reported at the repeated member, as decoding
// reports it, whether the Object is parsed or built from members.
func TestObjectRepeatIsReportedAtTheRepeatedMember(t *testing.T) {
	_, err := object.Parse([]byte(`{"a":{"b~":[0,{"c":1,"c":2}]}}`))
	var v *msg.Violation
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "/a/b~0/1/c", v.Path)
	assert.Equal(t, msg.RuleDuplicate, v.Rule)

	_, err = object.Parse([]byte(`{"a":1,"a":2}`))
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "/a", v.Path)

	_, err = object.New(map[string]json.RawMessage{"x/y": json.RawMessage(`{"q":{"r":1,"r":2}}`)})
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "/x~1y/q/r", v.Path)
	assert.Equal(t, msg.RuleDuplicate, v.Rule)
}

func TestObjectKeepsTextAndOrder(t *testing.T) {
	const text = `{"z":null,"a":12345678901234567890.0,"m":{"n":[true]}}`
	o, err := object.Parse([]byte(text))
	require.NoError(t, err)
	assert.Equal(t, text, o.String())
	out, err := json.Marshal(o)
	require.NoError(t, err)
	assert.Equal(t, text, string(out))

	var names []string
	for name, value := range o.All() {
		names = append(names, name+"="+string(value))
	}
	assert.Equal(t, []string{"z=null", "a=12345678901234567890.0", `m={"n":[true]}`}, names)
	assert.Equal(t, 3, o.Len())
	v, ok := o.Get("z")
	assert.True(t, ok)
	assert.Equal(t, "null", string(v))
	_, ok = o.Get("missing")
	assert.False(t, ok)
	assert.Len(t, o.Map(), 3)

	v[0] = 'X' // the caller's copy
	again, _ := o.Get("z")
	assert.Equal(t, "null", string(again), "values returned are copies")
}

func TestZeroObjectIsEmpty(t *testing.T) {
	var zero object.Object
	assert.Equal(t, "{}", zero.String())
	assert.Equal(t, 0, zero.Len())
	parsed, err := object.Parse([]byte(`{}`))
	require.NoError(t, err)
	assert.Equal(t, zero, parsed)
}

func TestNew(t *testing.T) {
	o, err := object.New(map[string]json.RawMessage{"b": json.RawMessage(`null`), "a": json.RawMessage(`[1]`), "<&>": json.RawMessage(`"x"`)})
	require.NoError(t, err)
	assert.Equal(t, `{"\u003c\u0026\u003e":"x","a":[1],"b":null}`, o.String())
	got, _ := o.Get("<&>")
	assert.Equal(t, `"x"`, string(got))

	for name, members := range map[string]map[string]json.RawMessage{
		"empty value":      {"a": nil},
		"malformed value":  {"a": json.RawMessage(`{`)},
		"repeat inside":    {"a": json.RawMessage(`{"k":1,"k":2}`)},
		"invalid UTF-8":    {"\xff": json.RawMessage(`1`)},
		"value with trail": {"a": json.RawMessage(`1 2`)},
	} {
		_, err := object.New(members)
		assert.Error(t, err, name)
	}
}

// TestScannerCausesNameRulesOfMsg pins that the rule names the scanner
// gives its causes, which Parse reports, are msg's rules.
func TestScannerCausesNameRulesOfMsg(t *testing.T) {
	for cause, want := range map[jsontext.Cause]msg.Rule{
		jsontext.CauseSyntax:    msg.RuleSyntax,
		jsontext.CauseDuplicate: msg.RuleDuplicate,
		jsontext.CauseDepth:     msg.RuleDepth,
	} {
		if got := msg.Rule(cause.Rule()); got != want {
			t.Errorf("cause %d: rule %q, want %q", cause, got, want)
		}
	}
}
