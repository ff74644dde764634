package kafka_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue/internal/serverproc"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
)

// BenchmarkProduce produces the sample's valid messages, side by side in
// one run: with kafka.Producer, which validates each message, encodes it,
// frames it, writes its headers and key; and with the franz-go client
// alone producing the same records, built beforehand, on the same client
// (same batching, linger, acks and requests in flight). It runs against
// a cluster (kfake) in the benchmark's process and against one in a
// process of its own (see eachBroker and meter.report for what it
// reports).
func BenchmarkProduce(b *testing.B) {
	const round = 10_000
	eachProducer(b, func(b *testing.B, k *benchBroker, ms []msg.Message, raw []*kgo.Record, p kafka.Producer) {
		client := p.Client
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
		m := newMeter(k, "BenchmarkProduce", round)
		m.run(b, "raw", "catalogue", func(side string) (func(), func()) {
			return produce[side], func() {}
		}, func() { trim(b, client, produceTopics...) })
		if failed != nil {
			b.Fatal(failed)
		}
	})
}

// BenchmarkProduceSync is BenchmarkProduce waiting for the broker's
// acknowledgement of each record before producing the next, as
// kafka.Producer.Produce does, against franz-go's ProduceSync of the same
// record built beforehand, on the same client: with one producer, one
// record at a time, and with syncProducers goroutines producing so at
// once, whose records the client batches together. Each record is a round
// trip to the broker, whose wait costs both sides alike: the ratio is how
// much of it the library's work adds.
func BenchmarkProduceSync(b *testing.B) {
	eachProducer(b, func(b *testing.B, k *benchBroker, ms []msg.Message, raw []*kgo.Record, p kafka.Producer) {
		client := p.Client
		ctx := context.Background()
		for _, producers := range []int{1, syncProducers} {
			// A round is as many records one at a time as a producer
			// acknowledged one by one gets through in a fraction of a
			// second; more with more producers at once.
			round := 1_000
			if producers > 1 {
				round = producers * 200
			}
			each := round / producers
			produce := map[string]func(g, i int) error{
				"raw": func(g, i int) error {
					r := *raw[(g*each+i)%len(raw)] // a record is the client's once produced
					return client.ProduceSync(ctx, &r).FirstErr()
				},
				"catalogue": func(g, i int) error {
					_, err := p.Produce(ctx, "catalogue", ms[(g*each+i)%len(ms)])
					return err
				},
			}
			b.Run(fmt.Sprintf("producers=%d", producers), func(b *testing.B) {
				m := newMeter(k, fmt.Sprintf("BenchmarkProduceSync, %d at once", producers), round)
				m.run(b, "raw", "catalogue", func(side string) (func(), func()) {
					return func() { concurrently(b, producers, each, produce[side]) }, func() {}
				}, func() { trim(b, client, produceTopics...) })
			})
		}
	})
}

// syncProducers is how many goroutines BenchmarkProduceSync produces on
// at once in its second run.
const syncProducers = 64

// concurrently runs f(g, i) for i from 0 to each-1 on each of n goroutines
// g at once, and fails b on the first error.
func concurrently(b *testing.B, n, each int, f func(g, i int) error) {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for g := range n {
		wg.Go(func() {
			for i := range each {
				if err := f(g, i); err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecord validates the sample's valid messages and makes each
// its record, framed, as Producer does before it hands the record to the
// client: the library's own work a record, without the client's or the
// broker's. Count its instructions, which do not drift with the
// machine's load, with the garbage collector off (see the README): about
// 5,540 a record (5,850 before the README's last table of cuts, of which
// Validate took about 700, the JSON about 2,800 and the ce_ headers about
// 1,450).
func BenchmarkRecord(b *testing.B) {
	ms, _ := samples(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m := ms[i%len(ms)]
		if err := m.Validate(); err != nil {
			b.Fatal(err)
		}
		if _, err := kafka.Record("t", m, true); err != nil {
			b.Fatal(err)
		}
	}
}

// produceTopics are the topics the two sides of the producer's
// benchmarks produce to: the baseline and the library.
var produceTopics = []string{"raw", "catalogue"}

// eachProducer runs f as eachBroker does, against a cluster with the
// produceTopics, with the sample's valid messages ms, their records to
// raw, framed, made beforehand, and a Producer that frames them, on a
// client of the cluster with franz-go's default options.
func eachProducer(b *testing.B, f func(b *testing.B, k *benchBroker, ms []msg.Message, raw []*kgo.Record, p kafka.Producer)) {
	ms, _ := samples(b)
	eachBroker(b, 3, produceTopics, func(b *testing.B, k *benchBroker) {
		client := k.client(b)
		defer client.Close()
		f(b, k, ms, records(b, "raw", ms, true), kafka.Producer{Client: client, Framed: true})
	})
}

// records returns the record Record makes of each message, to topic.
func records(b *testing.B, topic string, ms []msg.Message, framed bool) []*kgo.Record {
	rs := make([]*kgo.Record, len(ms))
	for i, m := range ms {
		r, err := kafka.Record(topic, m, framed)
		if err != nil {
			b.Fatal(err)
		}
		rs[i] = r
	}
	return rs
}

// client returns a client of k, with franz-go's default options, for
// the caller to close before the benchmark's function returns: go test
// calls it more than once, and a client left open would go on asking a
// cluster that is gone.
func (k *benchBroker) client(b *testing.B) *kgo.Client {
	client, err := kgo.NewClient(kgo.SeedBrokers(k.addrs...))
	if err != nil {
		b.Fatal(err)
	}
	return client
}

// A benchBroker is the cluster a benchmark runs against: kfake in the
// benchmark's process, or in a process of its own (proc).
type benchBroker struct {
	where string
	addrs []string
	proc  *brokerProcess
}

// eachBroker runs f as two sub-benchmarks, kfake=in-process and
// kfake=process, each against a new cluster of brokers brokers and the
// topics, of three partitions each. The broker process runs with the
// benchmark's GOMAXPROCS (go test -cpu), so that -cpu 1 gives each
// process one core.
func eachBroker(b *testing.B, brokers int, topics []string, f func(*testing.B, *benchBroker)) {
	const partitions = 3
	table.begin()
	b.Run("kfake=in-process", func(b *testing.B) {
		c, err := kfake.NewCluster(kfake.NumBrokers(brokers), kfake.SeedTopics(partitions, topics...))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		f(b, &benchBroker{where: "in-process", addrs: c.ListenAddrs()})
	})
	b.Run("kfake=process", func(b *testing.B) {
		p := startBroker(b, procs(), brokers, partitions, topics...)
		f(b, &benchBroker{where: "process", addrs: p.addrs, proc: p})
	})
}

// trim deletes every record of the topics, outside the time measured, so
// that the broker holds no more than a round's worth, as a broker with a
// retention limit would: a broker whose heap grew all the run long would
// spend more on garbage collection with every round.
func trim(b *testing.B, client *kgo.Client, topics ...string) {
	ctx := context.Background()
	adm := kadm.NewClient(client)
	ends, err := adm.ListEndOffsets(ctx, topics...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		b.Fatal(err)
	}
	resp, err := adm.DeleteRecords(ctx, ends.Offsets())
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		b.Fatal(err)
	}
}

// A meter measures the rounds of the two sides of a benchmark: the
// wall-clock time of each, and the CPU time the benchmark's process and
// the broker's process spent on it.
type meter struct {
	bench  string
	broker *benchBroker
	// records is the number of records a round handles.
	records int
	rounds  map[string][]usage
}

// usage is what a round took.
type usage struct {
	wall, cpu, brokerCPU time.Duration
	allocs               uint64 // heap allocations of the benchmark's process
}

// newMeter returns a meter of benchmark bench, against k, whose rounds
// handle records records each.
func newMeter(k *benchBroker, bench string, records int) *meter {
	return &meter{bench: bench, broker: k, records: records, rounds: map[string][]usage{}}
}

// run measures rounds of the sides base and side: start prepares a
// round of a side, outside the time measured, and returns it and what to
// do after it (also outside). It runs a round of each to warm them, then
// b.N of each, alternating base and side so that neither pays for going
// first or for the machine's drift, calling between after each pair;
// then it reports.
func (m *meter) run(b *testing.B, base, side string, start func(side string) (round, end func()), between func()) {
	once := func(s string, measure bool) {
		round, end := start(s)
		if measure {
			m.measure(b, s, round)
		} else {
			round()
		}
		end()
	}
	once(base, false)
	once(side, false)
	between()
	b.ResetTimer()
	for range b.N {
		for _, s := range []string{base, side} {
			once(s, true)
		}
		b.StopTimer()
		between()
		b.StartTimer()
	}
	b.StopTimer()
	m.report(b, base, side)
}

// measure runs f, a round of side, and records its times.
func (m *meter) measure(b *testing.B, side string, f func()) {
	broker := m.brokerCPU(b)
	allocs, cpu, start := heapAllocs(), serverproc.CPUTime(), time.Now()
	f()
	u := usage{wall: time.Since(start), cpu: serverproc.CPUTime() - cpu}
	u.allocs = heapAllocs() - allocs
	u.brokerCPU = m.brokerCPU(b) - broker
	m.rounds[side] = append(m.rounds[side], u)
}

// heapAllocs returns how many heap allocations the process has made.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// brokerCPU returns the CPU time the broker's process has spent, or 0
// when the broker runs in the benchmark's.
func (m *meter) brokerCPU(b *testing.B) time.Duration {
	if m.broker.proc == nil {
		return 0
	}
	return m.broker.proc.cpuTime(b)
}

// report reports, as medians over the rounds: side's pace as a fraction
// of base's, in wall-clock time (side/base) and in the CPU time of both
// processes (cpu-side/base), taken round by round, each of side's rounds
// against the round of base before it; and for each side, its records a
// second (wall-clock), and the CPU time in µs a record of the benchmark's
// process (client-µs/rec: broker included when it runs in the process)
// and of the broker's process (broker-µs/rec), and the heap allocations
// a record of the benchmark's process (client-allocs/rec). It adds them
// to the table TestMain prints.
func (m *meter) report(b *testing.B, base, side string) {
	bs, ss := m.rounds[base], m.rounds[side]
	wall := make([]float64, len(ss))
	cpu := make([]float64, len(ss))
	for i := range ss {
		wall[i] = float64(bs[i].wall) / float64(ss[i].wall)
		cpu[i] = float64(bs[i].cpu+bs[i].brokerCPU) / float64(ss[i].cpu+ss[i].brokerCPU)
	}
	r := row{
		bench: m.bench, where: m.broker.where, procs: procs(), rounds: len(ss), records: m.records,
		wall: median(wall), cpu: median(cpu),
	}
	b.ReportMetric(r.wall, side+"/"+base)
	b.ReportMetric(r.cpu, "cpu-"+side+"/"+base)
	for i, s := range []string{side, base} {
		us := m.rounds[s]
		r.perSec[i] = float64(m.records) / median(durations(us, func(u usage) time.Duration { return u.wall })) * 1e9
		r.client[i] = median(durations(us, func(u usage) time.Duration { return u.cpu })) / 1e3 / float64(m.records)
		r.brokerCPU[i] = median(durations(us, func(u usage) time.Duration { return u.brokerCPU })) / 1e3 / float64(m.records)
		r.allocs[i] = median(durations(us, func(u usage) time.Duration { return time.Duration(u.allocs) })) / float64(m.records)
		b.ReportMetric(r.perSec[i], s+"-rec/s")
		b.ReportMetric(r.client[i], s+"-client-µs/rec")
		b.ReportMetric(r.allocs[i], s+"-client-allocs/rec")
		if m.broker.proc != nil {
			b.ReportMetric(r.brokerCPU[i], s+"-broker-µs/rec")
		}
	}
	table.add(r)
}

// durations returns the durations of field of each usage, in ns.
func durations(us []usage, field func(usage) time.Duration) []float64 {
	fs := make([]float64, len(us))
	for i, u := range us {
		fs[i] = float64(field(u))
	}
	return fs
}

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

// A row is a benchmark's figures, ours (index 0) and the baseline's (1),
// for the README's table.
type row struct {
	bench, where      string
	procs             int
	rounds, records   int
	wall, cpu         float64
	perSec            [2]float64
	client, brokerCPU [2]float64
	allocs            [2]float64
}

// results are the rows of the benchmarks run, and the machine's load
// average when the first began.
type results struct {
	rows []row
	load string
}

// table holds the results of the benchmarks run, for TestMain to print.
var table results

// begin notes the load average, when no benchmark has begun yet.
func (t *results) begin() {
	if t.load == "" {
		t.load = loadAverage()
	}
}

func (t *results) add(r row) { t.rows = append(t.rows, r) }

// print writes the rows as a Markdown table, ready for the README,
// followed by how they were taken; nothing when there are none.
func (t *results) print(w io.Writer) {
	if len(t.rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\n| benchmark | kfake | GOMAXPROCS | records/s, ours / baseline | ratio, wall-clock | ratio, CPU | client CPU µs a record, ours / baseline | broker CPU µs a record, ours / baseline | client allocations a record, ours / baseline |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range t.final() {
		broker := "in the client's"
		if r.where == "process" {
			broker = fmt.Sprintf("%.2f / %.2f", r.brokerCPU[0], r.brokerCPU[1])
		}
		fmt.Fprintf(w, "| `%s` | %s | %d | %.0f / %.0f | %.2f | %.2f | %.2f / %.2f | %s | %.1f / %.1f |\n",
			r.bench, r.where, r.procs, r.perSec[0], r.perSec[1], r.wall, r.cpu, r.client[0], r.client[1], broker, r.allocs[0], r.allocs[1])
	}
	fmt.Fprintf(w, "\nEach row holds the medians of its rounds, the two sides alternating (rounds a side × records a round: %s); load average %s at the start, %s at the end.\n",
		t.sizes(), t.load, loadAverage())
}

// final returns the rows of each benchmark's final run: go test runs a
// benchmark once before running it b.N times, and each run reports.
func (t *results) final() []row {
	type key struct {
		bench, where string
		procs        int
	}
	most := map[key]int{}
	for _, r := range t.rows {
		k := key{r.bench, r.where, r.procs}
		most[k] = max(most[k], r.rounds)
	}
	var rs []row
	for _, r := range t.rows {
		if r.rounds == most[key{r.bench, r.where, r.procs}] {
			rs = append(rs, r)
		}
	}
	return rs
}

// sizes lists the benchmarks' rounds and records a round.
func (t *results) sizes() string {
	var s []string
	for _, r := range t.final() {
		x := fmt.Sprintf("%s %d×%d", strings.TrimPrefix(r.bench, "Benchmark"), r.rounds, r.records)
		if !slices.Contains(s, x) {
			s = append(s, x)
		}
	}
	return strings.Join(s, ", ")
}

// printTable writes the table of the benchmarks run to w.
func printTable(w io.Writer) { table.print(w) }

// loadAverage returns the machine's load averages over 1, 5 and 15
// minutes, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
