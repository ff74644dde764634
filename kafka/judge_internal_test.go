package kafka

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/internal/sample"
)

// BenchmarkJudge does the Kafka gate's own work on a record, without the
// client's, the broker's or the gate core's: it judges the record as the
// gate does (decodeIdentity, borrowing from the value) and writes its
// copy's headers (withIdentity), over the sample's valid messages, each
// a plain record with the ce_ headers Record writes, as BenchmarkGate's
// input is. Count its instructions with the garbage collector off, as
// for BenchmarkRecord (see the README).
func BenchmarkJudge(b *testing.B) {
	lines, _ := sample.Lines(b, "../testdata/messages.ndjson")
	var records []*kgo.Record
	for _, line := range lines {
		m, err := catalogue.DecodeOr(line, "example.event")
		if err != nil {
			continue
		}
		r, err := Record("in", m, false)
		if err != nil {
			b.Fatal(err)
		}
		records = append(records, r)
	}
	var scratch []byte
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := records[i%len(records)]
		_, id, err := decodeIdentity(catalogue.Kinds, r, ce.Kafka.Borrowing())
		if err != nil {
			b.Fatal(err)
		}
		var hs []kgo.RecordHeader
		if hs, scratch, err = withIdentity(r.Headers, id, scratch); err != nil || len(hs) != len(r.Headers) {
			b.Fatal(hs, err)
		}
	}
}
