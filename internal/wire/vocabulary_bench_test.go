package wire

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/fleetkit/catalogue/msg"
)

// BenchmarkKeywordsOfUnions measures, as BenchmarkKeywords does, what the
// keywords of unions, unnamed members and host names add to decoding the
// value they judge: each sub-benchmark decodes the same value plain and
// with the code gen writes for the keyword. Run:
//
//	go test -run '^$' -bench '^BenchmarkKeywordsOfUnions$' ./internal/wire
func BenchmarkKeywordsOfUnions(b *testing.B) {
	pattern := regexp.MustCompile(`^x-`)
	key := []byte("x-a")
	var extra map[string]json.RawMessage
	// checkPattern is what gen writes for a patternProperties value of
	// {"type": "string", "maxLength": 3}.
	checkPattern := func(e *Errors, base, name string, raw []byte) {
		var d Decoder
		d.Reset(raw)
		if x, ok := d.String(base, name); ok {
			d.MaxLength(base, name, x, 3)
		}
		e.Absorb(&d.Errors)
	}
	for _, bc := range []struct {
		name, input string
		plain       func(d *Decoder)
		checked     func(d *Decoder)
	}{
		{"oneOf beside type", `3`,
			func(d *Decoder) { d.Int("", "/a") },
			func(d *Decoder) {
				// {"type": "integer", "oneOf": [{"maximum": 10}, {"minimum": 5, "maximum": 20}]}
				if x, ok := d.Int("", "/a"); ok {
					c1 := CaseErrors()
					n1 := 0
					c1.Max("", "/a", x, 10)
					if c1.Passed() {
						n1++
					}
					c1 = CaseErrors()
					c1.Min("", "/a", x, 5)
					c1.Max("", "/a", x, 20)
					if c1.Passed() {
						n1++
					}
					d.Cases("", "/a", msg.RuleOneOf, n1, 2)
				}
			}},
		{"type list", `"abc"`,
			func(d *Decoder) { d.String("", "/a") },
			func(d *Decoder) {
				// {"type": ["integer", "string"]}: the first byte picks the branch.
				switch c := d.WS(); {
				case c == '"':
					d.String("", "/a")
				case c == '-' || c >= '0' && c <= '9':
					d.Int("", "/a")
				default:
					d.Mistyped("", "/a", "an integer or a string")
				}
			}},
		{"patternProperties member", `"abc"`,
			func(d *Decoder) {
				clear(extra)
				d.Extra(&extra, "", key)
			},
			func(d *Decoder) {
				clear(extra)
				if pattern.Match(key) {
					if k, raw, ok := d.ExtraValue(&extra, "", key); ok {
						checkPattern(&d.Errors, "", MemberPath(k), raw)
					}
				}
			}},
		{"hostname", `"www.example.com"`,
			func(d *Decoder) { d.String("", "/a") },
			func(d *Decoder) {
				if s, ok := d.String("", "/a"); ok {
					d.Format("", "/a", s, CheckHostname, "hostname")
				}
			}},
		{"hostname of A-labels", `"xn--9n2bp8q.xn--9t4b11yi5a"`,
			func(d *Decoder) { d.String("", "/a") },
			func(d *Decoder) {
				if s, ok := d.String("", "/a"); ok {
					d.Format("", "/a", s, CheckHostname, "hostname")
				}
			}},
	} {
		data := []byte(bc.input)
		for _, mode := range []struct {
			name string
			run  func(d *Decoder)
		}{{"plain", bc.plain}, {"with", bc.checked}} {
			b.Run(bc.name+"/"+mode.name, func(b *testing.B) {
				var d Decoder
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					d.Reset(data)
					mode.run(&d)
					if d.Err() != nil {
						b.Fatal(d.Err())
					}
				}
			})
		}
	}
}
