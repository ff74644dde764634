package ce_test

import (
	"testing"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
)

// BenchmarkDecode times Decode of a message with every header of decision
// 14 (headers), beside catalogue.DecodeAs of its body alone (body): the
// difference is what reading and checking the headers costs.
func BenchmarkDecode(b *testing.B) {
	m, err := catalogue.Decode([]byte(deviceLine))
	if err != nil {
		b.Fatal(err)
	}
	h := header{}
	if err := ce.NATS.Write(h, m); err != nil {
		b.Fatal(err)
	}
	body := []byte(deviceLine)
	b.Run("headers", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ce.NATS.Decode(catalogue.Kinds, h, body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("body", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := catalogue.DecodeAs("core.device", "1.0", body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("write", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := ce.NATS.Write(h, m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// pairs is a Header kept as a Kafka record keeps its headers, a list of
// keys and values read by walking it, each key once (Values of a key
// given twice is not benchmarked).
// Values returns a slice of the list's values, allocating nothing, as
// the Kafka gate's reader of a record's headers does.
type pairs struct{ keys, values []string }

func (p *pairs) Values(key string) []string {
	for i, k := range p.keys {
		if k == key {
			return p.values[i : i+1 : i+1]
		}
	}
	return nil
}

func (p *pairs) Set(key, value string) {
	p.keys = append(p.keys, key)
	p.values = append(p.values, value)
}

// BenchmarkDecodeIdentity times what a gate does to judge a delivery, for
// each binding: DecodeIdentity of each valid message of the sample, with
// every header Write gives it (headers) or none (bare), building the
// message (borrowing) or not (judging), and AppendHeaders of the copy's
// headers. One op judges the whole sample;
// allocs/op and the instructions callgrind counts are the figures to
// compare, since the time of one run drifts with the machine's load.
func BenchmarkDecodeIdentity(b *testing.B) {
	type delivery struct {
		body   []byte
		header ce.Header
	}
	for _, binding := range []struct {
		name string
		ce.Binding
		header func() ce.Header
	}{
		{"nats", ce.NATS, func() ce.Header { return header{} }},
		{"kafka", ce.Kafka, func() ce.Header { return &pairs{} }},
	} {
		var bare, headed []delivery
		for _, line := range corpus(b) {
			m, err := catalogue.Decode(line)
			if err != nil {
				continue
			}
			h := binding.header()
			if err := binding.Write(h, m); err != nil {
				continue
			}
			bare = append(bare, delivery{body: line, header: binding.header()})
			headed = append(headed, delivery{body: line, header: h})
		}
		for _, run := range []struct {
			name string
			ds   []delivery
		}{{"headers", headed}, {"bare", bare}} {
			for _, mode := range []struct {
				name  string
				judge ce.Binding
			}{{"borrowing", binding.Borrowing()}, {"judging", binding.Judging()}} {
				b.Run(binding.name+"/"+run.name+"/"+mode.name, func(b *testing.B) {
					var scratch []byte
					b.ReportAllocs()
					for b.Loop() {
						for _, d := range run.ds {
							_, id, err := mode.judge.DecodeIdentity(catalogue.Kinds, d.header, d.body)
							if err != nil {
								b.Fatal(err)
							}
							scratch, err = mode.judge.AppendHeaders(scratch[:0], id, func(string, []byte) {})
							if err != nil {
								b.Fatal(err)
							}
						}
					}
					b.ReportMetric(float64(len(run.ds)), "msgs/op")
				})
			}
		}
	}
}
