package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCasesBesideAType pins how a oneOf or an anyOf beside a type is
// read: the member keeps its kind, each branch becomes a case of that
// kind (integer under number as a multiple of 1, another type as no
// value), and what a case cannot check is refused by keyword and path.
func TestCasesBesideAType(t *testing.T) {
	sf, err := build(testSchema(t, `{"a": {"type": "number", "oneOf": [{"type": "integer"}, {"minimum": 2}, {"type": "string"}, false]}}`))
	require.NoError(t, err)
	f := sf.Root.Fields[2]
	assert.Equal(t, kindNumber, f.Kind)
	require.Len(t, f.Cases, 1)
	cs := f.Cases[0]
	assert.Equal(t, "oneOf", cs.Rule)
	require.Len(t, cs.Cases, 4)
	assert.Equal(t, kindNumber, cs.Cases[0].Kind)
	assert.Equal(t, "1", cs.Cases[0].Factor)
	assert.Equal(t, "2", cs.Cases[1].NumMin)
	assert.Equal(t, kindNever, cs.Cases[2].Kind)
	assert.Equal(t, kindNever, cs.Cases[3].Kind)
	assert.Contains(t, f.doc(), "Exactly one of the 4 schemas of its oneOf accepts it: (1) a multiple of 1; (2) at least 2; (3) no value; (4) no value.")

	for props, want := range map[string]string{
		`{"a": {"type": "object", "oneOf": [{"required": ["b"]}, {"required": ["c"]}]}}`:                                 "",
		`{"a": {"type": "object", "oneOf": [{"properties": {"b": {"type": "object", "required": ["c"]}}}]}}`:             "/a/oneOf/0/properties/b: a member of kind object in a schema of a oneOf",
		`{"a": {"type": "array", "oneOf": [{"items": {"type": "integer"}}]}}`:                                            "/a/oneOf/0: a schema of kind array of items beside type array",
		`{"a": {"type": "string", "anyOf": [{"enum": ["x"]}]}}`:                                                          "",
		`{"a": {"type": ["string", "null"], "anyOf": [{"maxLength": 1}]}}`:                                               "/a: anyOf beside a member of kind string, or a nullable one",
		`{"a": {"type": "integer", "oneOf": [{"maximum": 3}, {"minimum": 1}], "default": 2}}`:                            "/a: default 2 breaks the member's own schema: oneOf",
		`{"a": {"type": "integer", "oneOf": [{"maximum": 3}, {"minimum": 1}], "anyOf": [{"maximum": 0}], "default": 0}}`: "",
		`{"a": {"type": "null", "oneOf": [{"oneOf": [{"type": "null"}]}]}}`:                                              "",
	} {
		_, err := build(testSchema(t, props))
		if want == "" {
			assert.NoError(t, err, props)
			continue
		}
		assert.ErrorContains(t, err, want, props)
	}
}

// TestTypeListIsAUnion pins that a list of types is a union of one
// branch per type, each keyword applying to the branch of its type, and
// that integer beside number is the number branch alone.
func TestTypeListIsAUnion(t *testing.T) {
	sf, err := build(testSchema(t, `{"a": {"type": ["integer", "string", "null"], "minimum": 0, "maxLength": 3}}`))
	require.NoError(t, err)
	f := sf.Root.Fields[2]
	assert.Equal(t, kindUnion, f.Kind)
	assert.Equal(t, "type", f.Union)
	assert.True(t, f.Nullable)
	require.Len(t, f.Branches, 2)
	assert.Equal(t, kindInt, f.Branches[0].Kind)
	assert.Equal(t, int64(0), *f.Branches[0].Min)
	assert.Nil(t, f.Branches[0].MaxLength)
	assert.Equal(t, kindString, f.Branches[1].Kind)
	assert.Equal(t, 3, *f.Branches[1].MaxLength)
	assert.Nil(t, f.Branches[1].Min)

	sf, err = build(testSchema(t, `{"a": {"type": ["integer", "number", "boolean"]}}`))
	require.NoError(t, err)
	f = sf.Root.Fields[2]
	require.Len(t, f.Branches, 2)
	assert.Equal(t, kindNumber, f.Branches[0].Kind)
	assert.Equal(t, kindBool, f.Branches[1].Kind)
}

// TestArraysOfArrays pins that items may be arrays themselves, to any
// depth, their objects named after the member, one Item per level.
func TestArraysOfArrays(t *testing.T) {
	sf, err := build(testSchema(t, `{"a": {"type": "array", "items": {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "string"}}}}}}`))
	require.NoError(t, err)
	f := sf.Root.Fields[2]
	assert.Equal(t, "[][]AItemItem", f.goType())
	require.NotNil(t, f.Item.Item.Object)
	assert.Equal(t, "/a/*/*", f.Item.Item.Object.Path)
	assert.Contains(t, sf.Root.Nested, f.Item.Item.Object)
}

// TestNotBesideAType pins that a not is a case its value must fail, and
// that a default it accepts is refused.
func TestNotBesideAType(t *testing.T) {
	sf, err := build(testSchema(t, `{"a": {"type": "string", "not": {"maxLength": 2}}}`))
	require.NoError(t, err)
	f := sf.Root.Fields[2]
	require.Len(t, f.Cases, 1)
	assert.Equal(t, "not", f.Cases[0].Rule)
	assert.Equal(t, 2, *f.Cases[0].Cases[0].MaxLength)
	assert.Contains(t, f.doc(), "Its not's schema must refuse it: (1) at most 2 characters.")

	_, err = build(testSchema(t, `{"a": {"type": "string", "not": {"maxLength": 2}, "default": "ab"}}`))
	assert.ErrorContains(t, err, `/a: default "ab" breaks the member's own schema: not`)
	_, err = build(testSchema(t, `{"a": {"type": "string", "not": {"maxLength": 2}, "default": "abc"}}`))
	assert.NoError(t, err)
}

// TestIfThenElseBesideAType pins that an if, then and else become one
// conditional, that then or else alone asserts nothing, that a default
// is held to the branch its if picks, and that a conditional spread over
// an allOf's branches is refused.
func TestIfThenElseBesideAType(t *testing.T) {
	sf, err := build(testSchema(t, `{"a": {"type": "integer", "if": {"minimum": 0}, "then": {"maximum": 9}}}`))
	require.NoError(t, err)
	f := sf.Root.Fields[2]
	require.Len(t, f.Cases, 1)
	cs := f.Cases[0]
	assert.Equal(t, "if", cs.Rule)
	assert.Equal(t, int64(0), *cs.Cases[0].Min)
	assert.Equal(t, int64(9), *cs.Cases[1].Max)
	assert.Nil(t, cs.Cases[2])
	assert.Contains(t, f.doc(), "If its if's schema accepts it (at least 0), its then's must (at most 9); if not, its else's (any value).")

	sf, err = build(testSchema(t, `{"a": {"type": "integer", "then": {"maximum": 9}}}`))
	require.NoError(t, err)
	assert.Empty(t, sf.Root.Fields[2].Cases)

	_, err = build(testSchema(t, `{"a": {"type": "integer", "if": {"minimum": 0}, "then": {"maximum": 9}, "default": 10}}`))
	assert.ErrorContains(t, err, "default 10 breaks the member's own schema: if")
	_, err = build(testSchema(t, `{"a": {"type": "integer", "if": {"minimum": 0}, "then": {"maximum": 9}, "default": -10}}`))
	assert.NoError(t, err)
	_, err = build(testSchema(t, `{"a": {"type": "integer", "allOf": [{"if": {"minimum": 0}}, {"then": {"maximum": 9}}]}}`))
	assert.ErrorContains(t, err, "if, then or else in several branches")
}

// TestContains pins how contains is read: its schema checks an item's
// text, minContains is 1 unless given, and draft 7 has no bounds.
func TestContains(t *testing.T) {
	sf, err := build(testSchema(t, `{"a": {"type": "array", "contains": {"type": "string"}, "minContains": 2, "maxContains": 3}}`))
	require.NoError(t, err)
	f := sf.Root.Fields[2]
	require.NotNil(t, f.Contains)
	assert.Equal(t, kindString, f.Contains.Value.Kind)
	// testSchema is draft 7, which knows neither bound.
	assert.Equal(t, 1, f.MinContains)
	assert.Equal(t, -1, f.MaxContains)
	assert.Contains(t, f.doc(), "At least 1 of its items must be a string (contains).")
}

// TestDependentSchemas pins that dependentSchemas judges a free object,
// a case per member in the schema's order, and is refused on an object
// of declared members.
func TestDependentSchemas(t *testing.T) {
	sf, err := build(testSchema(t, `{"a": {"type": "object", "dependentSchemas": {"z": {"required": ["y"]}, "b": false}}}`))
	require.NoError(t, err)
	f := sf.Root.Fields[2]
	require.Len(t, f.Cases, 1)
	assert.Equal(t, []string{"z", "b"}, f.Cases[0].Members)
	assert.Equal(t, kindObject, f.Cases[0].Cases[0].Kind)
	assert.Equal(t, kindNever, f.Cases[0].Cases[1].Kind)
	_, err = build(testSchema(t, `{"a": {"type": "object", "properties": {"z": {}}, "dependentSchemas": {"z": {"required": ["y"]}}}}`))
	assert.ErrorContains(t, err, "/a: dependentSchemas beside a member of kind object")
}
