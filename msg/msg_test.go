package msg_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/msg"
)

func TestParseObject(t *testing.T) {
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
			o, err := msg.ParseObject([]byte(tc.in))
			if tc.want == "" {
				require.NoError(t, err)
				var back msg.Object
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
	_, err := msg.ParseObject([]byte(`{"a":{"b~":[0,{"c":1,"c":2}]}}`))
	var v *msg.Violation
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "/a/b~0/1/c", v.Path)
	assert.Equal(t, msg.RuleDuplicate, v.Rule)

	_, err = msg.ParseObject([]byte(`{"a":1,"a":2}`))
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "/a", v.Path)

	_, err = msg.NewObject(map[string]json.RawMessage{"x/y": json.RawMessage(`{"q":{"r":1,"r":2}}`)})
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "/x~1y/q/r", v.Path)
	assert.Equal(t, msg.RuleDuplicate, v.Rule)
}

func TestObjectKeepsTextAndOrder(t *testing.T) {
	const text = `{"z":null,"a":12345678901234567890.0,"m":{"n":[true]}}`
	o, err := msg.ParseObject([]byte(text))
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
	var zero msg.Object
	assert.Equal(t, "{}", zero.String())
	assert.Equal(t, 0, zero.Len())
	parsed, err := msg.ParseObject([]byte(`{}`))
	require.NoError(t, err)
	assert.Equal(t, zero, parsed)
}

func TestNewObject(t *testing.T) {
	o, err := msg.NewObject(map[string]json.RawMessage{"b": json.RawMessage(`null`), "a": json.RawMessage(`[1]`), "<&>": json.RawMessage(`"x"`)})
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
		_, err := msg.NewObject(members)
		assert.Error(t, err, name)
	}
}

func TestNullable(t *testing.T) {
	var absent msg.Nullable[string]
	assert.True(t, absent.IsAbsent())
	assert.False(t, absent.IsNull() || absent.IsPresent())

	null := msg.Null[string]()
	assert.True(t, null.IsNull())
	_, ok := null.Get()
	assert.False(t, ok)

	v := msg.Of("x")
	got, ok := v.Get()
	assert.True(t, ok && v.IsPresent())
	assert.Equal(t, "x", got)
	assert.Equal(t, "x", v.Value())
	assert.NotEqual(t, msg.Of(""), absent, "an empty value is not absent")
}

func TestErrorUnwrapsToEachViolation(t *testing.T) {
	first := &msg.Violation{Path: "/a", Rule: msg.RuleType, Message: "want a string, got null"}
	second := &msg.Violation{Path: "", Rule: msg.RuleRequired, Message: "required member is missing"}
	err := error(&msg.Error{Violations: []*msg.Violation{first, second}})
	assert.Equal(t, "/a: want a string, got null; (root): required member is missing", err.Error())
	var v *msg.Violation
	require.ErrorAs(t, err, &v)
	assert.Same(t, first, v)
	assert.ErrorIs(t, err, second)
	wrapped := fmt.Errorf("decoding: %w", err)
	var e *msg.Error
	require.ErrorAs(t, wrapped, &e)
	assert.Len(t, e.Violations, 2)
	assert.False(t, errors.Is(err, &msg.Violation{Path: "/a"}), "violations compare by identity")
}

func ExampleObject() {
	o, err := msg.ParseObject([]byte(`{"colour": "red", "fleet_number": null}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for name, value := range o.All() {
		fmt.Println(name, string(value))
	}
	fmt.Println(o)
	// Output:
	// colour "red"
	// fleet_number null
	// {"colour":"red","fleet_number":null}
}

// TestViolationJSON pins the JSON form of a violation, which msgcheck
// -json and the HTTP API report: value left out where none is at fault.
func TestViolationJSON(t *testing.T) {
	got, err := json.Marshal([]*msg.Violation{
		{Path: "/imei", Rule: msg.RuleIMEI, Message: "not an IMEI", Value: `"1"`},
		{Path: "/tenant_id", Rule: msg.RuleRequired, Message: "required member is missing"},
	})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"path":"/imei","rule":"imei","message":"not an IMEI","value":"\"1\""},`+
		`{"path":"/tenant_id","rule":"required","message":"required member is missing"}]`, string(got))
}

// TestScannerCausesNameRulesOfMsg pins that the rule names the scanner
// gives its causes are msg's rules.
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

// TestNullableInAStructOfOnesOwn pins the JSON of a Nullable in a struct
// that encoding/json handles: the three states survive a round trip when
// the field is tagged omitzero.
func TestNullableInAStructOfOnesOwn(t *testing.T) {
	type patch struct {
		Model msg.Nullable[string] `json:"model,omitzero"`
		Year  msg.Nullable[int]    `json:"year,omitzero"`
	}
	for _, tc := range []struct {
		p    patch
		want string
	}{
		{patch{}, `{}`},
		{patch{Model: msg.Null[string]()}, `{"model":null}`},
		{patch{Model: msg.Of("FMC130"), Year: msg.Of(2019)}, `{"model":"FMC130","year":2019}`},
		{patch{Model: msg.Of("")}, `{"model":""}`},
	} {
		data, err := json.Marshal(tc.p)
		require.NoError(t, err)
		assert.JSONEq(t, tc.want, string(data))
		var back patch
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, tc.p, back, tc.want)
	}
	var p patch
	assert.Error(t, json.Unmarshal([]byte(`{"year":"x"}`), &p))
}

func TestNullablePrintsWhatItHolds(t *testing.T) {
	assert.Equal(t, "absent", fmt.Sprint(msg.Nullable[string]{}))
	assert.Equal(t, "null", fmt.Sprint(msg.Null[string]()))
	assert.Equal(t, "FMC130", fmt.Sprint(msg.Of("FMC130")))
	assert.Equal(t, "{absent null 7}", fmt.Sprintf("%v", struct{ A, B, C msg.Nullable[int] }{msg.Nullable[int]{}, msg.Null[int](), msg.Of(7)}))
}

func TestViolationErrorIsOneLineWhateverItHolds(t *testing.T) {
	v := &msg.Violation{Path: "/a\nb\x1b[2K", Rule: msg.RuleDuplicate, Message: "got \"\u2028\xff\""}
	assert.Equal(t, `/a\x0ab\x1b[2K: got "\u2028\xff"`, v.Error())
	assert.Equal(t, "/a\nb\x1b[2K", v.Path, "the fields keep the text as it is")
}

func TestErrorSaysHowManyItOmits(t *testing.T) {
	e := &msg.Error{Violations: []*msg.Violation{{Path: "/a", Message: "bad"}}, Omitted: 2}
	assert.Equal(t, "/a: bad; ... and 2 more violations", e.Error())
	e.Omitted = 1
	assert.Equal(t, "/a: bad; ... and 1 more violation", e.Error())
}

func TestPointerEscapesTheName(t *testing.T) {
	assert.Equal(t, "/a~0b~1c", msg.Pointer("", "a~b/c"))
	assert.Equal(t, "/plain", msg.Pointer("", "plain"))
	assert.Equal(t, "/actor/id", msg.Pointer("/actor", "id"))
	assert.Equal(t, "/", msg.Pointer("", ""), "the empty name is a member too")
	assert.Equal(t, "/~01", msg.Pointer("", "~1"), "~ first, so that ~1 in a name is not read back as /")
}

// TestRulesDocListsEveryRule pins that doc/rules.md names every rule msg
// declares, and that msg.go declares each as a Rule constant: every rule
// of the library is declared there, in one block.
func TestRulesDocListsEveryRule(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "msg.go", nil, 0)
	require.NoError(t, err)
	var rules []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Rule" {
				s, err := strconv.Unquote(vs.Values[0].(*ast.BasicLit).Value)
				require.NoError(t, err)
				rules = append(rules, s)
			}
		}
	}
	require.Len(t, rules, 42, "the rules of msg.go")
	doc, err := os.ReadFile("../doc/rules.md")
	require.NoError(t, err)
	for _, r := range rules {
		assert.Contains(t, string(doc), "`"+r+"`", "doc/rules.md names rule %s", r)
	}
}
