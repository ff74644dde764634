package kafka_test

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/kafka"
)

// produceRecords produces the inputs of indices from to from+n-1, as
// produceInput makes them, each to partition i%partitions, and returns
// them, with the offsets the broker gave them, and which are valid.
func produceRecords(t *testing.T, addrs []string, from, n int, partitions int32) ([]*kgo.Record, []bool) {
	_, lines := samples(t)
	records := make([]*kgo.Record, n)
	valid := make([]bool, n)
	for i := range n {
		records[i], valid[i] = input(t, lines, from+i)
		records[i].Partition = int32(i) % partitions
	}
	cl := readerClient(t, addrs, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, cl.ProduceSync(context.Background(), records...).FirstErr())
	return records, valid
}

// deleteRecords deletes the records of the input's partitions below
// the offsets given, as an operator's DeleteRecords (or retention)
// does.
func deleteRecords(t *testing.T, addrs []string, below map[int32]int64) {
	os := kadm.Offsets{}
	for p, at := range below {
		os.Add(kadm.Offset{Topic: inTopic, Partition: p, At: at})
	}
	resp, err := kadm.NewClient(readerClient(t, addrs)).DeleteRecords(context.Background(), os)
	require.NoError(t, err)
	require.NoError(t, resp.Error())
}

// TestGateSkipsOnlyTheRecordsDeletedBeforeItReadThem deletes records of
// the input before the gate reads them (DeleteRecords, as an operator or
// retention does): every record of one partition before the gate ever
// ran, and, once the gate has committed a first pass and stopped, those
// of another beyond its group's offset, so that the offset it commmitted
// is out of range. The records deleted are gone; the gate must gate
// every one that is left, exactly once, and skip none it could still
// read, and with UntilIdle it must return once it has: a partition
// whose records were all deleted has nothing left for it.
func TestGateSkipsOnlyTheRecordsDeletedBeforeItReadThem(t *testing.T) {
	const partitions = 3
	_, addrs := newCluster(t, partitions)
	first, valid := produceRecords(t, addrs, 0, 30, partitions)
	// Partition 0 loses every record before a gate runs.
	deleteRecords(t, addrs, map[int32]int64{0: 10})
	runAndCheck := func(want []bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		sess := gateSession(t, addrs)
		st, err := (&kafka.Gate{Session: sess, Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}).Run(ctx)
		sess.Close() // it leaves the group, for the next
		require.NoError(t, err)
		require.NoError(t, ctx.Err(), "the gate never found its input idle")
		stored := 0
		for _, ok := range want {
			if ok {
				stored++
			}
		}
		assert.Equal(t, stored, st.Messages, "%+v", st)
	}
	want := make([]bool, 30) // which inputs the gate must store
	for i, r := range first {
		want[i] = r.Partition != 0
	}
	runAndCheck(want)

	// Partition 1 loses the first 5 of its next 10 records while no
	// gate runs: the group's offset there is below its new start.
	second, secondValid := produceRecords(t, addrs, 30, 30, partitions)
	valid = append(valid, secondValid...)
	deleteRecords(t, addrs, map[int32]int64{1: second[1].Offset + 5})
	for _, r := range second {
		want = append(want, r.Partition != 1 || r.Offset >= second[1].Offset+5)
	}
	runAndCheck(want[30:])

	// Each input left exactly once, where it belongs; none deleted.
	seen := keys(readAll(t, addrs, 0, outTopic, deadTopic))
	for i := range want {
		n := 0
		if want[i] {
			n = 1
		}
		assert.Equal(t, n, seen[strconv.Itoa(i)], "input %d (valid %v)", i, valid[i])
	}
}

// TestGateOutlivesTransactionsTheBrokerTimedOut makes the broker hold the
// end of the gate's transaction past the gate's transaction timeout, so
// that the broker aborts the transaction itself and bumps the producer's
// epoch, twice, some seconds apart: the gate must start again on a new
// session each time (a broker that times out its transactions is not
// another gate sharing its transactional id), its records come again,
// and a read_committed reader find every input exactly once.
func TestGateOutlivesTransactionsTheBrokerTimedOut(t *testing.T) {
	n := 1000
	c, addrs := newCluster(t, 3)
	valid := produceInput(t, addrs, n)
	const timeout = time.Second
	var committed, held atomic.Int64
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		// Held: the end of the gate's transaction after its 3rd and
		// after its 8th committed.
		if at := committed.Load(); !(at >= 3 && held.Load() == 0 || at >= 8 && held.Load() == 1) {
			return nil, nil, false
		}
		held.Add(1)
		since := time.Now()
		c.SleepControl(func() {
			for time.Since(since) < 2*timeout {
				time.Sleep(50 * time.Millisecond)
			}
		})
		return nil, nil, false
	})
	var sessions atomic.Int64
	g := &kafka.Gate{
		NewSession: func() (*kgo.GroupTransactSession, error) {
			sessions.Add(1)
			return kgo.NewGroupTransactSession(kgo.SeedBrokers(addrs...), kgo.ConsumerGroup("g"), kgo.ConsumeTopics(inTopic),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.TransactionalID("gate"), kgo.TransactionTimeout(timeout),
				kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
		},
		Batch: 50, Log: slog.New(slog.NewTextHandler(testWriter{t}, nil)),
		Progress: func(gate.Stats) { committed.Add(1) },
	}
	st := runUntilIdle(t, addrs, g)
	assert.Equal(t, int64(2), held.Load(), "produces held past the transaction timeout")
	checkExactlyOnce(t, addrs, valid)
	assert.Equal(t, n, st.Messages, "%+v", st)
	t.Logf("%d sessions, %+v", sessions.Load(), st)
}
