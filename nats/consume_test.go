package nats

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/gate/gatetest"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/ndjson"
	"github.com/fleetkit/catalogue/vehicle"
)

// consumeAll runs c until want messages have been handled and the
// consumer has nothing left, and returns them by id.
func consumeAll(t *testing.T, c *Consumer, want int) map[string]catalogue.Message {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	got := make(map[string]catalogue.Message)
	done := make(chan error, 1)
	go func() {
		done <- c.Consume(ctx, func(_ context.Context, m catalogue.Message) error {
			a, err := ce.AttributesOf(m)
			require.NoError(t, err)
			mu.Lock()
			defer mu.Unlock()
			assert.NotContains(t, got, a.ID, "handed over twice")
			got[a.ID] = m
			if len(got) == want {
				defer cancel()
			}
			return nil
		})
	}()
	require.NoError(t, <-done)
	require.Len(t, got, want, "timed out")
	return got
}

// Every valid message of the sample stream and of each schema, generated,
// is published validated and consumed decoded, equal to what was sent.
func TestPublishAndConsumeTheCorpus(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	p := Publisher{JetStream: b.js}
	sent := make(map[string]catalogue.Message)
	publish := func(m catalogue.Message) {
		ack, err := p.Publish(ctx, "in."+m.SchemaName(), m)
		require.NoError(t, err)
		require.False(t, ack.Duplicate)
		a, err := ce.AttributesOf(m)
		require.NoError(t, err)
		sent[a.ID] = m
	}
	lines, _ := corpus(t)
	for _, line := range lines {
		m, err := catalogue.DecodeOr(line, event.Name)
		if err == nil {
			publish(m)
		}
	}
	// The 23 valid messages of the sample stream, and the event that
	// msgcheck cannot judge without a schema (it has no message_type).
	require.Len(t, sent, 24)
	g := newGen(1)
	kinds := make(map[string]int)
	for range 400 {
		m := g.valid()
		kinds[m.SchemaName()]++
		publish(m)
	}
	require.Len(t, kinds, 4)

	c := &Consumer{JetStream: b.js, From: b.durable("app", "in.>"), DeadLetter: "dead"}
	got := consumeAll(t, c, len(sent))
	for id, m := range sent {
		require.Contains(t, got, id)
		assert.IsType(t, m, got[id])
		want, _ := m.MarshalJSON()
		have, _ := got[id].MarshalJSON()
		assert.JSONEq(t, string(want), string(have))
	}
	assert.Zero(t, b.count("DEAD"))
}

// Publish refuses an invalid message, with every violation, and publishes
// nothing.
func TestPublishRefusesInvalidMessages(t *testing.T) {
	b := startBroker(t)
	p := Publisher{JetStream: b.js}
	g := newGen(2)

	d := g.valid()
	for d.SchemaName() != device.Name {
		d = g.valid()
	}
	d.(*device.Device).IMEI = "490154203237519"
	d.(*device.Device).TenantID = "club\r\nNats-Rollup: all"

	v := vehicle.New()
	v.ConsentStatus = msg.Of(vehicle.ConsentStatus("pending"))
	v.SeedOdo = -1

	e := event.New()
	e.Type = "archived"

	custom := g.valid()
	for custom.SchemaName() != device.Name {
		custom = g.valid()
	}
	custom.(*device.Device).MessageType = "custom" // valid, but ce-type would contradict it

	for _, tt := range []struct {
		m     catalogue.Message
		paths []string
	}{
		{d, []string{"/imei"}},
		{v, []string{"/seed_odo", "/consent_status"}},
		{e, []string{"/type"}},
		{custom, []string{"/message_type"}},
	} {
		_, err := p.Publish(context.Background(), "in.x", tt.m)
		invalid, ok := errors.AsType[*msg.Error](err)
		require.True(t, ok, "%T: %v", tt.m, err)
		var paths []string
		for _, v := range invalid.Violations {
			paths = append(paths, v.Path)
		}
		assert.ElementsMatch(t, tt.paths, paths)
	}
	assert.Zero(t, b.count("IN"))
}

// publishRaw publishes a message as a careless or hostile producer might.
func publishRaw(t *testing.T, b *broker, m *natsgo.Msg) {
	_, err := b.js.PublishMsg(context.Background(), m)
	require.NoError(t, err)
}

// deadLetters returns the dead letters stored, each with its verdict.
func deadLetters(t *testing.T, b *broker) ([]*jetstream.RawStreamMsg, []gate.Verdict) {
	msgs := b.all("DEAD")
	verdicts := make([]gate.Verdict, len(msgs))
	for i, m := range msgs {
		v, err := ParseVerdict(m.Header)
		require.NoError(t, err)
		verdicts[i] = v
	}
	return msgs, verdicts
}

// Every line of the sample stream, published without headers, is
// consumed or dead-lettered with exactly the violations msgcheck check
// -json reports for it.
func TestDeadLettersCarryMsgcheckViolations(t *testing.T) {
	b := startBroker(t)
	lines, numbers := corpus(t)
	for _, line := range lines {
		publishRaw(t, b, &natsgo.Msg{Subject: "in.sample", Data: line})
	}
	var valid atomic.Int32
	c := &Consumer{JetStream: b.js, From: b.durable("app", "in.>"), DeadLetter: "dead"}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for b.count("DEAD")+uint64(valid.Load()) < uint64(len(lines)) {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	require.NoError(t, c.Consume(ctx, func(context.Context, catalogue.Message) error { valid.Add(1); return nil }))

	// What msgcheck check -json says of each body, as it was published
	// (without the line's newline, which moves an offset).
	want := make(map[int][]*msg.Violation)
	for i, line := range lines {
		_, err := ndjson.Check(context.Background(), bytes.NewReader(line), ndjson.Options{}, func(r ndjson.Result) error {
			if !r.Valid() {
				want[numbers[i]] = r.Violations()
			}
			return nil
		})
		require.NoError(t, err)
	}
	require.Len(t, want, 14)

	msgs, verdicts := deadLetters(t, b)
	require.Len(t, msgs, 14)
	assert.EqualValues(t, 23, valid.Load())
	for i, m := range msgs {
		v := verdicts[i]
		line := numbers[v.Sequence-1]
		assert.Equal(t, lines[v.Sequence-1], m.Data, "the body, byte for byte")
		assert.Equal(t, "in.sample", v.Subject)
		assert.Equal(t, "IN", v.Stream)
		assert.False(t, v.Valid)
		wantJSON, _ := jsonOf(want[line])
		gotJSON, _ := jsonOf(v.Violations)
		assert.JSONEq(t, wantJSON, gotJSON, "line %d", line)
	}
}

// Messages published by hand with bad bodies or headers that contradict
// them are dead-lettered with their violations, their headers kept.
func TestConsumerDeadLettersBadBodiesAndContradictingHeaders(t *testing.T) {
	b := startBroker(t)
	g := newGen(3)
	good := func(name string) *natsgo.Msg {
		m := g.valid()
		for m.SchemaName() != name {
			m = g.valid()
		}
		out, err := newMsg("in.hand", m)
		require.NoError(t, err)
		return out
	}
	type want struct{ path, rule, text string }
	cases := map[string]struct {
		m    *natsgo.Msg
		want want
	}{}
	add := func(name string, m *natsgo.Msg, w want) {
		m.Header.Set("Test-Case", name)
		cases[name] = struct {
			m    *natsgo.Msg
			want want
		}{m, w}
	}
	m := good(device.Name)
	m.Header.Set("ce-id", "6f1c6f0e-0000-4000-8000-000000000000")
	add("ce-id", m, want{"/message_id", "header", "ce-id contradicts"})
	m = good(event.Name)
	m.Header.Set("ce-type", device.Name)
	add("ce-type", m, want{"", "header", "ce-type is not example.event"})
	m = good(vehicle.Name)
	m.Header.Set("ce-source", "/tenants/other/sources/CORE/x")
	add("ce-source", m, want{"", "header", "ce-source contradicts"})
	m = good(device.Name)
	m.Header.Set("ce-dataschema", "https://catalogue.fleetkit.dev/api/schemas/core.device/versions/7.0")
	add("ce-dataschema unknown", m, want{"", "schema", "unknown schema"})
	m = good(device.Name)
	m.Data = bytes.Replace(m.Data, []byte(`"imei":"`), []byte(`"imei":"1`), 1)
	m.Data = bytes.Replace(m.Data, []byte(`"external_id"`), []byte(`"external_id":1,"external_id"`), 1)
	add("bad body", m, want{"/external_id", "duplicate", "more than once"})
	m = good(device.Name)
	m.Data = append(m.Data, '}')
	add("not JSON", m, want{"", "syntax", ""})
	m = good(device.Name)
	m.Header.Set("Nats-Rollup", "all")
	m.Header.Set("ce-time", "not a time")
	add("JetStream headers", m, want{"/time", "header", "ce-time is not a date-time"})
	m = good(device.Name)
	m.Data = append(m.Data, '}')
	m.Header[VerdictHeader] = []string{`{"subject":"elsewhere","sequence":0,"valid":true,"deliveries":1}`}
	m.Header["catalogue-verdict"] = []string{`{"valid":true}`}
	add("verdict headers of its own", m, want{"", "syntax", ""})
	for _, c := range cases {
		if c.m.Header.Get("Nats-Rollup") != "" {
			// JetStream refuses a rollup on a stream that does not allow
			// it; store the header under another case to carry it.
			c.m.Header.Del("Nats-Rollup")
			c.m.Header.Set("nats-rollup", "all")
		}
		publishRaw(t, b, c.m)
	}

	c := &Consumer{JetStream: b.js, From: b.durable("app", "in.>"), DeadLetter: "dead"}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for b.count("DEAD") < uint64(len(cases)) {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	require.NoError(t, c.Consume(ctx, func(_ context.Context, m catalogue.Message) error {
		t.Errorf("handed over: %T", m)
		return nil
	}))

	msgs, verdicts := deadLetters(t, b)
	require.Len(t, msgs, len(cases))
	for i, dl := range msgs {
		name := dl.Header.Get("Test-Case")
		c := cases[name]
		assert.Equal(t, c.m.Data, dl.Data, name)
		for k, vs := range c.m.Header {
			if strings.HasPrefix(strings.ToLower(k), "nats-") || strings.EqualFold(k, VerdictHeader) {
				assert.Equal(t, vs, dl.Header[OriginalPrefix+k], "%s: %s", name, k)
				continue
			}
			assert.Equal(t, vs, dl.Header[k], "%s: %s", name, k)
		}
		assert.Equal(t, b.incarnation("IN")+":"+itoa(verdicts[i].Sequence), dl.Header.Get(jetstream.MsgIDHeader))
		assert.Empty(t, dl.Header.Get("nats-rollup"), name)
		found := false
		for _, v := range verdicts[i].Violations {
			if v.Path == c.want.path && string(v.Rule) == c.want.rule && strings.Contains(v.Message, c.want.text) {
				found = true
			}
		}
		assert.True(t, found, "%s: %+v", name, verdicts[i])
	}
}

// A handler error delivers the message again, after the back-off, and at
// MaxDeliver it is dead-lettered with the error; then acknowledged.
func TestHandlerErrorsBackOffThenDeadLetter(t *testing.T) {
	b := startBroker(t)
	g := newGen(4)
	failing := g.valid()
	_, err := Publisher{JetStream: b.js}.Publish(context.Background(), "in.x", failing)
	require.NoError(t, err)
	_, err = Publisher{JetStream: b.js}.Publish(context.Background(), "in.x", g.valid())
	require.NoError(t, err)
	failID, _ := ce.AttributesOf(failing)

	cons := b.durable("app", "in.>")
	c := &Consumer{JetStream: b.js, From: cons, DeadLetter: "dead", MaxDeliver: 3, Backoff: []time.Duration{50 * time.Millisecond, 200 * time.Millisecond}}
	var calls []time.Time
	ok := 0
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		for b.count("DEAD") == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // for the acknowledgement
		cancel()
	}()
	require.NoError(t, c.Consume(ctx, func(_ context.Context, m catalogue.Message) error {
		if a, _ := ce.AttributesOf(m); a.ID == failID.ID {
			calls = append(calls, time.Now())
			return errors.New("database down")
		}
		ok++
		return nil
	}))
	require.Len(t, calls, 3)
	assert.GreaterOrEqual(t, calls[1].Sub(calls[0]), 50*time.Millisecond)
	assert.GreaterOrEqual(t, calls[2].Sub(calls[1]), 200*time.Millisecond)
	assert.Equal(t, 1, ok)
	_, verdicts := deadLetters(t, b)
	require.Len(t, verdicts, 1)
	assert.True(t, verdicts[0].Valid)
	assert.Equal(t, "database down", verdicts[0].Error)
	assert.EqualValues(t, 3, verdicts[0].Deliveries)
	info, err := cons.Info(context.Background())
	require.NoError(t, err)
	assert.Zero(t, info.NumAckPending, "the dead-lettered message is acknowledged")
	assert.Zero(t, info.NumPending)
}

// TestDeadLettersCountTheViolationsPastTheCap pins that a dead letter
// says how many violations the decoder counted past msg.MaxViolations,
// as msgcheck check -json does in "omitted", rather than dropping them.
func TestDeadLettersCountTheViolationsPastTheCap(t *testing.T) {
	b := startBroker(t)
	body := []byte(`{"message_type":"core.association","message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","source_id":"s","tenant_id":"t","time":"2026-11-23T08:00:00Z",` +
		`"association_id":"5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a","device_id":"9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4","tags":[1` + strings.Repeat(",1", 299) + `]}`)
	publishRaw(t, b, &natsgo.Msg{Subject: "in.many", Data: body})
	c := &Consumer{JetStream: b.js, From: b.durable("app", "in.>"), DeadLetter: "dead"}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for b.count("DEAD") < 1 {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	require.NoError(t, c.Consume(ctx, func(context.Context, catalogue.Message) error { return nil }))

	var want ndjson.Result
	_, err := ndjson.Check(context.Background(), bytes.NewReader(body), ndjson.Options{}, func(r ndjson.Result) error { want = r; return nil })
	require.NoError(t, err)
	require.Equal(t, 200, want.Omitted())

	_, verdicts := deadLetters(t, b)
	require.Len(t, verdicts, 1)
	assert.Len(t, verdicts[0].Violations, msg.MaxViolations)
	assert.Equal(t, want.Omitted(), verdicts[0].Omitted)
}

// A consumer's dead letter too large for the server, or for the
// dead-letter stream (its max_msg_size, which the Consumer did not read:
// the stream refused the dead letter cut to the server's limit, and the
// message came back for ever), with its verdict, is cut to fit and says
// so, and the message is acknowledged.
func TestConsumerCutsADeadLetterTooLargeForTheServer(t *testing.T) {
	const limit = 8 << 10
	t.Run("server", func(t *testing.T) {
		consumerCutsADeadLetter(t, startContract(t, gatetest.Config{MaxBytes: limit}).(*contract), limit)
	})
	t.Run("stream", func(t *testing.T) {
		c := startContract(t, gatetest.Config{}).(*contract)
		cfg := streamConfig("DEAD", "dead")
		cfg.MaxMsgSize = limit
		_, err := c.js.UpdateStream(context.Background(), cfg)
		require.NoError(t, err)
		consumerCutsADeadLetter(t, c, limit)
	})
}

// consumerCutsADeadLetter runs a Consumer on c of an invalid message
// that fits limit, and whose dead letter does not.
func consumerCutsADeadLetter(t *testing.T, c *contract, limit int) {
	body := `{"message_type":"core.device","model":"` + strings.Repeat("m", limit-300) + `"}`
	_, err := c.js.PublishMsg(context.Background(), &natsgo.Msg{Subject: "in.x", Data: []byte(body)})
	require.NoError(t, err)
	cons, err := c.js.Consumer(context.Background(), "IN", "gate")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- (&Consumer{JetStream: c.js, From: cons, DeadLetter: "dead"}).Consume(ctx, func(context.Context, catalogue.Message) error {
			t.Error("an invalid message handed over")
			return nil
		})
	}()
	for deadline := time.Now().Add(30 * time.Second); len(c.DeadLetters(t)) == 0; time.Sleep(20 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "no dead letter")
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		info, err := cons.Info(ctx)
		require.NoError(t, err)
		if info.NumAckPending == 0 && info.NumPending == 0 {
			break // acknowledged
		}
		require.True(t, time.Now().Before(deadline), "the message was never acknowledged")
	}
	cancel()
	require.NoError(t, <-done)
	dl := c.DeadLetters(t)
	require.Len(t, dl, 1)
	v := dl[0].Verdict
	assert.True(t, v.Truncated)
	assert.Equal(t, len(body), v.BodySize)
	assert.True(t, strings.HasPrefix(body, string(dl[0].Body)))
	assert.NotEmpty(t, v.Violations)
}

// A Consumer judges as the gate does, and pulls as it does: a stored
// message with an empty body and a Status header, which nats.go's
// iterator takes for the server's own status and never hands over, is
// dead-lettered, as are one whose header block nats.go cannot read
// (handed over without headers, its ce-id contradicting its body) and
// one with a header of decision 14 in another case.
func TestConsumerEndsMessagesWhoseHeadersTheClientMisreads(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	for _, status := range []string{"404", "408", "409", "100", "503"} {
		_, err := b.js.PublishMsg(ctx, &natsgo.Msg{Subject: "in.x", Header: natsgo.Header{"Status": {status}}})
		require.NoError(t, err)
	}
	valid, err := newMsg("in.x", newGen(22).valid())
	require.NoError(t, err)
	id := valid.Header.Get("ce-id")
	rawPublish(t, b.url, "in.x", "NATS/1.0\r\nce-id: "+id+"x\r\nnot a header\r\n\r\n", valid.Data)
	rawPublish(t, b.url, "in.x", "NATS/1.0\r\nCE-ID: "+id+"x\r\n\r\n", valid.Data)
	const n = 7
	for deadline := time.Now().Add(10 * time.Second); b.count("IN") < n; time.Sleep(10 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "stored %d of %d", b.count("IN"), n)
	}

	c := &Consumer{JetStream: b.js, From: b.durable("app", "in.>"), DeadLetter: "dead"}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	go func() {
		for b.count("DEAD") < n && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	require.NoError(t, c.Consume(ctx, func(_ context.Context, m catalogue.Message) error {
		t.Errorf("handed over: %v", m)
		return nil
	}))
	require.Equal(t, n, int(b.count("DEAD")), "every message dead-lettered")
	_, verdicts := deadLetters(t, b)
	rules := map[msg.Rule]int{}
	for _, v := range verdicts {
		require.NotEmpty(t, v.Violations)
		rules[v.Violations[len(v.Violations)-1].Rule]++
	}
	assert.Equal(t, map[msg.Rule]int{msg.RuleSyntax: 5, msg.RuleHeader: 2}, rules)
}

// A Consumer returns, saying why, when no message can come again: its
// consumer deleted (its stream deleted or made again), or its connection
// closed for good. It fetched in vain for ever.
func TestConsumeReturnsWhenNothingCanCome(t *testing.T) {
	for _, c := range []struct {
		name string
		end  func(b *broker, nc *natsgo.Conn)
		want []error // one of them
	}{
		{"consumer deleted", func(b *broker, _ *natsgo.Conn) {
			require.NoError(t, b.js.DeleteConsumer(context.Background(), "IN", "gate"))
		}, []error{jetstream.ErrConsumerDeleted, jetstream.ErrConsumerNotFound}},
		{"stream deleted", func(b *broker, _ *natsgo.Conn) {
			require.NoError(t, b.js.DeleteStream(context.Background(), "IN"))
		}, []error{jetstream.ErrConsumerDeleted, jetstream.ErrConsumerNotFound, jetstream.ErrStreamNotFound}},
		{"connection closed", func(_ *broker, nc *natsgo.Conn) { nc.Close() }, []error{natsgo.ErrConnectionClosed}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := startBroker(t)
			b.publishValid(newGen(91), 1)
			nc, js := connect(t, b.url)
			cons, err := js.Consumer(context.Background(), "IN", b.durable("gate", "in.>").CachedInfo().Name)
			require.NoError(t, err)
			handled := make(chan struct{}, 1)
			done := make(chan error, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			go func() {
				done <- (&Consumer{JetStream: js, From: cons, DeadLetter: "dead"}).Consume(ctx, func(context.Context, catalogue.Message) error {
					handled <- struct{}{}
					return nil
				})
			}()
			<-handled // it runs
			c.end(b, nc)
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Consume did not return")
			}
			require.Error(t, err)
			assert.True(t, slices.ContainsFunc(c.want, func(w error) bool { return errors.Is(err, w) }), "%v", err)
		})
	}
}

// A Consumer refuses a consumer that delivers headers only: it judged
// every message on an empty body, and dead-lettered it, valid or not.
func TestConsumeRefusesAConsumerOfHeadersOnly(t *testing.T) {
	b := startBroker(t)
	b.publishValid(newGen(92), 1)
	cons := b.durable("gate", "in.>", func(c *jetstream.ConsumerConfig) { c.HeadersOnly = true })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := (&Consumer{JetStream: b.js, From: cons, DeadLetter: "dead"}).Consume(ctx, func(context.Context, catalogue.Message) error { return nil })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "headers only")
	assert.Zero(t, b.count("DEAD"))
}
