package kafka_test

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/gate/gatetest"
	"github.com/fleetkit/catalogue/kafka"
)

// TestGateAbortsTheTransactionItsIDLeftOpen stops a gate whose brokers
// refuse the end of its transaction (TRANSACTIONAL_ID_AUTHORIZATION_FAILED
// on EndTxn, an ACL taken away), after its offsets were sent in it: the
// gate stops, saying why, and its transaction is left open. Once the
// right is given back, a gate started again with the same transactional
// id (as kafka/cmd/gate's doc advises, to fence at once what its
// predecessor left open) must go on at once (found so: its consumer
// waited, in silence, for the offsets of the transaction left open to
// be settled, which the broker does only when it times out the
// transaction, a minute here, as the gate's producer, which would have
// aborted it, starts only once it has records), and a read_committed
// reader find every input once.
func TestGateAbortsTheTransactionItsIDLeftOpen(t *testing.T) {
	c, addrs := newCluster(t, 3)
	valid := produceInput(t, addrs, 200)
	newSession := func() (*kgo.GroupTransactSession, error) {
		return gateSession(t, addrs, kgo.TransactionTimeout(time.Minute)), nil
	}
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.EndTxn}, Err: kerr.TransactionalIDAuthorizationFailed, TopLevel: true})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := (&kafka.Gate{NewSession: newSession, Output: outTopic, DeadLetters: deadTopic, Batch: 50, UntilIdle: true}).Run(ctx)
	require.ErrorIs(t, err, kerr.TransactionalIDAuthorizationFailed, "%+v", st)
	require.Equal(t, 1, fault.Hits())
	assert.Zero(t, st.Messages, "nothing stored")

	st, err = (&kafka.Gate{NewSession: newSession, Output: outTopic, DeadLetters: deadTopic, Batch: 50, UntilIdle: true,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))}).Run(ctx)
	require.NoError(t, err)
	require.NoError(t, ctx.Err(), "the gate started again waited for the transaction left open to time out: %+v", st)
	assert.Equal(t, 200, st.Messages, "%+v", st)
	checkExactlyOnce(t, addrs, valid)
}

// TestGateStopsWhenItMayNotSeeItsTopics has the brokers refuse the gate
// the right to describe its output or dead-letter topic
// (TOPIC_AUTHORIZATION_FAILED on Metadata: an ACL missing). Found so:
// the gate took it for a broker out of reach, and tried again for ever,
// logging "cannot reach the broker". It must refuse to start, naming
// the topic refused.
func TestGateStopsWhenItMayNotSeeItsTopics(t *testing.T) {
	for _, topic := range []string{outTopic, deadTopic} {
		t.Run(topic, func(t *testing.T) {
			c, addrs := newCluster(t, 1)
			c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Metadata}, Topic: topic, Err: kerr.TopicAuthorizationFailed, Count: -1})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			st, err := (&kafka.Gate{Session: gateSession(t, addrs), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}).Run(ctx)
			require.ErrorIs(t, err, gate.ErrRefused, "%+v", st)
			assert.ErrorIs(t, err, kerr.TopicAuthorizationFailed)
			assert.ErrorContains(t, err, `"`+topic+`"`)
			assert.NoError(t, ctx.Err(), "the gate stopped only when told to")
		})
	}
}

// TestGateStopsWhenItsTopicStoresLessThanItSized lowers the output's
// max.message.bytes under a running gate (AlterConfigs), below the
// batches its client makes: the broker refuses every batch of copies
// (MESSAGE_TOO_LARGE), though each copy fits the limit the gate sized
// it for. Found so: the gate aborted and read its batch again, with
// back-off, for ever. As at start (TestGateRefusesABatchLargerThanItsTopicsStore),
// it must stop, refused, saying which topic stores how little; nothing
// is lost: once the limit is raised again, a gate stores every input
// once.
func TestGateStopsWhenItsTopicStoresLessThanItSized(t *testing.T) {
	c, addrs := newCluster(t, 1)
	valid := produceInput(t, addrs, 100)
	st, more, err := gateUntilChanged(t, c, 100, func() {
		alterTopic(t, addrs, outTopic, "max.message.bytes", "2000")
	})
	require.ErrorIs(t, err, gate.ErrRefused, "%+v", st)
	assert.ErrorContains(t, err, "max.message.bytes")
	assert.ErrorContains(t, err, `"`+outTopic+`"`)

	alterTopic(t, addrs, outTopic, "max.message.bytes", "1048588")
	rest := runUntilIdle(t, addrs, &kafka.Gate{})
	assert.Equal(t, 200, st.Messages+rest.Messages, "%+v, then %+v", st, rest)
	checkExactlyOnce(t, addrs, append(valid, more...))
}

// TestGateStopsWhenItsDeadLetterTopicIsMadeCompacted makes the
// dead-letter topic compacted under a running gate (cleanup.policy
// compact, by AlterConfigs): Kafka then refuses a record without a key
// there (INVALID_RECORD, which kfake does not do itself: a fault does it
// here), and a keyless invalid input's dead letter with it. Found so:
// the gate aborted and read its batch again, with back-off, for ever.
// As at start (TestGateRefusesACompactedDeadLetterTopic), it must stop,
// refused, saying that the topic is compacted.
func TestGateStopsWhenItsDeadLetterTopicIsMadeCompacted(t *testing.T) {
	c, addrs := newCluster(t, 1)
	produceInput(t, addrs, 100)
	st, _, err := gateUntilChanged(t, c, 100, func() {
		alterTopic(t, addrs, deadTopic, "cleanup.policy", "compact")
		c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: deadTopic, Err: kerr.InvalidRecord, Count: -1})
	})
	require.ErrorIs(t, err, gate.ErrRefused, "%+v", st)
	assert.ErrorContains(t, err, "compacted")
	assert.Equal(t, 100, st.Messages, "nothing stored after the change")
}

// gateUntilChanged runs a gate on c, on a session of its own, until it
// has stored n inputs; then it makes change, produces 100 more inputs,
// and waits for the gate to stop by itself, within 20 seconds. It
// returns the gate's totals, which of the inputs it produced are
// valid, and the gate's error.
func gateUntilChanged(t *testing.T, c *kfake.Cluster, n int, change func()) (gate.Stats, []bool, error) {
	addrs := c.ListenAddrs()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	progress := make(chan gate.Stats, 100)
	sess := gateSession(t, addrs)
	g := &kafka.Gate{Session: sess, Output: outTopic, DeadLetters: deadTopic, Batch: 50,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, nil)), Progress: func(s gate.Stats) { progress <- s }}
	done := runGate(ctx, g)
	for st := range progress {
		if st.Messages == n {
			break
		}
	}
	change()
	_, lines := samples(t)
	var more []*kgo.Record
	var valid []bool
	for i := n; i < n+100; i++ {
		r, ok := input(t, lines, i)
		more = append(more, r)
		valid = append(valid, ok)
	}
	require.NoError(t, readerClient(t, addrs).ProduceSync(context.Background(), more...).FirstErr())
	r := <-done
	require.NoError(t, ctx.Err(), "the gate stopped only when told to: %+v, %v", r.st, r.err)
	sess.Close() // leaving its group
	return r.st, valid, r.err
}

// TestGateStartsAgainWhenItsBrokerLostItsProducer has the brokers say,
// once, that they lost the state of the gate's producer: UNKNOWN_PRODUCER_ID
// on the end of a transaction, or OUT_OF_ORDER_SEQUENCE_NUMBER on a
// produce to a broker of Kafka 3 (before KIP-890, as kgo.MaxVersions
// makes kfake), which leaves kgo's producer failed for good. Found so:
// the gate stopped, and kafka/cmd/gate exited, though a new session, a
// new producer, goes on. With NewSession it must start again, as when
// fenced, and a read_committed reader find every input once.
func TestGateStartsAgainWhenItsBrokerLostItsProducer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault kfake.Fault
		opts  []kgo.Opt
	}{
		{"EndTxn", kfake.Fault{Keys: []kmsg.Key{kmsg.EndTxn}, Err: kerr.UnknownProducerID, TopLevel: true}, nil},
		{"Produce/Kafka3", kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: outTopic, Err: kerr.OutOfOrderSequenceNumber},
			[]kgo.Opt{kgo.MaxVersions(kversion.V3_6_0())}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, addrs := newCluster(t, 3)
			valid := produceInput(t, addrs, 200)
			fault := c.Fault(tc.fault)
			var sessions int
			st := runUntilIdle(t, addrs, &kafka.Gate{Batch: 50, Log: slog.New(slog.NewTextHandler(testWriter{t}, nil)),
				NewSession: func() (*kgo.GroupTransactSession, error) {
					sessions++
					return gateSession(t, addrs, tc.opts...), nil
				}})
			require.Equal(t, 1, fault.Hits())
			assert.Equal(t, 2, sessions, "a new session after the fault")
			assert.Equal(t, 200, st.Messages, "%+v", st)
			checkExactlyOnce(t, addrs, valid)
		})
	}
}

// TestGateStopsWithinStopTimeoutFromABrokerThatHoldsItsEnd has the
// broker hold the end of every transaction, for far longer than the
// gate's StopTimeout, once the gate is told to stop (as kafka/cmd/gate
// is by SIGTERM). Found so: the gate gave the transaction its
// StopTimeout, and then its session's closing as long again (closing
// aborts the transaction, which the broker holds too), twice the time
// an operator was told, and said only "context canceled". It must
// return within StopTimeout, saying that the transaction was not ended
// in it; its records come again, to the gate started next.
func TestGateStopsWithinStopTimeoutFromABrokerThatHoldsItsEnd(t *testing.T) {
	c, addrs := newCluster(t, 3)
	valid := produceInput(t, addrs, 500)
	// Once the gate has committed a transaction, the end of the next
	// is held, and the gate told to stop.
	const grace = 2 * time.Second // seconds of margin either way, on a loaded machine
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var armed, holding atomic.Bool
	var stopped atomic.Int64 // UnixNano
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if armed.Load() && holding.Load() {
			stopped.CompareAndSwap(0, time.Now().UnixNano())
			cancel()
			c.SleepControl(func() { time.Sleep(3 * grace) })
		}
		return nil, nil, false
	})
	holding.Store(true)
	newSession := func() (*kgo.GroupTransactSession, error) { return gateSession(t, addrs), nil }
	g := &kafka.Gate{NewSession: newSession, Output: outTopic, DeadLetters: deadTopic, Batch: 20, StopTimeout: grace,
		Progress: func(gate.Stats) { armed.Store(true) }}
	st, err := g.Run(ctx)
	took := time.Since(time.Unix(0, stopped.Load()))
	require.Error(t, err, "%+v", st)
	assert.ErrorContains(t, err, "within its StopTimeout")
	t.Log(err)
	assert.Less(t, took, 2*grace, "told to stop, the gate returned after %v, its StopTimeout %v", took, grace)

	holding.Store(false)
	rest := runUntilIdle(t, addrs, &kafka.Gate{NewSession: newSession})
	assert.Equal(t, 500, st.Messages+rest.Messages, "%+v, then %+v", st, rest)
	checkExactlyOnce(t, addrs, valid)
}

// TestGatesLoseNothingInARebalanceStorm has gates join and leave their
// group over and over while the input passes: six gates start, one
// after another, each once the group has committed more, and each but
// the last two stops as the next starts, so that the group rebalances
// a dozen times with transactions under way. A read_committed reader
// of the output and dead letters must find every input exactly once,
// and the gates' totals add up to the input.
func TestGatesLoseNothingInARebalanceStorm(t *testing.T) {
	_, gs := newGateGroup(t, "storm")
	for range 3 {
		gs.produce()
	}
	var running []gatetest.Gate
	for i := range 6 {
		g, committed := gs.start("storm-" + strconv.Itoa(i))
		running = append(running, g)
		gs.until("the new gate's first transactions", func() bool { return committed.Load() >= 2 })
		if len(running) > 2 {
			_, err := running[0].Stop()
			require.NoError(t, err)
			running = running[1:]
		}
	}
	gs.finish(running...)
}

// TestGateWaitsForATopicItsBrokersDoNotKnowYet has the brokers answer,
// twice, that the gate's output topic does not exist
// (UNKNOWN_TOPIC_OR_PARTITION on Metadata, which Kafka's protocol calls
// retriable: a broker that has not yet learnt of a topic just made
// says so). Found so: the gate refused to start, for good, on the
// first answer. It must ask again for a while (the dead-letter topic is
// checked in the same loop), and then gate every input once; a topic
// that stays missing is still refused
// (TestGateStopsWhenItsDeadLetterTopicIsDeleted).
func TestGateWaitsForATopicItsBrokersDoNotKnowYet(t *testing.T) {
	c, addrs := newCluster(t, 1)
	valid := produceInput(t, addrs, 20)
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Metadata}, Topic: outTopic, Err: kerr.UnknownTopicOrPartition, Count: 2})
	runUntilIdle(t, addrs, &kafka.Gate{Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))})
	assert.Equal(t, 2, fault.Hits())
	checkExactlyOnce(t, addrs, valid)
}

// TestGateStopsOnEveryRightRefused has the brokers refuse the gate, for
// good, each right it needs, on the request that needs it (as an ACL
// taken away does): its group's (GROUP_AUTHORIZATION_FAILED on
// JoinGroup and on TxnOffsetCommit), its transactional id's
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED on InitProducerId and EndTxn),
// and its topics' (TOPIC_AUTHORIZATION_FAILED on the input's metadata
// and on a produce to the dead letters). Each time it must stop, saying
// what is refused, and its group commit no offset: none past a record
// not stored.
func TestGateStopsOnEveryRightRefused(t *testing.T) {
	for _, tc := range []struct {
		key kmsg.Key
		err *kerr.Error
		f   kfake.Fault
	}{
		{kmsg.JoinGroup, kerr.GroupAuthorizationFailed, kfake.Fault{TopLevel: true}},
		{kmsg.TxnOffsetCommit, kerr.GroupAuthorizationFailed, kfake.Fault{}},
		{kmsg.InitProducerID, kerr.TransactionalIDAuthorizationFailed, kfake.Fault{TopLevel: true}},
		{kmsg.EndTxn, kerr.TransactionalIDAuthorizationFailed, kfake.Fault{TopLevel: true}},
		{kmsg.Metadata, kerr.TopicAuthorizationFailed, kfake.Fault{Topic: inTopic}},
		{kmsg.Produce, kerr.TopicAuthorizationFailed, kfake.Fault{Topic: deadTopic}},
	} {
		t.Run(tc.key.Name(), func(t *testing.T) {
			c, addrs := newCluster(t, 1)
			produceInput(t, addrs, 20)
			f := tc.f
			f.Keys, f.Err, f.Count = []kmsg.Key{tc.key}, tc.err, -1
			c.Fault(f)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			st, err := (&kafka.Gate{Session: gateSession(t, addrs), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}).Run(ctx)
			require.ErrorIs(t, err, tc.err, "%+v", st)
			assert.NoError(t, ctx.Err(), "the gate stopped only when told to")
			assert.Zero(t, st.Messages, "nothing stored")
			offsets, err := kadm.NewClient(readerClient(t, addrs)).FetchOffsets(context.Background(), "g")
			if !errors.Is(err, kerr.GroupIDNotFound) {
				require.NoError(t, err)
				offsets.Each(func(o kadm.OffsetResponse) {
					assert.Negative(t, o.At, "an offset committed: %+v", o)
				})
			}
		})
	}
}
