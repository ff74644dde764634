package kafka

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// BoundedFetches returns the options that bound what a gate's session
// decompresses of its input, whatever its producers wrote: a batch to at
// most maxBatchBytes (kgo.MaxDecompressBatchBytes; a batch past it is a
// compression bomb, which the gate dead-letters unread), and a fetch to
// less than twice that. Give them to kgo.NewGroupTransactSession after
// the session's other options.
//
// kgo bounds each batch, not a fetch: a fetch of kgo.FetchMaxBytes of
// compressed batches may hold thousands of batches each of which
// decompresses to just within the bound, all decompressed before the
// gate polls one record. Fewer compressed bytes a fetch would not bound
// that: zstd compresses a batch of zeros more than a thousand times (a
// block of 128 KiB to a few bytes), and a broker sends the first batch
// of a fetch whatever its size. With these options, once a fetch has
// decompressed maxBatchBytes, the batches after it are not decompressed:
// kgo keeps the records it read of a partition and fetches the
// partition again from the first it did not read, and one of whose
// records it read none comes again whole (as an error of its partition
// that the gate passes over). No record is skipped, nor read twice.
//
// A partition a fetch left unread comes first in the next fetch of its
// broker, unless others left before it do (the longest waiting first,
// kgo.ConsumePreferringLagFn), and the first batch of a fetch is always
// decompressed: none waits behind others that keep filling their
// fetches, more than one fetch for each of those left before it. The
// options have the client name every partition in each fetch, in that
// order (kgo.DisableFetchSessions; a broker answers in the order asked,
// KIP-74; in a fetch session the broker chooses the order, and may put
// the same partitions first each time), and fetch from one broker at a
// time (kgo.MaxConcurrentFetches(1)), each in turn, so that the fetch
// being read is the only one, and the client holds one fetch's records
// at a time. kgo's own order alone, which moves each partition to the
// front in turn, one a fetch, starves none for ever, but let a light
// partition wait as many fetches of its broker as it leads partitions,
// each of which read the heavy ones: on a topic of 64 partitions, a
// light partition was read once most of the heavy ones' backlog was.
// A fetch names a topic's partitions together, those of the topic of
// the longest waiting first. As it waits for one broker at a time, a
// broker with nothing to send answers within a tenth of a second
// (kgo.FetchMaxWait), not kgo's 5 seconds: an idle broker delays the
// others that little. A session given its own
// kgo.ConsumePreferringLagFn after these options loses that order.
func BoundedFetches(maxBatchBytes int) ([]kgo.Opt, error) {
	// kgo's own decompressor, bounded at maxBatchBytes: kgo bounds only
	// its own (kgo.MaxDecompressBatchBytes does not apply to one given
	// with kgo.WithDecompressor), and builds it only inside a client.
	cl, err := kgo.NewClient(kgo.MaxDecompressBatchBytes(maxBatchBytes))
	if err != nil {
		return nil, fmt.Errorf("kafka: bounding decompression at %d bytes a batch: %w", maxBatchBytes, err)
	}
	inner, ok := cl.OptValue(kgo.WithDecompressor).(kgo.Decompressor)
	cl.Close()
	if !ok {
		return nil, fmt.Errorf("kafka: bounding decompression at %d bytes a batch: kgo gave no decompressor", maxBatchBytes)
	}
	d := &budgetDecompressor{inner: inner, budget: int64(maxBatchBytes), left: map[partition]uint64{}}
	return []kgo.Opt{
		kgo.MaxDecompressBatchBytes(maxBatchBytes),
		kgo.WithDecompressor(d),
		kgo.WithHooks(d),
		kgo.ConsumePreferringLagFn(d.leftFirst),
		kgo.MaxConcurrentFetches(1),
		kgo.DisableFetchSessions(),
		kgo.FetchMaxWait(fetchMaxWait),
	}, nil
}

// fetchMaxWait is how long a broker with nothing to send holds a fetch
// of a session made with BoundedFetches.
const fetchMaxWait = 100 * time.Millisecond

// errDeferred is the error with which a budgetDecompressor leaves a
// batch undecompressed: its fetch has decompressed its budget already.
// kgo keeps it for a partition none of whose records it read, and
// fetches the partition again from there; as for any error of a
// partition, it asks the brokers for metadata at once (at most every 10
// ms): a request more a fetch, at most.
var errDeferred = errors.New("kafka: batch left for a later fetch: the fetch decompressed its budget already")

// A budgetDecompressor decompresses the batches of a fetch with inner,
// bounded a batch, until it has decompressed budget bytes of the fetch
// (spent), and leaves the rest for later fetches (errDeferred); the
// first batch of a fetch is always decompressed. spent starts again at
// zero when a fetch request is written: kgo calls OnBrokerWrite before
// it waits for the response, and reads a response batch by batch on one
// goroutine, and with kgo.MaxConcurrentFetches(1) it writes no other
// fetch request until every record of the one read has been polled (or
// it dropped that one unread), so that the batches decompressed since
// the last fetch request was written are those of the fetch being read.
//
// It keeps, too, the partitions a fetch left unread, to be named first
// in the next fetch of their broker (leftFirst).
type budgetDecompressor struct {
	inner  kgo.Decompressor
	budget int64
	spent  atomic.Int64

	mu      sync.Mutex
	fetches uint64               // fetch requests written
	left    map[partition]uint64 // partitions with a batch left unread, by the fetch request after which the first was
}

var (
	_ kgo.Decompressor       = (*budgetDecompressor)(nil)
	_ kgo.HookBrokerWrite    = (*budgetDecompressor)(nil)
	_ kgo.HookFetchBatchRead = (*budgetDecompressor)(nil)
)

// Decompress implements kgo.Decompressor.
func (d *budgetDecompressor) Decompress(src []byte, codec kgo.CompressionCodecType) ([]byte, error) {
	if codec == kgo.CodecNone {
		return src, nil
	}
	if d.spent.Load() >= d.budget {
		return nil, errDeferred
	}
	out, err := d.inner.Decompress(src, codec)
	if err != nil {
		// A batch that failed (a bomb, or one corrupt) may have cost
		// the bound before failing: counted so, a fetch of failures
		// costs no more work than one of batches read.
		d.spent.Add(d.budget)
		return nil, err
	}
	d.spent.Add(int64(len(out)))
	return out, nil
}

// OnBrokerWrite implements kgo.HookBrokerWrite: a fetch request written
// begins a fetch, whose response is read after it.
func (d *budgetDecompressor) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, _ error) {
	if key == int16(kmsg.Fetch) {
		d.spent.Store(0)
		d.mu.Lock()
		d.fetches++
		d.mu.Unlock()
	}
}

// OnFetchBatchRead implements kgo.HookFetchBatchRead: a compressed batch
// of which kgo read no record was left for a later fetch (or held the
// records of an aborted transaction only, or was a bomb, which stops
// its partition), and its partition waits, from the fetch that left it,
// until one reads a record of it. kgo reads a partition's batches in
// turn, and stops at the first it leaves.
func (d *budgetDecompressor) OnFetchBatchRead(_ kgo.BrokerMetadata, topic string, p int32, m kgo.FetchBatchMetrics) {
	at := partition{topic, p}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case m.NumRecords > 0:
		delete(d.left, at)
	case m.CompressionType != 0:
		if _, ok := d.left[at]; !ok {
			d.left[at] = d.fetches
		}
	}
}

// leftFirst is the session's kgo.PreferLagFn, which orders the
// partitions of each fetch request as it is written: those a fetch left
// unread first, the longest waiting first (and their topics so: kgo
// names a topic's partitions together), then the rest in kgo's own
// order, which moves each partition to the front in turn. A partition
// left unread is read in the next fetch of its broker, unless others
// left before it fill that one; by kgo's turns alone, it may wait as
// many fetches as its broker has partitions, each of which reads the
// heavy ones, until they have drained.
func (d *budgetDecompressor) leftFirst(_ map[string]map[int32]int64, topics []string, partitions map[string][]int32) ([]string, map[string][]int32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	type waiting struct {
		topic     string
		partition int32
		since     uint64
	}
	var ws []waiting
	for _, topic := range topics {
		for _, p := range partitions[topic] {
			if since, ok := d.left[partition{topic, p}]; ok {
				ws = append(ws, waiting{topic, p, since})
			}
		}
	}
	if len(ws) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(ws, func(a, b waiting) int { return cmp.Compare(a.since, b.since) })
	var order []string
	first := map[string][]int32{}
	for _, w := range ws {
		if _, ok := first[w.topic]; !ok {
			order = append(order, w.topic)
		}
		first[w.topic] = append(first[w.topic], w.partition)
	}
	return order, first
}

// bounded reports whether cl decompresses its fetches as the options of
// BoundedFetches have it: a Gate's Start logs, once, a session that
// does not.
func bounded(cl *kgo.Client) bool {
	_, ok := cl.OptValue(kgo.WithDecompressor).(*budgetDecompressor)
	return ok
}
