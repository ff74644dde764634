package compat_test

import (
	"encoding/json"

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
		assertDecided(t, tc)
	}
}

// assertDecided compares the member pair of tc: the directions that hold
// are said to hold, nothing is refused, and the oracle confirms every
// witness.
func assertDecided(t *testing.T, tc holdCase) {
	t.Helper()
	old, new := memberPair(t, tc.old, tc.new)
	r := assertHolds(t, old, new, tc)
	for _, f := range r.Findings {
		assert.NotContains(t, refusals, f.Code, "%s", f)
	}
	newJudge(t, old, new).checkWitnesses(t, r)
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
		assertDecided(t, tc)
	}
}

// TestVocabularyFixtureIsCompared pins the checker on the fixture that
// uses every keyword the generator supports: a version compared with
// itself is compatible (what neither version changes is no difference,
// even where the checker does not decide the keyword), and a change to
// its propertyNames, additionalProperties or patternProperties is judged
// exactly, with witnesses the oracle confirms; a change to a keyword the
// checker does not decide is refused.
func TestVocabularyFixtureIsCompared(t *testing.T) {
	base := lookup(t, load(t, "../testdata/fixture-vocabulary"), "demo.reading", "1.0")
	doc := decode(t, base.JSON())
	change := func(member string, edit func(p obj)) obj {
		d := clone(doc).(obj)
		edit(d["properties"].(obj)[member].(obj))
		return d
	}
	for _, tc := range []struct {
		what              string
		new               obj
		backward, forward bool
		code              string
	}{
		{"unchanged", clone(doc).(obj), true, true, ""},
		{"propertyNames shorter", change("labels", func(p obj) { p["propertyNames"].(obj)["maxLength"] = json.Number("4") }), false, true, "property-names-narrowed"},
		{"propertyNames longer", change("labels", func(p obj) { p["propertyNames"].(obj)["maxLength"] = json.Number("6") }), true, false, "property-names-widened"},
		{"additionalProperties wider", change("extras", func(p obj) { p["additionalProperties"] = obj{"type": []any{"boolean", "string"}} }), true, false, "type-widened"},
		{"a pattern's schema narrower", change("extras", func(p obj) { p["patternProperties"].(obj)["^x-"].(obj)["maxLength"] = json.Number("2") }), false, false, "max-length-lowered"}, // and undecidable-composition where ^x-n meets it,
		{"not changed", change("unlike", func(p obj) { p["not"] = obj{"pattern": "^y"} }), false, false, "unknown-keyword"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			new := asSchema(t, "demo.reading", tc.new, "1.1")
			old := asSchema(t, "demo.reading", doc, "1.0")
			r, err := compat.Compare(old, new, compat.Options{})
			require.NoError(t, err)
			holds := holdsOf(r)
			assert.Equal(t, tc.backward, holds[compat.Backward], "%v", r.Findings)
			assert.Equal(t, tc.forward, holds[compat.Forward], "%v", r.Findings)
			if tc.code != "" {
				var got []string
				for _, f := range r.Findings {
					got = append(got, f.Code)
				}
				assert.Contains(t, got, tc.code, "%v", r.Findings)
			} else {
				assert.Empty(t, r.Findings)
			}
			newJudge(t, old, new).checkWitnesses(t, r)
		})
	}
}

// TestAddedConjunctsNarrow pins the keywords the checker does not decide
// where a version only adds them: not, if/then/else, contains and
// dependentSchemas added to an otherwise unchanged schema narrow it, so
// forward holds and is said to; backward is refused (unknown-keyword),
// never called compatible; a change beside them is refused both ways.
// The member is optional: where a message must carry it, the checker
// cannot build one without deciding the keyword, and refuses both ways.
func TestAddedConjunctsNarrow(t *testing.T) {
	for _, tc := range []struct {
		old, new string
		forward  bool
	}{
		{`{"type": "string", "maxLength": 4}`, `{"type": "string", "maxLength": 4, "not": {"pattern": "^x"}}`, true},
		{`{"type": "number"}`, `{"type": "number", "if": {"minimum": 0}, "then": {"maximum": 10}, "else": {"minimum": -5}}`, true},
		{`{"type": "array"}`, `{"type": "array", "contains": {"type": "string"}, "maxContains": 2}`, true},
		{`{"type": "object"}`, `{"type": "object", "dependentSchemas": {"a": {"required": ["b"]}}}`, true},
		{`{"type": "array", "contains": {"type": "string"}}`, `{"type": "array", "contains": {"type": "string"}, "minContains": 0}`, false},
		{`{"type": "string", "maxLength": 4}`, `{"type": "string", "maxLength": 5, "not": {"pattern": "^x"}}`, false},
	} {
		doc := func(member string) obj {
			return decode(t, []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "demo.sensor", "type": "object",
				"required": ["message_id"], "properties": {"message_id": {"type": "string", "format": "uuid"}, "a": `+member+`}}`))
		}
		old, new := asSchema(t, "demo.sensor", doc(tc.old), "1.0"), asSchema(t, "demo.sensor", doc(tc.new), "1.1")
		for _, mode := range []compat.Mode{compat.Forward, compat.Backward} {
			r, err := compat.Compare(old, new, compat.Options{Mode: mode})
			require.NoError(t, err)
			want := mode == compat.Forward && tc.forward
			assert.Equal(t, want, r.Compatible(), "%s: %s -> %s: %v", mode, tc.old, tc.new, r.Findings)
			newJudge(t, old, new).checkWitnesses(t, r)
		}
	}
}
