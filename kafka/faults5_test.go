package kafka_test

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/gate/gatetest"
	"github.com/fleetkit/catalogue/kafka"
)

// A logRecorder is a slog.Handler that keeps every record logged to it,
// and writes it to the test's log too.
type logRecorder struct {
	t       *testing.T
	mu      sync.Mutex
	records []slog.Record
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }
func (l *logRecorder) Handle(ctx context.Context, r slog.Record) error {
	l.mu.Lock()
	l.records = append(l.records, r.Clone())
	l.mu.Unlock()
	return slog.NewTextHandler(testWriter{l.t}, nil).Handle(ctx, r)
}

// attrs returns the attributes of each record logged with message m.
func (l *logRecorder) attrs(m string) []map[string]slog.Value {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]slog.Value
	for _, r := range l.records {
		if r.Message != m {
			continue
		}
		as := map[string]slog.Value{}
		r.Attrs(func(a slog.Attr) bool {
			as[a.Key] = a.Value.Resolve()
			return true
		})
		out = append(out, as)
	}
	return out
}

// deletedUnread is what a gate logs of records of its input deleted
// before it read them.
const deletedUnread = "records of the input were deleted before the gate read them: they are not gated"

// TestGateSaysWhichRecordsWereDeletedUnderIt deletes records of the
// input under a running gate, beyond the offsets its group has committed
// (DeleteRecords, as retention does to a gate that lags past
// retention.ms): the gate's next fetch there is out of range, and kgo
// moves it on to the first record left. The records deleted were never
// gated, in the output or the dead letters: found so, the gate said
// nothing of it (kgo logs it only to a logger the gate's session does
// not have), and an operator had no sign that inputs were lost. It must
// log, once, each range of offsets it never read; every input it read
// is stored exactly once where it belongs, each input deleted unread is
// within a range it logged, and its totals count what it stored.
func TestGateSaysWhichRecordsWereDeletedUnderIt(t *testing.T) {
	const partitions, n = 3, 3000
	_, addrs := newCluster(t, partitions)
	// In record batches of a few records each: a broker answers a fetch
	// with whole batches, and a gate that fetches little at a time
	// (kgo.FetchMaxBytes) then has most of them yet to read.
	records, valid := produceRecords(t, addrs, 0, n, partitions, kgo.ProducerBatchMaxBytes(4096))
	// Where each partition's records end up deleted below: partition 2
	// keeps all of its.
	below := map[int32]int64{0: n / partitions * 2 / 3, 1: n / partitions / 2}

	first := make(chan gate.Stats)
	deleted := make(chan struct{})
	logs := &logRecorder{t: t}
	// Fetching little at a time, it has most of the input yet to read
	// when the records go.
	opts := []kgo.Opt{kgo.FetchMaxBytes(4096), kgo.FetchMaxPartitionBytes(4096)}
	g := &kafka.Gate{Session: gateSession(t, addrs, opts...), Batch: 50, Log: slog.New(logs),
		Progress: func(s gate.Stats) {
			select {
			case first <- s: // the first batch: held until the records are gone
				<-deleted
			default:
			}
		}}
	g.Output, g.DeadLetters, g.UntilIdle = outTopic, deadTopic, true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := runGate(ctx, g)
	<-first
	deleteRecords(t, addrs, below)
	close(deleted)
	r := <-done
	require.NoError(t, r.err, "%+v", r.st)
	require.NoError(t, ctx.Err(), "the gate never found its input idle")
	st := r.st

	type place struct {
		partition int32
		offset    int64
	}
	var ranges []map[string]slog.Value
	for _, as := range logs.attrs(deletedUnread) {
		assert.Equal(t, inTopic, as["topic"].String())
		ranges = append(ranges, as)
	}
	warned := func(p place) int {
		n := 0
		for _, as := range ranges {
			if int32(as["partition"].Int64()) == p.partition && p.offset >= as["from"].Int64() && p.offset <= as["to"].Int64() {
				n++
			}
		}
		return n
	}
	require.NotEmpty(t, ranges, "the gate said nothing of the records deleted under it")

	seen := keys(readAll(t, addrs, 0, outTopic, deadTopic))
	stored := 0
	for i, r := range records {
		at := place{r.Partition, r.Offset}
		got := seen[key(r)]
		stored += got
		if r.Offset >= below[r.Partition] {
			assert.Equal(t, 1, got, "input %d at %+v, left in the input (valid %v)", i, at, valid[i])
			assert.Zero(t, warned(at), "input %d at %+v, left in the input, said deleted", i, at)
			continue
		}
		// Deleted: gated before, or said deleted unread, once.
		assert.Equal(t, 1, got+warned(at), "input %d at %+v, deleted: stored %d times, said deleted %d times", i, at, got, warned(at))
	}
	assert.Len(t, seen, stored, "records of no input")
	assert.Equal(t, stored, st.Messages, "%+v", st)
	t.Logf("%d of %d inputs stored, ranges said deleted: %v", stored, n, ranges)
}

// TestGatesSharingATransactionalIDStopOneOfThem starts a second gate of
// a group with the transactional id of a first one, running (an
// operator's mistake: one -transactional-id given to two replicas). Each
// fences the other's producer as it starts a session, and each starts
// again once, as a broker may fence a gate alone; fenced again, one of
// them must stop by itself, with an error that says another gate uses
// its transactional id, naming it, while the other goes on and gates
// the rest of the input. The transactions they were fenced in are
// aborted: a read_committed reader finds every input exactly once, and
// the two gates' totals add up to the input.
func TestGatesSharingATransactionalIDStopOneOfThem(t *testing.T) {
	_, gs := newGateGroup(t, "twins")
	gs.produce()
	type ended struct {
		name string
		err  error
	}
	stopped := make(chan ended, 2)
	start := func(name string) (gatetest.Gate, *atomic.Int64) {
		var committed atomic.Int64
		g := &kafka.Gate{Output: outTopic, DeadLetters: deadTopic, Batch: 100,
			Log: slog.New(slog.NewTextHandler(testWriter{t}, nil)).With("gate", name),
			NewSession: func() (*kgo.GroupTransactSession, error) {
				return kgo.NewGroupTransactSession(kgo.SeedBrokers(gs.addrs...), kgo.ConsumerGroup(gs.group),
					kgo.ConsumeTopics(inTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
					kgo.TransactionalID("twin"), kgo.SessionTimeout(2*time.Second), kgo.HeartbeatInterval(100*time.Millisecond),
					kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
			},
			Progress: func(gate.Stats) { committed.Add(1) }}
		return gatetest.Go(t, func(ctx context.Context) (gate.Stats, error) {
			st, err := g.Run(ctx)
			gs.mu.Lock()
			gs.total.Add(st)
			gs.mu.Unlock()
			t.Logf("gate %s: %+v, %v", name, st, err)
			stopped <- ended{name, err}
			return st, err
		}, nil), &committed
	}
	a, committedA := start("a")
	gs.until("a's first transactions", func() bool { return committedA.Load() >= 3 })
	b, _ := start("b")
	var first ended
	gs.until("one of the gates stopping by itself", func() bool {
		select {
		case first = <-stopped:
			return true
		default:
			return false
		}
	})
	require.Error(t, first.err, "gate %s stopped without an error", first.name)
	assert.ErrorContains(t, first.err, "another producer uses its transactional id")
	assert.ErrorContains(t, first.err, `"twin"`, "the transactional id named")
	survivor := map[string]gatetest.Gate{"a": b, "b": a}[first.name]
	// The survivor gates the rest, and more.
	gs.produce()
	gs.settled()
	select {
	case second := <-stopped:
		t.Fatalf("both gates stopped: %s on %v, then %s on %v", first.name, first.err, second.name, second.err)
	default:
	}
	_, err := survivor.Stop()
	require.NoError(t, err)
	<-stopped
	gs.finish()
}

// TestGatesGateThePartitionsAddedUnderThem adds partitions to the input
// (CreatePartitions, as an operator does to scale out) while three gates
// of one group run, one of them with its copies held on their way to
// the broker, and produces to every partition, the new ones too. kgo
// finds new partitions only as its group's leader reloads its metadata
// (kgo.MetadataMaxAge, 5 minutes unless set; kafka/cmd/gate's 5
// seconds, a second here) and rejoins; the group rebalances once the
// transactions under way have ended, and a gate given a new partition
// fetches it once the fetch it has waiting on its broker returns
// (kgo.FetchMaxWait, 5 seconds unless set): about 5 seconds here. The
// records of the new partitions must be gated, not left behind. A read_committed reader
// finds every input exactly once, and the gates' totals add up to it.
func TestGatesGateThePartitionsAddedUnderThem(t *testing.T) {
	c, gs := newGateGroup(t, "grown")
	gs.opts = []kgo.Opt{kgo.MetadataMinAge(time.Second), kgo.MetadataMaxAge(time.Second)}
	gs.produce()
	a, _ := gs.start("a")
	b, _ := gs.start("b")
	cg, _ := gs.start("c")
	gs.until("the gates' first transactions", func() bool { return gs.committed.Load() >= 5 })

	// a's copies held while the partitions are added.
	var added atomic.Bool
	held := &hold{txnID: "a", until: added.Load}
	holdNext(c, kmsg.Produce, held)
	held.armed.Store(true)
	gs.until("a's copies held", held.hit.Load)
	resp, err := kadm.NewClient(readerClient(t, gs.addrs)).CreatePartitions(context.Background(), 3, inTopic)
	require.NoError(t, err)
	require.NoError(t, resp.Error())
	added.Store(true)
	since := time.Now()
	n := 2_000
	if raceEnabled {
		n = 500
	}
	_, valid := produceRecords(t, gs.addrs, len(gs.valid), n, 9)
	gs.valid = append(gs.valid, valid...)
	gs.settled()
	t.Logf("the added partitions gated %v after they were made", time.Since(since).Round(time.Millisecond))
	gs.finish(a, b, cg)
}

// remadeWarning is what a gate logs of its output or dead-letter topic
// deleted and made again while it ran.
const remadeWarning = "a topic the gate produces to was deleted and made again while it ran: the records it stored there before, counted in its totals, are gone with it"

// TestGateSaysItsOutputWasDeletedUnderItsTransaction deletes the output
// topic, and makes it again, while a gate's transaction holds copies
// produced to it and is held ending. The brokers commit the transaction
// all the same (Kafka skips the markers of a deleted partition; kfake
// does likewise): its copies, counted as forwarded, went with the topic,
// as did those committed before. Found so: the gate went on into the
// new topic with its totals counting copies no reader can find, and
// said only that a transaction was aborted for UNKNOWN_TOPIC_ID. It
// must say that the topic was made again and what it stored there is
// gone; every copy missing from the new topic is one it counted before
// it found the topic made again, every other input is stored exactly
// once where it belongs, and it counts every input once.
func TestGateSaysItsOutputWasDeletedUnderItsTransaction(t *testing.T) {
	c, addrs := newCluster(t, 3)
	valid := produceInput(t, addrs, 500)
	held := &hold{txnID: "held"}
	holdNext(c, kmsg.EndTxn, held)
	var remade atomic.Bool
	held.until = remade.Load
	var mu sync.Mutex
	var found gate.Stats // the totals once the held transaction ended
	var progressed atomic.Int64
	logs := &logRecorder{t: t}
	g := &kafka.Gate{Batch: 50, Log: slog.New(logs),
		NewSession: func() (*kgo.GroupTransactSession, error) {
			return gateSession(t, addrs, kgo.TransactionalID("held")), nil
		},
		Progress: func(s gate.Stats) {
			mu.Lock()
			if held.hit.Load() && found == (gate.Stats{}) {
				found = s
			}
			mu.Unlock()
			if progressed.Add(1) == 3 {
				held.armed.Store(true)
			}
		}}
	done := make(chan gate.Stats, 1)
	go func() { done <- runUntilIdle(t, addrs, g) }()
	for deadline := time.Now().Add(20 * time.Second); !held.hit.Load(); time.Sleep(10 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the gate's end of a transaction never held")
	}
	remake(t, addrs, outTopic)
	remade.Store(true)
	st := <-done

	mu.Lock()
	defer mu.Unlock()
	t.Logf("when the held transaction ended: %+v; at the end: %+v", found, st)
	said := logs.attrs(remadeWarning)
	require.Len(t, said, 1, "the gate said nothing of its output made again")
	assert.Equal(t, outTopic, said[0]["topic"].String())
	seen := keys(readAll(t, addrs, 0, outTopic, deadTopic))
	missing := 0
	for i, ok := range valid {
		switch n := seen[strconv.Itoa(i)]; {
		case n == 0 && ok:
			missing++
		case n != 1:
			t.Errorf("input %d (valid %v) stored %d times", i, ok, n)
		}
	}
	assert.Equal(t, found.Forwarded, missing, "copies gone with the topic: those counted before the gate found it made again")
	assert.Equal(t, len(valid), st.Messages, "%+v", st)
}

// TestGateSaysNothingDeletedOfAbortedTransactions gates an input
// written in transactions, committed and aborted in turn, whose offsets
// have gaps that are no records deleted: the records of the aborted
// transactions, which a read_committed reader is not given. The gate
// must gate every committed input once, and not say that any was
// deleted before it read it: the partitions' start has not moved.
// (Compaction leaves such gaps too, and does not move the start on
// Kafka; kfake's moves it to the first record compaction keeps, where
// the gate would say the records compacted away were deleted unread.)
func TestGateSaysNothingDeletedOfAbortedTransactions(t *testing.T) {
	_, addrs := newCluster(t, 3)
	valid := produceInputInTransactions(t, addrs, 0, 1000)
	logs := &logRecorder{t: t}
	st := runUntilIdle(t, addrs, &kafka.Gate{Batch: 64, Log: slog.New(logs)})
	assert.Empty(t, logs.attrs(deletedUnread), "inputs said deleted")
	checkExactlyOnce(t, addrs, valid)
	assert.Equal(t, len(valid), st.Messages, "%+v", st)
}
