package nats

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/msg"
)

// rawPublish publishes body to subject with the header block block as it
// is, through the NATS protocol itself: nats.go refuses to send header
// names it does not allow, and a producer need not use it.
func rawPublish(t testing.TB, serverURL, subject, block string, body []byte) {
	u, err := url.Parse(serverURL)
	require.NoError(t, err)
	c, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer c.Close()
	r := bufio.NewReader(c)
	_, err = r.ReadString('\n') // INFO
	require.NoError(t, err)
	fmt.Fprintf(c, "CONNECT {\"headers\":true,\"verbose\":false,\"pedantic\":false,\"protocol\":1}\r\n")
	fmt.Fprintf(c, "HPUB %s %d %d\r\n%s%s\r\nPING\r\n", subject, len(block), len(block)+len(body), block, body)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "PONG\r\n", line)
}

// Whatever headers a stored message has, the gate ends it: one that
// nats.go's Fetch took for the server's own status (an empty body with a
// Status header: no messages, timeout, consumer deleted, heartbeat) was
// never handed over and waited for ever; one with a header name nats.go
// will not publish again was retried for ever, its copy and its dead
// letter refused; one whose header block nats.go cannot read was judged,
// and forwarded, without its headers, one contradicting its body. Each is
// a dead letter now, the last two with rule header, and the dead letters
// read back through JetStream as messages, not statuses.
func TestGateEndsMessagesWhoseHeadersTheClientMisreads(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	g := newGen(21)
	valid, err := newMsg("in.x", g.valid())
	require.NoError(t, err)
	_, err = b.js.PublishMsg(ctx, valid)
	require.NoError(t, err)
	statuses := []string{"404", "408", "409", "100", "400", "503"}
	for _, status := range statuses {
		m := &natsgo.Msg{Subject: "in.x", Header: natsgo.Header{"Status": {status}, "Description": {"Consumer Deleted"}}}
		_, err := b.js.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	body := valid.Data
	id := valid.Header.Get("ce-id")
	rawPublish(t, b.url, "in.x", "NATS/1.0\r\nce-type :core.vehicle\r\n\r\n", body)
	rawPublish(t, b.url, "in.x", "NATS/1.0\r\nce-id: "+id+"x\r\nnot a header\r\n\r\n", body)
	const n = 9
	require.EqualValues(t, n, b.count("IN"))

	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	gt := &Gate{JetStream: b.js, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
	st, err := gt.Run(ctx)
	require.NoError(t, err)
	require.NoError(t, ctx.Err(), "the gate did not end every message")
	assert.Equal(t, n, st.Messages)
	assert.Equal(t, 1, st.Forwarded)
	assert.Equal(t, n-1, st.DeadLetters)

	require.EqualValues(t, 1, b.count("OUT"))
	seqs := map[uint64]bool{}
	for _, m := range b.all("DEAD") {
		v, err := ParseVerdict(m.Header)
		require.NoError(t, err)
		assert.False(t, seqs[v.Sequence], "sequence %d dead-lettered twice", v.Sequence)
		seqs[v.Sequence] = true
		require.NotEmpty(t, v.Violations)
		if v.Sequence > uint64(1+len(statuses)) {
			assert.Equal(t, msg.RuleHeader, v.Violations[len(v.Violations)-1].Rule, "%+v", v)
			assert.Equal(t, string(body), string(m.Data))
		}
	}
	for seq := uint64(2); seq <= n; seq++ {
		assert.True(t, seqs[seq], "sequence %d not dead-lettered", seq)
	}

	// A consumer of the dead letters gets each one as a message.
	cons, err := b.js.OrderedConsumer(ctx, "DEAD", jetstream.OrderedConsumerConfig{})
	require.NoError(t, err)
	got := 0
	batch, err := cons.Fetch(n, jetstream.FetchMaxWait(time.Second))
	require.NoError(t, err)
	for m := range batch.Messages() {
		got++
		assert.NotEmpty(t, m.Headers().Get(VerdictHeader))
	}
	assert.Equal(t, n-1, got, "dead letters read back: %v", batch.Error())
}

// Nothing a producer sets passes into the output as a header that
// readers take for another: a Catalogue-Verdict on a valid message was
// forwarded as it came, so that ParseVerdict found a verdict on a copy
// (renamed now, as a dead letter renames it); and a ce-* header in
// another case (CE-ID beside ce-id), which a reader that ignores case,
// as CloudEvents' HTTP binding does, could take for the real one, was
// forwarded beside it: the message is a dead letter now, rule header.
func TestGateForwardsNoHeaderAReaderTakesForAnother(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	g := newGen(22)
	forged, err := newMsg("in.x", g.valid())
	require.NoError(t, err)
	forged.Header.Set(VerdictHeader, `{"subject":"x","sequence":1,"valid":false,"deliveries":1}`)
	var variants []*natsgo.Msg
	for _, k := range []string{"CE-ID", "Ce-Type", "ce-Source", "content-type"} {
		m, err := newMsg("in.x", g.valid())
		require.NoError(t, err)
		m.Header[k] = []string{"forged"}
		variants = append(variants, m)
	}
	for _, m := range append([]*natsgo.Msg{forged}, variants...) {
		_, err := b.js.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	gt := &Gate{JetStream: b.js, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
	st, err := gt.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Forwarded)
	assert.Equal(t, len(variants), st.DeadLetters)
	out := b.all("OUT")
	require.Len(t, out, 1)
	_, err = ParseVerdict(out[0].Header)
	assert.Error(t, err, "a copy has no verdict")
	assert.NotEmpty(t, out[0].Header.Get(OriginalPrefix+VerdictHeader), "the producer's, renamed")
	for _, m := range b.all("DEAD") {
		v, err := ParseVerdict(m.Header)
		require.NoError(t, err)
		require.NotEmpty(t, v.Violations)
		assert.Equal(t, msg.RuleHeader, v.Violations[0].Rule, "%+v", v)
	}
}
