package kafka_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/kafka"
)

// gateSession returns a transactional session of the group "g" on
// inTopic, closed at the test's end.
func gateSession(t *testing.T, addrs []string, opts ...kgo.Opt) *kgo.GroupTransactSession {
	sess, err := kgo.NewGroupTransactSession(append([]kgo.Opt{
		kgo.SeedBrokers(addrs...), kgo.ConsumerGroup("g"), kgo.ConsumeTopics(inTopic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.TransactionalID("g-" + t.Name()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
	}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(sess.Close)
	return sess
}

// TestGateAbortsATransactionWhoseCopyFailed makes the broker refuse, for
// good, a produce of the gate's copies (found from outside: a broker
// whose limit was below the gate's refused a batch of copies with
// MESSAGE_TOO_LARGE): the transaction must abort, its records come
// again, rather than commit the input's offsets without the copies.
func TestGateAbortsATransactionWhoseCopyFailed(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, inTopic, outTopic, deadTopic))
	require.NoError(t, err)
	defer c.Close()
	addrs := c.ListenAddrs()
	valid := produceInput(t, addrs, 500)
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: outTopic, Err: kerr.MessageTooLarge})

	g := &kafka.Gate{Session: gateSession(t, addrs), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := g.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, fault.Hits(), "the fault was injected")
	checkExactlyOnce(t, addrs, valid)
	assert.Equal(t, len(valid), st.Messages)
	assert.Positive(t, st.Retries, "the aborted transaction's records counted as retries")
}

// TestGateRefusesABatchLargerThanItsTopicsStore starts a gate whose client
// may put more in a record batch than its output or dead-letter topic
// stores (max.message.bytes). Found from outside: such a gate had every
// transaction holding a full batch of copies refused with
// MESSAGE_TOO_LARGE, and read its records again for ever. It must refuse
// to start, saying which topic stores how much.
func TestGateRefusesABatchLargerThanItsTopicsStore(t *testing.T) {
	for _, topic := range []string{outTopic, deadTopic} {
		t.Run(topic, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, inTopic, outTopic, deadTopic))
			require.NoError(t, err)
			defer c.Close()
			addrs := c.ListenAddrs()
			adm := kadm.NewClient(readerClient(t, addrs))
			resp, err := adm.AlterTopicConfigs(context.Background(),
				[]kadm.AlterConfig{{Name: "max.message.bytes", Value: kadm.StringPtr("100000")}}, topic)
			require.NoError(t, err)
			require.NoError(t, resp[0].Err)

			g := &kafka.Gate{Session: gateSession(t, addrs, kgo.ProducerBatchMaxBytes(200_000)), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err = g.Run(ctx)
			require.ErrorIs(t, err, gate.ErrRefused)
			assert.ErrorContains(t, err, fmt.Sprintf("%q", topic))
			assert.ErrorContains(t, err, "100000")

			// Within the topics' limit, it starts.
			g = &kafka.Gate{Session: gateSession(t, addrs, kgo.ProducerBatchMaxBytes(100_000), kgo.TransactionalID("within")),
				Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}
			_, err = g.Run(ctx)
			require.NoError(t, err)
		})
	}
}
