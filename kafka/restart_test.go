package kafka_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/kafka"
)

// A gate whose brokers are lost while it ends a transaction (every
// EndTxn cut off, connection and all, for a while) starts again on a new
// session that NewSession makes, and goes on: Run returns no error, the
// transactions it could not end are aborted and their records come
// again, and a read_committed reader finds every input exactly once,
// where it belongs.
func TestGateStartsAgainOnANewSessionAfterLosingItsBrokers(t *testing.T) {
	n := 2_000
	if raceEnabled {
		n = 500
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.GroupMinSessionTimeout(500*time.Millisecond),
		kfake.SeedTopics(3, inTopic, outTopic, deadTopic))
	require.NoError(t, err)
	defer c.Close()
	addrs := c.ListenAddrs()

	valid := produceInput(t, addrs, n)

	// Once the gate has committed a few transactions, every EndTxn
	// loses its connection for a second and a half: the brokers are
	// gone while the gate ends a transaction.
	var committed, cut atomic.Int64
	var since atomic.Int64 // UnixNano of the first cut
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if committed.Load() < 3 {
			return nil, nil, false
		}
		since.CompareAndSwap(0, time.Now().UnixNano())
		if time.Since(time.Unix(0, since.Load())) > 1500*time.Millisecond {
			return nil, nil, false
		}
		cut.Add(1)
		return nil, errors.New("the broker is lost"), true
	})

	var sessions atomic.Int64
	g := &kafka.Gate{
		NewSession: func() (*kgo.GroupTransactSession, error) {
			sessions.Add(1)
			return kgo.NewGroupTransactSession(kgo.SeedBrokers(addrs...),
				kgo.ConsumerGroup("restart"), kgo.ConsumeTopics(inTopic),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
				kgo.TransactionalID("restart"), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords(),
				// A request whose connection is cut fails within a
				// second, not after kgo's default 30 s of retries.
				kgo.RequestRetries(2), kgo.RetryTimeout(time.Second),
				kgo.SessionTimeout(2*time.Second), kgo.HeartbeatInterval(200*time.Millisecond))
		},
		Output: outTopic, DeadLetters: deadTopic, Batch: 50, UntilIdle: true,
		Log:      slog.New(slog.NewTextHandler(testWriter{t}, nil)),
		Progress: func(gate.Stats) { committed.Add(1) },
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := g.Run(ctx)
	require.NoError(t, err, "Run goes on after losing its brokers")
	require.NoError(t, ctx.Err(), "the gate did not finish in time")
	assert.Positive(t, cut.Load(), "an end of a transaction was cut off")
	assert.Greater(t, sessions.Load(), int64(1), "the gate started again on a new session")
	assert.Positive(t, st.Retries, "the records of the transactions it could not end came again")
	assert.Equal(t, n, st.Messages, "every input counted once")
	assert.Equal(t, n*4/5, st.Forwarded)

	checkExactlyOnce(t, addrs, valid)
}

// A gate given both a Session and a NewSession, or neither, is refused.
func TestGateNeedsOneWayToItsSession(t *testing.T) {
	_, err := (&kafka.Gate{Output: outTopic, DeadLetters: deadTopic}).Run(context.Background())
	assert.ErrorIs(t, err, gate.ErrRefused)
}
