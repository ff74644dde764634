package catalogue_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/vehicle"
)

// BenchmarkDispatch times catalogue.Decode, which picks the schema by the
// message's message_type, side by side with the typed decoding of the
// same message (Parse of its package), in one run, and reports their
// ratio as dispatch/typed: what choosing the type at run time costs.
// (Events carry no message_type: DecodeOr reads them once to learn that.)
func BenchmarkDispatch(b *testing.B) {
	for _, tc := range []struct {
		schema string
		typed  func([]byte) error
	}{
		{device.Name, func(data []byte) (err error) { sink, err = device.Parse(data); return err }},
		{vehicle.Name, func(data []byte) (err error) { sink, err = vehicle.Parse(data); return err }},
		{association.Name, func(data []byte) (err error) { sink, err = association.Parse(data); return err }},
	} {
		data, err := os.ReadFile("bench/testdata/" + tc.schema[len("core."):] + ".json")
		if err != nil {
			b.Fatal(err)
		}
		if err := tc.typed(data); err != nil {
			b.Fatal(err)
		}
		if _, err := catalogue.Decode(data); err != nil {
			b.Fatal(err)
		}
		decode := func(data []byte) (err error) { sink, err = catalogue.Decode(data); return err }
		b.Run("schema="+tc.schema, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			typed, dispatch := sideBySide(b, func() { tc.typed(data) }, func() { decode(data) })
			b.ReportMetric(dispatch/typed, "dispatch/typed")
		})
	}
}

// BenchmarkThroughEncodingJSON times what going through encoding/json
// costs, side by side in one run: json.Unmarshal against Parse, and
// json.Marshal against AppendJSON, on the realistic device. The ratios
// are reported as json/direct. encoding/json scans the whole input before
// it calls UnmarshalJSON, and copies and checks all that MarshalJSON
// writes.
func BenchmarkThroughEncodingJSON(b *testing.B) {
	data, err := os.ReadFile("bench/testdata/device.json")
	if err != nil {
		b.Fatal(err)
	}
	d, err := device.Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("op=decode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		direct, viaJSON := sideBySide(b,
			func() { sink, _ = device.Parse(data) },
			func() {
				v := new(device.Device)
				json.Unmarshal(data, v)
				sink = v
			})
		b.ReportMetric(viaJSON/direct, "json/direct")
	})
	b.Run("op=encode", func(b *testing.B) {
		var buf []byte
		direct, viaJSON := sideBySide(b,
			func() { buf, _ = d.AppendJSON(buf[:0]) },
			func() { buf, _ = json.Marshal(d) })
		b.ReportMetric(viaJSON/direct, "json/direct")
	})
}

// sideBySide runs f and g b.N times each, alternating in rounds, each
// going first every other round, so that drift on a busy machine and the
// collector's work fall on both alike, and returns the time each took.
func sideBySide(b *testing.B, f, g func()) (tf, tg float64) {
	const round = 500
	var df, dg time.Duration
	timed := func(h func()) time.Duration {
		start := time.Now()
		for range round {
			h()
		}
		return time.Since(start)
	}
	for n := 0; n < b.N; n += 2 * round {
		if n%(4*round) == 0 {
			df += timed(f)
			dg += timed(g)
		} else {
			dg += timed(g)
			df += timed(f)
		}
	}
	return float64(df), float64(dg)
}

// sink keeps what the benchmarks decode, so that the compiler cannot
// keep it on the stack and make one side cheaper than real use.
var sink catalogue.Message
