package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/go-faster/jx"

	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/schemas"
	"github.com/fleetkit/catalogue/vehicle"
	"github.com/santhosh-tekuri/jsonschema/v6"

	gjsassociation "github.com/fleetkit/catalogue/bench/peers/gojsonschema/association"
	gjsdevice "github.com/fleetkit/catalogue/bench/peers/gojsonschema/device"
	gjsevent "github.com/fleetkit/catalogue/bench/peers/gojsonschema/event"
	gjsvehicle "github.com/fleetkit/catalogue/bench/peers/gojsonschema/vehicle"
	ogenassociation "github.com/fleetkit/catalogue/bench/peers/ogen/association"
	ogendevice "github.com/fleetkit/catalogue/bench/peers/ogen/device"
	ogenevent "github.com/fleetkit/catalogue/bench/peers/ogen/event"
	ogenvehicle "github.com/fleetkit/catalogue/bench/peers/ogen/vehicle"
	plainassociation "github.com/fleetkit/catalogue/bench/peers/plain/association"
	plaindevice "github.com/fleetkit/catalogue/bench/peers/plain/device"
	plainevent "github.com/fleetkit/catalogue/bench/peers/plain/event"
	plainvehicle "github.com/fleetkit/catalogue/bench/peers/plain/vehicle"
)

// impls are the implementations compared on each schema's inputs, keyed by
// the input's schema.
var impls = map[string][]impl{
	"device":      peersOf[plaindevice.Device, device.Device, gjsdevice.Device, ogendevice.Device]("core.device"),
	"vehicle":     peersOf[plainvehicle.Vehicle, vehicle.Vehicle, gjsvehicle.Vehicle, ogenvehicle.Vehicle]("core.vehicle"),
	"association": peersOf[plainassociation.Association, association.Association, gjsassociation.Association, ogenassociation.Association]("core.association"),
	"event":       peersOf[plainevent.Event, event.Event, gjsevent.Event, ogenevent.Event]("example.event"),
}

// peersOf returns the impls of the named schema, whose types are Plain
// (the plain struct), Catalogue (this library's), GJS (go-jsonschema's)
// and Ogen (ogen's), in the same order for every schema: stdlib first, so
// that benchstat -col /impl takes it as the base column, then this
// library (impl=catalogue).
func peersOf[Plain, Catalogue, GJS, Ogen any, PC message[Catalogue], PO message[Ogen]](schema string) []impl {
	return []impl{
		encodingJSON[Plain]("stdlib"),
		methods[Catalogue, PC]("catalogue"),
		encodingJSON[GJS]("gojsonschema"),
		methods[Ogen, PO]("ogen"),
		santhosh(schema),
	}
}

// slow are the impls left out of decoding huge inputs, where one call
// takes many seconds and a gigabyte or more (encoding/json's map of two
// million members, santhosh's and go-jsonschema's trees).
var slow = map[string]bool{"stdlib": true, "santhosh": true, "gojsonschema": true}

// An impl is one implementation's handling of one schema's messages. An
// operation it lacks is nil. validate and marshal do, untimed, the decoding
// their operation starts from, and return the operation to time.
type impl struct {
	name string

	// decode decodes data and validates it, as a consumer of the message
	// does: it fails exactly when the impl rejects the message.
	decode func(data []byte) error

	// validate decodes data and returns the validation of the result.
	validate func(data []byte) (func() error, error)

	// marshal decodes data and returns the encoding of the result.
	marshal func(data []byte) (func() ([]byte, error), error)
}

// encodingJSON is an impl for T through encoding/json, as its users call
// it: for the plain struct that is all there is; go-jsonschema's generated
// UnmarshalJSON validates as it decodes.
func encodingJSON[T any](name string) impl {
	return impl{
		name: name,
		decode: func(data []byte) error {
			var v T
			return json.Unmarshal(data, &v)
		},
		marshal: func(data []byte) (func() ([]byte, error), error) {
			v := new(T)
			if err := json.Unmarshal(data, v); err != nil {
				return nil, err
			}
			return func() ([]byte, error) { return json.Marshal(v) }, nil
		},
	}
}

// A message is a generated type with its own codec, as ogen's (and this
// library's) are.
type message[T any] interface {
	*T
	json.Unmarshaler
	json.Marshaler
}

// A validator is a decoded value that checks what its decoding did not.
type validator interface {
	Validate() error
}

// methods is an impl for T through its own methods, called directly, as the
// users of such generated code do (ogen's UnmarshalJSON is its Decode on a
// jx.Decoder over data), followed by its Validate method if it has one: ogen
// generates none for a schema with nothing left to check after decoding,
// such as core.device. Going through json.Unmarshal instead would add the
// standard library's syntax scan of data to every call.
func methods[T any, P message[T]](name string) impl {
	im := impl{
		name: name,
		decode: func(data []byte) error {
			v := P(new(T))
			if err := v.UnmarshalJSON(data); err != nil {
				return err
			}
			if v, ok := any(v).(validator); ok {
				return v.Validate()
			}
			return nil
		},
		marshal: func(data []byte) (func() ([]byte, error), error) {
			v := P(new(T))
			if err := v.UnmarshalJSON(data); err != nil {
				return nil, err
			}
			return v.MarshalJSON, nil
		},
	}
	if _, ok := any(P(nil)).(validator); ok {
		im.validate = func(data []byte) (func() error, error) {
			v := P(new(T))
			if err := v.UnmarshalJSON(data); err != nil {
				return nil, err
			}
			return any(v).(validator).Validate, nil
		}
	}
	return im
}

// santhosh is the impl of a general JSON Schema validator, with format
// assertion on, compiled once from the library's own copy of the schema.
// It has no types to decode into: decoding is parsing into any, the way its
// users hand it bytes.
func santhosh(name string) impl {
	sch, err := compile(name)
	if err != nil {
		fail := func(data []byte) error { return err }
		return impl{name: "santhosh", decode: fail}
	}
	parse := func(data []byte) (any, error) {
		return jsonschema.UnmarshalJSON(bytes.NewReader(data))
	}
	return impl{
		name: "santhosh",
		decode: func(data []byte) error {
			v, err := parse(data)
			if err != nil {
				return err
			}
			return sch.Validate(v)
		},
		validate: func(data []byte) (func() error, error) {
			v, err := parse(data)
			if err != nil {
				return nil, err
			}
			return func() error { return sch.Validate(v) }, nil
		},
	}
}

func compile(name string) (*jsonschema.Schema, error) {
	s, err := schemas.Lookup(name, "1.0")
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.JSON()))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(s.ID, doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return c.Compile(s.ID)
}

// BenchmarkDecode times decoding plus validation of each input: what a
// consumer pays to accept a message.
func BenchmarkDecode(b *testing.B) {
	for i := range inputs {
		in := &inputs[i]
		for _, im := range impls[in.schema] {
			if im.decode == nil || in.huge && slow[im.name] {
				continue
			}
			b.Run(in.label()+"/impl="+im.name, func(b *testing.B) {
				timeCalls(b, im.name, in, im.decode)
			})
		}
	}
}

// BenchmarkValidate times validation alone of each input's decoded value:
// what a producer pays to check a message it built.
func BenchmarkValidate(b *testing.B) {
	for _, in := range inputs {
		if in.decodeOnly || in.huge {
			continue
		}
		for _, im := range impls[in.schema] {
			if im.validate == nil {
				continue
			}
			b.Run(in.label()+"/impl="+im.name, func(b *testing.B) {
				validate, err := im.validate(in.data)
				if err != nil {
					b.Fatalf("%s rejects %s: %v", im.name, in.label(), err)
				}
				if err := validate(); err != nil {
					b.Fatalf("%s rejects %s: %v", im.name, in.label(), err)
				}
				b.SetBytes(int64(len(in.data)))
				b.ReportAllocs()
				for b.Loop() {
					if err := validate(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkMarshal times encoding of each input's decoded value: what a
// producer pays to publish a message.
func BenchmarkMarshal(b *testing.B) {
	for _, in := range inputs {
		if in.decodeOnly || in.huge {
			continue
		}
		for _, im := range impls[in.schema] {
			if im.marshal == nil {
				continue
			}
			b.Run(in.label()+"/impl="+im.name, func(b *testing.B) {
				marshal, err := im.marshal(in.data)
				if err != nil {
					b.Fatalf("%s rejects %s: %v", im.name, in.label(), err)
				}
				if _, err := marshal(); err != nil {
					b.Fatalf("%s cannot encode %s: %v", im.name, in.label(), err)
				}
				b.SetBytes(int64(len(in.data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := marshal(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// checkers are the validate-only impls: each reports whether a message
// is one well-formed JSON value, without decoding it into anything. The
// library's check is the strictest: it also rejects repeated member names
// at any depth (decision 12), invalid UTF-8 and escaped lone surrogates
// (decision 11), which neither peer checks (encoding/json replaces
// invalid UTF-8 rather than reject it; jx checks neither).
var checkers = []struct {
	name  string
	check func([]byte) error
}{
	{"stdlib", func(data []byte) error {
		if !json.Valid(data) {
			return errors.New("json.Valid: false")
		}
		return nil
	}},
	{"catalogue", func(data []byte) error {
		if off, reason := jsontext.Check(data); reason != "" {
			return fmt.Errorf("%s at byte offset %d", reason, off)
		}
		return nil
	}},
	{"jx", func(data []byte) error {
		d := jx.GetDecoder()
		defer jx.PutDecoder(d)
		d.ResetBytes(data)
		return d.Validate()
	}},
}

// BenchmarkScan times validate-only scanning of each input: whether it
// is one JSON value, as strictly as each impl checks (see checkers). The
// library's is jsontext.Check, the scan under its decoders; jx's is its
// Validate (Skip, then a check that nothing follows), as ogen's decoders
// skip what they do not read. Its MB/s is the figure to read.
func BenchmarkScan(b *testing.B) {
	for i := range inputs {
		in := &inputs[i]
		if in.decodeOnly {
			continue
		}
		for _, c := range checkers {
			b.Run(in.label()+"/impl="+c.name, func(b *testing.B) {
				timeCalls(b, c.name, in, c.check)
			})
		}
	}
}

// timeCalls times impl's f on the input, having checked, untimed, that
// it accepts it.
func timeCalls(b *testing.B, impl string, in *input, f func([]byte) error) {
	data := in.bytes()
	if err := f(data); err != nil {
		b.Fatalf("%s rejects %s: %v", impl, in.label(), err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := f(data); err != nil {
			b.Fatal(err)
		}
	}
}
