package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
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
