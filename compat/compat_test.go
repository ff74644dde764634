package compat_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/internal/oracle"
	"github.com/fleetkit/catalogue/schemas"
)

// load reads a fixture catalogue.
func load(t testing.TB, dir string) *schemas.Catalogue {
	t.Helper()
	c, err := schemas.Load(os.DirFS(dir))
	require.NoError(t, err)
	return c
}

func lookup(t testing.TB, c *schemas.Catalogue, name, version string) schemas.Schema {
	t.Helper()
	s, err := c.Lookup(name, version)
	require.NoError(t, err)
	return s
}

// refusals are the codes of what the checker cannot decide: breaks in
// every direction, without a witness.
var refusals = []string{"unknown-keyword", "unknown-format", "undecidable-pattern", "undecidable-enum", "undecidable-composition", "unknown-dialect", "limit-exceeded", "undecidable-property-names"}

// judge is the oracle over the two versions a report compares.
type judge struct {
	o        *oracle.Oracle
	old, new schemas.Schema
}

func newJudge(t testing.TB, old, new schemas.Schema) judge {
	t.Helper()
	fsys := fstest.MapFS{
		old.Name + "-" + old.Version + ".json": {Data: old.JSON()},
		new.Name + "-" + new.Version + ".json": {Data: new.JSON()},
	}
	c, err := schemas.Load(fsys)
	require.NoError(t, err)
	o, err := oracle.New(c)
	require.NoError(t, err)
	return judge{o, old, new}
}

func (j judge) accepts(s schemas.Schema, data []byte) (bool, []string) {
	return j.o.Verdict(s.Name, s.Version, data)
}

// checkWitnesses holds every finding of r to the oracle: its witness is
// accepted by one version and rejected by the other exactly as the finding
// claims. It returns the number of witnesses judged.
func (j judge) checkWitnesses(t testing.TB, r *compat.Report) int {
	t.Helper()
	n := 0
	for _, f := range r.Findings {
		if slices.Contains(refusals, f.Code) {
			assert.Nil(t, f.Witness, "%s", f)
			assert.Equal(t, r.Options.Mode, f.Breaks, "a refusal breaks every direction checked: %s", f)
			continue
		}
		if f.Witness == nil && f.Code == "default-changed" && !r.Compatible() {
			// Only when no message both versions accept leaves the
			// member out: the versions differ in other ways, reported.
			continue
		}
		if !assert.NotNil(t, f.Witness, "every decided finding has a witness: %s", f) {
			continue
		}
		n++
		oldOK, oldWhy := j.accepts(j.old, f.Witness)
		newOK, newWhy := j.accepts(j.new, f.Witness)
		switch f.Direction {
		case compat.Backward:
			assert.True(t, oldOK, "old must accept the witness of %s: %v", f, oldWhy)
			assert.False(t, newOK, "new must reject the witness of %s", f)
		case compat.Forward:
			assert.True(t, newOK, "new must accept the witness of %s: %v", f, newWhy)
			assert.False(t, oldOK, "old must reject the witness of %s", f)
		case compat.Full:
			require.Equal(t, "default-changed", f.Code, "%s", f)
			assert.True(t, oldOK && newOK, "both must accept the witness of %s: %v %v", f, oldWhy, newWhy)
			assert.False(t, has(f.Witness, f.MemberPointer), "the witness of %s must leave the member out", f)
		default:
			t.Errorf("finding without a direction: %s", f)
		}
		if f.Direction != compat.Full {
			assert.True(t, has(f.Witness, f.MemberPointer) || f.Code == "required-added" || f.Code == "required-removed",
				"the witness of %s must have its member %s", f, f.MemberPointer)
		}
		if f.Warning {
			assert.Equal(t, "open-content", f.Code)
			assert.Zero(t, f.Breaks)
		} else if f.Code == "default-changed" {
			assert.Equal(t, r.Options.Mode, f.Breaks, "a changed default breaks every direction checked: %s", f)
		} else {
			assert.Equal(t, f.Direction, f.Breaks, "%s", f)
		}
	}
	return n
}

// has reports whether the JSON document data has a member at ptr.
func has(data []byte, ptr string) bool {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	if ptr == "" {
		return true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return false
			}
		case []any:
			if tok != "0" || len(x) == 0 {
				return false
			}
			v = x[0]
		default:
			return false
		}
	}
	return true
}

// codes returns the findings of r as "code pointer direction" lines.
func codes(r *compat.Report) []string {
	var out []string
	for _, f := range r.Findings {
		dir := f.Breaks.String()
		if f.Warning {
			dir = "warning"
		}
		out = append(out, f.Code+" "+f.MemberPointer+" "+dir)
	}
	return out
}

// TestFixtureVersionsCompareAsDeclared pins the findings between the
// versions of the fixture catalogues, each witness held to the oracle.
func TestFixtureVersionsCompareAsDeclared(t *testing.T) {
	for _, tc := range []struct {
		note       string
		dir        string
		from, to   string
		opt        compat.Options
		compatible bool
		want       []string
	}{
		{"a minor that adds members is compatible, with warnings", "../testdata/fixture", "1.0", "1.1", compat.Options{}, true, []string{
			"open-content /location warning",
			"open-content /calibrated warning",
		}},
		{"strict mode counts open content as a break", "../testdata/fixture", "1.0", "1.1", compat.Options{Strict: true}, false, []string{
			"open-content /location backward",
			"open-content /calibrated backward",
		}},
		{"a breaking minor is refused with every break", "../testdata/fixture-breaking", "1.1", "1.2", compat.Options{}, false, []string{
			"enum-value-removed /kind backward",
			"maximum-lowered /level backward",
			"default-changed /unit full",
		}},
		{"a major breaks both ways", "../testdata/fixture", "1.1", "2.0", compat.Options{}, false, []string{
			"required-added /level backward",
			"enum-value-added /kind forward",
			"maximum-raised /level forward",
		}},
		{"a major breaks backward", "../testdata/fixture", "1.1", "2.0", compat.Options{Mode: compat.Backward}, false, []string{
			"required-added /level backward",
		}},
		{"a major breaks forward", "../testdata/fixture", "1.1", "2.0", compat.Options{Mode: compat.Forward}, false, []string{
			"enum-value-added /kind forward",
			"maximum-raised /level forward",
		}},
	} {
		t.Run(tc.note, func(t *testing.T) {
			c := load(t, tc.dir)
			old, new := lookup(t, c, "demo.sensor", tc.from), lookup(t, c, "demo.sensor", tc.to)
			r, err := compat.Compare(old, new, tc.opt)
			require.NoError(t, err)
			assert.Equal(t, tc.compatible, r.Compatible())
			assert.Equal(t, tc.want, codes(r))
			newJudge(t, old, new).checkWitnesses(t, r)
		})
	}
}

func TestCheckCatalogueIsTransitive(t *testing.T) {
	reports, err := compat.CheckCatalogue(load(t, "../testdata/fixture-breaking"), compat.Options{})
	require.NoError(t, err)
	var pairs []string
	for _, r := range reports {
		pairs = append(pairs, r.Old.Version+"->"+r.New.Version)
	}
	assert.Equal(t, []string{"1.0->1.1", "1.0->1.2", "1.1->1.2"}, pairs)
	assert.True(t, reports[0].Compatible())
	assert.False(t, reports[1].Compatible())
	assert.False(t, reports[2].Compatible())

	reports, err = compat.CheckCatalogue(load(t, "../testdata/fixture"), compat.Options{})
	require.NoError(t, err)
	require.Len(t, reports, 1, "2.0 is a major of its own: compared with nothing")
	assert.True(t, reports[0].Compatible())
}

func TestThePublishedCatalogueIsCompatible(t *testing.T) {
	reports, err := compat.CheckCatalogue(schemas.Published(), compat.Options{})
	require.NoError(t, err)
	for _, r := range reports {
		assert.True(t, r.Compatible(), "%s %s -> %s", r.New.Name, r.Old.Version, r.New.Version)
	}
}

func TestCompareRefusesDifferentSchemas(t *testing.T) {
	d, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	v, err := schemas.Lookup("core.vehicle", "1.0")
	require.NoError(t, err)
	_, err = compat.Compare(d, v, compat.Options{})
	assert.ErrorIs(t, err, compat.ErrDifferentSchemas)
}

// TestReportTextsCountInTheRightNumber pins the singular and the plural
// of the counts a report prints: "1 break", "2 warnings", "1 more
// finding".
func TestReportTextsCountInTheRightNumber(t *testing.T) {
	c := load(t, "../testdata/fixture")
	old, err := c.Lookup("demo.sensor", "1.0")
	require.NoError(t, err)
	updated, err := c.Lookup("demo.sensor", "1.1")
	require.NoError(t, err)
	r := &compat.Report{Old: old, New: updated, Findings: []compat.Finding{{Code: "a", Breaks: compat.Backward}, {Code: "b", Warning: true}}}
	assert.Equal(t, "demo.sensor 1.1 is NOT compatible with demo.sensor 1.0 (full): 1 break, 1 warning", r.Summary())
	r.Findings = append(r.Findings, compat.Finding{Code: "c", Breaks: compat.Forward}, compat.Finding{Code: "d", Warning: true})
	assert.Equal(t, "demo.sensor 1.1 is NOT compatible with demo.sensor 1.0 (full): 2 breaks, 2 warnings", r.Summary())
	r.Findings, r.Omitted = nil, 1
	assert.Equal(t, "demo.sensor 1.1 is compatible with demo.sensor 1.0 (full): 1 break, 0 warnings", r.Summary(), "omitted findings count as breaks")
	assert.Equal(t, []string{"x: 1 more finding omitted: the report reached its size limit"}, r.Lines("x"))
	r.Omitted = 3
	assert.Equal(t, []string{"x: 3 more findings omitted: the report reached its size limit"}, r.Lines("x"))
}

// TestReportJSONWritesAngleBracketsAsTheyAre pins that a report's JSON
// shows '<', '>' and '&' as they are, in messages and witnesses, to an
// encoder that does not escape HTML (json.Marshal escapes whatever
// MarshalJSON returns).
func TestReportJSONWritesAngleBracketsAsTheyAre(t *testing.T) {
	r := &compat.Report{Findings: []compat.Finding{{Code: "x", Message: "a <b> & c", Witness: json.RawMessage(`{"k":"<"}`)}}}
	got, err := r.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(got), `"message":"a <b> & c"`)
	assert.Contains(t, string(got), `"witness":{"k":"<"}`)
	var back struct{ Findings []struct{ Message string } }
	require.NoError(t, json.Unmarshal(got, &back))
	assert.Equal(t, "a <b> & c", back.Findings[0].Message)
}

// TestCompareFilesNamesWhatItCannotFollow compares two files outside the
// catalogue, without a title, the new one with a $ref to nothing: the
// summary names each by its $id alone (it began with a space, and had
// two after "with"), and the finding says that the reference is not
// followed, rather than that "$ref" is a keyword the checker does not
// know.
func TestCompareFilesNamesWhatItCannotFollow(t *testing.T) {
	const base = "https://example.com/api/schemas/demo.x/versions/"
	old := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"` + base + `1.0","type":"object","properties":{"a":{"type":"string"}}}`
	updated := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"` + base + `1.1","type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`
	r, err := compat.CompareFiles([]byte(old), []byte(updated), compat.Options{})
	require.NoError(t, err)
	assert.Equal(t, base+"1.1 is NOT compatible with "+base+"1.0 (full): 1 break, 0 warnings", r.Summary())
	require.Len(t, r.Findings, 1)
	f := r.Findings[0]
	assert.Equal(t, "unknown-keyword", f.Code)
	assert.Equal(t, "/properties/a/$ref", f.SchemaPointer)
	assert.Contains(t, f.Message, `the reference "#/$defs/missing", which the checker does not follow`)
}
