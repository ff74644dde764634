package kafka_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
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

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/kafka"
)

// What a gate logs of a partition of its input it cannot read, and of
// one it reads again.
const (
	cannotRead = "the gate cannot read a partition of the input: its records from offset on are held, not gated, until it can; a record batch there that fails its CRC is held for ever: move the group's offset past it, or delete the records"
	readAgain  = "the gate reads again a partition of the input it could not read"
)

// crcMismatch is how kgo says that a record batch fails its CRC.
const crcMismatch = "does not match calculated crc"

// A corrupter is a session's way to the brokers (its kgo.Dialer) that
// flips, while on, a byte of the first record batch of one partition in
// every fetch response that carries one, inside what the batch's CRC
// covers, as a disk gone bad under the broker would: the broker is
// kfake, which checks every batch produced to it, and the corrupter
// changes nothing else of the response.
type corrupter struct {
	topic     string
	topicID   [16]byte // Fetch names a topic by its id from version 13
	partition int32
	on        atomic.Bool
	hits      atomic.Int64 // fetch responses corrupted
	mu        sync.Mutex
	err       error // the first response it could not read, if any
}

func (c *corrupter) dial(ctx context.Context, network, host string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	return &corruptConn{Conn: conn, c: c, fetches: map[int32]int16{}}, nil
}

func (c *corrupter) fail(err error) {
	c.mu.Lock()
	c.err = cmp.Or(c.err, err)
	c.mu.Unlock()
}

func (c *corrupter) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// A corruptConn is a connection of a corrupter: it notes the version of
// each fetch request written, by correlation id, and reads responses a
// whole frame at a time, corrupting those of fetches.
type corruptConn struct {
	net.Conn
	c       *corrupter
	written []byte // what was written of a request not yet whole

	mu      sync.Mutex
	fetches map[int32]int16 // fetch requests awaiting their response: their version

	unread []byte // what is left to read of the response read last
}

// Write notes the fetch requests among those written (a request: its
// size, then its api key, its version and its correlation id).
func (cc *corruptConn) Write(p []byte) (int, error) {
	cc.written = append(cc.written, p...)
	for len(cc.written) >= 4 {
		size := int(binary.BigEndian.Uint32(cc.written))
		if len(cc.written) < 4+size {
			break
		}
		req := cc.written[4 : 4+size]
		if len(req) >= 8 && int16(binary.BigEndian.Uint16(req)) == kmsg.Fetch.Int16() {
			cc.mu.Lock()
			cc.fetches[int32(binary.BigEndian.Uint32(req[4:]))] = int16(binary.BigEndian.Uint16(req[2:]))
			cc.mu.Unlock()
		}
		cc.written = cc.written[4+size:]
	}
	return cc.Conn.Write(p)
}

// Read reads a whole response when none is left to read, corrupts it if
// it is a fetch's, and returns it.
func (cc *corruptConn) Read(p []byte) (int, error) {
	if len(cc.unread) == 0 {
		var size [4]byte
		if _, err := io.ReadFull(cc.Conn, size[:]); err != nil {
			return 0, err
		}
		resp := make([]byte, binary.BigEndian.Uint32(size[:]))
		if _, err := io.ReadFull(cc.Conn, resp); err != nil {
			return 0, err
		}
		if len(resp) >= 4 {
			corr := int32(binary.BigEndian.Uint32(resp))
			cc.mu.Lock()
			version, fetch := cc.fetches[corr]
			delete(cc.fetches, corr)
			cc.mu.Unlock()
			if fetch && cc.c.on.Load() {
				resp = cc.c.corrupt(resp, version)
			}
		}
		cc.unread = binary.BigEndian.AppendUint32(nil, uint32(len(resp)))
		cc.unread = append(cc.unread, resp...)
	}
	n := copy(p, cc.unread)
	cc.unread = cc.unread[n:]
	return n, nil
}

// corrupt returns resp, a fetch response of the version given (its
// correlation id, its header's tagged fields from version 12 on, and its
// body), with the last byte of the first record batch of c's partition
// flipped: the CRC of the batch covers everything from its attributes
// (its 22nd byte) on.
func (c *corrupter) corrupt(resp []byte, version int16) []byte {
	fetch := kmsg.NewPtrFetchResponse()
	fetch.Version = version
	header := 4
	if fetch.IsFlexible() {
		tags, n := binary.Uvarint(resp[header:])
		header += n
		for range tags {
			_, n := binary.Uvarint(resp[header:])
			header += n
			size, m := binary.Uvarint(resp[header:])
			header += m + int(size)
		}
	}
	if err := fetch.ReadFrom(resp[header:]); err != nil {
		c.fail(fmt.Errorf("reading a fetch response of version %d: %w", version, err))
		return resp
	}
	corrupted := false
	for i := range fetch.Topics {
		rt := &fetch.Topics[i]
		if rt.Topic != c.topic && rt.TopicID != c.topicID {
			continue
		}
		for j := range rt.Partitions {
			rp := &rt.Partitions[j]
			if rp.Partition != c.partition || len(rp.RecordBatches) < 61 {
				continue
			}
			end := 12 + int(binary.BigEndian.Uint32(rp.RecordBatches[8:]))
			if end > len(rp.RecordBatches) {
				c.fail(fmt.Errorf("a record batch of %d bytes in a response of %d", end, len(rp.RecordBatches)))
				continue
			}
			rp.RecordBatches = bytes.Clone(rp.RecordBatches)
			rp.RecordBatches[end-1] ^= 0xff
			corrupted = true
		}
	}
	if !corrupted {
		return resp
	}
	c.hits.Add(1)
	return fetch.AppendTo(slices.Clone(resp[:header]))
}

// produceTo produces the inputs of indices from to from+n-1, as
// produceInput makes them, each to the partition of parts that its index
// chooses, and returns them, with the offsets the broker gave them.
func produceTo(t *testing.T, cl *kgo.Client, from, n int, parts ...int32) []*kgo.Record {
	_, lines := samples(t)
	records := make([]*kgo.Record, n)
	for i := range n {
		records[i], _ = input(t, lines, from+i)
		records[i].Partition = parts[i%len(parts)]
	}
	require.NoError(t, cl.ProduceSync(context.Background(), records...).FirstErr())
	return records
}

// logged returns the records of logs whose message is m, and counts
// those of any message that carry text in one of their attributes.
func logged(logs *logRecorder, m, text string) (records []slog.Record, carrying int) {
	logs.mu.Lock()
	defer logs.mu.Unlock()
	for _, r := range logs.records {
		if r.Message == m {
			records = append(records, r)
		}
		r.Attrs(func(a slog.Attr) bool {
			if strings.Contains(a.Value.Resolve().String(), text) {
				carrying++
				return false
			}
			return true
		})
	}
	return records, carrying
}

// TestGateSaysOnceWhichPartitionItCannotRead has the gate's fetches of
// one partition of its input (of three) answered with a record batch
// that fails its CRC, as from a disk gone bad, while the other two keep
// flowing. kgo keeps the error for that partition, fetches it again from
// the same offset, and meets it again, for ever: every Kafka client
// does, and the partition's records from there on are held. The gate
// looked at the errors of its fetches only when they had no record: one
// partition held behind a corrupt batch while the others flowed was
// held in silence (decision 16: none held hostage in silence), and one
// with no others flowing was logged again at every lull between them.
// The gate must go on with the other partitions, gating each of their
// records once, and say once, as a warning, which partition it cannot
// read, from which offset, and why, kgo's words, however many fetches
// meet the error; once the partition can be read again, it must gate its
// records, once, and say so, once. The partition goes bad after the gate
// has committed some of its records, or before it read any (held at the
// start of its log).
func TestGateSaysOnceWhichPartitionItCannotRead(t *testing.T) {
	t.Run("read before", func(t *testing.T) { testCannotRead(t, true) })
	t.Run("never read", func(t *testing.T) { testCannotRead(t, false) })
}

// testCannotRead is TestGateSaysOnceWhichPartitionItCannotRead, the
// gate having read partition 0 before it goes bad if readFirst.
func testCannotRead(t *testing.T, readFirst bool) {
	_, addrs := newCluster(t, 3)
	cl := readerClient(t, addrs, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	topics, err := kadm.NewClient(cl).ListTopics(context.Background(), inTopic)
	require.NoError(t, err)
	cor := &corrupter{topic: inTopic, topicID: topics[inTopic].ID, partition: 0}

	logs := &logRecorder{t: t}
	var messages atomic.Int64
	g := &kafka.Gate{Session: gateSession(t, addrs, append(boundedFetches(t), kgo.Dialer(cor.dial))...),
		Output: outTopic, DeadLetters: deadTopic, Batch: 16, Log: slog.New(logs),
		Progress: func(s gate.Stats) { messages.Store(int64(s.Messages)) }}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := runGate(ctx, g)
	until := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case r := <-done:
				t.Fatalf("the gate stopped (%v, %+v) before %s", r.err, r.st, what)
			case <-ctx.Done():
				t.Fatalf("never %s: %d messages gated", what, messages.Load())
			case <-time.After(10 * time.Millisecond):
			}
		}
	}

	// Every partition read, before the disk goes bad, or not.
	cor.on.Store(!readFirst)
	records := produceTo(t, cl, 0, 30, 0, 1, 2)
	heldAt := int64(0)
	if readFirst {
		until("gated the first records", func() bool { return messages.Load() == 30 })
		for _, r := range records {
			if r.Partition == 0 {
				heldAt = max(heldAt, r.Offset+1)
			}
		}
	}

	cor.on.Store(true)
	records = append(records, produceTo(t, cl, 30, 10, 0)...)
	var held []*kgo.Record
	for _, r := range records {
		if r.Partition == 0 && r.Offset >= heldAt {
			held = append(held, r)
		}
	}
	for round := range 5 {
		records = append(records, produceTo(t, cl, 40+round*20, 20, 1, 2)...)
		want := int64(len(records) - len(held))
		until(fmt.Sprintf("gated round %d of the partitions that can be read", round), func() bool { return messages.Load() == want })
	}
	until("met the corrupt batch in 20 fetches", func() bool { return cor.hits.Load() >= 20 })
	require.NoError(t, cor.failed())

	// Every record of the partitions read is stored once, and none held.
	stored := keys(readAll(t, addrs, len(records)-len(held), outTopic, deadTopic))
	for _, r := range records {
		want := 1
		if r.Partition == 0 && r.Offset >= heldAt {
			want = 0
		}
		assert.Equal(t, want, stored[key(r)], "input %s at partition %d, offset %d", key(r), r.Partition, r.Offset)
	}
	said, carrying := logged(logs, cannotRead, crcMismatch)
	require.Len(t, said, 1, "lines saying the partition cannot be read, after %d fetches met its corrupt batch", cor.hits.Load())
	assert.GreaterOrEqual(t, said[0].Level, slog.LevelWarn)
	as := attrs(said[0])
	assert.Equal(t, inTopic, as["topic"].String())
	assert.Equal(t, int64(0), as["partition"].Int64())
	assert.Equal(t, heldAt, as["offset"].Int64(), "where the partition is held")
	assert.Contains(t, as["error"].String(), crcMismatch, "kgo's error")
	assert.Equal(t, 1, carrying, "lines carrying kgo's error")

	// The disk mended (or the batch restored): the partition flows again.
	cor.on.Store(false)
	until("gated the held records", func() bool { return messages.Load() == int64(len(records)) })
	cancel()
	r := <-done
	require.NoError(t, r.err)
	stored = keys(readAll(t, addrs, len(records), outTopic, deadTopic))
	for _, r := range records {
		assert.Equal(t, 1, stored[key(r)], "input %s at partition %d, offset %d", key(r), r.Partition, r.Offset)
	}
	assert.Len(t, stored, len(records), "records of no input")
	said, carrying = logged(logs, cannotRead, crcMismatch)
	assert.Len(t, said, 1, "lines saying the partition cannot be read")
	assert.Equal(t, 1, carrying, "lines carrying kgo's error")
	again, _ := logged(logs, readAgain, "")
	require.Len(t, again, 1, "lines saying the partition is read again")
	as = attrs(again[0])
	assert.Equal(t, inTopic, as["topic"].String())
	assert.Equal(t, int64(0), as["partition"].Int64())
	assert.Equal(t, heldAt, as["offset"].Int64(), "where the partition is read again")
}

// attrs returns the attributes of r, by key.
func attrs(r slog.Record) map[string]slog.Value {
	as := map[string]slog.Value{}
	r.Attrs(func(a slog.Attr) bool {
		as[a.Key] = a.Value.Resolve()
		return true
	})
	return as
}

// TestGateStopsAtOnceOnAPartitionItMayNotRead has the broker refuse the
// gate's fetches of one partition of its input for good
// (TOPIC_AUTHORIZATION_FAILED, as for a right taken from its principal),
// while the others carry records. A gate stops on a right refused, saying
// so; it did only at a fetch with no record, having gated the other
// partitions until they ran dry, which a busy input never does: the
// partition was held in silence meanwhile. It must stop at the first
// fetch that says so, with the brokers' error, having gated nothing: the
// records of that fetch come again to the next gate.
func TestGateStopsAtOnceOnAPartitionItMayNotRead(t *testing.T) {
	c, addrs := newCluster(t, 3)
	produceRecords(t, addrs, 0, 30, 3)
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Fetch}, Topic: inTopic, Partitions: []int32{0}, Err: kerr.TopicAuthorizationFailed, Count: -1})

	g := &kafka.Gate{Session: gateSession(t, addrs, boundedFetches(t)...), Output: outTopic, DeadLetters: deadTopic,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := g.Run(ctx)
	require.ErrorIs(t, err, kerr.TopicAuthorizationFailed)
	require.NoError(t, ctx.Err(), "the gate stopped only when told to")
	assert.Positive(t, fault.Hits(), "the fault was injected")
	assert.Zero(t, st.Messages, "messages gated after the brokers refused a partition: %+v", st)
	fault.Remove()
	assert.Empty(t, readAll(t, addrs, 0, outTopic, deadTopic))
}
