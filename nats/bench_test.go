package nats

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/internal/serverproc"
)

// BenchmarkGate times a gate through b.N messages of all four schemas,
// one in eight invalid, beside an independent raw copy (rawCopy) that
// uses none of the library, and reports the ratio of their rates in the
// same run: gate/raw. The input comes with the headers of decision 14
// (headers) or without them (bare: the body and a Nats-Msg-Id, as a
// producer that knows nothing of the catalogue sends it), when the gate
// adds them. A third peer, rawhdrs, is the raw copy giving each copy the
// very headers the gate writes, made before the clock starts: on bare
// input, what carrying them costs, apart from working them out; with
// headers, the headers it came with again: raw's work, and a lookup. The server runs in the process,
// so -cpu limits all, and the process's CPU time is the server's too:
// BenchmarkGateApart runs it in a process of its own, as an operator
// does.
//
// Each peer runs in rounds, each over b.N messages with a server of its
// own, their order turned every round so that a drift in the machine's
// load falls on all alike, after an untimed round of each: the first
// pipeline a process runs is the slower, faulting in the memory that the
// server and the client grow into. Besides the rates, it reports the
// process's CPU time a message of each (the server's included), which
// bounds the rate on a core of its own and drifts less with the machine's
// load than the elapsed time, and their ratio: cpu-raw/gate.
func BenchmarkGate(b *testing.B) { benchGate(b, startBroker) }

// BenchmarkGateApart is BenchmarkGate with the server in a process of its
// own (startBrokerProcess), as an operator runs a gate: the gate and the
// raw copies are its clients, in the benchmark's process, and the server
// has as many cores (GOMAXPROCS) as they do, on a machine whose cores
// both processes share. It reports, besides the rates and their ratios,
// the CPU time a message of the benchmark's process (cpu-µs/msg, the
// client's alone now) and of the server's (srv-µs/msg), read from the
// server process before and after each round, and the ratio of the two
// together (both-raw/gate), which bounds the ratio of rates when the two
// processes must share their cores.
func BenchmarkGateApart(b *testing.B) { benchGate(b, startBrokerProcess) }

// gatePeers are the peers BenchmarkGate and BenchmarkGateApart compare.
var gatePeers = []string{"gate", "raw", "rawhdrs"}

// peersEnv, if set, names the peers to run, separated by commas, such as
// one alone to profile or count it (the ratios then left out).
const peersEnv = "CATNATS_BENCH_PEERS"

// benchGate runs BenchmarkGate, each pipeline with a server that start
// starts.
func benchGate(b *testing.B, start func(testing.TB) *broker) {
	gatePeers := gatePeers
	if s := os.Getenv(peersEnv); s != "" {
		gatePeers = strings.Split(s, ",")
	}
	for _, input := range []string{"headers", "bare"} {
		b.Run(input, func(b *testing.B) {
			const rounds = 4
			bare := input == "bare"
			for _, p := range gatePeers {
				benchPipeline(b, start, bare, p, false)
			}
			total := map[string]*pipelineTimes{}
			for _, p := range gatePeers {
				total[p] = new(pipelineTimes)
			}
			var size int64
			for r := range rounds {
				for i := range gatePeers {
					p := gatePeers[(r+i)%len(gatePeers)]
					t := benchPipeline(b, start, bare, p, true)
					total[p].add(t)
					size = t.size
				}
			}
			n := float64(b.N * rounds)
			gate := total["gate"]
			b.ReportMetric(0, "ns/op")
			if gate != nil {
				b.ReportMetric(float64(size)*rounds/gate.elapsed.Seconds()/1e6, "gate-MB/s")
			}
			for _, p := range gatePeers {
				t := total[p]
				b.ReportMetric(n/t.elapsed.Seconds(), p+"-msgs/s")
				b.ReportMetric(float64(t.cpu.Microseconds())/n, p+"-cpu-µs/msg")
				b.ReportMetric(float64(t.allocs)/n, p+"-allocs/msg")
				b.ReportMetric(float64(t.bytes)/n, p+"-B/msg")
				if t.idle > 0 {
					b.ReportMetric(float64(t.idle.Milliseconds())/rounds, p+"-idle-ms")
				}
				if t.server > 0 {
					b.ReportMetric(float64(t.server.Microseconds())/n, p+"-srv-µs/msg")
				}
				if p != "gate" && gate != nil {
					b.ReportMetric(t.elapsed.Seconds()/gate.elapsed.Seconds(), "gate/"+p)
					b.ReportMetric(t.cpu.Seconds()/gate.cpu.Seconds(), "cpu-"+p+"/gate")
					if t.server > 0 {
						b.ReportMetric((t.cpu+t.server).Seconds()/(gate.cpu+gate.server).Seconds(), "both-"+p+"/gate")
					}
				}
			}
		})
	}
}

// pipelineTimes are what benchPipeline measures of a pipeline: how long
// it took, the CPU time of the benchmark's process and of the server's,
// if it has one of its own, and the size of the bodies it copied.
//
// A pipeline ends when every message is stored and acknowledged: for the
// raw copy when it returns, for the gate when it reports (Progress) that
// it has confirmed them all. A gate run with UntilIdle, as here, then
// goes on to find that the input has nothing left, asking the server
// what it holds and waiting for its answer to settle: a few milliseconds
// a round (gate-idle-ms), which an operator's gate, serving for ever,
// never spends, and which are left out.
type pipelineTimes struct {
	elapsed, cpu, server time.Duration
	idle                 time.Duration // after the end, until the gate saw nothing was left
	size                 int64
	// allocs and bytes are what the benchmark's process allocated: the
	// client's, with the server apart.
	allocs, bytes uint64
}

func (t *pipelineTimes) add(u pipelineTimes) {
	t.elapsed, t.cpu, t.server, t.idle = t.elapsed+u.elapsed, t.cpu+u.cpu, t.server+u.server, t.idle+u.idle
	t.allocs, t.bytes = t.allocs+u.allocs, t.bytes+u.bytes
}

// allocated returns how many allocations the process has made, and of
// how many bytes.
func allocated() (allocs, bytes uint64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs, ms.TotalAlloc
}

// benchPipeline runs a peer of BenchmarkGate once over b.N messages, with
// a server that launch starts and that it stops after, and returns what
// it measured.
//
// Its goroutines, and the client's that they start, carry the profiler
// label peer (go test -cpuprofile, then go tool pprof -tagfocus
// peer=gate): a profile of one peer, apart from the others.
func benchPipeline(b *testing.B, launch func(testing.TB) *broker, bare bool, peer string, timed bool) (t pipelineTimes) {
	pprof.Do(context.Background(), pprof.Labels("peer", peer), func(ctx context.Context) {
		t = runPipeline(ctx, b, launch, bare, peer, timed)
	})
	return t
}

func runPipeline(ctx context.Context, b *testing.B, launch func(testing.TB) *broker, bare bool, peer string, timed bool) pipelineTimes {
	b.StopTimer()
	br := launch(b)
	defer br.stop()
	var size int64
	var hdrs map[string]natsgo.Header
	pprof.Do(ctx, pprof.Labels("peer", "input"), func(context.Context) {
		size, hdrs = publishBench(b, br, b.N, bare)
	})
	if peer != "rawhdrs" {
		hdrs = nil
	}
	cons := br.durable("gate", "in.>")
	server := func() time.Duration {
		if br.proc == nil {
			return 0
		}
		c, err := br.proc.CPU()
		require.NoError(b, err)
		return c
	}
	runtime.GC() // the publishing's garbage, not the peer's to collect
	srv := server()
	if timed {
		b.StartTimer()
	}
	var t pipelineTimes
	allocs, bytes := allocated()
	start, cpu := time.Now(), serverproc.CPUTime()
	end := func() {
		t = pipelineTimes{elapsed: time.Since(start), cpu: serverproc.CPUTime() - cpu, server: server() - srv, size: size}
		a, b := allocated()
		t.allocs, t.bytes = a-allocs, b-bytes
	}
	if peer == "gate" {
		g := &Gate{JetStream: br.js, From: cons, Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
		g.Progress = func(st GateStats) {
			if st.Messages == b.N && t.elapsed == 0 {
				end()
			}
		}
		st, err := g.Run(ctx)
		require.NoError(b, err)
		require.Equal(b, b.N, st.Messages)
		require.NotZero(b, t.elapsed, "the gate never reported every message confirmed")
		t.idle = time.Since(start) - t.elapsed
	} else {
		require.NoError(b, rawCopy(ctx, br.js, cons, "out", b.N, hdrs))
		end()
	}
	b.StopTimer()
	return t
}

// rawCopy copies n messages of cons to subject as a program that knows
// nothing of the catalogue would, with the gate's discipline: fetch up to
// 256 at a time, publish each asynchronously with its headers as they
// came (its Nats-Msg-Id among them), and acknowledge a batch once
// JetStream has stored its copies, while the next batch is published:
// two batches in flight.
//
// With hdrs, a copy whose Nats-Msg-Id is a key of hdrs has those headers
// instead of its own.
func rawCopy(ctx context.Context, js jetstream.JetStream, cons jetstream.Consumer, subject string, n int, hdrs map[string]natsgo.Header) error {
	type copied struct {
		m   jetstream.Msg
		ack jetstream.PubAckFuture
	}
	batches := make(chan []copied, 2) // as deep as the gate's pipeline
	errs := make(chan error, 1)
	go func() {
		var err error
		for batch := range batches {
			for _, c := range batch {
				select {
				case <-c.ack.Ok():
					c.m.Ack()
				case e := <-c.ack.Err():
					err = cmp.Or(err, e)
				}
			}
		}
		errs <- err
	}()
	for done := 0; done < n; {
		batch, err := cons.FetchNoWait(256)
		if err != nil {
			close(batches)
			return err
		}
		var out []copied
		for m := range batch.Messages() {
			h := m.Headers()
			if hh, ok := hdrs[h.Get(jetstream.MsgIDHeader)]; ok {
				h = hh
			}
			f, err := js.PublishMsgAsync(&natsgo.Msg{Subject: subject, Header: h, Data: m.Data()})
			if err != nil {
				close(batches)
				return err
			}
			out = append(out, copied{m, f})
		}
		if len(out) == 0 {
			time.Sleep(100 * time.Microsecond)
			continue
		}
		done += len(out)
		batches <- out
	}
	close(batches)
	return <-errs
}

// publishBench publishes n messages to in.x, one in eight invalid, with
// the headers of decision 14 or bare, and returns the size of their bodies
// and, for valid messages, by their Nats-Msg-Id, the headers a gate
// writes on their copies.
func publishBench(b testing.TB, br *broker, n int, bare bool) (int64, map[string]natsgo.Header) {
	g := newGen(uint64(n))
	var size int64
	hdrs := make(map[string]natsgo.Header)
	var ids []string // of hdrs, in the order published
	for i := range n {
		var m *natsgo.Msg
		if i%8 == 7 {
			m = g.invalid(b, fmt.Sprintf("bad-%d", i))
		} else {
			var err error
			m, err = newMsg("in.x", g.valid())
			require.NoError(b, err)
		}
		id := m.Header.Get(jetstream.MsgIDHeader)
		if i%8 != 7 {
			hdrs[id] = m.Header // Nats-Msg-Id the message's id: the gate keeps no other
			ids = append(ids, id)
		}
		if bare {
			m.Header = natsgo.Header{jetstream.MsgIDHeader: {id}}
		}
		size += int64(len(m.Data))
		_, err := br.js.PublishMsgAsync(m)
		require.NoError(b, err)
		if i%1000 == 999 {
			<-br.js.PublishAsyncComplete()
		}
	}
	<-br.js.PublishAsyncComplete()
	return size, packHeaders(ids, hdrs)
}

// packHeaders returns hdrs with each map made again, one after the
// other in the order of ids, its values slices of one string, so that
// rawCopy, which reads them in that order, finds them together in memory
// as it finds the headers of the messages it has just received. Made as
// their messages were, they lie scattered over a heap that grows with
// the messages, and reading them cost rawhdrs a microsecond or more a
// message in cache misses, more the more messages (on input with
// headers, where it copies the very headers raw does, 7.6 µs a message
// of the client's CPU against raw's 5.1 at 20,000 messages, 9.4 at
// 80,000).
func packHeaders(ids []string, hdrs map[string]natsgo.Header) map[string]natsgo.Header {
	type value struct {
		key        string
		start, end int
	}
	var text []byte
	values := make([][]value, len(ids))
	count := 0
	for i, id := range ids {
		for k, vs := range hdrs[id] {
			for _, v := range vs {
				values[i] = append(values[i], value{k, len(text), len(text) + len(v)})
				text = append(text, v...)
				count++
			}
		}
	}
	all, strs := string(text), make([]string, 0, count)
	packed := make(map[string]natsgo.Header, len(ids))
	for i, id := range ids {
		h := make(natsgo.Header, len(values[i]))
		for _, v := range values[i] {
			strs = append(strs, all[v.start:v.end])
			vs := strs[len(strs)-1 : len(strs) : len(strs)]
			if prev, ok := h[v.key]; ok {
				vs = append(prev, vs...)
			}
			h[v.key] = vs
		}
		packed[id] = h
	}
	return packed
}

// BenchmarkPublish times publishing a message and waiting for JetStream
// to store it, with Publisher (validate, then publish) and without
// validating (the same message, headers and Nats-Msg-Id).
func BenchmarkPublish(b *testing.B) {
	for _, mode := range []string{"validate", "novalidate"} {
		b.Run(mode, func(b *testing.B) {
			br := startBroker(b)
			g := newGen(uint64(b.N))
			msgs := make([]catalogue.Message, b.N)
			var size int64
			for i := range msgs {
				msgs[i] = g.valid()
				data, _ := msgs[i].MarshalJSON()
				size += int64(len(data))
			}
			p := Publisher{JetStream: br.js}
			ctx := context.Background()
			b.SetBytes(size / int64(b.N))
			b.ResetTimer()
			for _, m := range msgs {
				var err error
				if mode == "validate" {
					_, err = p.Publish(ctx, "in.x", m)
				} else {
					var out *natsgo.Msg
					if out, err = newMsg("in.x", m); err == nil {
						_, err = br.js.PublishMsg(ctx, out)
					}
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkCopy times what the gate does to one message besides the
// broker's work, on the mix BenchmarkGate gates, without a broker:
// judging it and making its copy or its dead letter (gate), which goes
// back to be reused as once acknowledged, beside the raw copy's message
// (raw), with headers and bare.
func BenchmarkCopy(b *testing.B) {
	for _, input := range []string{"headers", "bare"} {
		const n = 4096
		g := newGen(n)
		msgs := make([]*natsgo.Msg, n)
		var size int64
		for i := range msgs {
			if i%8 == 7 {
				msgs[i] = g.invalid(b, fmt.Sprintf("bad-%d", i))
			} else {
				var err error
				msgs[i], err = newMsg("in.x", g.valid())
				require.NoError(b, err)
			}
			if input == "bare" {
				msgs[i].Header = natsgo.Header{jetstream.MsgIDHeader: msgs[i].Header[jetstream.MsgIDHeader]}
			}
			size += int64(len(msgs[i].Data))
		}
		// The deliveries, made beforehand as a fetch makes a batch's, in
		// one allocation: their metadata as the gate reads it.
		ds, mds := make([]delivery, n), make([]natsgo.MsgMetadata, n)
		for i := range ds {
			mds[i] = natsgo.MsgMetadata{Stream: "IN", NumDelivered: 1}
			mds[i].Sequence.Stream = uint64(i + 1)
			ds[i] = delivery{m: pulled{msgs[i]}, md: &mds[i]}
		}
		for _, mode := range []string{"gate", "raw"} {
			b.Run(input+"/"+mode, func(b *testing.B) {
				br := &jsBroker{g: &Gate{Output: "out", DeadLetter: "dead"}, outLimit: 1 << 20, deadLimit: 1 << 20, incarnation: "IN@2026-01-01T00:00:00Z"}
				b.SetBytes(size / n)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					m := msgs[i%n]
					i++
					if mode == "raw" {
						out := &natsgo.Msg{Subject: "out", Header: m.Header, Data: m.Data}
						if out.Data == nil {
							b.Fatal("no copy")
						}
						continue
					}
					d := &ds[(i-1)%n]
					msg, id, err := br.DecodeIdentity(catalogue.Kinds, d) // as the gate judges
					var out *outgoing
					if err == nil {
						out, err = br.copyOf(d, id)
					} else {
						v := gate.VerdictOf(msg, err)
						if msg == nil && id.Kind != nil { // judged, not built: as the gate names its schema
							v.Schema, v.Version = id.Kind.Name, id.Kind.Version
						}
						v.Place, v.Deliveries = d.Place(), 1
						out, err = br.deadLetterOf(d, v, br.deadLimit)
					}
					if err != nil || out.m.Data == nil {
						b.Fatal(err)
					}
					out.release() // as once JetStream has acknowledged it
				}
			})
		}
	}
}
