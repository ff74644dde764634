package main

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
