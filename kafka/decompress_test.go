package kafka_test

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/internal/cmdtest"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
)

// fetchMeter counts, through kgo's hooks, what a client decompresses of
// each fetch: the batches it reads after writing a fetch request, until
// it writes the next (one fetch at a time, as from one broker).
type fetchMeter struct {
	mu    sync.Mutex
	fetch int // bytes decompressed of the fetch being read
	peak  int // the most of any fetch
}

var (
	_ kgo.HookBrokerWrite    = (*fetchMeter)(nil)
	_ kgo.HookFetchBatchRead = (*fetchMeter)(nil)
)

func (m *fetchMeter) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, _ error) {
	if key == int16(kmsg.Fetch) {
		m.mu.Lock()
		m.fetch = 0
		m.mu.Unlock()
	}
}

func (m *fetchMeter) OnFetchBatchRead(_ kgo.BrokerMetadata, _ string, _ int32, b kgo.FetchBatchMetrics) {
	if b.CompressionType == 0 || b.NumRecords == 0 {
		return // not compressed, or not decompressed (a bomb, or a batch left for later)
	}
	m.mu.Lock()
	m.fetch += b.UncompressedBytes
	m.peak = max(m.peak, m.fetch)
	m.mu.Unlock()
}

func (m *fetchMeter) peakBytes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak
}

// fetchBound is kgo.MaxDecompressBatchBytes in TestGateBoundsWhatAFetchDecompresses.
const fetchBound = 64 << 10

// TestGateBoundsWhatAFetchDecompresses feeds a gate what a hostile
// producer may: hundreds of batches, each of one record of zeros that
// decompresses to just within the bound a batch (kgo's
// MaxDecompressBatchBytes), a few dozen bytes each compressed, so that
// one fetch holds them all; among them a compression bomb, a batch past
// the bound, and valid messages, across three partitions. kgo bounds
// each batch, not a fetch: with its bound alone, one fetch decompresses
// hundreds of times the bound (measured here: the first fetch,
// everything before the bomb), all held before the gate polls one
// record, and a fetch of a larger input more, whatever the gate's
// options. With kafka.BoundedFetches, no fetch decompresses twice the
// bound, and still every input ends once: each record of zeros a dead
// letter, each valid message forwarded, the bomb one dead letter, no
// partition held (each comes first in some fetch, whose first batch is
// decompressed whatever the budget).
func TestGateBoundsWhatAFetchDecompresses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bounded bool
		brokers int // each leading some of the partitions
		n       int // inputs, of which one in 20 valid, the rest zeros
	}{{"kgo's bound alone", false, 1, 600}, {"BoundedFetches", true, 1, 600}, {"BoundedFetches, three brokers", true, 3, 300}} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.n
			_, addrs := newCluster(t, 3, kfake.NumBrokers(tc.brokers))
			_, lines := samples(t)
			valid := make([]bool, n)
			var records []*kgo.Record
			for i := range n {
				r := &kgo.Record{Topic: inTopic, Partition: int32(i % 3), Headers: []kgo.RecordHeader{{Key: keyHeader, Value: []byte(strconv.Itoa(i))}}}
				if valid[i] = i%20 == 0; valid[i] {
					r.Value = withNewID(t, lines[1])
				} else {
					r.Value = make([]byte, fetchBound-256)
				}
				records = append(records, r)
			}
			// One record a batch: two would pass the bound together.
			producer := readerClient(t, addrs, kgo.RecordPartitioner(kgo.ManualPartitioner()),
				kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerBatchMaxBytes(fetchBound))
			bomber := readerClient(t, addrs, kgo.RecordPartitioner(kgo.ManualPartitioner()),
				kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerBatchMaxBytes(16<<20))
			ctx := context.Background()
			require.NoError(t, producer.ProduceSync(ctx, records[:n/2]...).FirstErr())
			var bomb []*kgo.Record
			for range 4 {
				bomb = append(bomb, &kgo.Record{Topic: inTopic, Partition: 1, Value: make([]byte, fetchBound)})
			}
			results := bomber.ProduceSync(ctx, bomb...)
			require.NoError(t, results.FirstErr())
			bombAt := results[0].Record.Offset
			require.NoError(t, producer.ProduceSync(ctx, records[n/2:]...).FirstErr())

			meter := &fetchMeter{}
			opts := []kgo.Opt{kgo.MaxDecompressBatchBytes(fetchBound)}
			if tc.bounded {
				var err error
				opts, err = kafka.BoundedFetches(fetchBound)
				require.NoError(t, err)
			}
			st := runUntilIdle(t, addrs, &kafka.Gate{Session: gateSession(t, addrs, append(opts, kgo.WithHooks(meter))...)})
			peak := meter.peakBytes()
			t.Logf("the most decompressed of one fetch: %d bytes, %.1f times the bound a batch", peak, float64(peak)/fetchBound)
			if tc.bounded {
				assert.Less(t, peak, 2*fetchBound, "a fetch decompressed twice the bound or more")
			} else {
				// The input is one a bound a fetch must stop: n/3
				// batches of zeros before the bomb in one fetch.
				assert.Greater(t, peak, n/10*fetchBound, "the input is not one that fills a fetch")
			}

			assert.Equal(t, gate.Stats{Messages: n + 1, Forwarded: n / 20, DeadLetters: n - n/20 + 1, Bytes: st.Bytes}, st)
			seen := make([]int, n)
			var bombs []gate.Verdict
			for _, r := range readAll(t, addrs, n+1, outTopic, deadTopic) {
				key, verdict := -1, []byte(nil)
				for _, h := range r.Headers {
					switch h.Key {
					case keyHeader:
						i, err := strconv.Atoi(string(h.Value))
						require.NoError(t, err)
						key = i
					case kafka.VerdictHeader:
						verdict = h.Value
					}
				}
				if key < 0 {
					require.Equal(t, deadTopic, r.Topic, "a copy of no input")
					v, err := gate.ParseVerdict(verdict)
					require.NoError(t, err)
					bombs = append(bombs, v)
					continue
				}
				seen[key]++
				assert.Equal(t, valid[key], r.Topic == outTopic, "input %d in %s", key, r.Topic)
			}
			for i, times := range seen {
				assert.Equal(t, 1, times, "input %d stored %d times", i, times)
			}
			require.Len(t, bombs, 1, "the bomb's dead letters")
			assert.Equal(t, gate.Place{Subject: inTopic, Partition: 1, Sequence: uint64(bombAt)}, bombs[0].Place)
			require.Len(t, bombs[0].Violations, 1)
			assert.Equal(t, msg.RuleTooLarge, bombs[0].Violations[0].Rule)
		})
	}
}

// A fetch whose budget went on batches of no record (those of an aborted
// transaction, decompressed before kgo drops their records) reads no
// record at all: kgo gives the gate only the batches it left for a
// later fetch, as errors of their partitions. That is no failure
// (found here: the gate warned that fetching failed, and paused, as it
// does for a broker's error): the gate fetches again, quietly, and
// gates every record once.
func TestGateWaitsQuietlyForABatchLeftForALaterFetch(t *testing.T) {
	_, addrs := newCluster(t, 1)
	_, lines := samples(t)
	opts := []kgo.Opt{kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerBatchMaxBytes(fetchBound)}
	txn := readerClient(t, addrs, append(opts, kgo.TransactionalID("input-"+t.Name()))...)
	producer := readerClient(t, addrs, opts...)
	ctx := context.Background()
	require.NoError(t, txn.BeginTransaction())
	// Two batches, which spend the budget of the fetch that reads them.
	for range 2 {
		aborted := &kgo.Record{Topic: inTopic, Value: make([]byte, fetchBound-256), Headers: []kgo.RecordHeader{{Key: keyHeader, Value: []byte("aborted")}}}
		require.NoError(t, txn.ProduceSync(ctx, aborted).FirstErr())
	}
	// Behind the aborted batch, before its transaction's marker.
	require.NoError(t, producer.ProduceSync(ctx,
		&kgo.Record{Topic: inTopic, Value: make([]byte, fetchBound-256), Headers: []kgo.RecordHeader{{Key: keyHeader, Value: []byte("0")}}}).FirstErr())
	require.NoError(t, txn.EndTransaction(ctx, kgo.TryAbort))
	require.NoError(t, producer.ProduceSync(ctx,
		&kgo.Record{Topic: inTopic, Value: withNewID(t, lines[1]), Headers: []kgo.RecordHeader{{Key: keyHeader, Value: []byte("1")}}}).FirstErr())

	bounded, err := kafka.BoundedFetches(fetchBound)
	require.NoError(t, err)
	log := &cmdtest.Buffer{}
	st := runUntilIdle(t, addrs, &kafka.Gate{Session: gateSession(t, addrs, bounded...), Log: slog.New(slog.NewTextHandler(log, nil))})
	assert.Equal(t, gate.Stats{Messages: 2, Forwarded: 1, DeadLetters: 1, Bytes: st.Bytes}, st)
	assert.NotContains(t, log.String(), "fetching failed")
	checkExactlyOnce(t, addrs, []bool{false, true})
}

// A bound kgo would refuse is refused, saying so, rather than giving
// options with which no session could be made.
func TestBoundedFetchesRefusesABoundKgoRefuses(t *testing.T) {
	for _, bound := range []int{0, -1, 1 << 31} {
		_, err := kafka.BoundedFetches(bound)
		require.Error(t, err, "%d", bound)
		assert.Contains(t, err.Error(), "bounding decompression at "+strconv.Itoa(bound)+" bytes a batch")
	}
}

// A gate whose session does not bound what it decompresses of a fetch
// (made without the options of kafka.BoundedFetches, as a library user
// may) says so once, at start, naming the options; a gate whose
// session does, says nothing of it. Each gates the input whole.
func TestGateWarnsOnceOfASessionThatDoesNotBoundAFetch(t *testing.T) {
	_, addrs := newCluster(t, 3)
	valid := produceInput(t, addrs, 30)
	for _, bounded := range []bool{false, true} {
		var opts []kgo.Opt
		if bounded {
			opts = boundedFetches(t)
		}
		var log cmdtest.Buffer
		g := &kafka.Gate{Log: slog.New(slog.NewTextHandler(&log, nil)), NewSession: func() (*kgo.GroupTransactSession, error) {
			return kgo.NewGroupTransactSession(append([]kgo.Opt{kgo.SeedBrokers(addrs...), kgo.ConsumerGroup("warn-" + strconv.FormatBool(bounded)),
				kgo.ConsumeTopics(inTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.TransactionalID("warn-" + strconv.FormatBool(bounded)),
				kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords()}, opts...)...)
		}}
		st := runUntilIdle(t, addrs, g)
		assert.Equal(t, len(valid), st.Messages, "bounded %v", bounded)
		want := 1
		if bounded {
			want = 0
		}
		assert.Equal(t, want, strings.Count(log.String(), "make the session with the options of kafka.BoundedFetches"), "bounded %v: %s", bounded, log.String())
	}
}
