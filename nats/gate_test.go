package nats

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/device"
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
			if i == 2 && err != nil {
				// Its connection closed before its context was done.
				assert.ErrorIs(t, err, natsgo.ErrConnectionClosed)
				return
			}
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

// A header the producer names with the gate's prefix for what it
// renames (Catalogue-Original-) is renamed in its turn, in a copy and in
// a dead letter: it was kept as it came, beside the gate's own, so that
// a producer could say what the original's Nats-Msg-Id was, and a
// reader of the copy, or the demo's report of a dead letter, took its
// word for it.
func TestGateKeepsNoHeaderThatPosesAsOneItRenamed(t *testing.T) {
	b := startBroker(t)
	g := newGen(12)
	ctx := context.Background()
	forge := func(m *natsgo.Msg) *natsgo.Msg {
		m.Header.Set(jetstream.MsgIDHeader, "real-key-"+m.Header.Get("ce-id"))
		m.Header.Set(OriginalPrefix+jetstream.MsgIDHeader, "forged")
		m.Header.Set("catalogue-original-Nats-Rollup", "forged")
		return m
	}
	valid, err := newMsg("in.x", g.valid())
	require.NoError(t, err)
	for _, m := range []*natsgo.Msg{forge(valid), forge(g.invalid(t, "bad"))} {
		_, err := b.js.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	gt := &Gate{JetStream: b.js, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
	st, err := gt.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st.Forwarded)
	require.Equal(t, 1, st.DeadLetters)
	for _, m := range append(b.all("OUT"), b.all("DEAD")...) {
		assert.Len(t, m.Header[OriginalPrefix+jetstream.MsgIDHeader], 1, "%v", m.Header)
		assert.True(t, strings.HasPrefix(m.Header.Get(OriginalPrefix+jetstream.MsgIDHeader), "real-key-"), "%v", m.Header)
		assert.Equal(t, []string{"forged"}, m.Header[OriginalPrefix+OriginalPrefix+jetstream.MsgIDHeader])
		assert.Equal(t, []string{"forged"}, m.Header[OriginalPrefix+"catalogue-original-Nats-Rollup"])
	}
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
	for deadline := time.Now().Add(10 * time.Second); b.count("IN") < n; time.Sleep(10 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "stored %d of %d", b.count("IN"), n) // the raw ones are stored after the PONG
	}

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

// The verdict quotes a header name NATS does not publish as the library
// writes every string of a verdict (msg.AppendJSONString), its '<', '>'
// and '&' as they are: encoding/json wrote them \u003c, \u003e and
// \u0026, so that the dead letter's text differed from what msgcheck and
// the Kafka gate write for the same value.
func TestGateQuotesABadHeaderNameAsTheLibraryDoes(t *testing.T) {
	b := startBroker(t)
	valid, err := newMsg("in.x", newGen(23).valid())
	require.NoError(t, err)
	const name = "<b>&x"
	rawPublish(t, b.url, "in.x", "NATS/1.0\r\n"+name+": y\r\n\r\n", valid.Data)
	for deadline := time.Now().Add(10 * time.Second); b.count("IN") < 1; time.Sleep(10 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "not stored")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gt := &Gate{JetStream: b.js, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
	st, err := gt.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st.DeadLetters)
	dead := b.all("DEAD")
	require.Len(t, dead, 1)
	v, err := ParseVerdict(dead[0].Header)
	require.NoError(t, err)
	require.NotEmpty(t, v.Violations)
	last := v.Violations[len(v.Violations)-1]
	assert.Equal(t, msg.RuleHeader, last.Rule)
	assert.Equal(t, string(msg.AppendJSONString(nil, name)), last.Value)
	assert.Contains(t, dead[0].Header.Get(VerdictHeader), `"value":"\"<b>&x\""`)
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

// A gate that cannot work is refused before it changes anything on the
// server, and an operator's mistake in its subjects or its durable's name
// is refused, not waited out: a subject that covers the output picked
// the output's stream to make the durable consumer on (and on an
// interest-based stream, that consumer would hold every copy); an output
// that is the dead-letter subject mixed dead letters into the output; an
// output with a wildcard was taken as a subject to publish to; and an
// invalid durable name was retried for ever.
func TestGateRefusesMistakesBeforeMakingItsConsumer(t *testing.T) {
	b := startBroker(t)
	for _, c := range []struct {
		name                   string
		in, out, dead, durable string
		says                   string
	}{
		{"input covers every stream", ">", "out", "dead", "gate", "covers the output"},
		{"input covers the dead letters", "*", "out", "dead", "gate", "covers the output"},
		{"output is the dead letters", "in.>", "dead", "dead", "gate", "dead-letter subject"},
		{"output with a wildcard", "in.>", "out.*", "dead", "gate", "wildcard"},
		{"dead letters with a wildcard", "in.>", "out", ">", "gate", "wildcard"},
		{"a durable name JetStream refuses", "in.>", "out", "dead", "a.b", "a.b"},
		{"no input", "", "out", "dead", "gate", "input"},
		{"input with a space", "in x", "out", "dead", "gate", `input subject "in x"`},
		{"input with an empty token", "in..x", "out", "dead", "gate", "input subject"},
		{"input with > before its end", "in.>.x", "out", "dead", "gate", "input subject"},
		{"no stream stores the output", "in.>", "elsewhere", "dead", "gate", "no stream stores the output"},
		{"no stream stores the dead letters", "in.>", "out", "elsewhere", "gate", "no stream stores the dead-letter"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			g := &Gate{JetStream: b.js, Input: c.in, Durable: c.durable, Output: c.out, DeadLetter: c.dead, UntilIdle: true}
			_, err := g.Run(ctx)
			require.ErrorIs(t, err, ErrRefused)
			assert.Contains(t, err.Error(), c.says)
			for _, stream := range []string{"IN", "OUT", "DEAD"} {
				for name := range b.stream(stream).ConsumerNames(ctx).Name() {
					t.Errorf("stream %s has a consumer %s, made by a gate refused", stream, name)
				}
			}
		})
	}
}

// A gate takes an output or dead-letter stream that republishes what it
// stores elsewhere than to its input (see
// TestGateRefusesStreamsThatWouldHoldOrDoubleMessages).
func TestGateTakesAStreamThatRepublishesElsewhere(t *testing.T) {
	b := startBroker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := b.stream("DEAD").CachedInfo().Config
	cfg.RePublish = &jetstream.RePublish{Source: "dead", Destination: "audit.dead"}
	_, err := b.js.UpdateStream(ctx, cfg)
	require.NoError(t, err)
	_, err = b.js.PublishMsg(ctx, newGen(33).invalid(t, "bad"))
	require.NoError(t, err)
	gt := &Gate{JetStream: b.js, Input: "in.>", Durable: "gate", Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
	st, err := gt.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.DeadLetters)
}

// A gate whose input is changed under it to bring back what it stores
// (the dead-letter stream deleted, the input stream made to store the
// dead-letter subject, and the consumer to read it) stops at the first of
// its own messages that comes back, saying why: each dead letter came
// back, was dead-lettered again under another id, and came back again,
// for ever.
func TestGateStopsWhenItsOwnMessagesComeBack(t *testing.T) {
	b := startBroker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run, _ := b.runGate(ctx, newGen(36))
	defer run.stop()
	require.NoError(t, b.js.DeleteStream(ctx, "DEAD"))
	cfg := streamConfig("IN", "in.>")
	cfg.Subjects = append(cfg.Subjects, "dead")
	_, err := b.js.UpdateStream(ctx, cfg)
	require.NoError(t, err)
	b.durable("gate", "in.>", func(c *jetstream.ConsumerConfig) { c.FilterSubject, c.FilterSubjects = "", []string{"in.>", "dead"} })
	_, err = b.js.PublishMsg(ctx, newGen(37).invalid(t, "bad"))
	require.NoError(t, err)
	dead := func() uint64 {
		info, err := b.stream("IN").Info(context.Background(), jetstream.WithSubjectFilter("dead"))
		require.NoError(t, err)
		return info.State.Subjects["dead"]
	}
	err = run.wait(t, 20*time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dead-letter subject dead")
	assert.EqualValues(t, 1, dead())
}

// A gate refuses an input stream that stores its output or its dead
// letters too (one stream of fleet.in.>, fleet.valid and fleet.dead): a
// copy's Nats-Msg-Id is the message's id, which a Publisher gives its
// message too, so that the stream took each copy for a duplicate of the
// message it copied, and the gate, finding that message under the id,
// acknowledged it as a redelivery: no valid message was ever forwarded.
// And a producer could give its message the Nats-Msg-Id of a dead letter
// to come, which the stream would then drop.
func TestGateRefusesAnInputStreamThatStoresItsOutput(t *testing.T) {
	for _, c := range []struct {
		name     string
		subjects []string
		says     string
	}{
		{"output", []string{"in.>", "out"}, "the output subject out is stored by the input stream IN"},
		{"dead letters", []string{"in.>", "dead"}, "the dead-letter subject dead is stored by the input stream IN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := startBroker(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for _, name := range []string{"OUT", "DEAD"} {
				require.NoError(t, b.js.DeleteStream(ctx, name))
			}
			_, err := b.js.CreateStream(ctx, streamConfig("OTHER", map[string]string{"out": "dead", "dead": "out"}[c.subjects[1]]))
			require.NoError(t, err)
			cfg := streamConfig("IN", "in.>")
			cfg.Subjects = c.subjects
			_, err = b.js.UpdateStream(ctx, cfg)
			require.NoError(t, err)
			b.publishValid(newGen(38), 3)
			b.refused(t, ctx, c.says)
			assert.Zero(t, b.count("OTHER"))
		})
	}
}

// operatorLimits are the limits an operator may give a durable consumer
// on what a gate asks of it.
var operatorLimits = []struct {
	name string
	edit func(*jetstream.ConsumerConfig)
}{
	{"MaxRequestBatch", func(c *jetstream.ConsumerConfig) { c.MaxRequestBatch = 10 }},
	{"MaxRequestExpires", func(c *jetstream.ConsumerConfig) { c.MaxRequestExpires = 10 * time.Millisecond }},
	{"MaxAckPending", func(c *jetstream.ConsumerConfig) { c.MaxAckPending = 3 }},
}

// A gate reads a durable consumer as the operator made it: one that
// refuses requests for more than a few messages (MaxRequestBatch), or
// for a longer wait (MaxRequestExpires), was asked again in vain for
// ever; one that lets only a few messages await acknowledgement
// (MaxAckPending) left each request of the gate unanswered until it gave
// up, a second later, so that a few messages took minutes.
func TestGateReadsAConsumerWithTheOperatorsLimits(t *testing.T) {
	for _, c := range operatorLimits {
		t.Run(c.name, func(t *testing.T) {
			b := startBroker(t)
			const n = 1000
			g := newGen(31)
			b.publishValid(g, n)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			gt := &Gate{JetStream: b.js, From: b.durable("gate", "in.>", c.edit), Output: "out", DeadLetter: "dead", UntilIdle: true}
			st, err := gt.Run(ctx)
			require.NoError(t, err)
			require.NoError(t, ctx.Err(), "the gate did not get through %d messages", n)
			assert.Equal(t, n, st.Messages)
			assert.EqualValues(t, n, b.count("OUT"))
		})
	}
}

// A gate follows its durable consumer's limits when the operator changes
// them under it (nats consumer edit), or when it starts again on a
// consumer changed since: it read them once, and asked for more than the
// consumer now allows, refused every time, for ever.
func TestGateFollowsTheConsumersLimitsChangedUnderIt(t *testing.T) {
	for _, c := range operatorLimits {
		t.Run(c.name, func(t *testing.T) {
			b := startBroker(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			g := newGen(32)
			run, _ := b.runGate(ctx, g)
			defer run.stop()
			b.durable("gate", "in.>", c.edit)
			const n = 300
			b.publishValid(g, n)
			for b.count("OUT") < n+1 {
				require.NoError(t, ctx.Err(), "the gate forwarded %d of %d", b.count("OUT"), n+1)
				time.Sleep(20 * time.Millisecond)
			}
			st, err := run.stop()
			require.NoError(t, err)
			assert.GreaterOrEqual(t, st.Messages, n+1)
		})
	}
}

// A gate refuses a durable consumer that would end messages the gate has
// not: one without explicit acknowledgements (AckNone takes a message as
// acknowledged once delivered, and AckAll every message before the one
// acknowledged, the gate's retries included), and one that stops
// delivering a message after MaxDeliver deliveries, which the gate's
// retries reach in an outage: the message then waits in its stream, never
// delivered again, and the gate idle. A push consumer, which it cannot
// pull from, was waited for as if the server were down.
func TestGateRefusesAConsumerThatWouldDropMessages(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  jetstream.ConsumerConfig
		says string
	}{
		{"AckNone", jetstream.ConsumerConfig{AckPolicy: jetstream.AckNonePolicy}, "acknowledge"},
		{"AckAll", jetstream.ConsumerConfig{AckPolicy: jetstream.AckAllPolicy}, "acknowledge"},
		{"MaxDeliver", jetstream.ConsumerConfig{AckPolicy: jetstream.AckExplicitPolicy, MaxDeliver: 5}, "MaxDeliver"},
		{"push", jetstream.ConsumerConfig{AckPolicy: jetstream.AckExplicitPolicy, DeliverSubject: "push.gate"}, "pull"},
		// One that delivers headers alone: every message was judged, and
		// dead-lettered, without its body.
		{"headers only", jetstream.ConsumerConfig{AckPolicy: jetstream.AckExplicitPolicy, HeadersOnly: true}, "headers"},
		// One whose requests must name a priority group, which a gate's do
		// not: each was refused, for ever.
		{"priority groups", jetstream.ConsumerConfig{AckPolicy: jetstream.AckExplicitPolicy, PriorityPolicy: jetstream.PriorityPolicyOverflow, PriorityGroups: []string{"A"}}, "priority"},
		// Not one that drops messages, but one that reads others than the
		// gate was told to.
		{"another filter", jetstream.ConsumerConfig{AckPolicy: jetstream.AckExplicitPolicy, FilterSubject: "in.other"}, "reads in.other, not the input in.>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := startBroker(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c.cfg.Durable = "gate"
			if c.cfg.FilterSubject == "" {
				c.cfg.FilterSubject = "in.>"
			}
			var err error
			if c.cfg.DeliverSubject != "" {
				_, err = b.js.CreateOrUpdatePushConsumer(ctx, "IN", c.cfg)
			} else {
				_, err = b.js.CreateOrUpdateConsumer(ctx, "IN", c.cfg)
			}
			require.NoError(t, err)
			b.refused(t, ctx, c.says)
		})
	}
}

// A gate whose durable consumer is changed under it to one it refuses at
// start (a MaxDeliver, after which JetStream stops delivering a message
// the gate could not store yet, in an outage; headers only) stops,
// saying why, the next time its input is idle: it ran on, and the
// messages the consumer then gave up on waited in their stream, never
// delivered again, in silence.
func TestGateStopsWhenItsConsumerIsChangedToDropMessages(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*jetstream.ConsumerConfig)
		says string
	}{
		{"MaxDeliver", func(c *jetstream.ConsumerConfig) { c.MaxDeliver = 5 }, "MaxDeliver 5"},
		{"headers only", func(c *jetstream.ConsumerConfig) { c.HeadersOnly = true }, "headers only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := startBroker(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			run, _ := b.runGate(ctx, newGen(39))
			defer run.stop()
			b.durable("gate", "in.>", c.edit)
			err := run.wait(t, 20*time.Second)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.says)
		})
	}
}

// A gate refuses output and dead-letter streams that would hold its
// messages hostage or store them twice: one that does not acknowledge
// what it stores (NoAck), whose copies the gate would wait for and send
// again for ever; a sealed one, which stores nothing more; a counter
// (AllowMsgCounter), which refuses every message that does not add to
// it (Nats-Incr), and so every copy and dead letter, for ever; and one
// whose duplicate window is shorter than the input consumer's AckWait,
// which would store a message that comes again twice. And streams that
// would bring its own copies or dead letters back to its input, whatever
// their subjects: an output or dead-letter stream that republishes what
// it stores (RePublish) to a subject the input reads, and an input
// stream that sources the output or the dead letters (Sources, Mirror)
// onto such a subject. Only the subjects were checked: a dead letter
// came back as input, was dead-lettered again under a new id, and came
// back again, for ever.
func TestGateRefusesStreamsThatWouldHoldOrDoubleMessages(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		edit         func(*jetstream.StreamConfig)
		says         string
	}{
		{"output NoAck", "OUT", func(c *jetstream.StreamConfig) { c.NoAck = true }, "acknowledge"},
		{"dead letters sealed", "DEAD", func(c *jetstream.StreamConfig) { c.Sealed = true }, "sealed"},
		{"output duplicate window", "OUT", func(c *jetstream.StreamConfig) { c.Duplicates = time.Second }, "duplicate window"},
		{"output counter", "OUT", func(c *jetstream.StreamConfig) { c.AllowMsgCounter = true }, "counter"},
		{"dead letters counter", "DEAD", func(c *jetstream.StreamConfig) { c.AllowMsgCounter = true }, "counter"},
		{"dead letters republished", "DEAD", func(c *jetstream.StreamConfig) {
			c.RePublish = &jetstream.RePublish{Source: "dead", Destination: "in.again"}
		}, "the dead-letter stream DEAD republishes"},
		{"copies republished by a mapping", "OUT", func(c *jetstream.StreamConfig) {
			c.RePublish = &jetstream.RePublish{Source: "*", Destination: "in.{{wildcard(1)}}"}
		}, "the output stream OUT republishes"},
		{"dead letters sourced", "IN", func(c *jetstream.StreamConfig) {
			c.Sources = []*jetstream.StreamSource{{Name: "DEAD", SubjectTransforms: []jetstream.SubjectTransformConfig{{Source: "dead", Destination: "in.dead"}}}}
		}, "the input stream IN sources the dead-letter stream DEAD"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := startBroker(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cfg := b.stream(c.stream).CachedInfo().Config
			c.edit(&cfg)
			if _, err := b.js.UpdateStream(ctx, cfg); err != nil {
				// A counter is made so, not changed into one.
				require.NoError(t, b.js.DeleteStream(ctx, c.stream))
				_, err = b.js.CreateStream(ctx, cfg)
				require.NoError(t, err)
			}
			b.publishValid(newGen(34), 1)
			_, err := b.js.PublishMsg(ctx, newGen(35).invalid(t, "bad"))
			require.NoError(t, err)
			b.refused(t, ctx, c.says)
			assert.Zero(t, b.count("OUT")+b.count("DEAD"), "nothing stored")
		})
	}
}

// A server restarted with a smaller max_payload under a running gate
// takes no copy or dead letter larger than it now stores: nats.go
// refused them (ErrMaxPayload), and the gate, its limits read at start,
// left their messages to come again for ever. A copy too large is now
// dead-lettered (rule too_large), and a dead letter cut to the new limit.
func TestGateFollowsAServerRestartedWithASmallerLimit(t *testing.T) {
	b := startBrokerWith(t, 16<<10)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// A valid device and an invalid one, each of 10 KiB, which fit the
	// first server's limit, with room for the gate's headers, and not
	// the second's.
	valid, invalid := bigPair(t, newGen(41), 10<<10)
	for _, m := range []*natsgo.Msg{valid, invalid} {
		_, err := b.js.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	// The gate starts, reads the limits, and finds the consumer paused
	// until the server has restarted.
	cons := b.durable("gate", "in.>", func(c *jetstream.ConsumerConfig) {
		c.PauseUntil = ptr(time.Now().Add(5 * time.Second))
		c.AckWait = 2 * time.Second // an acknowledgement lost in the restart
	})
	gnc, gjs := connect(t, b.url)
	gt := &Gate{JetStream: gjs, From: cons, Output: "out", DeadLetter: "dead", MaxWait: 100 * time.Millisecond}
	run := goGate(ctx, gt)
	defer run.stop()
	time.Sleep(500 * time.Millisecond)
	b.startAgain(b.shutdown(), 8<<10)
	for gnc.MaxPayload() != 8<<10 {
		require.NoError(t, ctx.Err(), "the gate did not reconnect")
		time.Sleep(10 * time.Millisecond)
	}
	// The server's streams answer a while after it is up: until they
	// do, nothing is counted stored.
	stored := func() int {
		n := 0
		for _, name := range []string{"OUT", "DEAD"} {
			s, err := b.js.Stream(ctx, name)
			if err != nil {
				return 0
			}
			n += int(s.CachedInfo().State.Msgs)
		}
		return n
	}
	for !gnc.IsConnected() || stored() < 2 {
		require.NoError(t, ctx.Err(), "the gate stored %d of 2", stored())
		time.Sleep(50 * time.Millisecond)
	}
	st, err := run.stop()
	require.NoError(t, err)
	assert.Equal(t, 2, st.DeadLetters)
	for _, m := range b.all("DEAD") {
		v, err := ParseVerdict(m.Header)
		require.NoError(t, err)
		assert.True(t, v.Truncated, "%+v", v)
	}
}

func ptr[T any](v T) *T { return &v }

// A gate publishes no copy or dead letter while its client reconnects:
// nats.go kept it, to send once connected again, and a server restarted
// with a smaller max_payload then closed the connection for good on it
// (TestGateStopsWhenItsConnectionIsClosed). The message is left to come
// again instead, once the client is connected.
func TestGatePublishesNothingIntoAReconnection(t *testing.T) {
	b := startBroker(t)
	nc, js := connect(t, b.url)
	gt := &Gate{JetStream: js, Output: "out", DeadLetter: "dead"}
	br := &jsBroker{g: gt, js: js, out: b.stream("OUT"), dead: b.stream("DEAD"), outLimit: 1 << 20, deadLimit: 1 << 20}
	m, in, id := judgeable(t, newGen(45), "publisher")
	require.NotNil(t, m)
	d := &delivery{m: pulled{in}, md: &natsgo.MsgMetadata{Stream: "IN"}}
	b.srv.Shutdown()
	b.srv.WaitForShutdown()
	for !nc.IsReconnecting() {
		time.Sleep(time.Millisecond)
	}
	before, err := nc.Buffered()
	require.NoError(t, err)
	_, err = br.Forward(d, id)
	assert.Error(t, err, "a copy")
	_, err = br.DeadLetter(d, gate.VerdictOf(m, nil))
	assert.Error(t, err, "a dead letter")
	after, err := nc.Buffered()
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing kept to publish on reconnecting")
}

// A gate whose connection is closed for good, as nats.go closes it when
// a server restarted with a smaller max_payload refuses a message
// published into the reconnection ("Maximum Payload Violation"), stops
// with an error that says so (wrapping natsgo.ErrConnectionClosed: the
// command connects again): it fetched in vain for ever, every message
// it held waiting, and its command never exited.
func TestGateStopsWhenItsConnectionIsClosed(t *testing.T) {
	b := startBrokerWith(t, 16<<10)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run, gnc := b.runGate(ctx, newGen(44))
	defer run.stop()
	port := b.shutdown()
	for !gnc.IsReconnecting() {
		time.Sleep(time.Millisecond)
	}
	// A message of the gate's client, larger than the next server takes.
	require.NoError(t, gnc.Publish("elsewhere", make([]byte, 10<<10)))
	b.startAgain(port, 8<<10)
	err := run.wait(t, 20*time.Second)
	require.ErrorIs(t, err, natsgo.ErrConnectionClosed)
	assert.Contains(t, err.Error(), "Maximum Payload Violation", "why, as the server said")
}

// Streams whose limit on a message is lowered under a running gate (or
// that are deleted and made again with a smaller one) take no copy or
// dead letter above it: the server refused each, and the gate, its
// limits read at start, left their messages to come again for ever. A
// refusal makes the gate read the limits again: the copy is then
// dead-lettered (rule too_large), and the dead letter cut to fit.
func TestGateFollowsAStreamLimitLoweredUnderIt(t *testing.T) {
	b := startBroker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run, _ := b.runGate(ctx, newGen(42))
	defer run.stop()
	for _, name := range []string{"OUT", "DEAD"} {
		cfg := b.stream(name).CachedInfo().Config
		cfg.MaxMsgSize = 4 << 10
		_, err := b.js.UpdateStream(ctx, cfg)
		require.NoError(t, err)
	}
	valid, invalid := bigPair(t, newGen(43), 5<<10)
	before := b.count("OUT")
	for _, m := range []*natsgo.Msg{valid, invalid} {
		_, err := b.js.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	for b.count("DEAD") < 2 {
		require.NoError(t, ctx.Err(), "the gate dead-lettered %d of 2", b.count("DEAD"))
		time.Sleep(50 * time.Millisecond)
	}
	_, err := run.stop()
	require.NoError(t, err)
	assert.Equal(t, before, b.count("OUT"))
	for _, m := range b.all("DEAD") {
		v, err := ParseVerdict(m.Header)
		require.NoError(t, err)
		assert.True(t, v.Truncated, "%+v", v)
	}
}

// refused runs a gate of in.> through the durable gate, and checks that
// it refuses to start, saying says.
func (b *broker) refused(t *testing.T, ctx context.Context, says string) {
	t.Helper()
	gt := &Gate{JetStream: b.js, Input: "in.>", Durable: "gate", Output: "out", DeadLetter: "dead", UntilIdle: true}
	_, err := gt.Run(ctx)
	require.ErrorIs(t, err, ErrRefused)
	assert.Contains(t, err.Error(), says)
}

// goGate runs gt in a goroutine until it returns, or its stop is called.
func goGate(ctx context.Context, gt *Gate) *running {
	ctx, cancel := context.WithCancel(ctx)
	r := &running{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.st, r.err = gt.Run(ctx)
	}()
	return r
}

// running is a gate run by goGate.
type running struct {
	cancel context.CancelFunc
	done   chan struct{}
	st     GateStats // what Run returned, once done is closed
	err    error
}

// stop stops the gate, and returns what Run returned, however many times
// it is called.
func (r *running) stop() (GateStats, error) {
	r.cancel()
	<-r.done
	return r.st, r.err
}

// wait waits for the gate to return on its own, and returns Run's error;
// it fails the test after d.
func (r *running) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case <-r.done:
		return r.err
	case <-time.After(d):
		t.Fatal("the gate did not stop")
		return nil
	}
}

// runGate runs a gate of the durable gate (made if absent), on a
// connection of its own, and returns once it has started (started), with
// that connection.
func (b *broker) runGate(ctx context.Context, g *gen) (*running, *natsgo.Conn) {
	nc, js := connect(b.t, b.url)
	gt := &Gate{JetStream: js, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead", MaxWait: 100 * time.Millisecond}
	run := goGate(ctx, gt)
	b.started(g)
	return run, nc
}

// started waits for a gate to have started: it publishes a valid message
// of g every 50 ms until the gate has forwarded one.
func (b *broker) started(g *gen) {
	for deadline := time.Now().Add(30 * time.Second); b.count("OUT") == 0; {
		require.True(b.t, time.Now().Before(deadline), "the gate never started")
		b.publishValid(g, 1)
		time.Sleep(50 * time.Millisecond)
	}
}

// bigPair returns a valid device of g whose model is size bytes long,
// with its headers, and the same body made invalid, without headers.
func bigPair(t *testing.T, g *gen, size int) (valid, invalid *natsgo.Msg) {
	d := g.valid()
	for d.SchemaName() != device.Name {
		d = g.valid()
	}
	d.(*device.Device).Model = strings.Repeat("m", size)
	valid, err := newMsg("in.x", d)
	require.NoError(t, err)
	invalid = &natsgo.Msg{Subject: "in.x", Data: bytes.Replace(valid.Data, []byte(`"message_id":"`), []byte(`"message_id":"x`), 1)}
	return valid, invalid
}
