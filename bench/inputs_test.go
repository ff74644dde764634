package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// An input is one message of one schema, which every impl of that schema
// must accept before it is timed on it.
type input struct {
	schema string // the peers' package name: device, vehicle, association or event
	name   string // realistic, reversed, or what makes the message large
	data   []byte // compact, as on the wire

	// decodeOnly marks an input that differs from another only in the
	// order of its members, which matters to decoding alone.
	decodeOnly bool

	// huge marks an input too large for the slow peers (santhosh,
	// go-jsonschema) and for more than decoding and checking: made
	// when a benchmark first needs it, by make, rather than at start.
	huge bool
	make func() []byte
}

// bytes returns the input's text, making it on first use if it is made
// lazily.
func (in *input) bytes() []byte {
	if in.data == nil && in.make != nil {
		in.data = in.make()
	}
	return in.data
}

// label names the input in benchmark names, as benchstat keys.
func (in input) label() string {
	return "schema=" + in.schema + "/input=" + in.name
}

// inputs are the benchmarks' inputs: one realistic message per schema,
// read from testdata, the same with its members in reverse order, and two
// large ones made from them. The others are made here, deterministically,
// rather than committed, and stay in step with the realistic ones.
//
// The realistic messages list their members in the schema's order, as
// this library's MarshalJSON writes them, and its decoders try that order
// first; the reversed ones time what a message in another order costs.
var inputs = mustInputs()

func mustInputs() []input {
	var ins []input
	realistic := map[string][]byte{}
	for _, schema := range []string{"device", "vehicle", "association", "event"} {
		data, err := os.ReadFile(filepath.Join("testdata", schema+".json"))
		if err != nil {
			panic(err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, data); err != nil {
			panic(fmt.Sprintf("testdata/%s.json: %v", schema, err))
		}
		realistic[schema] = buf.Bytes()
		ins = append(ins, input{schema: schema, name: "realistic", data: buf.Bytes()})
	}
	for _, schema := range []string{"device", "vehicle", "association", "event"} {
		ins = append(ins, input{schema: schema, name: "reversed", data: reversed(realistic[schema]), decodeOnly: true})
	}
	vehicle := realistic["vehicle"]
	ins = append(ins,
		input{schema: "vehicle", name: "meta1000", data: withMember(vehicle, "meta", bigMeta(1000))},
		input{schema: "vehicle", name: "meta1000shuffled", data: withMember(vehicle, "meta", shuffled(bigMeta(1000), '{', '}'))},
		input{schema: "association", name: "tags1000", data: withMember(realistic["association"], "tags", manyTags(1000))},
		input{schema: "association", name: "tags1000shuffled", data: withMember(realistic["association"], "tags", shuffled(manyTags(1000), '[', ']'))},
		input{schema: "vehicle", name: "1MB", data: withMember(vehicle, "meta", shuffled(metaOf(1<<20-len(vehicle)), '{', '}'))},
		input{schema: "vehicle", name: "64MB", huge: true, make: func() []byte {
			return withMember(vehicle, "meta", shuffled(metaOf(64<<20-len(vehicle)), '{', '}'))
		}},
	)
	return ins
}

// metaOf returns a meta object as bigMeta makes it, of about size bytes.
func metaOf(size int) []byte {
	perMember := len(bigMeta(1000)) / 1000
	return bigMeta(size / perMember)
}

// shuffled returns the members or items of the object or array v
// (opened by open and closed by close), which bigMeta or manyTags made,
// in an order drawn from a fixed seed: the same members, in an order no
// branch predictor learns from the one before, unlike bigMeta's cycle of
// eight kinds of value and sorted names. The values hold no comma but
// between members, items and the two of an array value, which are kept
// together.
func shuffled(v []byte, open, close byte) []byte {
	var parts [][]byte
	depth, start := 0, 1
	for i, c := range v[1 : len(v)-1] {
		i++ // in v
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, v[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, v[start:len(v)-1])
	r := rand.New(rand.NewPCG(20, 4))
	r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return slices.Concat([]byte{open}, bytes.Join(parts, []byte{','}), []byte{close})
}

// reversed returns the JSON object msg with its members in reverse order.
func reversed(msg []byte) []byte {
	var members []string
	eachMember(msg, func(key string, value json.RawMessage) {
		k, _ := json.Marshal(key)
		members = append(members, string(k)+":"+string(value))
	})
	slices.Reverse(members)
	return []byte("{" + strings.Join(members, ",") + "}")
}

// eachMember calls f with each member of the JSON object msg, in order.
func eachMember(msg []byte, f func(key string, value json.RawMessage)) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		panic("not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			panic(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			panic(err)
		}
		f(tok.(string), v)
	}
}

// bigMeta returns a vehicle meta object of n keys whose values cycle through
// every kind of JSON value, null included, as free-form fleet data does.
func bigMeta(n int) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", fmt.Sprintf("attr_%04d", i))
		switch i % 8 {
		case 0:
			fmt.Fprintf(&b, "%q", fmt.Sprintf("fleet note %d: checked at depot", i))
		case 1:
			b.WriteString(strconv.Itoa(i * 37))
		case 2:
			b.WriteString(strconv.FormatFloat(float64(i)/8+0.25, 'f', -1, 64))
		case 3:
			b.WriteString(strconv.FormatBool(i%16 < 8))
		case 4:
			b.WriteString("null")
		case 5:
			fmt.Fprintf(&b, `{"unit":"km","value":%d}`, i*11)
		case 6:
			fmt.Fprintf(&b, `["a-%d","b-%d"]`, i, i+1)
		case 7:
			b.WriteString(`"2026-03-14T09:27:01+01:00"`)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// manyTags returns an array of n distinct association tags.
func manyTags(n int) []byte {
	prefixes := []string{"depot", "cost-centre", "pool", "project", "driver-group"}
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%s:%04d"`, prefixes[i%len(prefixes)], i)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// withMember returns the JSON object msg with member name's value replaced
// by value, keeping the members' order; a nil value removes the member.
func withMember(msg []byte, name string, value []byte) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	found := false
	eachMember(msg, func(key string, v json.RawMessage) {
		if key == name {
			found = true
			if value == nil {
				return
			}
			v = value
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	})
	if !found {
		panic("withMember: no member " + name)
	}
	b.WriteByte('}')
	return b.Bytes()
}
