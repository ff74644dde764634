package wire

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetkit/catalogue/msg"
)

// BenchmarkKeywords measures what each keyword of the vocabulary adds to
// decoding the value it checks: each sub-benchmark decodes the same value
// without the keyword ("plain") and with it, as the code gen writes for
// it, so that their ratio is the keyword's cost. Run:
//
//	go test -run '^$' -bench '^BenchmarkKeywords$' ./internal/wire
func BenchmarkKeywords(b *testing.B) {
	pattern := regexp.MustCompile(`^[A-Z]{2}-[0-9]{3}$`)
	factor := NewFactor("0.5")
	items := make([]string, 100)
	for i := range items {
		items[i] = strconv.Quote("item" + strconv.Itoa(i))
	}
	stringsArray := []byte("[" + strings.Join(items, ",") + "]")
	raws := make([]string, 100)
	for i := range raws {
		raws[i] = `{"n":` + strconv.Itoa(i) + `,"tag":"x"}`
	}
	rawArray := []byte("[" + strings.Join(raws, ",") + "]")
	extraPattern := regexp.MustCompile(`^x-`)
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
	// checkObject is what gen writes for a contains of {"type": "object"}.
	checkObject := func(e *Errors, base, name string, raw []byte) {
		var d Decoder
		d.Reset(raw)
		d.FreeObject(base, name)
		e.Absorb(&d.Errors)
	}
	for _, bc := range []struct {
		name, input string
		plain       func(d *Decoder)
		checked     func(d *Decoder)
	}{
		{"maxLength", `"AB-123"`,
			func(d *Decoder) { d.String("", "/a") },
			func(d *Decoder) {
				if s, ok := d.String("", "/a"); ok {
					d.MaxLength("", "/a", s, 6)
				}
			}},
		{"pattern", `"AB-123"`,
			func(d *Decoder) { d.String("", "/a") },
			func(d *Decoder) {
				if s, ok := d.String("", "/a"); ok {
					d.Pattern("", "/a", s, pattern, "^[A-Z]{2}-[0-9]{3}$")
				}
			}},
		{"number bounds", `21.5`,
			func(d *Decoder) { d.NumberValue("", "/a") },
			func(d *Decoder) {
				if n, ok := d.NumberValue("", "/a"); ok {
					d.NumberMin("", "/a", n, "-50")
					d.NumberMax("", "/a", n, "150")
				}
			}},
		{"number multipleOf", `21.5`,
			func(d *Decoder) { d.NumberValue("", "/a") },
			func(d *Decoder) {
				if n, ok := d.NumberValue("", "/a"); ok {
					d.NumberMultipleOf("", "/a", n, factor, "0.5")
				}
			}},
		{"integer exclusive bounds and multipleOf", `25`,
			func(d *Decoder) { d.Int("", "/a") },
			func(d *Decoder) {
				if n, ok := d.Int("", "/a"); ok {
					d.Above("", "/a", n, 0)
					d.Below("", "/a", n, 1000)
					d.MultipleOf("", "/a", n, 5, "5")
				}
			}},
		{"uniqueItems of 100 strings", string(stringsArray),
			func(d *Decoder) { d.Strings("", "/a") },
			func(d *Decoder) {
				if list, ok := d.Strings("", "/a"); ok {
					d.MinItems("", "/a", len(list), 1)
					d.UniqueStrings("", "/a", list)
				}
			}},
		{"uniqueItems of 100 objects", string(rawArray),
			func(d *Decoder) { d.RawArray("", "/a") },
			func(d *Decoder) {
				if list, ok := d.RawArray("", "/a"); ok {
					d.UniqueRaw("", "/a", list)
				}
			}},
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
				if extraPattern.Match(key) {
					if k, raw, ok := d.ExtraValue(&extra, "", key); ok {
						checkPattern(&d.Errors, "", MemberPath(k), raw)
					}
				}
			}},
		{"not beside type", `"abc"`,
			func(d *Decoder) { d.String("", "/a") },
			func(d *Decoder) {
				// {"type": "string", "not": {"pattern": "^x-"}}
				if x, ok := d.String("", "/a"); ok {
					c1 := CaseErrors()
					c1.Pattern("", "/a", x, extraPattern, "^x-")
					n1 := 0
					if c1.Passed() {
						n1++
					}
					d.Cases("", "/a", msg.RuleNot, n1, 1)
				}
			}},
		{"if, then and else beside type", `3`,
			func(d *Decoder) { d.Int("", "/a") },
			func(d *Decoder) {
				// {"type": "integer", "if": {"minimum": 0}, "then": {"maximum": 10}, "else": {"minimum": -5}}
				if x, ok := d.Int("", "/a"); ok {
					c1 := CaseErrors()
					c1.Min("", "/a", x, 0)
					i1 := c1.Passed()
					c1 = CaseErrors()
					if i1 {
						c1.Max("", "/a", x, 10)
					} else {
						c1.Min("", "/a", x, -5)
					}
					d.Conditional("", "/a", i1, c1.Passed())
				}
			}},
		{"contains of 100 objects", string(rawArray),
			func(d *Decoder) { d.RawArray("", "/a") },
			func(d *Decoder) {
				// {"type": "array", "contains": {"type": "object"}}
				if list, ok := d.RawArray("", "/a"); ok {
					n := 0
					for _, item := range list {
						c := CaseErrors()
						checkObject(&c, "", "", item)
						if c.Passed() {
							n++
						}
					}
					d.Contains("", "/a", n, 1, -1)
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

// BenchmarkUniqueItemsIsLinear decodes and checks arrays of 10 to 10,000
// distinct objects: the time per item stays flat, as a check through a
// map should, where comparing every pair would grow with the length.
func BenchmarkUniqueItemsIsLinear(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		raws := make([]json.RawMessage, n)
		for i := range raws {
			raws[i] = json.RawMessage(`{"n":` + strconv.Itoa(i) + `}`)
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var e Errors
			for b.Loop() {
				e.UniqueRaw("", "/a", raws)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/item")
		})
	}
}
