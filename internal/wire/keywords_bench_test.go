package wire

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkKeywords measures what each keyword of the vocabulary adds to
// decoding the value it checks: each sub-benchmark decodes the same value
// without the keyword ("plain") and with it, so that their ratio is the
// keyword's cost. Run:
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
