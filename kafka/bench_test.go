package kafka_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue/kafka"
)

// BenchmarkProduce produces the sample's valid messages to an in-process
// cluster (kfake), side by side in one run: with kafka.Producer, which
// validates each message, encodes it, frames it, writes its headers and
// key; and with the franz-go client alone producing the same records,
// built beforehand. It reports their ratio of throughput as
// catalogue/raw: 1 is the raw copy's pace.
func BenchmarkProduce(b *testing.B) {
	ms, _ := samples(b)
	c, client := cluster(b, "raw", "catalogue")
	raw := make([]*kgo.Record, len(ms))
	for i, m := range ms {
		r, err := kafka.Record("raw", m, true)
		if err != nil {
			b.Fatal(err)
		}
		raw[i] = r
	}
	_ = c
	p := kafka.Producer{Client: client, Framed: true}
	ctx := context.Background()
	var failed error
	var mu sync.Mutex
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			mu.Lock()
			failed = err
			mu.Unlock()
		}
	}
	const round = 2000
	produce := map[string]func(){
		"raw": func() {
			for i := range round {
				r := *raw[i%len(raw)] // a record is the client's once produced
				client.Produce(ctx, &r, promise)
			}
			if err := client.Flush(ctx); err != nil {
				b.Fatal(err)
			}
		},
		"catalogue": func() {
			for i := range round {
				p.ProduceAsync(ctx, "catalogue", ms[i%len(ms)], promise)
			}
			if err := client.Flush(ctx); err != nil {
				b.Fatal(err)
			}
		},
	}
	// Warm both, then alternate rounds, so that neither pays for going
	// first or for the machine's drift.
	produce["raw"]()
	produce["catalogue"]()
	spent := map[string]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, mode := range []string{"raw", "catalogue"} {
			start := time.Now()
			produce[mode]()
			spent[mode] += time.Since(start)
		}
	}
	b.StopTimer()
	if failed != nil {
		b.Fatal(failed)
	}
	b.ReportMetric(float64(spent["raw"])/float64(spent["catalogue"]), "catalogue/raw")
	b.ReportMetric(float64(b.N*round)/spent["catalogue"].Seconds(), "msgs/s")
}
