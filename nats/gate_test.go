package nats

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/msg"
)

// readStream reads the n first messages of a stream with an ordered
// consumer, and gives each to fn.
func (b *broker) readStream(stream string, n int, fn func(jetstream.Msg)) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := b.js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{})
	require.NoError(b.t, err)
	for got := 0; got < n; {
		batch, err := c.Fetch(1000, jetstream.FetchMaxWait(time.Second))
		require.NoError(b.t, err)
		for m := range batch.Messages() {
			fn(m)
			got++
		}
		require.NoError(b.t, ctx.Err(), "read %d of %d", got, n)
	}
}

// input is the stream the big test gates: each message by its key, and
// where it belongs.
type input struct {
	body  map[string][]byte
	valid map[string]bool
}

// publishInput publishes n messages to in.x, one in five invalid, each
// with a unique Nats-Msg-Id: a valid one's message id, an invalid one's
// own key.
var start = time.Now()

func publishInput(t testing.TB, b *broker, n int) input {
	in := input{body: make(map[string][]byte, n), valid: make(map[string]bool, n)}
	g := newGen(42)
	for i := range n {
		var m *natsgo.Msg
		if i%5 == 4 {
			m = g.invalid(t, fmt.Sprintf("bad-%d", i))
		} else {
			var err error
			m, err = newMsg("in.x", g.valid())
			require.NoError(t, err)
		}
		m.Subject = "in.x"
		key := m.Header.Get(jetstream.MsgIDHeader)
		if _, dup := in.body[key]; dup {
			t.Fatalf("key %s twice", key)
		}
		in.body[key], in.valid[key] = m.Data, i%5 != 4
		_, err := b.js.PublishMsgAsync(m)
		require.NoError(t, err)
		if i%1000 == 999 { // stay below the limit of acknowledgements pending
			<-b.js.PublishAsyncComplete()
		}
	}
	select {
	case <-b.js.PublishAsyncComplete():
	case <-time.After(time.Minute):
		t.Fatal("publishing the input timed out")
	}
	require.EqualValues(t, n, b.count("IN"))
	t.Logf("%v: "+"published %d messages", time.Since(start), n)
	return in
}

// Nothing lost, nothing doubled: messages valid and invalid, of all four
// schemas, through three gates at once, one of them stopped abruptly
// midway and the server restarted once over the same store, each end up
// exactly once in the output or the dead-letter stream, where it belongs.
func TestGatesLoseNothingAndDoubleNothing(t *testing.T) {
	n := 100_000
	if s := os.Getenv("GATE_TEST_MESSAGES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if raceEnabled {
		n = 10_000 // the race detector slows the server too
	}
	b := startBroker(t)
	in := publishInput(t, b, n)
	b.durable("gate", "in.>", func(c *jetstream.ConsumerConfig) {
		c.AckWait = 2 * time.Second // so that the stopped gate's messages come again soon
		c.MaxAckPending = 4096
	})

	var processed atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan struct{})
	for i := range 3 {
		nc, js := b.connect()
		cons, err := js.Consumer(ctx, "IN", "gate")
		require.NoError(t, err)
		gctx, gcancel := context.WithCancel(ctx)
		var once sync.Once
		g := &Gate{JetStream: js, From: cons, Output: "out", DeadLetter: "dead", Batch: 128, MaxWait: 200 * time.Millisecond,
			Progress: func(s GateStats) {
				processed.Add(int64(s.Messages)) // a rough total, to time the disruptions
				if i == 2 && s.Messages > n/10 {
					// Abruptly: the connection goes with messages fetched,
					// copies in flight and acknowledgements unsent.
					once.Do(func() { nc.Close(); gcancel(); close(stopped) })
				}
			}}
		wg.Go(func() {
			_, err := g.Run(gctx)
			assert.NoError(t, err)
		})
	}
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("the third gate never got going")
	}
	t.Logf("%v: "+"third gate stopped; %d out, %d dead letters", time.Since(start), b.count("OUT"), b.count("DEAD"))
	for limit := time.Now().Add(time.Minute); b.count("OUT")+b.count("DEAD") < uint64(n/2); {
		require.True(t, time.Now().Before(limit), "stalled at %d out, %d dead letters", b.count("OUT"), b.count("DEAD"))
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("%v: "+"half way; restarting the server", time.Since(start))
	b.restart()
	t.Logf("%v: "+"restarted", time.Since(start))

	deadline := time.Now().Add(90 * time.Second)
	for b.count("OUT")+b.count("DEAD") < uint64(n) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%v: "+"all out: %d out, %d dead letters", time.Since(start), b.count("OUT"), b.count("DEAD"))
	// Let whatever would come again come, and be dropped as a duplicate.
	cons, err := b.js.Consumer(ctx, "IN", "gate")
	require.NoError(t, err)
	for time.Now().Before(deadline) {
		info, err := cons.Info(ctx)
		if err == nil && info.NumPending == 0 && info.NumAckPending == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	wg.Wait()

	outs, deads := b.count("OUT"), b.count("DEAD")
	require.EqualValues(t, n, outs+deads, "output %d + dead letters %d", outs, deads)
	seen := make(map[string]int, n)
	b.readStream("OUT", int(outs), func(m jetstream.Msg) {
		key := m.Headers().Get(jetstream.MsgIDHeader)
		seen[key]++
		assert.True(t, in.valid[key], "%s: invalid, yet in the output", key)
		assert.Equal(t, in.body[key], m.Data(), "%s: the body as it came", key)
	})
	b.readStream("DEAD", int(deads), func(m jetstream.Msg) {
		key := m.Headers().Get(OriginalPrefix + jetstream.MsgIDHeader)
		seen[key]++
		assert.False(t, in.valid[key], "%s: valid, yet dead-lettered", key)
		assert.Equal(t, in.body[key], m.Data(), "%s: the body as it came", key)
	})
	for key := range in.body {
		if seen[key] != 1 {
			t.Errorf("%s: came out %d times", key, seen[key])
		}
	}
	t.Logf("%v: "+"%d messages: %d out, %d dead letters", time.Since(start), n, outs, deads)
}

// A fetch that comes back empty while messages wait (as a busy server's
// can) sends an UntilIdle gate back to fetching at once: it asks the
// consumer what it holds, and does not pause to wait for
// acknowledgements, which stalled it for 100 ms.
func TestGateFetchesAgainAtOnceWhenMessagesWait(t *testing.T) {
	b := startBroker(t)
	const n = 50
	g := newGen(7)
	b.publishValid(g, n)
	gt := &Gate{JetStream: b.js, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
	br := &emptyFirst{jsBroker: &jsBroker{g: gt, js: b.js}}
	defer br.closePuller()
	st, err := (&gate.Gate{Broker: br, Binding: ce.NATS, UntilIdle: true}).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, n, st.Messages)
	require.GreaterOrEqual(t, len(br.calls), 3)
	assert.Equal(t, []string{"fetch: empty", "state: waiting", "fetch"}, br.calls[:3])
}

// emptyFirst is the gate's broker, but its first fetch comes back empty;
// it logs the gate's fetches and questions.
type emptyFirst struct {
	*jsBroker
	calls   []string // Run calls from one goroutine
	emptied bool
}

func (b *emptyFirst) Fetch(ctx context.Context, max int, wait bool) ([]gate.Delivery, error) {
	if !b.emptied {
		b.emptied = true
		b.calls = append(b.calls, "fetch: empty")
		return nil, nil
	}
	b.calls = append(b.calls, "fetch")
	return b.jsBroker.Fetch(ctx, max, wait)
}

func (b *emptyFirst) State(ctx context.Context) gate.State {
	s := b.jsBroker.State(ctx)
	b.calls = append(b.calls, "state: "+map[gate.State]string{gate.Idle: "idle", gate.AcksAwaited: "acks awaited", gate.Waiting: "waiting"}[s])
	return s
}

// A copy keeps the producer's Nats-Msg-Id, renamed, unless it is the
// message's id already, as a Publisher's is: the copy's own says it.
func TestGateKeepsAnotherNatsMsgIDRenamed(t *testing.T) {
	b := startBroker(t)
	g := newGen(11)
	ctx := context.Background()
	published, err := newMsg("in.x", g.valid())
	require.NoError(t, err)
	keyed, err := newMsg("in.x", g.valid())
	require.NoError(t, err)
	keyed.Header.Set(jetstream.MsgIDHeader, "producer-key-1")
	for _, m := range []*natsgo.Msg{published, keyed} {
		_, err := b.js.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	gt := &Gate{JetStream: b.js, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
	_, err = gt.Run(ctx)
	require.NoError(t, err)
	var originals []string
	b.readStream("OUT", 2, func(m jetstream.Msg) {
		assert.Equal(t, m.Headers().Get("ce-id"), m.Headers().Get(jetstream.MsgIDHeader))
		originals = append(originals, m.Headers().Get(OriginalPrefix+jetstream.MsgIDHeader))
	})
	assert.Equal(t, []string{"", "producer-key-1"}, originals)
}

// Whatever headers a stored message has, the gate ends it: one that
// nats.go's Fetch took for the server's own status (an empty body with a
// Status header: no messages, timeout, consumer deleted, heartbeat) was
// never handed over and waited for ever; one with a header name nats.go
// will not publish again was retried for ever, its copy and its dead
// letter refused; one whose header block nats.go cannot read was judged,
// and forwarded, without its headers, one contradicting its body. Each is
// a dead letter now, the last two with rule header, and the dead letters
// read back through JetStream as messages, not statuses.
func TestGateEndsMessagesWhoseHeadersTheClientMisreads(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	g := newGen(21)
	valid, err := newMsg("in.x", g.valid())
	require.NoError(t, err)
	_, err = b.js.PublishMsg(ctx, valid)
	require.NoError(t, err)
	statuses := []string{"404", "408", "409", "100", "400", "503"}
	for _, status := range statuses {
		m := &natsgo.Msg{Subject: "in.x", Header: natsgo.Header{"Status": {status}, "Description": {"Consumer Deleted"}}}
		_, err := b.js.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	body := valid.Data
	id := valid.Header.Get("ce-id")
	rawPublish(t, b.url, "in.x", "NATS/1.0\r\nce-type :core.vehicle\r\n\r\n", body)
	rawPublish(t, b.url, "in.x", "NATS/1.0\r\nce-id: "+id+"x\r\nnot a header\r\n\r\n", body)
	const n = 9
	require.EqualValues(t, n, b.count("IN"))

	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	gt := &Gate{JetStream: b.js, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
	st, err := gt.Run(ctx)
	require.NoError(t, err)
	require.NoError(t, ctx.Err(), "the gate did not end every message")
	assert.Equal(t, n, st.Messages)
	assert.Equal(t, 1, st.Forwarded)
	assert.Equal(t, n-1, st.DeadLetters)

	require.EqualValues(t, 1, b.count("OUT"))
	seqs := map[uint64]bool{}
	for _, m := range b.all("DEAD") {
		v, err := ParseVerdict(m.Header)
		require.NoError(t, err)
		assert.False(t, seqs[v.Sequence], "sequence %d dead-lettered twice", v.Sequence)
		seqs[v.Sequence] = true
		require.NotEmpty(t, v.Violations)
		if v.Sequence > uint64(1+len(statuses)) {
			assert.Equal(t, msg.RuleHeader, v.Violations[len(v.Violations)-1].Rule, "%+v", v)
			assert.Equal(t, string(body), string(m.Data))
		}
	}
	for seq := uint64(2); seq <= n; seq++ {
		assert.True(t, seqs[seq], "sequence %d not dead-lettered", seq)
	}

	// A consumer of the dead letters gets each one as a message.
	cons, err := b.js.OrderedConsumer(ctx, "DEAD", jetstream.OrderedConsumerConfig{})
	require.NoError(t, err)
	got := 0
	batch, err := cons.Fetch(n, jetstream.FetchMaxWait(time.Second))
	require.NoError(t, err)
	for m := range batch.Messages() {
		got++
		assert.NotEmpty(t, m.Headers().Get(VerdictHeader))
	}
	assert.Equal(t, n-1, got, "dead letters read back: %v", batch.Error())
}

// Nothing a producer sets passes into the output as a header that
// readers take for another: a Catalogue-Verdict on a valid message was
// forwarded as it came, so that ParseVerdict found a verdict on a copy
// (renamed now, as a dead letter renames it); and a ce-* header in
// another case (CE-ID beside ce-id), which a reader that ignores case,
// as CloudEvents' HTTP binding does, could take for the real one, was
// forwarded beside it: the message is a dead letter now, rule header.
func TestGateForwardsNoHeaderAReaderTakesForAnother(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	g := newGen(22)
	forged, err := newMsg("in.x", g.valid())
	require.NoError(t, err)
	forged.Header.Set(VerdictHeader, `{"subject":"x","sequence":1,"valid":false,"deliveries":1}`)
	var variants []*natsgo.Msg
	for _, k := range []string{"CE-ID", "Ce-Type", "ce-Source", "content-type"} {
		m, err := newMsg("in.x", g.valid())
		require.NoError(t, err)
		m.Header[k] = []string{"forged"}
		variants = append(variants, m)
	}
	for _, m := range append([]*natsgo.Msg{forged}, variants...) {
		_, err := b.js.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	gt := &Gate{JetStream: b.js, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
	st, err := gt.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Forwarded)
	assert.Equal(t, len(variants), st.DeadLetters)
	out := b.all("OUT")
	require.Len(t, out, 1)
	_, err = ParseVerdict(out[0].Header)
	assert.Error(t, err, "a copy has no verdict")
	assert.NotEmpty(t, out[0].Header.Get(OriginalPrefix+VerdictHeader), "the producer's, renamed")
	for _, m := range b.all("DEAD") {
		v, err := ParseVerdict(m.Header)
		require.NoError(t, err)
		require.NotEmpty(t, v.Violations)
		assert.Equal(t, msg.RuleHeader, v.Violations[0].Rule, "%+v", v)
	}
}
