package main

import (
	"bytes"
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue/internal/cmdtest"
)

// TestGateUntilIdleEndsWhenRecordsOfItsInputWereDeleted deletes every
// record of one partition of the input, and some of another, before the
// gate runs (kafka-delete-records, or retention; found by a probe: with
// -until-idle the gate never exited, as its group could never commit an
// offset in a partition left with no record, and it waited for that for
// ever). It must gate what is left, each once, and exit 0, counting it.
func TestGateUntilIdleEndsWhenRecordsOfItsInputWereDeleted(t *testing.T) {
	c := newCluster(t)
	c.up(t, "in", "out", "dead")
	c.publishCopies(t, 3)
	adm := kadm.NewClient(c.client(t))
	ctx := context.Background()
	ends, err := adm.ListEndOffsets(ctx, "in")
	require.NoError(t, err)
	// The fullest partition loses every record, the next one half.
	var full, next kadm.ListedOffset
	ends.Each(func(o kadm.ListedOffset) {
		switch {
		case o.Offset > full.Offset:
			full, next = o, full
		case o.Offset > next.Offset:
			next = o
		}
	})
	require.Positive(t, next.Offset, "two partitions with records")
	var below kadm.Offsets
	below.Add(kadm.Offset{Topic: "in", Partition: full.Partition, At: full.Offset})
	below.Add(kadm.Offset{Topic: "in", Partition: next.Partition, At: next.Offset / 2})
	deleted, err := adm.DeleteRecords(ctx, below)
	require.NoError(t, err)
	require.NoError(t, deleted.Error())
	left := 0
	ends.Each(func(o kadm.ListedOffset) { left += int(o.Offset) })
	left -= int(full.Offset + next.Offset/2)

	run30, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	status := run(run30, []string{"-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-until-idle"}, &stderr)
	require.NoError(t, run30.Err(), "the gate never found its input idle:\n%s", stderr.String())
	require.Equal(t, 0, status, stderr.String())
	out, _ := c.read(t, "out")
	dead, _ := c.read(t, "dead")
	assert.Len(t, append(out, dead...), left, "every record left, once")
	s := summaryOf(t, stderr.String())
	assert.Equal(t, counts{messages: left, forwarded: len(out), dead: len(dead)}, s)
}

// TestGateStoresNothingTwiceWhenItsBrokerForgetsALeaderEpoch moves the
// leadership of every partition of the input twice, with nothing
// written in between, under a running gate: the broker then has no
// record of the leader epoch the gate consumed at (kfake answers so;
// Kafka does after an unclean election), and kgo, taking it for lost
// records it cannot place, moved each partition back to its start
// (found by a probe: the gate stored its whole input again, and counted
// it again). The gate must resume where its group committed: a reader
// finds every input once.
func TestGateStoresNothingTwiceWhenItsBrokerForgetsALeaderEpoch(t *testing.T) {
	c := newCluster(t)
	c.up(t, "in", "out", "dead")
	in := c.publishCopies(t, 3)
	cmd := cmdtest.Start(t, t.TempDir(), "-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-batch", "10")
	c.waitGated(t, cmd)

	c.mu.Lock()
	validated := c.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetForLeaderEpoch}, Observe: true, Count: -1})
	for p := range int32(3) {
		for range 2 {
			require.NoError(t, c.c.MoveTopicPartition("in", p, 0))
		}
	}
	c.mu.Unlock()
	// Once the gate has asked where its epoch ends (on its next
	// metadata, within seconds), more input, to each partition: once it
	// is gated, whatever the gate read again before it is too.
	for deadline := time.Now().Add(20 * time.Second); validated.Hits() == 0; time.Sleep(20 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the gate never asked where its leader epoch ended:\n%s", cmd.Log())
	}
	c.publishInvalid(t, &in, "after", 0, 1, 2)
	c.stopGated(t, cmd, in)
}

// publishInvalid publishes to each of the input's partitions given an
// invalid message, {"member":partition}, and adds it to in.
func (c *cluster) publishInvalid(t *testing.T, in *input, member string, partitions ...int32) {
	var records []*kgo.Record
	for _, p := range partitions {
		r := &kgo.Record{Topic: "in", Partition: p, Value: []byte(`{"` + member + `":` + strconv.Itoa(int(p)) + `}`)}
		records = append(records, r)
		in.invalid = append(in.invalid, r.Value)
	}
	require.NoError(t, c.client(t, kgo.RecordPartitioner(kgo.ManualPartitioner())).ProduceSync(context.Background(), records...).FirstErr())
}

// stopGated waits for the gate cmd to have gated its whole input,
// stops it with SIGTERM, and checks that it exits 0 with a summary that
// counts what a read_committed reader finds, in.
func (c *cluster) stopGated(t *testing.T, cmd *cmdtest.Command, in input) {
	t.Helper()
	c.waitGated(t, cmd)
	cmd.Signal(t, syscall.SIGTERM)
	assert.Equal(t, 0, cmd.Exit(t), cmd.Log())
	c.checkAgainstReader(t, in, cmd.Log())
}
