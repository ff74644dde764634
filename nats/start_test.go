package nats

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/nats/internal/embedded"
)

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

// A gate reads a durable consumer as the operator made it: one that
// refuses requests for more than a few messages (MaxRequestBatch), or
// for a longer wait (MaxRequestExpires), was asked again in vain for
// ever; one that lets only a few messages await acknowledgement
// (MaxAckPending) left each request of the gate unanswered until it gave
// up, a second later, so that a few messages took minutes.
func TestGateReadsAConsumerWithTheOperatorsLimits(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*jetstream.ConsumerConfig)
	}{
		{"MaxRequestBatch", func(c *jetstream.ConsumerConfig) { c.MaxRequestBatch = 10 }},
		{"MaxRequestExpires", func(c *jetstream.ConsumerConfig) { c.MaxRequestExpires = 10 * time.Millisecond }},
		{"MaxAckPending", func(c *jetstream.ConsumerConfig) { c.MaxAckPending = 3 }},
	} {
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

// A gate refuses output and dead-letter streams that would hold its
// messages hostage or store them twice: one that does not acknowledge
// what it stores (NoAck), whose copies the gate would wait for and send
// again for ever; a sealed one, which stores nothing more; and one whose
// duplicate window is shorter than the input consumer's AckWait, which
// would store a message that comes again twice.
func TestGateRefusesStreamsThatWouldHoldOrDoubleMessages(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		edit         func(*jetstream.StreamConfig)
		says         string
	}{
		{"output NoAck", "OUT", func(c *jetstream.StreamConfig) { c.NoAck = true }, "acknowledge"},
		{"dead letters sealed", "DEAD", func(c *jetstream.StreamConfig) { c.Sealed = true }, "sealed"},
		{"output duplicate window", "OUT", func(c *jetstream.StreamConfig) { c.Duplicates = time.Second }, "duplicate window"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := startBroker(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cfg := b.stream(c.stream).CachedInfo().Config
			c.edit(&cfg)
			_, err := b.js.UpdateStream(ctx, cfg)
			require.NoError(t, err)
			b.refused(t, ctx, c.says)
		})
	}
}

// A server restarted with a smaller max_payload under a running gate
// takes no copy or dead letter larger than it now stores: nats.go
// refused them (ErrMaxPayload), and the gate, its limits read at start,
// left their messages to come again for ever. A copy too large is now
// dead-lettered (rule too_large), and a dead letter cut to the new limit.
func TestGateFollowsAServerRestartedWithASmallerLimit(t *testing.T) {
	dir := t.TempDir()
	srv, err := embedded.Start(dir, -1, 16<<10)
	require.NoError(t, err)
	port := embedded.Port(srv)
	t.Cleanup(func() { srv.Shutdown() })
	b := &broker{t: t, dir: dir, srv: srv, url: srv.ClientURL()}
	b.makeStreams()
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
	cons := b.durable("gate", "in.>", func(c *jetstream.ConsumerConfig) { c.PauseUntil = ptr(time.Now().Add(2 * time.Second)) })
	gnc, gjs := connect(t, b.url)
	gt := &Gate{JetStream: gjs, From: cons, Output: "out", DeadLetter: "dead", MaxWait: 100 * time.Millisecond}
	stop := goGate(ctx, gt)
	defer stop()
	time.Sleep(500 * time.Millisecond)
	srv.Shutdown()
	srv.WaitForShutdown()
	srv, err = embedded.Start(dir, port, 8<<10)
	require.NoError(t, err)
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
	st, err := stop()
	require.NoError(t, err)
	assert.Equal(t, 2, st.DeadLetters)
	for _, m := range b.all("DEAD") {
		v, err := ParseVerdict(m.Header)
		require.NoError(t, err)
		assert.True(t, v.Truncated, "%+v", v)
	}
}

func ptr[T any](v T) *T { return &v }

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
	_, gjs := connect(t, b.url)
	gt := &Gate{JetStream: gjs, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead", MaxWait: 100 * time.Millisecond}
	stop := goGate(ctx, gt)
	defer stop()
	for b.count("OUT") == 0 { // the gate has started: it forwards one
		b.publishValid(newGen(42), 1)
		time.Sleep(100 * time.Millisecond)
	}
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
	_, err := stop()
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

// goGate runs gt in a goroutine until stop is called, which returns what
// Run returned, however many times it is called.
func goGate(ctx context.Context, gt *Gate) (stop func() (GateStats, error)) {
	type result struct {
		st  GateStats
		err error
	}
	done := make(chan result, 1)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		st, err := gt.Run(ctx)
		done <- result{st, err}
	}()
	return sync.OnceValues(func() (GateStats, error) {
		cancel()
		r := <-done
		return r.st, r.err
	})
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
