package kafka_test

// Interoperability with kcat (librdkafka), a Kafka client nobody here
// wrote: what it produces with ce_ headers, the catalogue's consumer
// accepts; what the catalogue's producer writes, it reads back intact.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
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
