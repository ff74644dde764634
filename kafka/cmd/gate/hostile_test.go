package main

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
)

// The command, given hostile records, ends each as decision 16 says and
// writes only its own lines: headers whose names and values hold line
// ends and text shaped like its log lines, a header of 128 KiB, and
// a compression bomb, a batch of a few kilobytes that decompresses past
// 32 times -max-record-bytes (the bound the command sets), which kgo
// leaves unread. The bomb is one dead letter of rule too_large, the
// record with the huge header one whose verdict says what is wrong, the
// valid record is forwarded, and every line of its output is one of
// its log's or its summary.
func TestGateEndsHostileRecordsAndWritesOnlyItsOwnLines(t *testing.T) {
	c := newCluster(t)
	c.up(t, "in", "out", "dead")
	data, err := os.ReadFile(sampleFile)
	require.NoError(t, err)
	line, _, _ := bytes.Cut(data, []byte("\n"))
	m, err := catalogue.Decode(line)
	require.NoError(t, err)
	valid, err := kafka.Record("in", m, false)
	require.NoError(t, err)
	const forged = "\ntime=2026-11-24T00:00:00.000Z level=ERROR msg=\"forged\"\ngate: 0 messages"
	valid.Headers = append(valid.Headers, kgo.RecordHeader{Key: "x" + forged, Value: []byte(forged)})
	shadow := &kgo.Record{Topic: "in", Value: bytes.Clone(valid.Value), Headers: []kgo.RecordHeader{
		{Key: "ce_type", Value: bytes.Repeat([]byte(forged), (1<<17)/len(forged))},
	}}
	// All in one partition, the bomb last: kgo moves past a batch only
	// in a partition it has an offset for (see kafka.Gate).
	ctx := context.Background()
	require.NoError(t, c.client(t, kgo.RecordPartitioner(kgo.ManualPartitioner())).ProduceSync(ctx, valid, shadow).FirstErr())
	const maxBytes = 8192
	bomber := c.client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerBatchMaxBytes(16<<20))
	var bomb []*kgo.Record
	for range 8 {
		bomb = append(bomb, &kgo.Record{Topic: "in", Partition: 0, Value: make([]byte, 32*maxBytes)})
	}
	require.NoError(t, bomber.ProduceSync(ctx, bomb...).FirstErr())

	var stderr bytes.Buffer
	bounded, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	status := run(bounded, []string{"-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-max-record-bytes", strconv.Itoa(maxBytes), "-until-idle"}, &stderr)
	require.Equal(t, 0, status, stderr.String())
	assert.Equal(t, counts{messages: 3, forwarded: 1, dead: 2}, summaryOf(t, stderr.String()), stderr.String())
	for l := range strings.Lines(stderr.String()) {
		assert.True(t, strings.HasPrefix(l, "time=") || strings.HasPrefix(l, "gate: "), "a line not the command's: %q", l)
		assert.NotContains(t, l, "forged")
	}

	out, _ := c.read(t, "out")
	assert.Equal(t, [][]byte{valid.Value}, out)
	_, verdicts := c.read(t, "dead")
	require.Len(t, verdicts, 2)
	rules := map[msg.Rule]bool{}
	for _, v := range verdicts {
		require.NotEmpty(t, v.Violations, "the dead letter says what is wrong: %+v", v)
		rules[v.Violations[0].Rule] = true
	}
	assert.Equal(t, map[msg.Rule]bool{msg.RuleTooLarge: true, msg.RuleSchema: true}, rules)
}
