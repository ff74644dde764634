package compat_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/schemas"
)

// FuzzCompare changes the catalogue's schemas and the fixture as the fuzz
// input picks, and holds every witness of the comparison to the oracle:
// accepted by one version and rejected by the other, as claimed.
func FuzzCompare(f *testing.F) {
	for _, seed := range []string{"", "\x00", "\x01\x02\x03", "\x05\x01\x04\x00\x02", "\x02\x07\x00\x09\x03\x0c\x01", "\x03\x00\x00\x05\x02\x02\x02\x02\x0e"} {
		f.Add([]byte(seed))
	}
	fams := families(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := &bytePicker{b: data}
		m := &mutator{r: p}
		fam := fams[p.IntN(len(fams))]
		a := fam.doc
		if p.IntN(2) == 0 {
			a, _ = m.variant(fam)
		}
		b, _ := m.variant(fam)
		old, new := asSchema(t, fam.name, a, "1.0"), asSchema(t, fam.name, b, "1.1")
		strict := p.IntN(2) == 0
		mode := []compat.Mode{compat.Full, compat.Backward, compat.Forward}[p.IntN(3)]
		r, err := compat.Compare(old, new, compat.Options{Mode: mode, Strict: strict})
		if err != nil {
			t.Fatalf("%v\nold: %s\nnew: %s", err, mustJSON(a), mustJSON(b))
		}
		newJudge(t, old, new).checkWitnesses(t, r)
		if t.Failed() {
			t.Logf("old: %s\nnew: %s", mustJSON(a), mustJSON(b))
		}
	})
}

// FuzzCompareAnySchema compares any schema file the fuzzer makes with the
// published or fixture version of its name, both ways: the checker must
// answer (a report or an error), never panic, and keep its lines one line
// and its witnesses JSON.
func FuzzCompareAnySchema(f *testing.F) {
	olds := map[string]schemas.Schema{}
	for _, s := range schemas.All() {
		olds[s.Name] = s
		f.Add(s.JSON())
	}
	for _, s := range load(f, "../testdata/fixture-breaking").All() {
		olds[s.Name] = s
		f.Add(s.JSON())
	}
	f.Add([]byte(`{"$id":"https://catalogue.fleetkit.dev/api/schemas/example.event/versions/1.1","title":"example.event","properties":{"x":{"pattern":"a","enum":[[1]],"minimum":1e150}},"$ref":"#"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := schemas.Parse(data)
		if err != nil {
			return
		}
		old, ok := olds[s.Name]
		if !ok {
			old = s
		}
		for _, pair := range [][2]schemas.Schema{{old, s}, {s, old}} {
			r, err := compat.Compare(pair[0], pair[1], compat.Options{})
			if err != nil {
				continue
			}
			for _, line := range r.Lines("new.json") {
				if strings.ContainsAny(line, "\n\r") {
					t.Errorf("a line that is not one line: %q", line)
				}
			}
			for _, f := range r.Findings {
				if f.Witness != nil && !json.Valid(f.Witness) {
					t.Errorf("witness is not JSON: %s", f.Witness)
				}
				if (f.Breaks != 0) == f.Warning {
					t.Errorf("a finding is a break or a warning, not both nor neither: %s", f)
				}
			}
		}
	})
}
