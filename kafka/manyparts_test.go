package kafka_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/kafka"
)

// A topicPartition names a partition of an input topic.
type topicPartition struct {
	topic     string
	partition int32
}

func (tp topicPartition) String() string { return tp.topic + "/" + strconv.Itoa(int(tp.partition)) }

// An unevenInput is an input spread unevenly over many partitions, as
// operators' topics of 24 to 100+ partitions are: a few partitions
// heavy, in compressed batches each close to the bound a batch of the
// gates' sessions, most light (a handful of records each), some empty.
type unevenInput struct {
	valid []bool           // which inputs are valid, by index (keyHeader)
	from  []topicPartition // where each input was produced
	heavy map[topicPartition]bool
	light map[topicPartition]bool // the light partitions given records
}

// heavyRecords is how many records each heavy partition holds, in turn:
// 18,000 in all, or a fifth of that under the race detector.
func heavyRecords() []int {
	if raceEnabled {
		return []int{1200, 1000, 800, 600}
	}
	return []int{6000, 5000, 4000, 3000}
}

// manyPartsBound is the bound a batch of the gates' sessions
// (kafka.BoundedFetches) in the tests of many partitions, and the size
// of the heavy partitions' batches: fetchBound, the command's with
// -max-record-bytes 2048 (its bound is 32 times that), or a quarter of
// it under the race detector, so that the heavy partitions, a fifth
// the size, take as many fetches to drain.
func manyPartsBound() int {
	if raceEnabled {
		return fetchBound / 4
	}
	return fetchBound
}

// produceUneven produces to each topic of partitions (by name) an
// uneven input: the partitions heavy of each topic (by topic) get
// heavyRecords in turn, one heavy partition led by each broker first;
// of the others, one in eight none, the rest 1 to 5 records. Each
// record is an input of produceInput's making (one in five invalid).
// It produces them in one transaction, and returns the input and what
// commits the transaction: until then, a read_committed consumer is
// given none of them, and a gate with UntilIdle waits for them.
func produceUneven(t *testing.T, c *kfake.Cluster, partitions map[string]int32, heavy map[string]int) (*unevenInput, func()) {
	_, lines := samples(t)
	in := &unevenInput{heavy: map[topicPartition]bool{}, light: map[topicPartition]bool{}}
	sizes := heavyRecords()
	var heavyOnes, lightOnes []*kgo.Record
	add := func(tp topicPartition, n int, to *[]*kgo.Record) {
		for range n {
			r, ok := input(t, lines, len(in.valid))
			r.Topic, r.Partition = tp.topic, tp.partition
			in.valid = append(in.valid, ok)
			in.from = append(in.from, tp)
			*to = append(*to, r)
		}
	}
	topics := make([]string, 0, len(partitions))
	for topic := range partitions {
		topics = append(topics, topic)
	}
	slices.Sort(topics)
	for _, topic := range topics {
		// Heavy partitions on every broker, as far as there are enough:
		// the first partition each broker leads, then the next ones.
		var order []int32
		led := map[int32]bool{}
		for p := range partitions[topic] {
			if l := c.LeaderFor(topic, p); !led[l] {
				led[l] = true
				order = append(order, p)
			}
		}
		for p := range partitions[topic] {
			if !slices.Contains(order, p) {
				order = append(order, p)
			}
		}
		for _, p := range order[:heavy[topic]] {
			tp := topicPartition{topic, p}
			in.heavy[tp] = true
			add(tp, sizes[len(in.heavy)-1], &heavyOnes)
		}
		for p := range partitions[topic] {
			tp := topicPartition{topic, p}
			if in.heavy[tp] || p%8 == 7 {
				continue
			}
			in.light[tp] = true
			add(tp, 1+int(p)%5, &lightOnes)
		}
	}
	// Batches of the bound, a few hundred records each, compressed:
	// lingering, the producer fills each before it sends it.
	producer := readerClient(t, c.ListenAddrs(), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(kgo.ZstdCompression()),
		kgo.ProducerBatchMaxBytes(int32(manyPartsBound())), kgo.ProducerLinger(100*time.Millisecond), kgo.MaxBufferedRecords(len(in.valid)),
		kgo.TransactionalID("input-"+t.Name()))
	ctx := context.Background()
	require.NoError(t, producer.BeginTransaction())
	require.NoError(t, producer.ProduceSync(ctx, heavyOnes...).FirstErr())
	require.NoError(t, producer.ProduceSync(ctx, lightOnes...).FirstErr())
	return in, func() { require.NoError(t, producer.EndTransaction(ctx, kgo.TryCommit)) }
}

// fetchTurns counts, through kgo's hooks, for one gate, the fetches of
// each broker in which a partition's batches were all left for a later
// fetch (kafka.BoundedFetches's budget spent before them), before the
// first in which the gate read some of its records.
type fetchTurns struct {
	mu     sync.Mutex
	read   map[topicPartition]bool // partitions of which the gate read records
	waited map[topicPartition]int  // fetches it left a partition whole, before it read any
}

var _ kgo.HookFetchBatchRead = (*fetchTurns)(nil)

func (f *fetchTurns) OnFetchBatchRead(_ kgo.BrokerMetadata, topic string, partition int32, b kgo.FetchBatchMetrics) {
	tp := topicPartition{topic, partition}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.read[tp]:
	case b.NumRecords > 0:
		f.read[tp] = true
	case b.CompressionType != 0:
		// Left undecompressed: kgo calls the hook once for the
		// batch it stopped at, its partition's first in the fetch.
		f.waited[tp]++
	}
}

// manyPartsGates runs gates, in one group, on sessions with the
// options kafka/cmd/gate gives its own (kafka.BoundedFetches), at a
// bound a batch of manyPartsBound, on topics, until the group has
// gated all it holds (UntilIdle). Once the group has settled, each gate
// given some of the partitions, it calls commit, which makes the input
// readable (produceUneven): the input is there whole, heavy and light
// partitions alike, when the gates start on it, and no gate joins the
// group or leaves it while they do. It returns the gates' totals, added
// up, and what each counted of its fetches.
func manyPartsGates(t *testing.T, addrs []string, topics []string, gates int, commit func()) (gate.Stats, []*fetchTurns) {
	bounded, err := kafka.BoundedFetches(manyPartsBound())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var all []<-chan ran
	var turns []*fetchTurns
	for i := range gates {
		f := &fetchTurns{read: map[topicPartition]bool{}, waited: map[topicPartition]int{}}
		turns = append(turns, f)
		opts := append([]kgo.Opt{kgo.ConsumerGroup("many"), kgo.ConsumeTopics(topics...), kgo.TransactionalID(fmt.Sprintf("many-%d", i)),
			kgo.SessionTimeout(2 * time.Second), kgo.HeartbeatInterval(100 * time.Millisecond), kgo.WithHooks(f)}, bounded...)
		g := &kafka.Gate{Session: gateSession(t, addrs, opts...), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true,
			Log: slog.New(slog.NewTextHandler(testWriter{t}, nil)).With("gate", i)}
		all = append(all, runGate(ctx, g))
	}
	adm := kadm.NewClient(readerClient(t, addrs))
	for !settled(ctx, adm, "many", gates) {
		require.NoError(t, ctx.Err(), "the group never settled")
		time.Sleep(20 * time.Millisecond)
	}
	commit()
	var total gate.Stats
	for i, done := range all {
		r := <-done
		assert.NoError(t, r.err, "gate %d: %+v", i, r.st)
		t.Logf("gate %d: %+v", i, r.st)
		total.Add(r.st)
	}
	require.NoError(t, ctx.Err(), "the gates never found their input idle")
	return total, turns
}

// settled reports whether group is stable with members members, each
// given some partitions.
func settled(ctx context.Context, adm *kadm.Client, group string, members int) bool {
	groups, err := adm.DescribeGroups(ctx, group)
	if err != nil || groups.Error() != nil {
		return false
	}
	g := groups[group]
	if g.State != "Stable" || len(g.Members) != members {
		return false
	}
	for _, m := range g.Members {
		if a, ok := m.Assigned.AsConsumer(); !ok || len(a.Topics) == 0 {
			return false
		}
	}
	return true
}

// checkNoneStarved checks that no partition of the input waited, in the
// gates' fetches, for others to drain, and logs how long in the output.
//
// A fetch that reaches the budget of kafka.BoundedFetches leaves the
// batches after for a later fetch, which names first the partitions
// left before, the longest waiting first: a partition is left whole by
// one fetch of its broker for each partition there that fills a fetch
// (a heavy one) ahead of it, at most, and by the first fetch that
// names it. A fetch names a topic's partitions together, and those of
// the topic of the longest waiting first: a heavy partition of that
// topic that no fetch left yet comes ahead of the others' partitions
// left, once. So many fetches of its broker, at most, leave a
// partition whole before one reads it: twice the heavy partitions
// there, and one.
//
// Of the output, read read_committed (a copy's timestamp is when its
// gate produced it), it logs how many of the heavy partitions' records
// were forwarded before each light partition's first: a measure of the
// gates' pace against each other, on a machine whose load the test does
// not choose, and so no assertion (one gate forwarded 10,000 heavy
// records in the 215 ms that another took to forward its first light
// one, read in its second fetch). Waiting for kgo's turns alone, a
// light partition's first copy came once 10,000 to 16,000 of the 18,000
// were forwarded; now a few thousand.
func checkNoneStarved(t *testing.T, c *kfake.Cluster, in *unevenInput, records []*kgo.Record, turns []*fetchTurns) {
	heavyOn := map[int32]int{}
	for tp := range in.heavy {
		heavyOn[c.LeaderFor(tp.topic, tp.partition)]++
	}
	most := 0
	for i, f := range turns {
		f.mu.Lock()
		for tp, n := range f.waited {
			most = max(most, n)
			bound := 2*heavyOn[c.LeaderFor(tp.topic, tp.partition)] + 1
			assert.LessOrEqual(t, n, bound, "gate %d: partition %s left whole by %d fetches of its broker before one read it", i, tp, n)
		}
		f.mu.Unlock()
	}

	var heavy []time.Time // when each copy of a heavy partition's record was forwarded
	first := map[topicPartition]time.Time{}
	for _, r := range records {
		i, err := strconv.Atoi(key(r))
		require.NoError(t, err, "a record of no input in %s", r.Topic)
		require.True(t, i >= 0 && i < len(in.from), "a record of no input: %d", i)
		tp := in.from[i]
		if in.heavy[tp] {
			heavy = append(heavy, r.Timestamp)
		} else if at, ok := first[tp]; !ok || r.Timestamp.Before(at) {
			first[tp] = r.Timestamp
		}
	}
	slices.SortFunc(heavy, time.Time.Compare)
	require.NotEmpty(t, heavy)
	var worst topicPartition
	before := map[topicPartition]int{} // copies of heavy partitions forwarded before a partition's first
	for tp := range in.light {
		at, ok := first[tp]
		if !assert.True(t, ok, "partition %s: nothing stored", tp) {
			continue
		}
		before[tp], _ = slices.BinarySearchFunc(heavy, at, time.Time.Compare)
		if worst.topic == "" || before[tp] > before[worst] {
			worst = tp
		}
	}
	t.Logf("%d light partitions, the last of them to come %v after the first copy, once %d of the heavy partitions' %d records were forwarded (%s); the heavy partitions drained after %v; "+
		"a partition left whole by %d fetches at most before one read it (heavy partitions on each broker: %v)",
		len(in.light), first[worst].Sub(heavy[0]), before[worst], len(heavy), worst, heavy[len(heavy)-1].Sub(heavy[0]), most, heavyOn)
}

// TestGatesStarveNoPartitionOfMany gates an input of 64 partitions on
// three brokers, 18,000 records or so spread unevenly (four partitions
// heavy, in batches of the bound, most a handful, some none, one in
// five invalid), through three gates of one group on the command's
// sessions, until idle: every input must end exactly once, forwarded
// or dead-lettered, and no partition wait for the heavy ones to drain.
func TestGatesStarveNoPartitionOfMany(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.GroupMinSessionTimeout(500*time.Millisecond),
		kfake.SeedTopics(64, inTopic), kfake.SeedTopics(3, outTopic, deadTopic))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	addrs := c.ListenAddrs()
	in, commit := produceUneven(t, c, map[string]int32{inTopic: 64}, map[string]int{inTopic: 4})
	st, turns := manyPartsGates(t, addrs, []string{inTopic}, 3, commit)
	checkExactlyOnce(t, addrs, in.valid)
	assert.Equal(t, len(in.valid), st.Messages, "%+v", st)
	checkNoneStarved(t, c, in, readAll(t, addrs, len(in.valid), outTopic, deadTopic), turns)
}

// TestGatesStarveNoPartitionOfManyTopics does as
// TestGatesStarveNoPartitionOfMany with two input topics (the command's
// -in a,b): one of 48 partitions, three of them heavy, and one of 6,
// one heavy. A fetch names a topic's partitions together, those of the
// topic of the longest waiting partition first: a partition of either
// topic that a fetch left unread is read within a few fetches of its
// broker all the same.
func TestGatesStarveNoPartitionOfManyTopics(t *testing.T) {
	const other = "in-b"
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.GroupMinSessionTimeout(500*time.Millisecond),
		kfake.SeedTopics(48, inTopic), kfake.SeedTopics(6, other), kfake.SeedTopics(3, outTopic, deadTopic))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	addrs := c.ListenAddrs()
	in, commit := produceUneven(t, c, map[string]int32{inTopic: 48, other: 6}, map[string]int{inTopic: 3, other: 1})
	st, turns := manyPartsGates(t, addrs, []string{inTopic, other}, 2, commit)
	checkExactlyOnce(t, addrs, in.valid)
	assert.Equal(t, len(in.valid), st.Messages, "%+v", st)
	checkNoneStarved(t, c, in, readAll(t, addrs, len(in.valid), outTopic, deadTopic), turns)
}
