package compat_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/schemas"
)

// published returns the published schema's document, to change.
func published(t *testing.T, name string) obj {
	t.Helper()
	s, err := schemas.Lookup(name, "1.0")
	require.NoError(t, err)
	return decode(t, s.JSON())
}

// prop returns the schema of the member at the slash-separated path.
func prop(doc obj, path string) obj {
	p := doc
	for _, name := range strings.Split(path, "/") {
		p = p["properties"].(obj)[name].(obj)
	}
	return p
}

// changed compares the published schema with a copy changed by edit.
func changed(t *testing.T, name string, edit func(doc obj), opt compat.Options) (*compat.Report, schemas.Schema, schemas.Schema) {
	t.Helper()
	doc := published(t, name)
	old := asSchema(t, name, doc, "1.0")
	edit(doc)
	new := asSchema(t, name, doc, "1.1")
	r, err := compat.Compare(old, new, opt)
	require.NoError(t, err)
	return r, old, new
}

// editCase is a change to a published schema and what comparing it with
// the schema finds.
type editCase struct {
	note   string
	schema string // the published schema changed
	edit   func(doc obj)
	want   []string
}

func TestDecidedChangesAreFoundAndProved(t *testing.T) {
	for _, tc := range []editCase{
		{"maximum lowered", "example.event", func(d obj) { prop(d, "priority")["maximum"] = json.Number("5") },
			[]string{"maximum-lowered /priority backward"}},
		{"minimum lowered", "example.event", func(d obj) { prop(d, "priority")["minimum"] = json.Number("-1") },
			[]string{"minimum-lowered /priority forward"}},
		{"a fractional minimum below 0 admits no other integer", "example.event", func(d obj) { prop(d, "priority")["minimum"] = json.Number("-0.5") },
			nil},
		{"a fractional minimum above 0 drops 0", "example.event", func(d obj) { prop(d, "priority")["minimum"] = json.Number("0.5") },
			[]string{"minimum-raised /priority backward"}},
		{"integer widened to number", "example.event", func(d obj) { prop(d, "priority")["type"] = "number" },
			[]string{"type-widened /priority forward"}},
		{"enum value removed", "example.event", func(d obj) { prop(d, "type")["enum"] = []any{"created", "updated"} },
			[]string{"enum-value-removed /type backward"}},
		{"enum reordered", "example.event", func(d obj) { prop(d, "type")["enum"] = []any{"deleted", "created", "updated"} },
			nil},
		{"nested format changed", "example.event", func(d obj) { prop(d, "actor/id")["format"] = "date-time" },
			[]string{"format-changed /actor/id backward", "format-changed /actor/id forward"}},
		{"nested member required", "example.event", func(d obj) { prop(d, "actor")["required"] = []any{"id"} },
			[]string{"required-added /actor/id backward"}},
		{"items take null", "example.event", func(d obj) { prop(d, "tags")["items"] = obj{"type": []any{"string", "null"}} },
			[]string{"type-widened /tags/0 forward"}},
		{"array takes null", "example.event", func(d obj) { prop(d, "tags")["type"] = []any{"array", "null"} },
			[]string{"type-widened /tags forward"}},
		{"descriptions and titles change nothing", "example.event", func(d obj) {
			d["description"] = "another"
			prop(d, "actor/name")["title"] = "Name"
		}, nil},
		{"null removed from an enum", "core.vehicle", func(d obj) {
			prop(d, "consent_status")["enum"] = []any{"approved", "suspended", "revoked"}
		}, []string{"enum-value-removed /consent_status backward"}},
		{"minLength raised", "core.vehicle", func(d obj) { prop(d, "fuel_type")["minLength"] = json.Number("2") },
			[]string{"min-length-raised /fuel_type backward"}},
		{"format dropped", "core.vehicle", func(d obj) { delete(prop(d, "year"), "format") },
			[]string{"format-changed /year forward"}},
		{"default changed", "core.vehicle", func(d obj) { prop(d, "seed_odo")["default"] = json.Number("1") },
			[]string{"default-changed /seed_odo full"}},
		{"default of a required member changes nothing", "core.vehicle", func(d obj) { prop(d, "message_type")["default"] = "x" },
			nil},
		{"free object given a member", "core.vehicle", func(d obj) {
			prop(d, "meta")["properties"] = obj{"k": obj{"type": "string"}}
		}, []string{"open-content /meta/k warning"}},
		{"imei may not be empty", "core.device", func(d obj) { prop(d, "imei")["minLength"] = json.Number("1") },
			[]string{"min-length-raised /imei backward"}},
		{"imei as a uuid accepts no IMEI", "core.device", func(d obj) { prop(d, "imei")["format"] = "uuid" },
			[]string{"format-changed /imei backward"}},
		{"imei takes integers", "core.device", func(d obj) { prop(d, "imei")["type"] = []any{"string", "integer"} },
			[]string{"type-widened /imei forward"}},
		{"imei undeclared is still an IMEI (decision 6)", "core.device", func(d obj) { delete(d["properties"].(obj), "imei") },
			[]string{"type-widened /imei forward"}},
		{"offset takes null", "core.association", func(d obj) { prop(d, "offset")["type"] = []any{"integer", "null"} },
			[]string{"type-widened /offset forward"}},
		{"tags default null", "core.association", func(d obj) { prop(d, "tags")["default"] = nil },
			[]string{"default-changed /tags full"}},
		{"time no longer required", "core.association", func(d obj) {
			d["required"] = []any{"association_id", "device_id", "message_id", "source_id", "tenant_id"}
		}, []string{"required-removed /time forward"}},
		{"member removed", "core.association", func(d obj) { delete(d["properties"].(obj), "offset") },
			[]string{"open-content /offset warning"}},
		{"several at once", "example.event", func(d obj) {
			prop(d, "type")["enum"] = []any{"created", "updated", "deleted", "archived"}
			prop(d, "priority")["maximum"] = json.Number("8")
			d["required"] = []any{"id", "type"}
		}, []string{"required-removed /occurred_at forward", "enum-value-added /type forward", "maximum-lowered /priority backward"}},
	} {
		t.Run(tc.note, func(t *testing.T) {
			r, old, new := changed(t, tc.schema, tc.edit, compat.Options{})
			assert.ElementsMatch(t, tc.want, codes(r))
			newJudge(t, old, new).checkWitnesses(t, r)
			breaks := slices.ContainsFunc(r.Findings, func(f compat.Finding) bool { return f.Breaks != 0 })
			assert.Equal(t, !breaks, r.Compatible())
		})
	}
}

func TestWitnessesNameTheMemberAndTheValue(t *testing.T) {
	r, _, _ := changed(t, "example.event", func(d obj) { prop(d, "type")["enum"] = []any{"created", "updated"} }, compat.Options{})
	require.Len(t, r.Findings, 1)
	f := r.Findings[0]
	assert.Equal(t, "/properties/type", f.SchemaPointer)
	assert.Equal(t, "/type", f.MemberPointer)
	assert.Equal(t, `{"id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","occurred_at":"2019-01-01T00:00:00Z","type":"deleted"}`, string(f.Witness))
	assert.Equal(t, `/properties/type: backward: enum-value-removed: 1.1 drops "deleted" from the enumeration; keep it, or publish a new major version; witness: `+string(f.Witness), f.String())
}

func TestUndecidableChangesAreRefusedWithTheirCodes(t *testing.T) {
	for _, tc := range []editCase{
		{"unknown keyword at the root", "example.event", func(d obj) { d["not"] = obj{"required": []any{"x"}} },
			[]string{"unknown-keyword /not"}},
		{"unknown keyword on a member", "example.event", func(d obj) { prop(d, "tags")["minContains"] = json.Number("2") },
			[]string{"unknown-keyword /properties/tags/minContains"}},
		{"a reference", "example.event", func(d obj) { prop(d, "actor")["$ref"] = "#/definitions/actor" },
			[]string{"unknown-keyword /properties/actor/$ref"}},
		{"a pattern beside a format", "core.device", func(d obj) { prop(d, "device_id")["pattern"] = "^[a-f0-9-]+$" },
			[]string{"undecidable-pattern /properties/device_id/pattern"}},
		{"an unknown format", "core.device", func(d obj) { prop(d, "tenant_id")["format"] = "idn-email" },
			[]string{"unknown-format /properties/tenant_id/format"}},
		{"another dialect", "core.device", func(d obj) { d["$schema"] = "http://json-schema.org/draft-04/schema#" },
			[]string{"unknown-dialect /$schema"}},
		{"a bound beyond reason", "example.event", func(d obj) { prop(d, "priority")["maximum"] = json.Number("1e150") },
			[]string{"limit-exceeded /properties/priority/maximum"}},
		{"items as a tuple", "example.event", func(d obj) { prop(d, "tags")["items"] = []any{obj{"type": "string"}} },
			[]string{"unknown-keyword /properties/tags/items"}},
	} {
		t.Run(tc.note, func(t *testing.T) {
			for _, mode := range []compat.Mode{compat.Full, compat.Backward, compat.Forward} {
				r, _, _ := changed(t, tc.schema, tc.edit, compat.Options{Mode: mode})
				assert.False(t, r.Compatible(), "never passed")
				var got []string
				for _, f := range r.Findings {
					if f.Witness == nil {
						got = append(got, f.Code+" "+f.SchemaPointer)
						assert.Equal(t, mode, f.Breaks, "a refusal breaks every direction checked")
					}
				}
				assert.Equal(t, tc.want, got, "%v", mode)
			}
		})
	}
}

func TestAnUnknownKeywordInBothVersionsIsStillRefused(t *testing.T) {
	doc := published(t, "example.event")
	doc["not"] = obj{"required": []any{"x"}}
	r, err := compat.Compare(asSchema(t, "example.event", doc, "1.0"), asSchema(t, "example.event", doc, "1.1"), compat.Options{})
	require.NoError(t, err)
	assert.False(t, r.Compatible())
	assert.Equal(t, []string{"unknown-keyword  full"}, codes(r))
}

func TestTheSamePatternInBothVersionsIsDecided(t *testing.T) {
	doc := published(t, "core.device")
	prop(doc, "tenant_id")["pattern"] = "^[a-z-]+$"
	r, err := compat.Compare(asSchema(t, "core.device", doc, "1.0"), asSchema(t, "core.device", doc, "1.1"), compat.Options{})
	require.NoError(t, err)
	assert.True(t, r.Compatible(), "%v", r.Findings)
	assert.Empty(t, r.Findings)

	prop(doc, "tenant_id")["minLength"] = json.Number("3")
	r2, err := compat.Compare(asSchema(t, "core.device", published(t, "core.device"), "1.0"), asSchema(t, "core.device", doc, "1.1"), compat.Options{})
	require.NoError(t, err)
	assert.False(t, r2.Compatible())
	assert.Equal(t, []string{"min-length-raised /tenant_id backward", "pattern-changed /tenant_id backward"}, codes(r2))
	newJudge(t, asSchema(t, "core.device", published(t, "core.device"), "1.0"), asSchema(t, "core.device", doc, "1.1")).checkWitnesses(t, r2)
}

func TestAPatternGoCannotReadIsRefusedEvenUnchanged(t *testing.T) {
	doc := published(t, "core.device")
	prop(doc, "tenant_id")["pattern"] = "^(?=club)"
	r, err := compat.Compare(asSchema(t, "core.device", doc, "1.0"), asSchema(t, "core.device", doc, "1.1"), compat.Options{})
	require.NoError(t, err)
	assert.False(t, r.Compatible())
	assert.Equal(t, []string{"undecidable-pattern /tenant_id full"}, codes(r))
}

func TestUnreadableSchemasAreErrors(t *testing.T) {
	old, err := schemas.Lookup("example.event", "1.0")
	require.NoError(t, err)
	id := `"$id":"` + schemas.ID("example.event", "1.1") + `","title":"example.event"`
	for _, tc := range []struct{ body, why string }{
		{`{` + id + `,"type":"record"}`, `"record" is not a JSON Schema type`},
		{`{` + id + `,"type":[]}`, "at least one type"},
		{`{` + id + `,"type":["string","string"]}`, "repeated"},
		{`{` + id + `,"properties":{"a":5}}`, "/properties/a: a schema must be an object or a boolean"},
		{`{` + id + `,"properties":[]}`, "want an object"},
		{`{` + id + `,"required":["a","a"]}`, "repeated"},
		{`{` + id + `,"properties":{"a":{"required":[1]}}}`, "want an array of strings"},
		{`{` + id + `,"minLength":-1}`, "non-negative integer"},
		{`{` + id + `,"minLength":1.5}`, "non-negative integer"},
		{`{` + id + `,"minimum":"0"}`, "want a number"},
		{`{` + id + `,"enum":"a"}`, "want an array"},
		{`{` + id + `,"format":1}`, "want a string"},
		{`{` + id + `,"minimum":1e999999}`, "beyond what the checker reads"},
		{`{` + id + `,"type":"object","type":"string"}`, "repeated"},
	} {
		s, err := schemas.Parse([]byte(tc.body))
		require.NoError(t, err, tc.body)
		_, err = compat.Compare(old, s, compat.Options{})
		assert.ErrorContains(t, err, tc.why, tc.body)
		_, err = compat.Compare(s, old, compat.Options{})
		assert.ErrorContains(t, err, tc.why, tc.body)
	}
}

func TestFindingLinesCannotBeForged(t *testing.T) {
	r, _, _ := changed(t, "example.event", func(d obj) {
		d["properties"].(obj)["evil\nline: forward: ok\u202e"] = obj{"type": "string", "enum": []any{"a\nb\u202e"}}
	}, compat.Options{Strict: true})
	require.NotEmpty(t, r.Findings)
	for _, line := range r.Lines("new.json\nforged") {
		assert.NotContains(t, line, "\n")
	}
	for _, f := range r.Findings {
		assert.NotContains(t, f.String(), "\n")
		assert.NotContains(t, f.String(), "\u202e", "a bidirectional override would reorder the line")
	}
}

func TestModeNamesRoundTrip(t *testing.T) {
	for _, m := range []compat.Mode{compat.Backward, compat.Forward, compat.Full} {
		got, err := compat.ParseMode(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
	_, err := compat.ParseMode("both")
	assert.Error(t, err)
	assert.Equal(t, compat.Full, compat.Backward|compat.Forward)
}
