package kafka_test

import (
	"context"
	"sync"
	"syscall"
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
// catalogue/raw: 1 is the raw copy's pace; and the ratio of the CPU time
// the process spent on each (cpu-catalogue/raw, raw's over the
// catalogue's), which a machine shared with other work disturbs less.
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
	var m meter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, mode := range []string{"raw", "catalogue"} {
			m.measure(mode, produce[mode])
		}
	}
	b.StopTimer()
	if failed != nil {
		b.Fatal(failed)
	}
	m.report(b, "raw", "catalogue")
	b.ReportMetric(float64(b.N*round)/m.wall["catalogue"].Seconds(), "msgs/s")
}

// A meter sums the wall-clock and CPU time of the rounds of each side of
// a benchmark.
type meter struct {
	wall, cpu map[string]time.Duration
}

// measure runs f, a round of side, and adds its times to side's.
func (m *meter) measure(side string, f func()) {
	if m.wall == nil {
		m.wall, m.cpu = map[string]time.Duration{}, map[string]time.Duration{}
	}
	cpu, start := cpuTime(), time.Now()
	f()
	m.wall[side] += time.Since(start)
	m.cpu[side] += cpuTime() - cpu
}

// report reports side's pace as a fraction of base's, in wall-clock
// time (side/base) and in CPU time (cpu-side/base).
func (m *meter) report(b *testing.B, base, side string) {
	b.ReportMetric(float64(m.wall[base])/float64(m.wall[side]), side+"/"+base)
	b.ReportMetric(float64(m.cpu[base])/float64(m.cpu[side]), "cpu-"+side+"/"+base)
}

// cpuTime returns the CPU time the process has spent, in user and
// system mode.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
