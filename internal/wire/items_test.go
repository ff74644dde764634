package wire

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/msg"
)

// TestEqualForm pins JSON Schema's equality of values: numbers by value,
// strings by their characters, objects whatever their member order.
func TestEqualForm(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		equal bool
	}{
		{`1`, `1.0`, true},
		{`1`, `1e0`, true},
		{`10`, `1e1`, true},
		{`0.015`, `1.5e-2`, true},
		{`-0`, `0`, true},
		{`0.0`, `0e5`, true},
		{`1`, `-1`, false},
		{`1.5`, `15`, false},
		{`100`, `1e2`, true},
		{`1e400`, `10e399`, true},
		{`"A"`, `"\u0041"`, true},
		{`"\ud83d\ude00"`, `"😀"`, true},
		{`"a/b"`, `"a\/b"`, true},
		{`"\b\f\n\r\t\"\\"`, `"\u0008\u000C\u000a\u000d\u0009\u0022\u005c"`, true},
		{`{"\u00e9":"\n"}`, `{"é":"\u000a"}`, true},
		{`"a"`, `"b"`, false},
		{`{"a":1,"b":[1,2]}`, `{"b":[1.0,2e0],"a":1}`, true},
		{`{"a":1}`, `{"a":1,"b":1}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`["ab","c"]`, `["a","bc"]`, false},
		{`null`, `false`, false},
		{`true`, `1`, false},
		{`[]`, `{}`, false},
		{`{"a":"b"}`, `{"ab":""}`, false},
	} {
		a, b := equalForm(nil, []byte(tc.a)), equalForm(nil, []byte(tc.b))
		assert.Equal(t, tc.equal, string(a) == string(b), "%s and %s: forms %q and %q", tc.a, tc.b, a, b)
	}
}

// TestUnique pins that both checks find the first repeated item, in a
// short array and in one long enough to go through a map.
func TestUnique(t *testing.T) {
	for _, n := range []int{5, 100} {
		strs := make([]string, n)
		raws := make([]json.RawMessage, n)
		for i := range strs {
			strs[i] = strconv.Itoa(i)
			raws[i] = json.RawMessage(`{"n":` + strconv.Itoa(i) + `}`)
		}
		var e Errors
		e.UniqueStrings("", "/a", strs)
		e.UniqueRaw("", "/a", raws)
		require.NoError(t, e.Err(), n)
		strs[n-1] = strs[2]
		raws[n-1] = json.RawMessage(`{ "n" : 2.0 }`)
		e.UniqueStrings("", "/a", strs)
		e.UniqueRaw("", "/a", raws)
		var got *msg.Error
		require.ErrorAs(t, e.Err(), &got)
		require.Len(t, got.Violations, 2)
		for _, v := range got.Violations {
			assert.Equal(t, msg.RuleUniqueItems, v.Rule)
			assert.Equal(t, "want unique items, got items 2 and "+strconv.Itoa(n-1)+" equal", v.Message)
		}
	}
}

// TestEqualFormOfAWideObjectIsNotQuadratic compares two objects of
// 100,000 members in opposite orders: equal, and in time a sort takes,
// where sorting the members by insertion would take minutes.
func TestEqualFormOfAWideObjectIsNotQuadratic(t *testing.T) {
	var a, b []byte
	a, b = append(a, '{'), append(b, '{')
	const n = 100000
	for i := range n {
		if i > 0 {
			a, b = append(a, ','), append(b, ',')
		}
		a = append(a, `"k`+strconv.Itoa(i)+`":1`...)
		b = append(b, `"k`+strconv.Itoa(n-1-i)+`":1.0`...)
	}
	a, b = append(a, '}'), append(b, '}')
	var e Errors
	e.UniqueRaw("", "/a", []json.RawMessage{a, b})
	require.Error(t, e.Err(), "the two objects are equal")
}
