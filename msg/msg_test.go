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

	"github.com/fleetkit/catalogue/msg"
)

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
