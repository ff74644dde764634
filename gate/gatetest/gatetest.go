// Package gatetest is the contract every gate binding must keep
// (decision 16), as a suite of tests: Run takes a way to start a broker
// and a gate on it, and checks each point of the decision against them.
// Every check counts every input message by its key, exactly once in the
// output, in the dead letters, or among the acknowledged redeliveries.
//
// A binding's tests call it with its own Binding:
//
//	func TestGateContract(t *testing.T) {
//		gatetest.Run(t, gatetest.Binding{CE: ce.NATS, Start: startBroker})
//	}
//
// Its Broker's StartGate runs the binding's gate through Go, which makes
// the running gate a Gate.
package gatetest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/internal/hostile"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/vehicle"
)

// KeyHeader is the header in which the suite gives each input message its
// key; a gate forwards it, in the output and in the dead letters, as it
// forwards every header it does not own.
const KeyHeader = "Gatetest-Key"

// A Message is an input message: its headers and body, and its key, which
// the binding publishes as the input's own deduplication id (Nats-Msg-Id,
// say), so that two messages of one content are two inputs.
type Message struct {
	Key    string
	Header http.Header // canonical or not: the binding publishes them as they are
	Body   []byte
}

// A Stored message is one the gate stored, in the output or the dead
// letters.
type Stored struct {
	Header  map[string][]string
	Body    []byte
	Verdict *gate.Verdict // a dead letter's; nil in the output
}

// A Config says how to make a broker for one check.
type Config struct {
	// MaxBytes is the largest message the broker stores, headers
	// included; 0 means its default.
	MaxBytes int
	// NoOutput and NoDeadLetter leave out the output or the dead-letter
	// store: a gate must refuse to start.
	NoOutput, NoDeadLetter bool
	// InputCoversOutput and InputCoversDeadLetter make the input read
	// the output or the dead-letter subject too: a gate must refuse to
	// start.
	InputCoversOutput, InputCoversDeadLetter bool
	// AckWait is how long the broker waits for an acknowledgement before
	// delivering a message again.
	AckWait time.Duration
}

// A Broker is a broker with an input, an output and a dead-letter store.
type Broker interface {
	// Publish stores msgs in the input, in order, and returns each one's
	// place there.
	Publish(t testing.TB, msgs []Message) []gate.Place
	// Output and DeadLetters return what the output and the dead-letter
	// stores hold.
	Output(t testing.TB) []Stored
	DeadLetters(t testing.TB) []Stored
	// Stop stops the broker; Start starts it again over the same store,
	// at the same address.
	Stop(t testing.TB)
	Start(t testing.TB)
	// RecreateInput deletes the input store and makes it again, empty.
	RecreateInput(t testing.TB)
	// StartGate starts a gate on the broker, with a connection of its own.
	StartGate(t testing.TB, o GateOptions) Gate
}

// GateOptions are the options of a gate a check starts.
type GateOptions struct {
	UntilIdle bool
	Batch     int
	// Progress, if not nil, is called as gate.Gate's is.
	Progress func(gate.Stats)
}

// A Gate is a running gate.
type Gate interface {
	// Wait waits for the gate to return, and returns what it did.
	Wait() (gate.Stats, error)
	// Stop stops the gate as SIGINT or SIGTERM does (its context
	// cancelled), and returns what Wait returns.
	Stop() (gate.Stats, error)
	// Kill stops the gate abruptly: its connection closed with messages
	// fetched, copies in flight and acknowledgements unsent.
	Kill()
}

// Go starts a gate in a goroutine and returns it as a Gate, for a
// binding's StartGate: run runs the gate on ctx until it returns, doing
// whatever the binding does after (closing its session, flushing its
// last acknowledgements); Stop cancels ctx. kill cuts the gate's
// connections as a killed process would lose them; Kill calls it, cancels
// ctx, and returns without waiting, as a gate cut off may take a while to
// notice. A gate still running when the test ends is killed, and waited
// for, so that none outlives its test.
func Go(t testing.TB, run func(ctx context.Context) (gate.Stats, error), kill func()) Gate {
	ctx, cancel := context.WithCancel(context.Background())
	g := &running{cancel: cancel, kill: kill, done: make(chan struct{})}
	go func() {
		defer close(g.done)
		g.st, g.err = run(ctx)
	}()
	t.Cleanup(func() {
		select {
		case <-g.done:
		default:
			g.Kill()
			<-g.done
		}
	})
	return g
}

// running is a gate started by Go.
type running struct {
	cancel context.CancelFunc
	kill   func()
	done   chan struct{}
	st     gate.Stats // set before done is closed
	err    error
}

func (g *running) Wait() (gate.Stats, error) {
	<-g.done
	return g.st, g.err
}

func (g *running) Stop() (gate.Stats, error) {
	g.cancel()
	return g.Wait()
}

func (g *running) Kill() {
	g.kill()
	g.cancel()
}

// A Binding is what the suite needs of a binding under test.
type Binding struct {
	// CE names the headers of decision 14 on the broker.
	CE ce.Binding
	// Start starts a broker as cfg says, stopped at the test's end.
	Start func(t testing.TB, cfg Config) Broker
	// Large is the number of messages of the checks that run many (a
	// restart, a kill, a stop); 0 means 2,000.
	Large int
}

// Run runs every check of the contract, each as a subtest.
func Run(t *testing.T, b Binding) {
	if b.Large == 0 {
		b.Large = 2000
	}
	t.Run("OversizedCopyIsDeadLetteredCut", b.oversized)
	t.Run("ReusedIDIsDeadLetteredAndRedeliveryAcknowledged", b.reusedID)
	t.Run("RecreatedInputKeepsEveryDeadLetter", b.recreatedInput)
	t.Run("RefusesToStartWithoutItsStores", b.refusals)
	t.Run("StopSettlesWhatItHolds", b.stop)
	t.Run("WaitsForABrokerDownAtStart", b.downAtStart)
	t.Run("RidesOutABrokerRestart", b.restart)
	t.Run("AnotherGateTakesOverAKilledOne", b.kill)
	t.Run("HostileMessages", b.hostile)
}

// gen makes messages, valid and invalid, of all four schemas.
type gen struct {
	src *rand.ChaCha8 // r's source, and the uuids' reader
	r   *rand.Rand
	ce  ce.Binding
	n   int
}

func newGen(seed uint64, b ce.Binding) *gen {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	src := rand.NewChaCha8(key)
	return &gen{src: src, r: rand.New(src), ce: b}
}

// uuid returns a random version 4 uuid.
func (g *gen) uuid() uuid.UUID { return uuid.Must(uuid.NewRandomFromReader(g.src)) }

func (g *gen) time() time.Time { return time.Unix(1.7e9+g.r.Int64N(1e8), 0).UTC() }

// valid returns a valid message of a random schema.
func (g *gen) valid() catalogue.Message {
	switch g.r.IntN(4) {
	case 0:
		d := device.New()
		d.MessageID, d.DeviceID, d.Time = g.uuid(), g.uuid(), g.time()
		d.SourceID, d.SourceType, d.TenantID, d.ExternalID = "dev-1", "tracker", "club-1", fmt.Sprint("ext-", g.r.IntN(1e6))
		return d
	case 1:
		v := vehicle.New()
		v.MessageID, v.SourceID, v.VehicleID, v.Time = g.uuid(), g.uuid(), g.uuid(), g.time()
		v.TenantID = "club-2"
		return v
	case 2:
		a := association.New()
		a.MessageID, a.AssociationID, a.DeviceID, a.Time = g.uuid(), g.uuid(), g.uuid(), g.time()
		a.SourceID, a.TenantID = "dev-2", "club-3"
		return a
	default:
		e := event.New()
		e.ID, e.Type, e.OccurredAt = g.uuid(), event.TypeCreated, g.time()
		return e
	}
}

// message returns m as an input message with its headers, under a new
// key.
func (g *gen) message(t testing.TB, m catalogue.Message) Message {
	body, err := m.MarshalJSON()
	require.NoError(t, err)
	h := http.Header{}
	require.NoError(t, g.ce.Write(headerOf(h), m))
	return g.keyed(h, body)
}

// keyed returns an input message of h and body under a new key.
func (g *gen) keyed(h http.Header, body []byte) Message {
	g.n++
	key := fmt.Sprintf("k%d-%d", g.r.Uint32(), g.n)
	h.Set(KeyHeader, key)
	return Message{Key: key, Header: h, Body: body}
}

// headerOf adapts an http.Header to ce.Header without canonicalising
// the names, as brokers keep them.
type headerOf http.Header

func (h headerOf) Values(key string) []string { return h[key] }
func (h headerOf) Set(key, value string)      { h[key] = []string{value} }

// mix returns n messages, one in five invalid in one of several ways.
func (g *gen) mix(t testing.TB, n int) (msgs []Message, valid map[string]bool) {
	valid = make(map[string]bool, n)
	for i := range n {
		m := g.message(t, g.valid())
		if i%5 == 4 {
			switch g.r.IntN(4) {
			case 0: // a body that breaks its schema
				m.Body = bytes.Replace(m.Body, []byte(`id":"`), []byte(`id":"x`), 1)
			case 1: // not JSON
				m.Body = m.Body[:len(m.Body)/2]
			case 2: // a header that contradicts the body
				m.Header[g.ce.Prefix+ce.AttrID] = []string{g.uuid().String()}
			default: // no headers, and an event has no message_type
				e := event.New()
				e.ID, e.Type, e.OccurredAt = g.uuid(), event.TypeDeleted, g.time()
				m.Body, _ = e.MarshalJSON()
				m.Header = http.Header{KeyHeader: {m.Key}}
			}
		}
		msgs = append(msgs, m)
		valid[m.Key] = i%5 != 4
	}
	return msgs, valid
}

// keyOf returns the key of the input a stored message came from: its
// KeyHeader, or, for a dead letter that had to drop the headers, the key
// published at its place.
func keyOf(s Stored, places map[gate.Place]string) string {
	if k := s.Header[KeyHeader]; len(k) == 1 {
		return k[0]
	}
	if s.Verdict != nil {
		return places[s.Verdict.Place]
	}
	return ""
}

// ledger is what became of every input, by key.
type ledger struct {
	out, dead map[string][]Stored
}

// account reads the output and the dead letters, and checks that every
// input of msgs is in exactly one of them, but those of redelivered,
// which must be in neither; that nothing else is there; and that valid
// says where each belongs (if not nil).
func account(t testing.TB, b Broker, msgs []Message, places []gate.Place, redelivered map[string]bool, valid map[string]bool) ledger {
	t.Helper()
	at := make(map[gate.Place]string, len(places))
	for i, p := range places {
		at[p] = msgs[i].Key
	}
	l := ledger{out: map[string][]Stored{}, dead: map[string][]Stored{}}
	for _, s := range b.Output(t) {
		k := keyOf(s, at)
		l.out[k] = append(l.out[k], s)
	}
	for _, s := range b.DeadLetters(t) {
		k := keyOf(s, at)
		l.dead[k] = append(l.dead[k], s)
	}
	inputs := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		inputs[m.Key] = true
		n := len(l.out[m.Key]) + len(l.dead[m.Key])
		switch {
		case redelivered[m.Key]:
			assert.Zero(t, n, "%s: a redelivery, yet stored %d times", m.Key, n)
		case n != 1:
			t.Errorf("%s: stored %d times (%d in the output, %d dead letters), want once", m.Key, n, len(l.out[m.Key]), len(l.dead[m.Key]))
		case valid != nil && valid[m.Key] != (len(l.out[m.Key]) == 1):
			t.Errorf("%s: valid %v, yet in the output %v", m.Key, valid[m.Key], len(l.out[m.Key]) == 1)
		}
	}
	for k := range l.out {
		assert.True(t, inputs[k], "%q: in the output, and no input's", k)
	}
	for k := range l.dead {
		assert.True(t, inputs[k], "%q: a dead letter, and no input's", k)
	}
	return l
}

// stored returns the number of messages stored in the ledger.
func (l ledger) stored() int {
	n := 0
	for _, s := range l.out {
		n += len(s)
	}
	for _, s := range l.dead {
		n += len(s)
	}
	return n
}

// A published is a broker and the mix of messages published on it.
type published struct {
	br     Broker
	msgs   []Message
	valid  map[string]bool
	places []gate.Place
}

// publishMix starts a broker with cfg and publishes on it n messages of
// the generator seeded with seed, one in five invalid (see gen.mix).
func (b Binding) publishMix(t *testing.T, cfg Config, seed uint64, n int) published {
	br := b.Start(t, cfg)
	msgs, valid := newGen(seed, b.CE).mix(t, n)
	return published{br: br, msgs: msgs, valid: valid, places: br.Publish(t, msgs)}
}

// account accounts for the messages of p (see account), none of them
// acknowledged as a redelivery.
func (p published) account(t testing.TB) ledger {
	t.Helper()
	return account(t, p.br, p.msgs, p.places, nil, p.valid)
}

// run starts a gate until idle and returns what it did, failing the test
// on an error or if it does not return within a minute.
func run(t testing.TB, b Broker, o GateOptions) gate.Stats {
	t.Helper()
	o.UntilIdle = true
	g := b.StartGate(t, o)
	st, err := waitFor(t, g.Wait, time.Minute)
	require.NoError(t, err)
	return st
}

// waitFor calls wait, failing the test if it does not return within d.
func waitFor(t testing.TB, wait func() (gate.Stats, error), d time.Duration) (gate.Stats, error) {
	t.Helper()
	type result struct {
		st  gate.Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := wait()
		done <- result{st, err}
	}()
	select {
	case r := <-done:
		return r.st, r.err
	case <-time.After(d):
		t.Fatalf("the gate did not return within %v", d)
		return gate.Stats{}, nil
	}
}

// sum adds up stats.
func sum(stats ...gate.Stats) gate.Stats {
	var s gate.Stats
	for _, o := range stats {
		s.Add(o)
	}
	return s
}

// A copy or a dead letter larger than the broker stores is dead-lettered,
// with its verdict, as much of its body as fits, a flag saying it was cut,
// and the original's place; the messages behind it are not held up. The
// original's headers are kept unless they take more than half the room
// (gate.FitDeadLetter): every broker gives the same dead letter, its
// verdict the same flags, for the same input at the same limit.
func (b Binding) oversized(t *testing.T) {
	const limit = 8 << 10
	br := b.Start(t, Config{MaxBytes: limit})
	g := newGen(1, b.CE)
	// A valid device whose body fits in the input, headers and all, and
	// whose copy does not once the gate adds the headers it lacked.
	d := g.valid()
	for d.SchemaName() != device.Name {
		d = g.valid()
	}
	d.(*device.Device).Model = strings.Repeat("m", limit-600)
	big := g.message(t, d)
	for k := range big.Header {
		if k != KeyHeader {
			delete(big.Header, k)
		}
	}
	// An invalid one whose dead letter cannot hold its verdict and its
	// whole body.
	bad := g.keyed(http.Header{}, bytes.Replace(big.Body, []byte(`"message_id":"`), []byte(`"message_id":"x`), 1))
	// An invalid one whose headers take more than half the dead letter's
	// room, and leave too little for its verdict and its whole body.
	d.(*device.Device).Model = strings.Repeat("m", limit*3/10)
	body, err := d.MarshalJSON()
	require.NoError(t, err)
	body = bytes.Replace(body, []byte(`"message_id":"`), []byte(`"message_id":"x`), 1)
	crowded := g.keyed(http.Header{"Gatetest-Pad": {strings.Repeat("p", limit*6/10)}}, body)
	msgs, valid := g.mix(t, 20)
	msgs = append([]Message{big, bad, crowded}, msgs...)
	valid[big.Key], valid[bad.Key], valid[crowded.Key] = false, false, false
	places := br.Publish(t, msgs)
	st := run(t, br, GateOptions{})
	l := account(t, br, msgs, places, nil, valid)
	assert.Equal(t, len(msgs), st.Messages)
	for i, m := range []Message{big, bad} {
		require.Len(t, l.dead[m.Key], 1, m.Key)
		dl := l.dead[m.Key][0]
		v := dl.Verdict
		require.NotNil(t, v)
		assert.False(t, v.HeadersDropped, "%s: its few headers kept", m.Key)
		assert.Equal(t, []string{m.Key}, dl.Header[KeyHeader])
		assert.True(t, v.Truncated, "%s: flagged as cut", m.Key)
		assert.Equal(t, len(m.Body), v.BodySize)
		assert.Less(t, len(dl.Body), len(m.Body))
		assert.Greater(t, len(dl.Body), limit/4, "as much of the body as fits")
		assert.True(t, bytes.HasPrefix(m.Body, dl.Body), "the start of the body")
		assert.Equal(t, places[i], v.Place, "the original's place")
		require.NotEmpty(t, v.Violations)
		if m.Key == big.Key {
			assert.True(t, v.Valid)
			assert.Equal(t, msg.RuleTooLarge, v.Violations[0].Rule)
		} else {
			assert.False(t, v.Valid)
			assert.Equal(t, "/message_id", v.Violations[0].Path)
		}
	}
	require.Len(t, l.dead[crowded.Key], 1)
	dl := l.dead[crowded.Key][0]
	v := dl.Verdict
	require.NotNil(t, v)
	assert.True(t, v.HeadersDropped, "headers that crowd out the verdict and the body")
	assert.Empty(t, dl.Header["Gatetest-Pad"])
	assert.Empty(t, dl.Header[KeyHeader])
	assert.False(t, v.Truncated, "the whole body, once the headers are dropped")
	assert.Zero(t, v.BodySize)
	assert.Equal(t, crowded.Body, dl.Body)
	assert.Equal(t, places[2], v.Place)
	require.NotEmpty(t, v.Violations)
	assert.Equal(t, "/message_id", v.Violations[0].Path)
}

// A different message that reuses the id of one already forwarded is a
// dead letter of rule duplicate_id; an identical one is acknowledged as a
// redelivery, counted as such.
func (b Binding) reusedID(t *testing.T) {
	br := b.Start(t, Config{})
	g := newGen(2, b.CE)
	orig := g.valid()
	for orig.SchemaName() != device.Name {
		orig = g.valid()
	}
	first := g.message(t, orig)
	again := g.keyed(cloneHeader(first.Header), first.Body) // the same message, published again
	other := orig.(*device.Device)
	other.Model = "another"
	impostor := g.message(t, other) // another message under the same id
	msgs, valid := g.mix(t, 10)
	msgs = append(append([]Message{first}, msgs...), again, impostor)
	valid[first.Key], valid[impostor.Key] = true, false
	places := br.Publish(t, msgs)
	st := run(t, br, GateOptions{})
	l := account(t, br, msgs, places, map[string]bool{again.Key: true}, valid)
	assert.Equal(t, 1, st.Redeliveries, "the identical copy")
	assert.Equal(t, len(msgs)-1, st.Messages)
	require.Len(t, l.dead[impostor.Key], 1)
	v := l.dead[impostor.Key][0].Verdict
	require.NotEmpty(t, v.Violations)
	assert.Equal(t, msg.RuleDuplicateID, v.Violations[0].Rule)
	assert.Equal(t, `"`+orig.(*device.Device).MessageID.String()+`"`, v.Violations[0].Value)
	assert.Equal(t, impostor.Body, l.dead[impostor.Key][0].Body)
}

func cloneHeader(h http.Header) http.Header {
	c := h.Clone()
	c.Del(KeyHeader)
	return c
}

// The dead letters of an input made again, whose places are those of the
// first input's messages, are stored beside the first ones.
func (b Binding) recreatedInput(t *testing.T) {
	br := b.Start(t, Config{})
	g := newGen(3, b.CE)
	bad := func(n int) []Message {
		var msgs []Message
		for range n {
			m := g.message(t, g.valid())
			m.Body = m.Body[:len(m.Body)-1] // not JSON
			msgs = append(msgs, m)
		}
		return msgs
	}
	first := bad(5)
	places := br.Publish(t, first)
	run(t, br, GateOptions{})
	br.RecreateInput(t)
	second := bad(5)
	places2 := br.Publish(t, second)
	assert.Equal(t, places, places2, "the second input's messages take the places of the first's")
	st := run(t, br, GateOptions{})
	assert.Equal(t, 5, st.DeadLetters)
	// Both inputs' keys by their header, since their places are the same.
	account(t, br, append(first, second...), nil, nil, nil)
}

// A gate refuses to start, saying why, when it cannot store its output or
// its dead letters, would read them back, or its broker's limit leaves a
// dead letter too little room (below gate.MinLimit).
func (b Binding) refusals(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
		says string
	}{
		{"no output", Config{NoOutput: true}, "output"},
		{"no dead letters", Config{NoDeadLetter: true}, "dead"},
		{"input covers output", Config{InputCoversOutput: true}, "output"},
		{"input covers dead letters", Config{InputCoversDeadLetter: true}, "dead"},
		{"a limit below gate.MinLimit", Config{MaxBytes: gate.MinLimit / 2}, strconv.Itoa(gate.MinLimit)},
	} {
		t.Run(c.name, func(t *testing.T) {
			br := b.Start(t, c.cfg)
			g := newGen(4, b.CE)
			msgs, _ := g.mix(t, 5)
			br.Publish(t, msgs)
			gt := br.StartGate(t, GateOptions{UntilIdle: true})
			st, err := waitFor(t, gt.Wait, 30*time.Second)
			require.ErrorIs(t, err, gate.ErrRefused)
			assert.Contains(t, err.Error(), c.says)
			assert.Equal(t, gate.Stats{}, st)
		})
	}
}

// Stopped as SIGINT and SIGTERM stop it, a gate settles the batches it
// holds and returns its counts; the next gate finds every message where it
// belongs or still to come, none waiting out an acknowledgement.
func (b Binding) stop(t *testing.T) {
	p := b.publishMix(t, Config{AckWait: time.Minute}, 5, b.Large)
	gt := startMidway(t, p.br, len(p.msgs)/4)
	st1, err := waitFor(t, gt.Stop, 30*time.Second)
	require.NoError(t, err)
	assert.Less(t, st1.Messages, len(p.msgs), "stopped midway")
	// AckWait is a minute: what the first gate left unacknowledged would
	// hold up the second past its deadline.
	st2 := run(t, p.br, GateOptions{})
	l := p.account(t)
	total := sum(st1, st2)
	assert.Equal(t, len(p.msgs), total.Messages, "%+v then %+v", st1, st2)
	assert.Equal(t, l.stored(), total.Messages)
	assert.Zero(t, total.Redeliveries, "a graceful stop leaves nothing to come again")
}

// A gate started while its broker is down waits for it, and then gates.
func (b Binding) downAtStart(t *testing.T) {
	p := b.publishMix(t, Config{}, 6, 50)
	p.br.Stop(t)
	gt := p.br.StartGate(t, GateOptions{UntilIdle: true})
	time.Sleep(500 * time.Millisecond)
	p.br.Start(t)
	st, err := waitFor(t, gt.Wait, time.Minute)
	require.NoError(t, err)
	p.account(t)
	assert.Equal(t, len(p.msgs), st.Messages)
}

// A broker restarted while gates run loses nothing and doubles nothing.
func (b Binding) restart(t *testing.T) {
	p := b.publishMix(t, Config{AckWait: 2 * time.Second}, 7, b.Large)
	gt := startMidway(t, p.br, len(p.msgs)/3)
	p.br.Stop(t)
	p.br.Start(t)
	st := settle(t, p.br, gt, len(p.msgs))
	l := p.account(t)
	assert.LessOrEqual(t, st.Messages, l.stored(), "%+v", st)
	assert.GreaterOrEqual(t, st.Messages+st.Redeliveries, l.stored(), "%+v", st)
}

// startMidway starts a gate, and returns once it has stored n messages.
func startMidway(t testing.TB, br Broker, n int) Gate {
	t.Helper()
	var once sync.Once
	progressed := make(chan struct{})
	g := br.StartGate(t, GateOptions{Batch: 64, Progress: func(s gate.Stats) {
		if s.Messages > n {
			once.Do(func() { close(progressed) })
		}
	}})
	select {
	case <-progressed:
	case <-time.After(time.Minute):
		t.Fatal("the gate never got going")
	}
	return g
}

// settle waits for n messages to be stored, and then for the input to be
// idle, and stops gt.
func settle(t testing.TB, br Broker, gt Gate, n int) gate.Stats {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for len(br.Output(t))+len(br.DeadLetters(t)) < n && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	// What would come again comes, and is acknowledged as a redelivery.
	idle := br.StartGate(t, GateOptions{UntilIdle: true})
	st2, err := waitFor(t, idle.Wait, 2*time.Minute)
	require.NoError(t, err)
	st, err := waitFor(t, gt.Stop, time.Minute)
	require.NoError(t, err)
	return sum(st, st2)
}

// A gate killed midway, its copies in flight and acknowledgements unsent,
// leaves its messages to another, which ends each once.
func (b Binding) kill(t *testing.T) {
	p := b.publishMix(t, Config{AckWait: 2 * time.Second}, 8, b.Large)
	victim := startMidway(t, p.br, len(p.msgs)/4)
	other := p.br.StartGate(t, GateOptions{Batch: 64})
	victim.Kill()
	settle(t, p.br, other, len(p.msgs))
	p.account(t)
}

// Hostile messages, each about the size of the broker's default limit and
// as costly to judge as can be, are dead-lettered, cut to fit, their
// verdicts bounded; the ordinary messages beside them pass.
func (b Binding) hostile(t *testing.T) {
	br := b.Start(t, Config{})
	g := newGen(9, b.CE)
	msgs, valid := g.mix(t, 20)
	for _, h := range hostile.Messages() {
		m := g.keyed(http.Header{}, h.Body)
		msgs = append(msgs, m)
		valid[m.Key] = false
	}
	places := br.Publish(t, msgs)
	st := run(t, br, GateOptions{})
	l := account(t, br, msgs, places, nil, valid)
	assert.Equal(t, len(msgs), st.Messages)
	for _, h := range msgs[20:] {
		require.Len(t, l.dead[h.Key], 1)
		v := l.dead[h.Key][0].Verdict
		assert.NotEmpty(t, v.Violations, h.Key)
		j, err := v.Encode(msg.MaxVerdictBytes)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(j), msg.MaxVerdictBytes)
		if v.Truncated {
			assert.True(t, bytes.HasPrefix(h.Body, l.dead[h.Key][0].Body))
		} else {
			assert.Equal(t, h.Body, l.dead[h.Key][0].Body)
		}
	}
}
