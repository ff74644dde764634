package nats

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/msg"
)

// copyShapes are the headers a valid message may come with, each made
// from a Publisher's (with its Nats-Msg-Id, the message's id).
var copyShapes = map[string]func(h natsgo.Header){
	"publisher": func(natsgo.Header) {},
	"bare": func(h natsgo.Header) {
		for k := range h {
			if k != jetstream.MsgIDHeader {
				delete(h, k)
			}
		}
	},
	"none": func(h natsgo.Header) { clear(h) },
	"other forms": func(h natsgo.Header) {
		h.Set("ce-id", strings.ToUpper(h.Get("ce-id")))
		t, err := time.Parse(time.RFC3339Nano, h.Get("ce-time"))
		if err == nil {
			h.Set("ce-time", t.In(time.FixedZone("", 3600)).Format(time.RFC3339Nano))
		}
		h.Set("Content-Type", "application/json; charset=utf-8")
		delete(h, "ce-source")
	},
	"another header":       func(h natsgo.Header) { h.Set("X-Trace", "abc") },
	"another id":           func(h natsgo.Header) { h.Set(jetstream.MsgIDHeader, "producer-key") },
	"a JetStream header":   func(h natsgo.Header) { h.Set("Nats-Expected-Stream", "OTHER") },
	"a name of other case": func(h natsgo.Header) { h.Set("content-type", "text/plain") },
	"bare, another id": func(h natsgo.Header) {
		clear(h)
		h.Set(jetstream.MsgIDHeader, "producer-key")
	},
}

// judgeable returns a valid message with headers of the given shape, and
// its identity: one that names its schema, for a shape that takes the
// headers away (an event does not).
func judgeable(t *testing.T, g *gen, shape string) (catalogue.Message, *natsgo.Msg, msg.Identity) {
	for {
		m := g.valid()
		in, err := newMsg("in.x", m)
		require.NoError(t, err)
		copyShapes[shape](in.Header)
		_, id, err := ce.NATS.DecodeIdentity(catalogue.Kinds, in.Header, in.Data)
		if _, ok := m.(*event.Event); !ok || err == nil {
			require.NoError(t, err, shape)
			return m, in, id
		}
	}
}

// wantCopyHeaders returns the headers of the copy of a message with
// headers in, as decision 14 and the package doc say: its own, the
// JetStream ones renamed (but for a Nats-Msg-Id that is its id), then
// those of ce.NATS.Write set, and Nats-Msg-Id its id.
func wantCopyHeaders(t *testing.T, in natsgo.Header, m catalogue.Message) natsgo.Header {
	want := natsgo.Header{}
	id := m.Identity().ID.String()
	for k, vs := range in {
		if strings.HasPrefix(strings.ToLower(k), "nats-") {
			if k == jetstream.MsgIDHeader && len(vs) == 1 && vs[0] == id {
				continue
			}
			k = OriginalPrefix + k
		}
		want[k] = append(want[k], vs...)
	}
	require.NoError(t, ce.NATS.Write(want, m))
	want.Set(jetstream.MsgIDHeader, id)
	return want
}

// A copy's headers are the message's own and those of decision 14,
// whatever headers it came with, and whatever the copies made before it
// through the same outgoing (reused once acknowledged) had: several
// batches of every shape, each batch held at once and then released.
func TestCopiesHaveTheirOwnHeaders(t *testing.T) {
	g := newGen(5)
	br := &jsBroker{g: &Gate{Output: "out"}, outLimit: 1 << 20}
	for batch := range 6 {
		type made struct {
			shape string
			in    natsgo.Header
			m     catalogue.Message
			out   *outgoing
		}
		var all []made
		for shape := range copyShapes {
			m, in, id := judgeable(t, g, shape)
			out, err := br.copyOf(&delivery{m: pulled{in}}, id)
			require.NoError(t, err, shape)
			all = append(all, made{shape, in.Header, m, out})
		}
		for _, c := range all {
			assert.Equal(t, wantCopyHeaders(t, c.in, c.m), c.out.m.Header, "batch %d, %s", batch, c.shape)
			assert.Equal(t, "out", c.out.m.Subject)
		}
		for _, c := range all {
			c.out.release()
		}
	}
}

// The gate judges a delivery exactly as ce.NATS does, whatever its
// headers: a message with a Nats-Msg-Id alone, judged without looking its
// headers up (jsBroker's DecodeIdentity), included; valid or not,
// identity and error alike; and, judging it without building it, with
// no message.
func TestGateJudgesAsTheBinding(t *testing.T) {
	g := newGen(11)
	br := &jsBroker{}
	for i := range 400 {
		var in *natsgo.Msg
		if i%2 == 0 {
			in = g.invalid(t, "bad-"+itoa(uint64(i)))
		} else {
			var err error
			in, err = newMsg("in.x", g.valid())
			require.NoError(t, err)
		}
		switch shapes := []string{"publisher", "bare", "none", "another header", "bare, another id", "other forms"}; i % 8 {
		case 6: // one header, not a Nats-Msg-Id
			in.Header = natsgo.Header{"ce-id": in.Header["ce-id"]}
		case 7: // a Nats-Msg-Id and another
			in.Header = natsgo.Header{"ce-type": in.Header["ce-type"], jetstream.MsgIDHeader: in.Header[jetstream.MsgIDHeader]}
		default:
			copyShapes[shapes[i%8]](in.Header)
		}
		m, id, err := br.DecodeIdentity(catalogue.Kinds, &delivery{m: pulled{in}})
		_, wid, werr := ce.NATS.Borrowing().DecodeIdentity(catalogue.Kinds, in.Header, in.Data)
		assert.Nil(t, m, "%d: %v", i, in.Header)
		assert.Equal(t, wid, id, "%d: %v", i, in.Header)
		assert.Equal(t, werr, err, "%d: %v", i, in.Header)
	}
}

// The copy of a message that came with a Publisher's headers allocates
// nothing once outgoings are reused; that of one that came with a
// Nats-Msg-Id alone, one string for the values of ce-id, ce-source and
// ce-time.
func TestCopiesAllocateOneStringAtMost(t *testing.T) {
	for shape, want := range map[string]float64{"publisher": 0, "bare": 1} {
		g := newGen(7)
		var ds []*delivery
		var ids []msg.Identity
		for range 64 {
			_, in, id := judgeable(t, g, shape)
			ds, ids = append(ds, &delivery{m: pulled{in}}), append(ids, id)
		}
		br := &jsBroker{g: &Gate{Output: "out"}, outLimit: 1 << 20}
		i := 0
		allocs := testing.AllocsPerRun(1000, func() {
			out, err := br.copyOf(ds[i%len(ds)], ids[i%len(ds)])
			if err != nil {
				panic(err)
			}
			out.release()
			i++
		})
		assert.Equal(t, want, allocs, shape)
	}
}

// An outgoing is reused after collections too: a gate's allocations bring
// one every thousand messages or so, and one made again costs its map.
func TestOutgoingsOutliveCollections(t *testing.T) {
	br := &jsBroker{}
	o := br.outgoing()
	o.release()
	runtime.GC()
	runtime.GC()
	assert.Same(t, o, br.outgoing())
}

// A copy larger than the output stream stores is refused, its headers
// counted as NATS sends them, whatever headers the message came with.
func TestCopyTooLargeIsRefused(t *testing.T) {
	g := newGen(9)
	for shape := range copyShapes {
		m, in, id := judgeable(t, g, shape)
		size := headerSize(wantCopyHeaders(t, in.Header, m)) + len(in.Data)
		for _, limit := range []int{size, size - 1} {
			br := &jsBroker{g: &Gate{Output: "out"}, outLimit: limit}
			_, err := br.copyOf(&delivery{m: pulled{in}}, id)
			if limit == size {
				assert.NoError(t, err, shape)
			} else {
				assert.ErrorIs(t, err, gate.ErrTooLarge, shape)
			}
		}
	}
}

// The gate publishes its copies itself (acks), each reused once its
// acknowledgement has come: every copy stored is the message it copies,
// body and headers, once; and none goes through the JetStream's own
// asynchronous publisher, whose ack handler sees none.
func TestGateCopiesAreWholeAndBypassTheAsyncPublisher(t *testing.T) {
	n := 5000
	if raceEnabled {
		n = 2000
	}
	b := startBroker(t)
	in := publishInput(t, b, n)
	var handled atomic.Int64
	nc, err := natsgo.Connect(b.srv.ClientURL())
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(1),
		jetstream.WithPublishAsyncAckHandler(func(jetstream.JetStream, *natsgo.Msg, *jetstream.PubAck) {
			handled.Add(1)
		}))
	require.NoError(t, err)
	g := &Gate{JetStream: js, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead", UntilIdle: true, MaxWait: 50 * time.Millisecond}
	st, err := g.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, n, st.Messages)
	assert.Zero(t, handled.Load())
	want := map[string]int{}
	for id, valid := range in.valid {
		if valid {
			want[id] = 1
		}
	}
	seen := map[string]int{}
	b.readStream("OUT", st.Forwarded, func(m jetstream.Msg) {
		id := m.Headers().Get(jetstream.MsgIDHeader)
		if m.Headers().Get("ce-id") != id || !bytes.Equal(m.Data(), in.body[id]) {
			id = "mismatched: " + id
		}
		seen[id]++
	})
	assert.Equal(t, want, seen)
}

// readAck reads JetStream's acknowledgements as jetstream's PublishMsgAsync
// does: those JetStream writes by scanAck, anything else as JSON, and
// errors as its errors.
func TestReadAckReadsAsJetStreamDoes(t *testing.T) {
	for _, c := range []struct {
		body string
		want pubAck
		fast bool  // read by scanAck
		err  error // errors.Is
	}{
		{body: `{"stream":"OUT","seq":7}`, want: pubAck{seq: 7}, fast: true},
		{body: `{"stream":"OUT","seq":7,"duplicate":true}`, want: pubAck{seq: 7, duplicate: true}, fast: true},
		{body: `{"stream":"OUT","domain":"hub","seq":18446744073709551615}`, want: pubAck{seq: 1<<64 - 1}, fast: true},
		{body: `{"stream": "OUT", "seq": 7}`, want: pubAck{seq: 7}},
		{body: `{"stream":"OUT","seq":7,"val":"3"}`, want: pubAck{seq: 7}},
		{body: `{"stream":"O\u0055T","seq":7}`, want: pubAck{seq: 7}},
		{body: `{"seq":7,"stream":"OUT","duplicate":false}`, want: pubAck{seq: 7}, fast: true},
		{body: `{"stream":"OUT","seq":7,}`, err: jetstream.ErrInvalidJSAck},
		{body: `{"stream":"","seq":7}`, err: jetstream.ErrInvalidJSAck},
		{body: `{"seq":7}`, err: jetstream.ErrInvalidJSAck},
		{body: `{"stream":"OUT","seq":-1}`, err: jetstream.ErrInvalidJSAck},
		{body: `not json`, err: jetstream.ErrInvalidJSAck},
		{body: `{"error":{"code":400,"err_code":10054,"description":"message size exceeds maximum allowed"},"stream":"OUT","seq":0}`, err: jetstream.ErrStreamMessageExceedsMaximum},
	} {
		a, fast := scanAck([]byte(c.body))
		assert.Equal(t, c.fast, fast, c.body)
		if fast {
			assert.Equal(t, c.want, a, c.body)
		}
		got, err := readAck(&natsgo.Msg{Data: []byte(c.body)})
		if c.err != nil {
			assert.ErrorIs(t, err, c.err, c.body)
			continue
		}
		require.NoError(t, err, c.body)
		assert.Equal(t, c.want, got, c.body)
	}
	_, err := readAck(&natsgo.Msg{Header: natsgo.Header{"Status": {"503"}}})
	assert.ErrorIs(t, err, jetstream.ErrNoStreamResponse)
}

// What scanAck reads, JSON reads alike.
func FuzzScanAck(f *testing.F) {
	f.Add(`{"stream":"OUT","seq":7,"duplicate":true}`)
	f.Add(`{"stream":"OUT","domain":"x","seq":1}`)
	f.Add(`{"stream":"a\"b","seq":1}`)
	f.Fuzz(func(t *testing.T, body string) {
		a, ok := scanAck([]byte(body))
		if !ok {
			return
		}
		var want jetstream.PubAck
		require.NoError(t, json.Unmarshal([]byte(body), &want), body)
		assert.NotEmpty(t, want.Stream, body)
		assert.Equal(t, pubAck{seq: want.Sequence, duplicate: want.Duplicate}, a, body)
	})
}

// A dead letter made in an outgoing that made another before has the
// headers a dead letter made afresh has: none of the one before.
func TestDeadLettersReuseNoHeaders(t *testing.T) {
	br := &jsBroker{g: &Gate{DeadLetter: "dead"}, deadLimit: 1 << 20, incarnation: "IN@2026-01-01T00:00:00Z"}
	g := newGen(11)
	publisher := g.invalid(t, "bad-1")
	publisher.Header.Set("X-Trace", "abc")
	bare := &natsgo.Msg{Subject: "in.x", Header: natsgo.Header{jetstream.MsgIDHeader: {"bad-2"}}, Data: []byte(`{}`)}
	for i, in := range []*natsgo.Msg{publisher, bare, publisher} {
		d := &delivery{m: pulled{in}, md: &natsgo.MsgMetadata{Stream: "IN", NumDelivered: 1}}
		d.md.Sequence.Stream = uint64(i + 1)
		v := gate.VerdictOf(nil, &msg.Error{Violations: []*msg.Violation{{Rule: msg.RuleHeader, Message: "made up"}}})
		v.Place, v.Deliveries = d.Place(), 1
		want, err := deadLetter("dead", d.m, v, br.incarnation, br.deadLimit, nil)
		require.NoError(t, err)
		o, err := br.deadLetterOf(d, v, br.deadLimit)
		require.NoError(t, err)
		assert.Equal(t, want.Header, o.m.Header, "%d", i)
		assert.Equal(t, want.Data, o.m.Data, "%d", i)
		o.release()
	}
	o := br.outgoing()
	assert.NotNil(t, o.dead, "the outgoing reused")
}

// What the gate publishes ends, stored or not, without waiting out its
// timeout: a subject no stream stores is refused at once (no
// responders), and an acknowledgement awaited when the connection is
// lost fails then, as jetstream's PublishMsgAsync fails it; the
// outgoing of a copy stored is reused.
func TestAcksEndEveryOutgoing(t *testing.T) {
	b := startBroker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // less than StoreTimeout
	defer cancel()
	br := &jsBroker{js: b.js}
	defer br.acks.close()
	publish := func(subject string) *outgoing {
		o := br.outgoing()
		o.m = natsgo.Msg{Subject: subject, Header: natsgo.Header{jetstream.MsgIDHeader: {subject}}, Data: []byte(`{}`)}
		_, err := br.publish(o, nil)
		require.NoError(t, err)
		return o
	}
	stored := publish("out")
	_, err := stored.Wait(ctx)
	require.NoError(t, err)
	assert.Same(t, stored, br.outgoing(), "reused once stored")

	_, err = publish("nowhere").Wait(ctx)
	assert.ErrorIs(t, err, jetstream.ErrNoStreamResponse)

	// A subscriber that never answers: no "no responders", and no
	// acknowledgement.
	sub, err := b.nc.SubscribeSync("silent")
	require.NoError(t, err)
	defer sub.Unsubscribe()
	require.NoError(t, b.nc.Flush())
	silent := publish("silent")
	b.restart()
	_, err = silent.Wait(ctx)
	assert.ErrorIs(t, err, natsgo.ErrDisconnected)
}
