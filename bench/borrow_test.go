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
// keyed by the input's schema (see readersOf).
var readers = map[string][]reader{
	"device":      readersOf(methods[ogendevice.Device]("ogen"), device.Parse, device.ParseBorrowed, device.Check),
	"vehicle":     readersOf(methods[ogenvehicle.Vehicle]("ogen"), vehicle.Parse, vehicle.ParseBorrowed, vehicle.Check),
	"association": readersOf(methods[ogenassociation.Association]("ogen"), association.Parse, association.ParseBorrowed, association.Check),
	"event":       readersOf(methods[ogenevent.Event]("ogen"), event.Parse, event.ParseBorrowed, event.Check),
}

// A reader is one way of reading a message: it fails exactly when the
// message is invalid.
type reader struct {
	name string
	read func([]byte) error
}

// readersOf returns ogen's decoding and validation, whose decoder borrows
// from its input, first, as the base column; then this library's decoding
// with a copy of the input (parse, impl=catalogue, as BenchmarkDecode
// times it), its decoding that borrows from the input (borrowed), and its
// judging that keeps nothing (check).
func readersOf[M any](ogen impl, parse, borrowed func([]byte) (M, error), check func([]byte) error) []reader {
	return []reader{
		{"ogen", ogen.decode},
		{"catalogue", func(data []byte) error { _, err := parse(data); return err }},
		{"borrowed", func(data []byte) error { _, err := borrowed(data); return err }},
		{"check", check},
	}
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
