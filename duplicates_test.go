package catalogue_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/vehicle"
)

// TestRepeatIsReportedAtTheRepeatedMember pins that a member name
// repeated inside a nested object is reported at the repeated member
// (/zz/a), not at the value that holds it (/zz), at any depth, through
// arrays, with names that need escaping in a JSON Pointer, in free-form
// objects and in members the schema does not declare; and at /name at
// the top level.
func TestRepeatIsReportedAtTheRepeatedMember(t *testing.T) {
	vehicleSeed := validSeeds(t, "core.vehicle")[0]
	eventSeed := validSeeds(t, "example.event")[0]
	var many strings.Builder
	for i := range 100 {
		fmt.Fprintf(&many, `"k%d":%d,`, i, i)
	}
	for _, tc := range []struct {
		schema string
		data   []byte
		want   string
	}{
		{"core.vehicle", withMember(vehicleSeed, "zz", `{"a":1,"a":2}`), "/zz/a"},
		{"core.vehicle", withMember(vehicleSeed, "zz", `[0,{"b":{"a/b":1,"a\/b":2}}]`), "/zz/1/b/a~1b"},
		{"core.vehicle", withMember(vehicleSeed, "meta", `{"k":1,"k":2}`), "/meta/k"},
		{"core.vehicle", withMember(vehicleSeed, "meta", `{"k":{"a~":1,"\u0061~":2}}`), "/meta/k/a~0"},
		{"core.vehicle", withMember(vehicleSeed, "meta", `{`+many.String()+`"k57":0}`), "/meta/k57"},
		{"core.vehicle", withMember(vehicleSeed, "specification", `{"x":[[{"y":{"z":1,"z":2}}]]}`), "/specification/x/0/0/y/z"},
		{"core.vehicle", []byte(strings.Replace(string(withMember(vehicleSeed, "zz", `1`)), `}`, `,"zz":2}`, 1)), "/zz"},
		{"example.event", withMember(eventSeed, "zz", `{"q":{"a":1},"r":{"a":1,"a":2}}`), "/zz/r/a"},
		{"example.event", withMember(eventSeed, "actor", `{"name":"n","x":{"a":1,"a":2}}`), "/actor/x/a"},
	} {
		_, err := decode(t, tc.schema, tc.data)
		var e *msg.Error
		require.True(t, errors.As(err, &e), "%s: %v", tc.data, err)
		var paths []string
		for _, v := range e.Violations {
			if v.Rule == msg.RuleDuplicate {
				paths = append(paths, v.Path)
			}
		}
		assert.Equal(t, []string{tc.want}, paths, "%s", tc.data)
	}
}

// TestValidateReportsRepeatAtTheRepeatedMember pins the same for a
// message built in Go whose extra member holds a repeated name.
func TestValidateReportsRepeatAtTheRepeatedMember(t *testing.T) {
	var v vehicle.Vehicle
	require.NoError(t, json.Unmarshal(validSeeds(t, "core.vehicle")[0], &v))
	v.Extra = map[string]json.RawMessage{"x/y": json.RawMessage(`[{"a":1},{"b":{"c":1,"c":2}}]`)}
	var e *msg.Error
	require.ErrorAs(t, v.Validate(), &e)
	require.Len(t, e.Violations, 1)
	assert.Equal(t, "/x~1y/1/b/c", e.Violations[0].Path)
	assert.Equal(t, msg.RuleDuplicate, e.Violations[0].Rule)
	assert.Contains(t, e.Violations[0].Message, `duplicate member name "c"`)
}
