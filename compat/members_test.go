package compat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/compat"
)

// TestUndeclaredMembersAreComparedByRegion pins additionalProperties as a
// schema and patternProperties: the names neither version declares are
// compared region by region (which patterns match them), each region's
// schemas as a member's; the direction that holds is said to hold, and
// the other breaks with a witness the oracle confirms.
func TestUndeclaredMembersAreComparedByRegion(t *testing.T) {
	obj := func(rest string) string {
		return `{"type": "object", "properties": {"id": {"type": "string"}}` + rest + `}`
	}
	for _, tc := range []holdCase{
		// additionalProperties as a schema, against open and closed.
		{obj(``), obj(`, "additionalProperties": {"type": "string"}`), false, true},
		{obj(`, "additionalProperties": {"type": "string"}`), obj(``), true, false},
		{obj(`, "additionalProperties": {"type": "string"}`), obj(`, "additionalProperties": false`), false, true},
		{obj(`, "additionalProperties": false`), obj(`, "additionalProperties": {"type": "string"}`), true, false},
		{obj(`, "additionalProperties": {"type": "string"}`), obj(`, "additionalProperties": {"type": "string", "maxLength": 3}`), false, true},
		{obj(`, "additionalProperties": {"type": "string"}`), obj(`, "additionalProperties": {"type": "string", "description": "x"}`), true, true},
		{obj(`, "additionalProperties": {"type": "boolean"}`), obj(`, "additionalProperties": {"type": "string"}`), false, false},
		// patternProperties: the regions the patterns cut.
		{obj(`, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false`), obj(`, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false`), true, true},
		{obj(`, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false`), obj(`, "patternProperties": {"^x-[a-z]+$": {"type": "string"}}, "additionalProperties": false`), false, true},
		{obj(`, "patternProperties": {"^x-[a-z]+$": {"type": "string"}}, "additionalProperties": false`), obj(`, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false`), true, false},
		{obj(`, "patternProperties": {"^x-": {"type": "string"}}`), obj(`, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "boolean"}`), false, true},
		{obj(`, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "boolean"}`), obj(`, "patternProperties": {"^x-": {"type": "string"}, "^y-": {"type": "boolean"}}, "additionalProperties": {"type": "boolean"}`), true, true},
		{obj(`, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "boolean"}`), obj(`, "patternProperties": {"^x-": {"type": "boolean"}}, "additionalProperties": {"type": "boolean"}`), false, false},
		{obj(`, "patternProperties": {"^[A-Z]+$": {"type": "boolean"}}, "additionalProperties": false`), obj(`, "patternProperties": {"^[A-C][A-Z]*$": {"type": "boolean"}, "^[D-Z][A-Z]*$": {"type": "boolean"}}, "additionalProperties": false`), true, true},
		{obj(`, "patternProperties": {"^[A-Z]+$": {"type": "boolean"}}, "additionalProperties": false`), obj(`, "patternProperties": {"^[A-C]+$": {"type": "boolean"}, "^[D-Z][A-Z]*$": {"type": "boolean"}}, "additionalProperties": false`), false, true},
		{obj(`, "patternProperties": {"^[A-Z]+$": {"type": "number", "minimum": 0}}`), obj(`, "patternProperties": {"^[A-Z]+$": {"type": "number", "minimum": 1}}`), false, true},
		{obj(`, "patternProperties": {"^x-": {"type": "string"}}`), obj(`, "patternProperties": {"x": {"type": "string"}}`), false, true},
	} {
		old, new := memberPair(t, tc.old, tc.new)
		r := assertHolds(t, old, new, tc)
		for _, f := range r.Findings {
			assert.NotContains(t, []string{"undecidable-pattern", "undecidable-composition", "unknown-keyword"}, f.Code, "%s", f)
		}
		newJudge(t, old, new).checkWitnesses(t, r)
	}
}

// TestUndeclaredMembersRefuseWhatIsNotDecided pins the refusals: a
// pattern that is not regular, two patterns of one version that meet
// (their schemas together), and a pattern that matches a declared name.
func TestUndeclaredMembersRefuseWhatIsNotDecided(t *testing.T) {
	for _, tc := range []struct{ old, new, code string }{
		{`{"type": "object", "patternProperties": {"^(a)\\1$": {"type": "string"}}}`, `{"type": "object"}`, "undecidable-pattern"},
		{`{"type": "object", "patternProperties": {"^a": {"type": "string"}, "b$": {"maxLength": 3}}}`, `{"type": "object", "patternProperties": {"^a": {"type": "string"}}}`, "undecidable-composition"},
		{`{"type": "object", "properties": {"ab": {"type": "string"}}, "patternProperties": {"^a": {"type": "string"}}}`, `{"type": "object", "properties": {"ab": {"type": "string"}}}`, "undecidable-pattern"},
	} {
		old, new := memberPair(t, tc.old, tc.new)
		r, err := compat.Compare(old, new, compat.Options{})
		require.NoError(t, err)
		assert.False(t, r.Compatible(), "%s -> %s", tc.old, tc.new)
		var got []string
		for _, f := range r.Findings {
			got = append(got, f.Code)
		}
		assert.Contains(t, got, tc.code, "%s -> %s: %v", tc.old, tc.new, r.Findings)
	}
}

// TestPropertyNamesAreComparedAsStrings pins propertyNames: compared as a
// schema of strings over the names, the direction that holds said to
// hold, the other broken with a message whose member has a name one
// version allows and the other does not, confirmed by the oracle.
func TestPropertyNamesAreComparedAsStrings(t *testing.T) {
	obj := func(rest string) string {
		return `{"type": "object", "properties": {"id": {"type": "string"}}` + rest + `}`
	}
	for _, tc := range []holdCase{
		{obj(``), obj(`, "propertyNames": {"maxLength": 4}`), false, true},
		{obj(`, "propertyNames": {"maxLength": 4}`), obj(``), true, false},
		{obj(`, "propertyNames": {"maxLength": 4}`), obj(`, "propertyNames": {"maxLength": 3}`), false, true},
		{obj(`, "propertyNames": {"pattern": "^[a-z]+$"}`), obj(`, "propertyNames": {"pattern": "^[a-z]*$", "minLength": 1}`), true, true},
		{obj(`, "propertyNames": {"pattern": "^[a-z]+$"}`), obj(`, "propertyNames": {"pattern": "^[a-z_]+$"}`), true, false},
		{obj(`, "propertyNames": {"pattern": "^[a-z]+$"}`), obj(`, "propertyNames": {"pattern": "^[a-z]+$", "description": "x"}`), true, true},
		{obj(`, "propertyNames": {"pattern": "^[a-z]+$"}, "additionalProperties": false`), obj(`, "propertyNames": {"enum": ["id", "other"]}, "additionalProperties": false`), true, true},
		{obj(`, "propertyNames": {"pattern": "^[a-z]+$"}`), obj(`, "propertyNames": {"enum": ["id", "other"]}`), false, true},
		{obj(`, "propertyNames": {"const": "id"}`), obj(`, "propertyNames": {"enum": ["id", "other"]}`), true, false},
		{obj(`, "propertyNames": {"maxLength": 1}`), obj(`, "propertyNames": {"maxLength": 2}`), true, false},
	} {
		old, new := memberPair(t, tc.old, tc.new)
		r := assertHolds(t, old, new, tc)
		for _, f := range r.Findings {
			assert.NotContains(t, []string{"undecidable-pattern", "undecidable-property-names", "unknown-keyword"}, f.Code, "%s", f)
		}
		newJudge(t, old, new).checkWitnesses(t, r)
	}
}
