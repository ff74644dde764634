package catalogue_test

import (
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
		b.Run("schema="+tc.schema, func(b *testing.B) {
			// The two loops alternate in rounds, each going first every
			// other round, so that drift on a busy machine and the
			// collector's work fall on both alike.
			const round = 500
			var typed, dispatch time.Duration
			timed := func(decode func([]byte) error) time.Duration {
				start := time.Now()
				for range round {
					decode(data)
				}
				return time.Since(start)
			}
			decode := func(data []byte) (err error) { sink, err = catalogue.Decode(data); return err }
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for n := 0; n < b.N; n += 2 * round {
				if n%(4*round) == 0 {
					typed += timed(tc.typed)
					dispatch += timed(decode)
				} else {
					dispatch += timed(decode)
					typed += timed(tc.typed)
				}
			}
			b.ReportMetric(float64(dispatch)/float64(typed), "dispatch/typed")
		})
	}
}

// sink keeps what the benchmarks decode, so that the compiler cannot
// keep it on the stack and make one side cheaper than real use.
var sink catalogue.Message
