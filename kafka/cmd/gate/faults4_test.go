package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue/internal/cmdtest"
)

// TestGateRestartedWithItsTransactionalIDGoesOnAtOnce stops a gate by
// refusing it the end of a transaction (TRANSACTIONAL_ID_AUTHORIZATION_FAILED
// on EndTxn, an ACL taken away), which leaves that transaction open with
// the group's offsets written in it: the gate exits 2, naming the
// error. Started again with the same -transactional-id once the right is
// back, as the README advises (a StatefulSet pod's name), it must go on
// at once, not wait in silence for the broker to time the transaction
// out (kgo's 40 seconds), and with -until-idle exit 0 once every input
// is gated once.
func TestGateRestartedWithItsTransactionalIDGoesOnAtOnce(t *testing.T) {
	c := newCluster(t)
	c.up(t, "in", "out", "dead")
	in := c.publishCopies(t, 20)
	args := []string{"-brokers", c.addr(), "-in", "in", "-out", "out", "-dead", "dead", "-batch", "4",
		"-session-timeout", "1s", "-transactional-id", "pod-0"}
	cmd := cmdtest.Start(t, t.TempDir(), args...)
	c.waitCommitted(t, cmd)
	fault := c.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.EndTxn}, Err: kerr.TransactionalIDAuthorizationFailed, TopLevel: true})
	assert.Equal(t, 2, cmd.Exit(t), cmd.Log())
	assert.Contains(t, cmd.Log(), "TRANSACTIONAL_ID_AUTHORIZATION_FAILED")
	require.Equal(t, 1, fault.Hits())
	first := summaryOf(t, cmd.Log())

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	status := run(ctx, append(args, "-until-idle"), &stderr)
	require.NoError(t, ctx.Err(), "the gate waited for the transaction left open to time out:\n%s", stderr.String())
	require.Equal(t, 0, status, stderr.String())
	rest := summaryOf(t, stderr.String())
	c.checkCounts(t, in, counts{messages: first.messages + rest.messages, forwarded: first.forwarded + rest.forwarded,
		dead: first.dead + rest.dead}, cmd.Log()+stderr.String())
}
