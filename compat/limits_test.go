package compat_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/schemas"
)

// schemaOf returns a schema file of demo.big at version v with body, the
// rest of its object.
func schemaOf(t *testing.T, v, body string) schemas.Schema {
	t.Helper()
	s, err := schemas.Parse([]byte(`{"$id":"` + schemas.ID("demo.big", v) + `","title":"demo.big",` + body + `}`))
	require.NoError(t, err)
	return s
}

// reportSize is the bytes a report prints.
func reportSize(r *compat.Report) int {
	n := 0
	for _, line := range r.Lines("x") {
		n += len(line) + 1
	}
	return n
}

func TestAReportIsBoundedByItsSchemas(t *testing.T) {
	// Every one of 3000 required members changes type: each finding's
	// witness carries all 3000, so unbounded the report would be
	// quadratic, gigabytes from a few hundred kilobytes.
	members := func(typ string) string {
		var props, req []string
		for i := range 3000 {
			props = append(props, fmt.Sprintf(`"m%d":{"type":%q}`, i, typ))
			req = append(req, fmt.Sprintf(`"m%d"`, i))
		}
		return `"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]`
	}
	old, new := schemaOf(t, "1.0", members("string")), schemaOf(t, "1.1", members("integer"))
	r, err := compat.Compare(old, new, compat.Options{})
	require.NoError(t, err)
	assert.False(t, r.Compatible())
	assert.Positive(t, r.Omitted, "findings beyond the budget are counted, not silently dropped")
	assert.True(t, r.OmittedBreaks)
	input := len(old.JSON()) + len(new.JSON())
	assert.Less(t, reportSize(r), 64<<10+20*input, "output within a small factor of the input")
	assert.Contains(t, r.Lines("x")[len(r.Lines("x"))-1], "more findings omitted")
}

func TestAWideEnumerationIsCompared(t *testing.T) {
	values := func(n int) string {
		var vs []string
		for i := range n {
			vs = append(vs, fmt.Sprintf(`"v%d"`, i))
		}
		return strings.Join(vs, ",")
	}
	old := schemaOf(t, "1.0", `"properties":{"k":{"type":"string","enum":[`+values(50000)+`]}}`)
	new := schemaOf(t, "1.1", `"properties":{"k":{"type":"string","enum":[`+values(49999)+`]}}`)
	r, err := compat.Compare(old, new, compat.Options{})
	require.NoError(t, err)
	require.Len(t, r.Findings, 1)
	assert.Equal(t, "enum-value-removed", r.Findings[0].Code)
	assert.JSONEq(t, `{"k":"v49999"}`, string(r.Findings[0].Witness))
}

func TestDeepSchemasAreCompared(t *testing.T) {
	nest := func(depth int, leaf string) string {
		return strings.Repeat(`"properties":{"a":{`, depth) + leaf + strings.Repeat(`}}`, depth)
	}
	old := schemaOf(t, "1.0", nest(2000, `"type":"string"`))
	new := schemaOf(t, "1.1", nest(2000, `"type":"integer"`))
	r, err := compat.Compare(old, new, compat.Options{})
	require.NoError(t, err)
	deep := strings.Repeat("/a", 2000)
	assert.Equal(t, []string{"type-narrowed " + deep + " backward", "type-widened " + deep + " forward"}, codes(r))
	assert.Equal(t, strings.Repeat("/a", 2000), r.Findings[0].MemberPointer)
	assert.Equal(t, strings.Repeat(`{"a":`, 2000)+`"x"`+strings.Repeat(`}`, 2000), string(r.Findings[0].Witness))
}

// TestManyPatternsShareOneBudget pins that the searches of patterns share
// a budget in proportion to the schemas: a schema of many members whose
// patterns each take long to compare has the first decided and the rest
// refused as undecidable-pattern, rather than each taking its full bound.
func TestManyPatternsShareOneBudget(t *testing.T) {
	members := func(n int) string {
		var props []string
		for i := range 150 {
			props = append(props, fmt.Sprintf(`"m%d":{"type":"string","pattern":"a.{%d}$"}`, i, n))
		}
		return `"type":"object","properties":{` + strings.Join(props, ",") + `}`
	}
	old, new := schemaOf(t, "1.0", members(8)), schemaOf(t, "1.1", members(7))
	r, err := compat.Compare(old, new, compat.Options{})
	require.NoError(t, err)
	assert.False(t, r.Compatible())
	decided, refused := 0, 0
	for _, f := range r.Findings {
		switch f.Code {
		case "pattern-changed":
			decided++
		case "undecidable-pattern":
			refused++
		}
	}
	t.Logf("%d findings decided, %d refused", decided, refused)
	assert.Positive(t, decided)
	assert.Positive(t, refused)
}
