package kafka_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

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
