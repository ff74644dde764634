package main

// The operator's command with records as producers not tried elsewhere
// leave them (see kafka/clients_test.go for the library's gate).

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A producer's transaction left open on every partition of the input,
// before the sample: with -until-idle the gate does not stop while it is
// open, with the sample unread behind it (its last stable offset), but
// waits until the broker aborts it as timed out, then gates the sample
// and stops, its summary counting what a read_committed reader finds,
// which holds none of the aborted records.
func TestGateUntilIdleWaitsForAnInputTransactionLeftOpen(t *testing.T) {
	c := newCluster(t)
	c.up(t, "in", "out", "dead")
	tx := c.client(t, kgo.TransactionalID("left-open"), kgo.TransactionTimeout(2*time.Second), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, tx.BeginTransaction())
	for p := range int32(3) {
		r := &kgo.Record{Topic: "in", Partition: p, Value: []byte(`{"aborted":true}`)}
		require.NoError(t, tx.ProduceSync(context.Background(), r).FirstErr())
	}
	in := c.publish(t)

	var stderr bytes.Buffer
	status := run(context.Background(), []string{"-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-until-idle"}, &stderr)
	require.Equal(t, 0, status, stderr.String())
	c.checkAgainstReader(t, in, stderr.String())
}
