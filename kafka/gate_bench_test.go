package kafka_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/kafka"
)

// BenchmarkGate drains the same input, valid messages of the sample with
// their ce_ headers, through the Kafka gate and through a raw
// transactional copy that uses none of the library (consume a batch,
// produce each record as it is, commit the batch's offsets with it), each
// as a consumer group of its own, on a new session, in alternating rounds
// of one run. It runs against a cluster (kfake) in the benchmark's
// process and against one in a process of its own (see eachBroker and
// meter.report for what it reports).
func BenchmarkGate(b *testing.B) {
	const n = 20_000
	_, lines := samples(b)
	records := make([]*kgo.Record, n)
	for i := range n {
		m, err := catalogue.DecodeOr(withNewID(b, lines[i%len(lines)]), "example.event")
		if err != nil {
			b.Fatal(err)
		}
		r, err := kafka.Record(inTopic, m, false)
		if err != nil {
			b.Fatal(err)
		}
		records[i] = r
	}
	eachBroker(b, 1, []string{inTopic, outTopic, deadTopic}, func(b *testing.B, k *benchBroker) {
		cl := k.client(b)
		defer cl.Close()
		if err := cl.ProduceSync(context.Background(), records...).FirstErr(); err != nil {
			b.Fatal(err)
		}

		round := 0
		session := func(mode string) *kgo.GroupTransactSession {
			round++
			s, err := kgo.NewGroupTransactSession(kgo.SeedBrokers(k.addrs...),
				kgo.ConsumerGroup(fmt.Sprintf("%s-%d", mode, round)), kgo.ConsumeTopics(inTopic),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
				kgo.TransactionalID(mode+"-"+strconv.Itoa(round)), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
			if err != nil {
				b.Fatal(err)
			}
			return s
		}
		// Each drains the input on a session of its own, made and closed
		// outside the time measured.
		drain := map[string]func(s *kgo.GroupTransactSession){
			"raw": func(s *kgo.GroupTransactSession) {
				for done := 0; done < n; {
					rs := s.PollRecords(context.Background(), 256).Records()
					if err := s.Begin(); err != nil {
						b.Fatal(err)
					}
					for _, r := range rs {
						s.Produce(context.Background(), &kgo.Record{Topic: outTopic, Key: r.Key, Value: r.Value, Headers: r.Headers}, nil)
					}
					ok, err := s.End(context.Background(), kgo.TryCommit)
					if err != nil {
						b.Fatal(err)
					}
					if ok {
						done += len(rs)
					}
				}
			},
			"gate": func(s *kgo.GroupTransactSession) {
				// Stopped once it has stored all: UntilIdle would add the
				// time it takes to be sure nothing is left.
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				g := &kafka.Gate{Session: s, Output: outTopic, DeadLetters: deadTopic, Batch: 256, Progress: func(st gate.Stats) {
					if st.Messages == n {
						cancel()
					}
				}}
				st, err := g.Run(ctx)
				if err != nil || st.Forwarded != n {
					b.Fatalf("gate: %+v, %v", st, err)
				}
			},
		}
		m := newMeter(k, "BenchmarkGate", n)
		m.run(b, "raw", "gate", func(mode string) (func(), func()) {
			s := session(mode)
			return func() { drain[mode](s) }, s.Close
		}, func() { trim(b, cl, outTopic, deadTopic) })
	})
}

// BenchmarkDecodeRecord decodes the sample's valid messages from their
// records, framed, with the ce_ headers Record writes, and checks the
// headers against them (DecodeIdentity): what a consumer of the records
// does, the library's own work a record, without the client's or the
// broker's. (The gate judges so too, without building the message:
// BenchmarkJudge.) Count its instructions with the garbage
// collector off, as for BenchmarkRecord (see the README).
func BenchmarkDecodeRecord(b *testing.B) {
	ms, _ := samples(b)
	rs := records(b, "t", ms, true)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, _, err := kafka.DecodeIdentity(catalogue.Kinds, rs[i%len(rs)]); err != nil {
			b.Fatal(err)
		}
	}
}
