package nats

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fetch takes no more bytes of messages than the puller's budget
// (maxBytes), but for a message larger than the budget, which comes
// alone: a batch of a hostile producer's largest messages (256 of 1 MiB
// on a default server, of up to 64 MiB on one an operator set so) held
// that many times the server's limit in the gate's memory, a few batches
// in flight, and a gate killed for it took the same batch again when it
// restarted.
func TestFetchKeepsToItsBudgetOfBytes(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	const size = 100 << 10
	for i := range 12 {
		valid, _ := bigPair(t, newGen(uint64(60+i)), size)
		_, err := b.js.PublishMsg(ctx, valid)
		require.NoError(t, err)
	}
	cons := b.durable("gate", "in.>")
	info, err := cons.Info(ctx)
	require.NoError(t, err)
	p := newPuller(b.js, cons, info)
	defer p.close()
	const budget = 350 << 10 // three such messages
	p.maxBytes = budget
	var got, batches int
	for deadline := time.Now().Add(30 * time.Second); got < 12; {
		require.True(t, time.Now().Before(deadline), "fetched %d of 12", got)
		msgs, err := p.fetch(256, batches%2 == 1, 100*time.Millisecond)
		require.NoError(t, err)
		bytes := 0
		for _, m := range msgs {
			bytes += len(m.Data)
			require.NoError(t, m.Ack())
		}
		assert.LessOrEqual(t, bytes, budget, "a batch of %d messages", len(msgs))
		got += len(msgs)
		batches++
	}
	assert.Equal(t, 12, got)

	// One larger than the budget comes alone.
	p.maxBytes = size / 2
	valid, _ := bigPair(t, newGen(80), size)
	_, err = b.js.PublishMsg(ctx, valid)
	require.NoError(t, err)
	for deadline := time.Now().Add(10 * time.Second); ; {
		require.True(t, time.Now().Before(deadline), "the large message never came")
		msgs, err := p.fetch(256, false, 100*time.Millisecond)
		require.NoError(t, err)
		if len(msgs) > 0 {
			require.Len(t, msgs, 1)
			assert.Equal(t, valid.Data, msgs[0].Data)
			break
		}
	}
}

// A fetch makes room for no more messages than a gate needs, whatever the
// batch asked for: with a consumer that lets any batch through (no
// MaxAckPending, no MaxRequestBatch), -batch 100000000 made room for all
// of it, 800 MB, on the first message.
func TestFetchMakesRoomForWhatAGateNeeds(t *testing.T) {
	b := startBroker(t)
	b.publishValid(newGen(81), 1)
	cons := b.durable("gate", "in.>", func(c *jetstream.ConsumerConfig) { c.MaxAckPending = -1 })
	info, err := cons.Info(context.Background())
	require.NoError(t, err)
	require.Zero(t, requestBatch(info.Config), "no limit on a request")
	p := newPuller(b.js, cons, info)
	defer p.close()
	msgs, err := p.fetch(10_000_000, false, 0)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	assert.LessOrEqual(t, cap(msgs), 4096)
}
