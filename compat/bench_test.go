package compat_test

import (
	"math/rand/v2"
	"testing"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/schemas"
)

// BenchmarkCompare compares each schema of the catalogue, and the fixture,
// with versions changed in several places (as TestNoFalseCompatible
// changes them), witnesses included: the time an editor would wait on
// every save. The issue asks for well under 10 ms a pair.
func BenchmarkCompare(b *testing.B) {
	m := &mutator{r: rand.New(rand.NewPCG(1, 2))}
	fams := families(b)
	for _, f := range fams {
		// Eight changed versions, for a mix of findings.
		var pairs [][2]schemas.Schema
		for range 8 {
			doc, _ := m.variant(f)
			pairs = append(pairs, [2]schemas.Schema{asSchema(b, f.name, f.doc, "1.0"), asSchema(b, f.name, doc, "1.1")})
		}
		name := f.name
		if v, ok := f.doc["$id"].(string); ok && f.name == "demo.sensor" {
			name += "@" + v[len(v)-3:]
		}
		b.Run(name, func(b *testing.B) {
			findings := 0
			for b.Loop() {
				for _, p := range pairs {
					r, err := compat.Compare(p[0], p[1], compat.Options{})
					if err != nil {
						b.Fatal(err)
					}
					findings += len(r.Findings)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pairs))/1e6, "ms/pair")
			b.ReportMetric(float64(findings)/float64(b.N*len(pairs)), "findings/pair")
		})
	}
	b.Run("fixture-breaking 1.1->1.2", func(b *testing.B) {
		c := load(b, "../testdata/fixture-breaking")
		old, new := lookup(b, c, "demo.sensor", "1.1"), lookup(b, c, "demo.sensor", "1.2")
		for b.Loop() {
			if _, err := compat.Compare(old, new, compat.Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/pair")
	})
}
