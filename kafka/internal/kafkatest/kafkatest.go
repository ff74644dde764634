// Package kafkatest reads topics as the Kafka module's tests check what a
// gate stored: as a read_committed consumer, from their start, to where
// the brokers say the committed records end.
package kafkatest

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ReaderOpts are the options of a client for a Reader of topics:
// consuming them from their start, read_committed, the transaction
// markers kept, so that a partition is known to be read to its end even
// when a marker ends it.
func ReaderOpts(topics ...string) []kgo.Opt {
	return []kgo.Opt{kgo.ConsumeTopics(topics...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(100 * time.Millisecond), kgo.KeepControlRecords()}
}

// A Reader reads topics through a client made with ReaderOpts.
type Reader struct {
	cl     *kgo.Client
	topics []string
	// Records are the records read so far, without the markers.
	Records []*kgo.Record
	next    map[string]map[int32]int64 // the offset after the last read, markers included
}

// NewReader returns a Reader of topics through cl, a client made with
// ReaderOpts(topics...).
func NewReader(cl *kgo.Client, topics ...string) *Reader {
	return &Reader{cl: cl, topics: topics, next: map[string]map[int32]int64{}}
}

// Poll polls once, for up to a second, adding what it reads to Records.
func (r *Reader) Poll() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for _, rec := range r.cl.PollFetches(ctx).Records() {
		if r.next[rec.Topic] == nil {
			r.next[rec.Topic] = map[int32]int64{}
		}
		r.next[rec.Topic][rec.Partition] = rec.Offset + 1
		if !rec.Attrs.IsControl() {
			r.Records = append(r.Records, rec)
		}
	}
}

// ToStableEnd polls until each partition of the topics is read to the
// last stable offset it has when ToStableEnd is called (a partition
// whose records were all deleted has nothing to read), or until
// deadline, and reports whether it got there: as exact about a record
// stored twice as reading until nothing more comes, without waiting for
// polls to come back empty.
func (r *Reader) ToStableEnd(deadline time.Time) (bool, error) {
	adm := kadm.NewClient(r.cl)
	ctx := context.Background()
	starts, err := adm.ListStartOffsets(ctx, r.topics...)
	if err != nil {
		return false, err
	}
	ends, err := adm.ListCommittedOffsets(ctx, r.topics...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return false, err
	}
	read := func() bool {
		all := true
		ends.Each(func(end kadm.ListedOffset) {
			start, _ := starts.Lookup(end.Topic, end.Partition)
			if end.Offset > start.Offset && r.next[end.Topic][end.Partition] < end.Offset {
				all = false
			}
		})
		return all
	}
	for !read() {
		if !time.Now().Before(deadline) {
			return false, nil
		}
		r.Poll()
	}
	return true, nil
}
