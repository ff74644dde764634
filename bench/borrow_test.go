package bench

import (
	"testing"

	"github.com/fleetkit/catalogue/association"
	ogenassociation "github.com/fleetkit/catalogue/bench/peers/ogen/association"
	ogendevice "github.com/fleetkit/catalogue/bench/peers/ogen/device"
	ogenevent "github.com/fleetkit/catalogue/bench/peers/ogen/event"
	ogenvehicle "github.com/fleetkit/catalogue/bench/peers/ogen/vehicle"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/vehicle"
)

// readers are the ways of reading a message compared by BenchmarkBorrow,
// keyed by the input's schema: this library's decoding with a copy of
// the input (impl=catalogue, as BenchmarkDecode times it), its decoding
// that borrows from the input (ParseBorrowed), its judging that keeps
// nothing (Check), and ogen's decoding and validation, whose decoder
// borrows from its input too. ogen comes first, as the base column.
var readers = map[string][]struct {
	name string
	read func([]byte) error
}{
	"device": {
		{"ogen", methods[ogendevice.Device]("ogen").decode},
		{"catalogue", func(data []byte) error { _, err := device.Parse(data); return err }},
		{"borrowed", func(data []byte) error { _, err := device.ParseBorrowed(data); return err }},
		{"check", device.Check},
	},
	"vehicle": {
		{"ogen", methods[ogenvehicle.Vehicle]("ogen").decode},
		{"catalogue", func(data []byte) error { _, err := vehicle.Parse(data); return err }},
		{"borrowed", func(data []byte) error { _, err := vehicle.ParseBorrowed(data); return err }},
		{"check", vehicle.Check},
	},
	"association": {
		{"ogen", methods[ogenassociation.Association]("ogen").decode},
		{"catalogue", func(data []byte) error { _, err := association.Parse(data); return err }},
		{"borrowed", func(data []byte) error { _, err := association.ParseBorrowed(data); return err }},
		{"check", association.Check},
	},
	"event": {
		{"ogen", methods[ogenevent.Event]("ogen").decode},
		{"catalogue", func(data []byte) error { _, err := event.Parse(data); return err }},
		{"borrowed", func(data []byte) error { _, err := event.ParseBorrowed(data); return err }},
		{"check", event.Check},
	},
}

// BenchmarkBorrow times, on each input, decoding with a copy, decoding
// that borrows, and judging that keeps nothing, beside ogen, in one run.
func BenchmarkBorrow(b *testing.B) {
	for i := range inputs {
		in := &inputs[i]
		for _, r := range readers[in.schema] {
			b.Run(in.label()+"/impl="+r.name, func(b *testing.B) {
				timeCalls(b, r.name, in, r.read)
			})
		}
	}
}
