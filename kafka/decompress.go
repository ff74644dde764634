package kafka

import (
	"errors"
	"fmt"
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
// Every partition comes first in some fetch, whose first batch is
// always decompressed, so that none waits for ever behind others that
// keep filling their fetches: the options have the client name every
// partition in each fetch (kgo.DisableFetchSessions), which kgo rotates
// from one fetch to the next and a broker answers in the order asked
// (KIP-74; in a fetch session the broker chooses the order, and may put
// the same partitions first each time), and fetch from one broker at a
// time (kgo.MaxConcurrentFetches(1)), each in turn, so that the fetch
// being read is the only one, and the client holds one fetch's records
// at a time. As it waits for one broker at a time, a broker with nothing
// to send answers within a tenth of a second (kgo.FetchMaxWait), not
// kgo's 5 seconds: an idle broker delays the others that little.
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
	d := &budgetDecompressor{inner: inner, budget: int64(maxBatchBytes)}
	return []kgo.Opt{
		kgo.MaxDecompressBatchBytes(maxBatchBytes),
		kgo.WithDecompressor(d),
		kgo.WithHooks(d),
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
type budgetDecompressor struct {
	inner  kgo.Decompressor
	budget int64
	spent  atomic.Int64
}

var (
	_ kgo.Decompressor    = (*budgetDecompressor)(nil)
	_ kgo.HookBrokerWrite = (*budgetDecompressor)(nil)
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
	}
}

// bounded reports whether cl decompresses its fetches as the options of
// BoundedFetches have it: a Gate's Start logs, once, a session that
// does not.
func bounded(cl *kgo.Client) bool {
	_, ok := cl.OptValue(kgo.WithDecompressor).(*budgetDecompressor)
	return ok
}
