package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/internal/cmdtest"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/kafka/internal/kafkatest"
)

// TestMain runs the command itself when the tests start the test binary
// as it (cmdtest.Start), so that they send it real signals.
func TestMain(m *testing.M) {
	cmdtest.Main(main)
	os.Exit(m.Run())
}

const sampleFile = "../../../testdata/messages.ndjson"

// cluster is an in-process Kafka cluster (kfake) on a fixed port, whose
// data survive a restart: topics in (three partitions), out and dead,
// unless told otherwise.
type cluster struct {
	port int
	dir  string

	mu sync.Mutex
	c  *kfake.Cluster
}

func newCluster(t *testing.T) *cluster {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return &cluster{port: port, dir: t.TempDir()}
}

func (c *cluster) addr() string { return "127.0.0.1:" + strconv.Itoa(c.port) }

// up starts the cluster, with topics the first time (seeded, so that
// they exist as soon as it answers).
func (c *cluster) up(t *testing.T, topics ...string) {
	k, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(c.port), kfake.DataDir(c.dir), kfake.SeedTopics(3, topics...),
		kfake.GroupMinSessionTimeout(500*time.Millisecond))
	require.NoError(t, err)
	c.mu.Lock()
	c.c = k
	c.mu.Unlock()
	t.Cleanup(c.down)
}

func (c *cluster) down() {
	c.mu.Lock()
	k := c.c
	c.c = nil
	c.mu.Unlock()
	if k != nil {
		k.Close()
	}
}

func (c *cluster) client(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.addr())}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// input is what the tests publish: the repository's sample stream, each
// valid message as kafka.Record makes it (ce_ headers, a key, every other
// one framed) and each invalid one as its line, as a producer that knows
// nothing of the catalogue would.
type input struct {
	valid, invalid [][]byte // values
	redelivered    int      // valid messages published again, the same
}

func (c *cluster) publish(t *testing.T) input { return c.publishCopies(t, 1) }

// publishCopies publishes the sample n times, each copy of a valid
// message under an id of its own, so that each is a message of its own.
func (c *cluster) publishCopies(t *testing.T, n int) input {
	in, records := sampleRecords(t, n)
	require.NoError(t, c.client(t).ProduceSync(context.Background(), records...).FirstErr())
	return in
}

// sampleRecords returns the records publishCopies publishes, and what
// they hold.
func sampleRecords(t *testing.T, n int) (input, []*kgo.Record) {
	data, err := os.ReadFile(sampleFile)
	require.NoError(t, err)
	var in input
	var records []*kgo.Record
	for copy := range n {
		for line := range bytes.Lines(data) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			r := &kgo.Record{Topic: "in", Value: line}
			if m, err := catalogue.Decode(line); err == nil {
				if copy > 0 {
					id := m.Identity().ID.String()
					require.Equal(t, 1, bytes.Count(line, []byte(id)), "the id of %s, once", line)
					m, err = catalogue.Decode(bytes.Replace(line, []byte(id), []byte(uuid.NewString()), 1))
					require.NoError(t, err)
				}
				r, err = kafka.Record("in", m, len(records)%2 == 0)
				require.NoError(t, err)
				in.valid = append(in.valid, r.Value)
			} else {
				in.invalid = append(in.invalid, line)
			}
			records = append(records, r)
		}
	}
	require.NotEmpty(t, in.valid)
	require.NotEmpty(t, in.invalid)
	return in, records
}

// read returns the values a read_committed consumer finds in topic, and
// the verdicts of its dead letters.
func (c *cluster) read(t *testing.T, topic string) (values [][]byte, verdicts []gate.Verdict) {
	for _, r := range readTopic(t, c.client, topic) {
		values = append(values, r.Value)
		for _, h := range r.Headers {
			if h.Key == kafka.VerdictHeader {
				v, err := gate.ParseVerdict(h.Value)
				require.NoError(t, err)
				verdicts = append(verdicts, v)
			}
		}
	}
	return values, verdicts
}

// readTopic returns the records a read_committed consumer, a client
// newClient makes, finds in topic: from its start to the last stable
// offset each partition has when it is called
// (kafkatest.Reader.ToStableEnd), not until a poll finds nothing, which
// a slow first fetch would end too soon. It fails the test rather than
// return part of a topic.
func readTopic(t *testing.T, newClient func(*testing.T, ...kgo.Opt) *kgo.Client, topic string) []*kgo.Record {
	t.Helper()
	r := kafkatest.NewReader(newClient(t, kafkatest.ReaderOpts(topic)...), topic)
	read, err := r.ToStableEnd(time.Now().Add(cmdtest.Wait))
	require.NoError(t, err)
	if !read {
		t.Fatalf("topic %s not read to its end in %v", topic, cmdtest.Wait)
	}
	return r.Records
}

// counts are the numbers of a gate's summary.
type counts struct {
	messages, forwarded, dead, redeliveries, retries int
}

var summaryLine = regexp.MustCompile(`(?m)^gate: (\d+) messages?, (\d+) forwarded to out, (\d+) dead letters? to dead; (\d+) redeliver(?:y|ies), (\d+) retr(?:y|ies); `)

// summaryOf returns the counts of the summary in a gate's log.
func summaryOf(t *testing.T, log string) counts {
	t.Helper()
	m := summaryLine.FindStringSubmatch(log)
	require.NotNil(t, m, "no summary in the log:\n%s", log)
	n := make([]int, 5)
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	return counts{n[0], n[1], n[2], n[3], n[4]}
}

// checkAgainstReader checks a gate's summary against what a
// read_committed reader of its output and dead letters finds: every
// valid input forwarded byte for byte, every invalid one dead-lettered
// with its verdict, each once.
func (c *cluster) checkAgainstReader(t *testing.T, in input, log string) {
	t.Helper()
	c.checkCounts(t, in, summaryOf(t, log), log)
}

// checkCounts is checkAgainstReader for the counts s of one gate or
// more.
func (c *cluster) checkCounts(t *testing.T, in input, s counts, log string) {
	t.Helper()
	out, _ := c.read(t, "out")
	dead, verdicts := c.read(t, "dead")
	assert.ElementsMatch(t, in.valid, out, "the output")
	assert.ElementsMatch(t, in.invalid, dead, "the dead letters")
	assert.Len(t, verdicts, len(dead), "a verdict on every dead letter")
	for _, v := range verdicts {
		assert.False(t, v.Valid)
		assert.Equal(t, "in", v.Place.Subject)
	}
	assert.Equal(t, counts{messages: len(out) + len(dead), forwarded: len(out), dead: len(dead), redeliveries: in.redelivered}, s, log)
}

// Flags out of range are usage errors, found at once, never values
// wrapped around or refused later by the client (found from outside:
// -max-record-bytes 4294971392 ran as 4,096).
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{}, // no -brokers
		{"-brokers", ","},
		{"-brokers", "127.0.0.1:1", "-in", ""},
		{"-brokers", "127.0.0.1:1", "-batch", "0"},
		{"-brokers", "127.0.0.1:1", "-max-record-bytes", "10"},
		{"-brokers", "127.0.0.1:1", "-max-record-bytes", "-1"},
		// Past 32 bits, wrapped around to 4,096 and -1,294,967,296.
		{"-brokers", "127.0.0.1:1", "-max-record-bytes", "4294971392"},
		{"-brokers", "127.0.0.1:1", "-max-record-bytes", "3000000000"},
		{"-brokers", "127.0.0.1:1", "-session-timeout", "0"},
		{"-brokers", "127.0.0.1:1", "-session-timeout", "1000h"},
		{"-brokers", "127.0.0.1:1", "-batch", "-5"},
		{"-brokers", "127.0.0.1:1", "-group", ""},
		{"-brokers", "127.0.0.1:1", "-group", " "},
		{"-brokers", "127.0.0.1:1", "extra"},
		{"-nope"},
	} {
		var stderr bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), args, &stderr), "%q", args)
		assert.Contains(t, stderr.String(), "usage: gate", "%q", args)
	}
}

// A gate that could not store its output or dead letters, or that would
// judge its own, does not start: it says why, with status 2, and has no
// summary to print.
func TestGateRefusesToStart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		topics []string
		args   []string
		why    string
	}{
		{"no output topic", []string{"in", "dead"}, nil, `its output topic "out" does not exist`},
		{"no dead-letter topic", []string{"in", "out"}, nil, `its dead-letter topic "dead" does not exist`},
		{"consumes its output", []string{"in", "out", "dead"}, []string{"-in", "in,out"}, `it consumes its output topic "out"`},
		{"consumes its dead letters", []string{"in", "out", "dead"}, []string{"-in", "dead"}, `it consumes its dead-letter topic "dead"`},
		{"one topic for both", []string{"in", "out"}, []string{"-dead", "out"}, "must be named, and differ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			c.up(t, tc.topics...)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var stderr bytes.Buffer
			args := append([]string{"-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead"}, tc.args...)
			assert.Equal(t, 2, run(ctx, args, &stderr))
			assert.NoError(t, ctx.Err(), "it refused at once")
			assert.Contains(t, stderr.String(), "gate: "+gate.ErrRefused.Error()+": ")
			assert.Contains(t, stderr.String(), tc.why)
			assert.NotContains(t, stderr.String(), "messages,")
		})
	}
}

// With -until-idle a gate stops, with status 0, once its group has
// consumed everything, and its summary counts what a read_committed
// reader finds.
func TestGateUntilIdleCountsWhatAReaderFinds(t *testing.T) {
	c := newCluster(t)
	c.up(t, "in", "out", "dead")
	in := c.publish(t)
	var stderr bytes.Buffer
	status := run(context.Background(), []string{"-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-batch", "5", "-until-idle"}, &stderr)
	require.Equal(t, 0, status, stderr.String())
	c.checkAgainstReader(t, in, stderr.String())
	assert.Equal(t, len(in.valid)+len(in.invalid), summaryOf(t, stderr.String()).messages)
	assert.NotContains(t, stderr.String(), "level=WARN", "nothing to warn of")
}

// waitGated waits until the gates' group has committed every partition
// of the input to its end: until every input is settled.
func (c *cluster) waitGated(t *testing.T, cmd *cmdtest.Command) {
	t.Helper()
	adm := kadm.NewClient(c.client(t))
	ctx := context.Background()
	for deadline := time.Now().Add(30 * time.Second); ; {
		ends, err := adm.ListEndOffsets(ctx, "in")
		require.NoError(t, err)
		committed, err := adm.FetchOffsets(ctx, "catalogue-gate")
		settled := err == nil
		ends.Each(func(end kadm.ListedOffset) {
			o, ok := committed.Lookup(end.Topic, end.Partition)
			settled = settled && end.Err == nil && (end.Offset == 0 || ok && o.At >= end.Offset)
		})
		if settled {
			return
		}
		require.True(t, time.Now().Before(deadline), "the input was never settled; the gate logged:\n%s", cmd.Log())
		time.Sleep(50 * time.Millisecond)
	}
}

// committed returns how many inputs the gates' group has committed: the
// sum of its offsets on the input's partitions.
func (c *cluster) committed(t *testing.T) int {
	t.Helper()
	offsets, err := kadm.NewClient(c.client(t)).FetchOffsets(context.Background(), "catalogue-gate")
	if errors.Is(err, kerr.GroupIDNotFound) {
		return 0 // not yet
	}
	require.NoError(t, err)
	n := 0
	offsets.Each(func(o kadm.OffsetResponse) {
		if o.Topic == "in" && o.At > 0 {
			n += int(o.At)
		}
	})
	return n
}

// waitCommitted waits until the gates' group has committed some input.
func (c *cluster) waitCommitted(t *testing.T, cmd *cmdtest.Command) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); c.committed(t) == 0; time.Sleep(5 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the gate never committed; it logged:\n%s", cmd.Log())
	}
}

// SIGTERM and SIGINT both stop a gate gracefully mid-stream: it ends the
// transaction under way, prints a summary that counts what a
// read_committed reader finds and what its group committed, and exits 0.
// A gate started after it gates the rest: nothing lost, nothing doubled.
func TestGateStopsGracefullyOnSignals(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			c := newCluster(t)
			c.up(t, "in", "out", "dead")
			in := c.publishCopies(t, 20)
			total := len(in.valid) + len(in.invalid)
			cmd := cmdtest.Start(t, t.TempDir(), "-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-batch", "4")
			c.waitCommitted(t, cmd)
			cmd.Signal(t, sig)
			assert.Equal(t, 0, cmd.Exit(t), cmd.Log())
			first := summaryOf(t, cmd.Log())
			out, _ := c.read(t, "out")
			dead, _ := c.read(t, "dead")
			assert.Equal(t, counts{messages: len(out) + len(dead), forwarded: len(out), dead: len(dead)}, first, cmd.Log())
			assert.Equal(t, first.messages, c.committed(t), "every input it counted is committed, and no other")
			t.Logf("stopped after %d of %d messages", first.messages, total)

			var stderr bytes.Buffer
			status := run(context.Background(), []string{"-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-until-idle"}, &stderr)
			require.Equal(t, 0, status, stderr.String())
			rest := summaryOf(t, stderr.String())
			c.checkCounts(t, in, counts{messages: first.messages + rest.messages, forwarded: first.forwarded + rest.forwarded,
				dead: first.dead + rest.dead}, cmd.Log()+stderr.String())
		})
	}
}

// A gate started before its brokers waits for them, and logs it; once
// running, it logs losing its broker and finding it again, once each,
// and goes on: the sample published again then is gated too, its valid
// messages as redeliveries of those forwarded.
func TestGateWaitsForItsBrokersAndLogsLosingThem(t *testing.T) {
	c := newCluster(t)
	cmd := cmdtest.Start(t, t.TempDir(), "-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead")
	cmd.WaitLog(t, "cannot start yet")
	c.up(t, "in", "out", "dead")
	cmd.WaitLog(t, "connected to a broker")
	cmd.WaitLog(t, "the broker is back")
	in := c.publish(t)
	c.waitGated(t, cmd)

	c.down()
	cmd.WaitLog(t, "lost the broker")
	c.up(t)
	cmd.WaitLog(t, "found the broker again")
	assert.Equal(t, 1, strings.Count(cmd.Log(), "lost the broker"), cmd.Log())
	assert.Equal(t, 1, strings.Count(cmd.Log(), "found the broker again"), cmd.Log())
	again := c.publish(t)
	in.invalid = append(in.invalid, again.invalid...)
	in.redelivered = len(again.valid)
	c.waitGated(t, cmd)
	cmd.Signal(t, syscall.SIGTERM)
	assert.Equal(t, 0, cmd.Exit(t), cmd.Log())
	c.checkAgainstReader(t, in, cmd.Log())
}

// A gate fenced by another producer with its transactional id (the id
// given to two gates) starts again once, as a broker may fence it too,
// and stops on the error when fenced again, with its summary and status
// 2.
func TestGateStopsOnAnErrorWithStatus2(t *testing.T) {
	c := newCluster(t)
	c.up(t, "in", "out", "dead")
	cmd := cmdtest.Start(t, t.TempDir(), "-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-transactional-id", "twice")
	in := c.publish(t)
	c.waitGated(t, cmd)

	fence := func() {
		other := c.client(t, kgo.TransactionalID("twice"))
		require.NoError(t, other.BeginTransaction())
		require.NoError(t, other.ProduceSync(context.Background(), &kgo.Record{Topic: "out", Value: []byte("{}")}).FirstErr())
		require.NoError(t, other.EndTransaction(context.Background(), kgo.TryAbort))
		other.Close()
	}
	fence()
	c.publish(t)
	cmd.WaitLog(t, "PRODUCER_FENCED")
	cmd.WaitLog(t, "the broker is back; starting")
	// The records of the transaction it could not end, gated on its new
	// session: it holds the transactional id again, for the fence to
	// take. Fenced before, the test's producer raced the new session for
	// the id: fenced itself, or fencing a session not yet begun, which
	// then took the id back and ran on.
	c.waitGated(t, cmd)
	fence()
	c.publish(t)

	assert.Equal(t, 2, cmd.Exit(t), cmd.Log())
	s := summaryOf(t, cmd.Log())
	assert.GreaterOrEqual(t, s.messages, len(in.valid)+len(in.invalid), "the first sample, gated")
	assert.Positive(t, s.retries, "the records of the transaction it could not end")
	assert.Contains(t, cmd.Log(), "gate: kafka gate: ")
}

// A gate whose input topic does not exist says so, and waits for it: a
// topic created later is gated.
func TestGateWarnsOfAMissingInputAndWaitsForIt(t *testing.T) {
	c := newCluster(t)
	c.up(t, "out", "dead")
	cmd := cmdtest.Start(t, t.TempDir(), "-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead")
	cmd.WaitLog(t, `msg="the input topic does not exist; waiting for it" topic=in`)
	resp, err := kadm.NewClient(c.client(t)).CreateTopics(context.Background(), 3, 1, nil, "in")
	require.NoError(t, err)
	require.NoError(t, resp.Error())
	in := c.publish(t)
	c.waitGated(t, cmd)
	cmd.Signal(t, syscall.SIGTERM)
	assert.Equal(t, 0, cmd.Exit(t), cmd.Log())
	c.checkAgainstReader(t, in, cmd.Log())
}

// A gate that loses its broker while it ends a transaction starts again
// once it is back, on a session of its own: the transaction it could not
// end is aborted, its records come again, and every input ends once in
// the output or the dead letters.
func TestGateStartsAgainAfterLosingItsBrokerMidTransaction(t *testing.T) {
	c := newCluster(t)
	c.up(t, "in", "out", "dead")
	in := c.publishCopies(t, 20)
	cmd := cmdtest.Start(t, t.TempDir(), "-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-batch", "2", "-session-timeout", "1s")
	c.waitCommitted(t, cmd)
	c.down()
	cmd.WaitLog(t, "lost the broker")
	time.Sleep(2 * time.Second)
	c.up(t)
	cmd.WaitLog(t, "found the broker again")
	c.waitGated(t, cmd)
	cmd.Signal(t, syscall.SIGTERM)
	assert.Equal(t, 0, cmd.Exit(t), cmd.Log())
	s := summaryOf(t, cmd.Log())
	assert.Positive(t, s.retries, "the transaction it could not end")
	s.retries = 0
	c.checkCounts(t, in, s, cmd.Log())
}

// Partitions added to the input under a running gate are gated within
// seconds (found from outside: records produced to them waited for the
// client's next full metadata refresh, kgo's default five minutes, and
// a gate with -until-idle as long).
func TestGateReadsPartitionsAddedToItsInput(t *testing.T) {
	c := newCluster(t)
	c.up(t, "in", "out", "dead")
	cmd := cmdtest.Start(t, t.TempDir(), "-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead")
	in := c.publish(t)
	c.waitGated(t, cmd)

	resp, err := kadm.NewClient(c.client(t)).CreatePartitions(context.Background(), 3, "in")
	require.NoError(t, err)
	require.NoError(t, resp.Error())
	c.publishInvalid(t, &in, "added", 3, 4, 5)
	c.stopGated(t, cmd, in)
}
