package nats

import (
	"context"
	"fmt"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
)

// BenchmarkGate times a gate through b.N messages of all four schemas,
// one in eight invalid, beside the same JetStream pipeline that
// republishes each message as it came, without judging it (passthrough):
// the ceiling a gate can reach. The server runs in the process, so -cpu
// limits both.
//
// Each mode first runs the whole pipeline once over as many messages,
// untimed: the first pipeline a process runs is the slower by several
// microseconds a message, faulting in the memory that the server and the
// gate grow into, and whichever mode ran first would pay for it alone.
func BenchmarkGate(b *testing.B) {
	for _, mode := range []string{"validate", "passthrough"} {
		b.Run(mode, func(b *testing.B) {
			benchGate(b, mode, false)
			benchGate(b, mode, true)
		})
	}
}

// benchGate runs the pipeline of BenchmarkGate in mode once over b.N
// messages, timed or not, with a server of its own that it stops after.
func benchGate(b *testing.B, mode string, timed bool) {
	br := startBroker(b)
	defer br.stop()
	bytes := publishBench(b, br, b.N)
	cons := br.durable("gate", "in.>")
	g := &Gate{JetStream: br.js, From: cons, Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
	if !timed {
		st, err := g.Run(context.Background())
		require.NoError(b, err)
		require.Equal(b, b.N, st.Messages)
		return
	}
	b.SetBytes(bytes / int64(b.N))
	b.ResetTimer()
	st, err := g.Run(context.Background())
	b.StopTimer()
	require.NoError(b, err)
	require.Equal(b, b.N, st.Messages)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// publishBench publishes n messages to in.x, one in eight invalid, and
// returns the size of their bodies.
func publishBench(b *testing.B, br *broker, n int) int64 {
	g := newGen(uint64(n))
	var size int64
	for i := range n {
		var m *natsgo.Msg
		if i%8 == 7 {
			m = g.invalid(b, fmt.Sprintf("bad-%d", i))
		} else {
			var err error
			m, err = newMsg("in.x", g.valid())
			require.NoError(b, err)
		}
		size += int64(len(m.Data))
		_, err := br.js.PublishMsgAsync(m)
		require.NoError(b, err)
		if i%1000 == 999 {
			<-br.js.PublishAsyncComplete()
		}
	}
	<-br.js.PublishAsyncComplete()
	return size
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
