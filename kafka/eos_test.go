package kafka_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"

	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/gate/gatetest"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/kafka/internal/kafkatest"
)

// eosMessages is the size of the exactly-once test: 100,000 messages, or
// 10,000 under the race detector.
func eosMessages() int {
	if raceEnabled {
		return 10_000
	}
	return 100_000
}

const keyHeader = "test-key"

// TestGatesLoseNothingAndDoubleNothing pushes a mixed stream, a tenth of
// it written in transactions between others aborted, through three
// gates of one group on a three-broker cluster, has a fourth join while
// they are in their transactions, kills one of them in the middle of
// its transactions, and makes the brokers fail a produce, an offset
// commit and the end of a transaction, and move partition leaders;
// a read_committed reader of the output and the dead letters then finds
// every input exactly once, valid ones in the output and the rest among
// the dead letters.
func TestGatesLoseNothingAndDoubleNothing(t *testing.T) {
	n := eosMessages()
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.GroupMinSessionTimeout(500*time.Millisecond),
		kfake.SeedTopics(6, inTopic), kfake.SeedTopics(3, outTopic, deadTopic))
	require.NoError(t, err)
	defer c.Close()
	addrs := c.ListenAddrs()

	// A tenth of the input comes from a transactional producer, between
	// transactions it aborts.
	valid := produceInput(t, addrs, n-n/10)
	valid = append(valid, produceInputInTransactions(t, addrs, len(valid), n/10)...)
	require.Len(t, valid, n)

	// Faults, each once: a produce of a copy, an offset commit and the
	// end of a transaction fail.
	faults := []*kfake.FaultHandle{
		c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: outTopic, Err: kerr.NotEnoughReplicas}),
		c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.TxnOffsetCommit}, Err: kerr.CoordinatorNotAvailable}),
		c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.EndTxn}, Err: kerr.UnknownServerError, TopLevel: true}),
	}

	var mu sync.Mutex
	var stats []string
	var total gate.Stats
	startGate := func(id string, progress func(gate.Stats)) gatetest.Gate {
		d := &killable{}
		sess, err := kgo.NewGroupTransactSession(append(boundedFetches(t),
			kgo.SeedBrokers(addrs...), kgo.Dialer(d.dial),
			kgo.ConsumerGroup("eos"), kgo.ConsumeTopics(inTopic),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.TransactionalID(id), kgo.TransactionTimeout(20*time.Second),
			kgo.SessionTimeout(2*time.Second), kgo.HeartbeatInterval(200*time.Millisecond),
			kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords(), kgo.RetryTimeout(time.Minute),
		)...)
		require.NoError(t, err)
		g := &kafka.Gate{Session: sess, Output: outTopic, DeadLetters: deadTopic, Batch: 256, Progress: progress, Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))}
		return gatetest.Go(t, func(ctx context.Context) (gate.Stats, error) {
			st, err := g.Run(ctx)
			if !d.killed() {
				assert.NoError(t, err, id)
				sess.Close()
			}
			mu.Lock()
			stats = append(stats, fmt.Sprintf("%s %+v", id, st))
			total.Add(st)
			mu.Unlock()
			return st, err
		}, d.kill)
	}

	// The victim is killed once it has committed a tenth of the input,
	// with its next transaction under way.
	var once sync.Once
	midway := make(chan struct{})
	victim := startGate("victim", func(s gate.Stats) {
		if s.Messages > n/10 {
			once.Do(func() { close(midway) })
		}
	})
	a := startGate("a", nil)
	b := startGate("b", nil)
	select {
	case <-midway:
	case <-time.After(2 * time.Minute):
		t.Fatal("the gates never got going")
	}
	// A gate joins while the others are in their transactions: the
	// group rebalances under them.
	late := startGate("late", nil)
	victim.Kill()
	victim.Wait()
	// Leaders move while the survivors take the victim's partitions.
	require.NoError(t, c.MoveTopicPartition(outTopic, 0, c.LeaderFor(outTopic, 1)))

	// Wait for the group to have committed the whole input, then stop.
	adm := kadm.NewClient(readerClient(t, addrs))
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) && !committedAll(t, adm, "eos") {
		time.Sleep(200 * time.Millisecond)
	}
	a.Stop()
	b.Stop()
	late.Stop()
	require.True(t, committedAll(t, adm, "eos"), "the group did not commit the whole input in time")

	// Every input exactly once, where it belongs. The victim's last
	// transaction stays open, holding back what a read_committed reader
	// sees, until the broker times it out.
	checkExactlyOnce(t, addrs, valid)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d inputs; gates' stats: %+v", n, stats)
	// The counts are honest: what the gates say they stored, summed, is
	// what is there, a message aborted with its transaction not counted.
	assert.Equal(t, n, total.Messages, "messages counted by the gates")
	assert.Equal(t, n*4/5, total.Forwarded)
	// Every input is a message of its own: one whose transaction was
	// aborted comes again as a retry, not as a redelivery.
	assert.Zero(t, total.Redeliveries, "redeliveries counted")
	for i, f := range faults {
		assert.Equal(t, 1, f.Hits(), "fault %d injected", i)
	}
}

// produceInput produces n inputs to inTopic, lines of the sample with
// fresh ids, one in five broken, each with its index in the header
// keyHeader, and returns which are valid.
func produceInput(t *testing.T, addrs []string, n int) (valid []bool) {
	_, lines := samples(t)
	valid = make([]bool, n)
	records := make([]*kgo.Record, n)
	for i := range n {
		records[i], valid[i] = input(t, lines, i)
	}
	producer := readerClient(t, addrs)
	require.NoError(t, producer.ProduceSync(context.Background(), records...).FirstErr())
	return valid
}

// input returns the input of index i, as produceInput makes it from the
// sample's lines, and whether it is valid.
func input(t *testing.T, lines [][]byte, i int) (*kgo.Record, bool) {
	body := withNewID(t, lines[i%len(lines)])
	valid := i%5 != 4
	if !valid {
		body = body[:len(body)/2]
	}
	r := &kgo.Record{Topic: inTopic, Value: body, Headers: []kgo.RecordHeader{{Key: keyHeader, Value: []byte(strconv.Itoa(i))}}}
	if valid {
		// Its schema identity, as a producer writes it: an event has
		// no message_type to be known by.
		m, err := catalogue.DecodeOr(body, "example.event")
		require.NoError(t, err)
		require.NoError(t, ce.Kafka.Write(kafka.Header{Record: r}, m))
	}
	return r, valid
}

// produceInputInTransactions produces the inputs of indices from to
// from+n-1, as produceInput makes them, from a transactional producer,
// in transactions of 100 committed, each followed by one of 10 records
// it aborts (their keyHeader "aborted"), and returns which are valid:
// the input's partitions then hold transaction markers and the records
// of aborted transactions, which no read_committed reader is given.
func produceInputInTransactions(t *testing.T, addrs []string, from, n int) (valid []bool) {
	_, lines := samples(t)
	producer := readerClient(t, addrs, kgo.TransactionalID("input-"+t.Name()))
	ctx := context.Background()
	for at := from; at < from+n; at += 100 {
		require.NoError(t, producer.BeginTransaction())
		for i := at; i < min(at+100, from+n); i++ {
			r, ok := input(t, lines, i)
			valid = append(valid, ok)
			producer.Produce(ctx, r, func(_ *kgo.Record, err error) { assert.NoError(t, err) })
		}
		require.NoError(t, producer.Flush(ctx))
		require.NoError(t, producer.EndTransaction(ctx, kgo.TryCommit))

		require.NoError(t, producer.BeginTransaction())
		for i := range 10 {
			r, _ := input(t, lines, i)
			r.Headers[0].Value = []byte("aborted")
			producer.Produce(ctx, r, func(_ *kgo.Record, err error) { assert.NoError(t, err) })
		}
		require.NoError(t, producer.Flush(ctx))
		require.NoError(t, producer.EndTransaction(ctx, kgo.TryAbort))
	}
	return valid
}

// checkExactlyOnce checks that a read_committed reader of the output and
// the dead letters finds every input of produceInput exactly once, the
// valid ones in the output and the rest among the dead letters.
func checkExactlyOnce(t *testing.T, addrs []string, valid []bool) {
	n := len(valid)
	seen := make([]int, n)
	where := make([]string, n)
	for _, r := range readAll(t, addrs, n, outTopic, deadTopic) {
		var key []byte
		for _, h := range r.Headers {
			if h.Key == keyHeader {
				key = h.Value
			}
		}
		i, err := strconv.Atoi(string(key))
		require.NoError(t, err, "a record without its input's key in %s", r.Topic)
		require.True(t, i >= 0 && i < n, "a record of no input: %d", i)
		seen[i]++
		where[i] = r.Topic
	}
	bad := 0
	for i := range n {
		want := outTopic
		if !valid[i] {
			want = deadTopic
		}
		if seen[i] != 1 || where[i] != want {
			bad++
			if bad <= 10 {
				t.Errorf("input %d: stored %d times, last in %q, want once in %q", i, seen[i], where[i], want)
			}
		}
	}
	assert.Zero(t, bad, "inputs not stored exactly once where they belong")
}

// withNewID returns a sample line with its message's id replaced by a new
// uuid: message_id's, or an event's id.
func withNewID(t testing.TB, line []byte) []byte {
	for _, member := range []string{`"message_id":"`, `"id":"`} {
		if i := bytes.Index(line, []byte(member)); i >= 0 {
			at := i + len(member)
			out := bytes.Clone(line)
			copy(out[at:at+36], uuid.New().String())
			return out
		}
	}
	t.Fatalf("no id in %s", line)
	return nil
}

func readerClient(t *testing.T, addrs []string, opts ...kgo.Opt) *kgo.Client {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addrs...)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// committedAll reports whether group has committed every partition of the
// input to its end.
func committedAll(t *testing.T, adm *kadm.Client, group string) bool {
	ctx := context.Background()
	ends, err := adm.ListEndOffsets(ctx, inTopic)
	if err != nil || ends.Error() != nil {
		return false
	}
	committed, err := adm.FetchOffsets(ctx, group)
	if err != nil || committed.Error() != nil {
		return false
	}
	all := true
	ends.Each(func(end kadm.ListedOffset) {
		if c, ok := committed.Lookup(end.Topic, end.Partition); !ok || c.At < end.Offset {
			all = false
		}
	})
	return all
}

// readAll returns every committed record of topics, as a read_committed
// consumer reads them, from the start: until it has read want records
// (or a minute has passed), and then on to the last stable offset each
// partition has then (kafkatest.Reader.ToStableEnd, within 30 seconds).
func readAll(t *testing.T, addrs []string, want int, topics ...string) []*kgo.Record {
	r := kafkatest.NewReader(readerClient(t, addrs, kafkatest.ReaderOpts(topics...)...), topics...)
	for deadline := time.Now().Add(time.Minute); len(r.Records) < want && time.Now().Before(deadline); {
		r.Poll()
	}
	_, err := r.ToStableEnd(time.Now().Add(30 * time.Second))
	require.NoError(t, err)
	return r.Records
}

// testWriter writes a gate's log lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimSuffix(p, []byte("\n"))))
	return len(p), nil
}
