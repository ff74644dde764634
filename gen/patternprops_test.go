package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPatternAndAdditionalProperties pins how an object's
// patternProperties and additionalProperties schema are read: a declared
// member whose name a pattern matches is held to both schemas, merged;
// each pattern is compiled as its ECMA-262 meaning; an untyped value
// schema is a union of every type; a value schema the checks cannot run
// is refused by path.
func TestPatternAndAdditionalProperties(t *testing.T) {
	sf, err := build(testSchema(t, `{"a": {"type": "object",
		"properties": {"foo": {"type": "integer", "maximum": 5}},
		"patternProperties": {"^f": {"minimum": 1}, "\\d$": {"type": "string"}},
		"additionalProperties": {"type": "boolean"}}}`))
	require.NoError(t, err)
	m := sf.Root.Fields[2].Object
	require.NotNil(t, m)
	foo := m.Fields[0]
	assert.Equal(t, kindInt, foo.Kind)
	assert.Equal(t, int64(1), *foo.Min, "the pattern's minimum is merged into the declared member")
	assert.Equal(t, int64(5), *foo.Max)
	require.Len(t, m.Extras, 2)
	assert.Equal(t, kindUnion, m.Extras[0].Value.Kind, "an untyped value schema is a union of every type")
	assert.Equal(t, `\d$`, m.Extras[1].Pattern)
	assert.Equal(t, `\d$`, m.Extras[1].RE2, "ECMA-262's \\d, ASCII digits, as Go's is")
	assert.Equal(t, kindString, m.Extras[1].Value.Kind)
	require.NotNil(t, m.Additional)
	assert.Equal(t, kindBool, m.Additional.Value.Kind)
	assert.False(t, m.Closed)

	sf, err = build(testSchema(t, `{"a": {"type": "object", "patternProperties": {"^x": true}, "additionalProperties": {"unevaluatedProperties": false}}}`))
	assert.ErrorContains(t, err, `keyword "unevaluatedProperties"`)
	assert.Nil(t, sf)

	for props, want := range map[string]string{
		`{"a": {"type": "object", "patternProperties": {"(a)\\1": {"type": "string"}}}}`:                          `/a/patternProperties/(a)\1: pattern`,
		`{"a": {"type": "object", "patternProperties": {"^x": {"type": "array", "items": {"type": "integer"}}}}}`: `/a/patternProperties/^x: a value of kind array of items`,
		`{"a": {"type": "object", "additionalProperties": {"type": "string", "enum": ["x"]}}}`:                    `/a/additionalProperties: a value of kind enum`,
	} {
		_, err := build(testSchema(t, props))
		assert.ErrorContains(t, err, want, props)
	}
}

// TestRefusesAnUnknownDialect pins that a schema whose $schema is a
// metaschema of its own, which may leave out vocabularies and so change
// what each keyword means, is refused.
func TestRefusesAnUnknownDialect(t *testing.T) {
	_, err := newBuilder(input{Data: []byte(`{"$schema": "http://localhost:1234/meta.json"}`)})
	assert.ErrorContains(t, err, `$schema "http://localhost:1234/meta.json"`)
	for _, d := range []string{"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema", ""} {
		_, err := newBuilder(input{Data: []byte(`{"$schema": "` + d + `"}`)})
		assert.NoError(t, err, d)
	}
}
