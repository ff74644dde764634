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
