package kafka_test

// Interoperability with kcat (librdkafka), a Kafka client nobody here
// wrote: what it produces with ce_ headers, the catalogue's consumer
// accepts; what the catalogue's producer writes, it reads back intact.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/internal/sample"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
)

// needKcat returns kcat's path, or skips the test (fails it in CI, which
// installs Debian's kcat).
func needKcat(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kcat")
	if err != nil {
		missing(t, "kcat", err)
	}
	return path
}

// missing stops a test for want of the Debian package pkg, err saying
// what is missing: it fails the test in CI, which installs pkg, and skips
// it elsewhere.
func missing(t *testing.T, pkg string, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%v: CI installs %s", err, pkg)
	}
	t.Skipf("%v: apt-get install %s", err, pkg)
}

func TestKcatProducesWhatTheConsumerAccepts(t *testing.T) {
	kcat := needKcat(t)
	c, _ := cluster(t, "in", "bad")
	ms, lines := samples(t)

	// One kcat run per message, each with its ce_ headers as
	// ce.Kafka.Write sets them: what a producer in another language writes.
	for i, m := range ms {
		h := kafka.Header{Record: recordOf()}
		require.NoError(t, ce.Kafka.Write(h, m))
		args := []string{"-P", "-b", c.ListenAddrs()[0], "-t", "in", "-K", "\t"}
		for _, rh := range h.Record.Headers {
			args = append(args, "-H", rh.Key+"="+string(rh.Value))
		}
		cmd := exec.Command(kcat, args...)
		cmd.Stdin = strings.NewReader(m.Identity().Key.String() + "\t" + string(lines[i]) + "\n")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	got := consumeAll(t, c, "in", len(ms))
	for _, r := range got {
		m, err := kafka.Decode(catalogue.Kinds, r)
		require.NoError(t, err, "%s", r.Value)
		assert.Equal(t, m.Identity().Key.String(), string(r.Key))
	}

	// A header contradicting the body, from kcat, is a violation.
	cmd := exec.Command(kcat, "-P", "-b", c.ListenAddrs()[0], "-t", "bad", "-H", "ce_type=core.vehicle")
	cmd.Stdin = bytes.NewReader(append(append([]byte(nil), lines[0]...), '\n'))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	bad := consumeAll(t, c, "bad", 1)
	_, err = kafka.Decode(catalogue.Kinds, bad[0])
	assert.Contains(t, rulesOf(err), msg.RuleHeader, "%v", err)
}

func TestKcatReadsWhatTheProducerWrites(t *testing.T) {
	kcat := needKcat(t)
	c, client := cluster(t, "out")
	ms, _ := samples(t)
	for _, m := range ms {
		_, err := kafka.Producer{Client: client}.Produce(context.Background(), "out", m)
		require.NoError(t, err)
	}
	cmd := exec.Command(kcat, "-C", "-b", c.ListenAddrs()[0], "-t", "out", "-o", "beginning", "-e", "-q", "-f", "%k\\t%h\\t%s\\n")
	out, err := cmd.Output()
	require.NoError(t, err)
	rows := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	require.Len(t, rows, len(ms))
	for _, row := range rows {
		key, rest, ok := strings.Cut(row, "\t")
		require.True(t, ok, row)
		headers, value, ok := strings.Cut(rest, "\t")
		require.True(t, ok, row)
		m, err := catalogue.DecodeOr([]byte(value), "example.event")
		require.NoError(t, err, value)
		id := m.Identity()
		assert.Equal(t, id.Key.String(), key)
		assert.Contains(t, headers, "ce_dataschema="+id.Kind.ID)
		assert.Contains(t, headers, "ce_id="+id.ID.String())
		assert.Contains(t, headers, "content-type=application/json")
	}
}

// kcat produces the sample's lines to a gate's input, as a producer in
// another language would, in batches compressed with each codec Kafka
// has, and reads the gate's output back read_committed: every valid
// line once, byte for byte, with the gate's ce_ headers; every other
// line once among the dead letters.
func TestKcatThroughTheGate(t *testing.T) {
	kcat := needKcat(t)
	_, addrs := newCluster(t, 3)
	// The lines valid without headers: an event, which has no
	// message_type, names its schema only by its headers.
	all, _ := sample.Lines(t, "../testdata/messages.ndjson")
	var lines [][]byte
	for _, line := range all {
		if _, err := catalogue.Decode(line); err == nil {
			lines = append(lines, line)
		}
	}
	codecs := []string{"gzip", "snappy", "lz4", "zstd"}
	for i, codec := range codecs {
		var in bytes.Buffer
		for _, line := range all {
			in.Write(withSuffix(line, i))
			in.WriteByte('\n')
		}
		cmd := exec.Command(kcat, "-P", "-b", addrs[0], "-t", inTopic, "-z", codec, "-X", "linger.ms=50")
		cmd.Stdin = &in
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	st := runUntilIdle(t, addrs, &kafka.Gate{})
	assert.Equal(t, len(codecs)*len(all), st.Messages, "%+v", st)
	assert.Equal(t, len(codecs)*len(lines), st.Forwarded, "%+v", st)

	read := func(topic string) []string {
		out, err := exec.Command(kcat, "-C", "-b", addrs[0], "-t", topic, "-X", "isolation.level=read_committed",
			"-o", "beginning", "-e", "-q", "-f", "%h\t%s\n").Output()
		require.NoError(t, err)
		return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	}
	var want []string
	for i := range codecs {
		for _, line := range lines {
			want = append(want, string(withSuffix(line, i)))
		}
	}
	var got []string
	for _, row := range read(outTopic) {
		headers, value, ok := strings.Cut(row, "\t")
		require.True(t, ok, row)
		assert.Contains(t, headers, "ce_specversion=1.0")
		got = append(got, value)
	}
	slices.Sort(want)
	slices.Sort(got)
	assert.True(t, slices.Equal(want, got), "the output: %d values, want %d", len(got), len(want))
	assert.Len(t, read(deadTopic), len(codecs)*(len(all)-len(lines)), "the dead letters")
}

// withSuffix returns a sample line made a message of its own, the
// last digits of its id replaced by n's, so that the gate's window does
// not take the line, sent again, for a redelivery.
func withSuffix(line []byte, n int) []byte {
	for _, member := range []string{`"message_id":"`, `"id":"`} {
		if i := bytes.Index(line, []byte(member)); i >= 0 {
			suffix := fmt.Appendf(nil, "%04d", n)
			at := i + len(member) + 36 - len(suffix)
			return slices.Concat(line[:at], suffix, line[at+len(suffix):])
		}
	}
	return line // an invalid line, a dead letter whatever its id
}
