package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/fleetkit/catalogue/internal/cmdtest"
)

// TestGatesGivenOneTransactionalIDStopOneOfThem starts two gates of one
// group with the same -transactional-id (an operator's mistake: a
// Deployment's replicas given one fixed id, where a StatefulSet would
// give each pod its own name), the second while the first runs. Each
// fences the other's producer; fenced twice within a minute, one of
// them must exit 2, saying that another producer uses its transactional
// id and naming it, with its summary, while the other gates the rest:
// stopped with SIGTERM, it exits 0, and the two summaries add up to
// what a read_committed reader finds, every input once.
func TestGatesGivenOneTransactionalIDStopOneOfThem(t *testing.T) {
	c := newCluster(t)
	c.up(t, "in", "out", "dead")
	in := c.publishCopies(t, 10)
	args := []string{"-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-batch", "4",
		"-session-timeout", "1s", "-transactional-id", "pod-0"}
	a := cmdtest.Start(t, t.TempDir(), args...)
	c.waitCommitted(t, a)
	b := cmdtest.Start(t, t.TempDir(), args...)

	// More input while neither has stopped: only a gate that produces
	// is fenced.
	var stopped, survivor *cmdtest.Command
	for deadline := time.Now().Add(30 * time.Second); stopped == nil; time.Sleep(100 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "neither gate stopped; they logged:\n%s\n%s", a.Log(), b.Log())
		for _, g := range [][2]*cmdtest.Command{{a, b}, {b, a}} {
			if summaryLine.MatchString(g[0].Log()) {
				stopped, survivor = g[0], g[1]
			}
		}
		c.publishFresh(t, &in)
	}
	assert.Equal(t, 2, stopped.Exit(t), stopped.Log())
	assert.Contains(t, stopped.Log(), `another producer uses its transactional id \"pod-0\"`)

	c.publishFresh(t, &in)
	c.waitGated(t, survivor)
	survivor.Signal(t, syscall.SIGTERM)
	assert.Equal(t, 0, survivor.Exit(t), survivor.Log())
	assert.False(t, strings.Contains(survivor.Log(), "another producer uses"), survivor.Log())
	first, rest := summaryOf(t, stopped.Log()), summaryOf(t, survivor.Log())
	c.checkCounts(t, in, counts{messages: first.messages + rest.messages, forwarded: first.forwarded + rest.forwarded,
		dead: first.dead + rest.dead}, stopped.Log()+survivor.Log())
}

// publishFresh publishes the sample once more, each valid message under
// an id of its own (not the sample's, which would be a redelivery), and
// adds it to in.
func (c *cluster) publishFresh(t *testing.T, in *input) {
	more, records := sampleRecords(t, 2)
	records = records[len(records)/2:] // the second copy: new ids
	in.valid = append(in.valid, more.valid[len(more.valid)/2:]...)
	in.invalid = append(in.invalid, more.invalid[len(more.invalid)/2:]...)
	require.NoError(t, c.client(t).ProduceSync(context.Background(), records...).FirstErr())
}

// TestGateSaysWhichInputsWereDeletedBeforeItReadThem gates the sample,
// and then, while no gate runs, the sample is published again and
// records of it deleted past where the group committed (a gate down
// longer than the input's retention.ms, or kafka-delete-records): every
// new record of one partition, all but the last of another. Found so:
// the gate started again moved on to the first record left in silence
// (kgo says so only to a logger the command does not give it), and its
// operator had no sign that inputs were never gated. With -until-idle
// it must log, for each of those partitions, the range of offsets
// deleted unread, exit 0, and its summary count what a reader finds.
func TestGateSaysWhichInputsWereDeletedBeforeItReadThem(t *testing.T) {
	c := newCluster(t)
	c.up(t, "in", "out", "dead")
	in := c.publishCopies(t, 1)
	args := []string{"-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-until-idle"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var first bytes.Buffer
	require.Equal(t, 0, run(ctx, args, &first), first.String())

	more, records := sampleRecords(t, 2)
	records = records[len(records)/2:] // the second copy: new ids
	validValues := map[string]bool{}
	for _, v := range more.valid {
		validValues[string(v)] = true
	}
	require.NoError(t, c.client(t).ProduceSync(ctx, records...).FirstErr())
	ends := map[int32]int64{}
	for _, r := range records {
		ends[r.Partition] = max(ends[r.Partition], r.Offset+1)
	}
	require.Len(t, ends, 3, "the sample in every partition")
	below := map[int32]int64{0: ends[0], 1: ends[1] - 1} // partition 2 keeps all
	var offsets kadm.Offsets
	for p, at := range below {
		offsets.Add(kadm.Offset{Topic: "in", Partition: p, At: at})
	}
	deleted, err := kadm.NewClient(c.client(t)).DeleteRecords(ctx, offsets)
	require.NoError(t, err)
	require.NoError(t, deleted.Error())
	from := map[int32]int64{}
	for _, r := range records {
		if at, ok := below[r.Partition]; ok && r.Offset < at {
			if _, ok := from[r.Partition]; !ok {
				from[r.Partition] = r.Offset
			}
			continue
		}
		if validValues[string(r.Value)] {
			in.valid = append(in.valid, r.Value)
		} else {
			in.invalid = append(in.invalid, r.Value)
		}
	}

	var second bytes.Buffer
	require.Equal(t, 0, run(ctx, args, &second), second.String())
	require.NoError(t, ctx.Err(), "the gate never found its input idle:\n%s", second.String())
	for p, at := range below {
		assert.Contains(t, second.String(), fmt.Sprintf(`msg="records of the input were deleted before the gate read them: they are not gated" topic=in partition=%d from=%d to=%d`, p, from[p], at-1))
	}
	s1, s2 := summaryOf(t, first.String()), summaryOf(t, second.String())
	c.checkCounts(t, in, counts{messages: s1.messages + s2.messages, forwarded: s1.forwarded + s2.forwarded, dead: s1.dead + s2.dead},
		first.String()+second.String())
}
