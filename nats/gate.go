package nats

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/msg"
)

// A Gate republishes the messages of a JetStream consumer: a valid one to
// Output, with its body as it came and the headers of decision 14 (those
// it came with that agree, and any it lacked), Nats-Msg-Id being its
// message id; an invalid one to DeadLetter (see the package doc). It is
// package gate's Gate over JetStream, which keeps decision 16: every
// message ends forwarded, dead-lettered or acknowledged as a redelivery
// of one already stored.
//
// Each message is acknowledged once its copy is stored. A message whose
// acknowledgement was lost comes again; its copy is then a duplicate
// JetStream drops, and the gate compares the message with the one stored
// under its id: the same body is a redelivery, another body a dead letter
// (rule msg.RuleDuplicateID). This holds as long as the output stream's
// duplicate window (Duplicates) covers the time a message may take to
// come again (the consumer's AckWait and then some), and the stream still
// holds the copy then (see the README).
//
// Several gates may read one durable consumer at once, on as many
// machines: JetStream shares the messages out between them.
type Gate struct {
	// JetStream is the gate's access to JetStream. The gate publishes
	// its copies and dead letters through its connection with a
	// subscription of its own for their acknowledgements, not through
	// its asynchronous publisher (PublishMsgAsync): that one's options
	// (ack and error handlers, its limit of messages in flight, its
	// timeout) do not apply to them. The gate has at most a few batches
	// in flight, and waits for each acknowledgement for ten seconds at
	// most.
	JetStream jetstream.JetStream
	// From is the consumer to read, such as one made with DurableConfig.
	// If it is nil, Run reads the durable consumer Durable of the stream
	// that stores the subject Input, and makes it (DurableConfig) if it
	// is not there.
	From           jetstream.Consumer
	Input, Durable string
	// Output and DeadLetter are the subjects of valid and invalid
	// messages: streams must hold them, and From must not read them.
	Output, DeadLetter string
	// Batch is the most messages to fetch and publish at a time; 0 means
	// 256. A gate takes what is there, up to Batch, and does not wait
	// for a batch to fill.
	Batch int
	// MaxWait is how long to wait for a message when there is none,
	// before asking again (and, with UntilIdle, checking whether
	// anything is left); 0 means a second.
	MaxWait time.Duration
	// UntilIdle makes Run return once the consumer has nothing left to
	// deliver or waiting for an acknowledgement.
	UntilIdle bool
	// Progress, if not nil, is called after every batch with the totals
	// so far, from one goroutine at a time.
	Progress func(GateStats)
	// Log, if not nil, is told of copies JetStream refused and fetches
	// that failed.
	Log *slog.Logger
	// Kinds is the table of the schemas a message may follow; nil means
	// the published catalogue's, catalogue.Kinds.
	Kinds *msg.Kinds
}

// GateStats counts what a gate did (see gate.Stats).
type GateStats = gate.Stats

// ErrRefused is the error of a gate that refuses to start (see Check).
var ErrRefused = gate.ErrRefused

// MinMaxPayload is the smallest message size limit a gate starts with: a
// dead letter must have room for its verdict and some of the body. It is
// every binding's, gate.MinLimit.
const MinMaxPayload = gate.MinLimit

// Run checks that the gate can work (see Check) and runs it until ctx is
// done, or with UntilIdle until nothing is left, and returns what it did.
// Errors talking to the server (it down at start, or restarting) are
// waited out with back-off, and logged, not returned: the messages
// involved come again. It returns an error wrapping ErrRefused if the
// gate cannot work, and an error if From is deleted (its stream deleted
// or made again, say).
func (g *Gate) Run(ctx context.Context) (GateStats, error) {
	b := &jsBroker{g: g, js: g.JetStream}
	defer b.acks.close()
	defer b.closePuller()
	core := gate.Gate{Broker: b, Binding: ce.NATS, Kinds: g.Kinds,
		Batch: g.Batch, UntilIdle: g.UntilIdle, Progress: g.Progress, Log: g.Log}
	return core.Run(ctx)
}

// Check checks what Run checks before it starts, and returns an error
// wrapping ErrRefused, saying why, if the gate cannot work: no stream
// stores Output or DeadLetter, they are one subject or have wildcards,
// From reads either of them (the gate would read its own copies), From
// would drop messages the gate has not stored (an ack policy other than
// explicit, a MaxDeliver), a stream would hold its copies or store them
// twice (no_ack, sealed, a duplicate window shorter than From's
// AckWait), or the server's limit on a message (max_payload), or a
// stream's, is below MinMaxPayload. Any other error is one asking the
// server.
func (g *Gate) Check(ctx context.Context) error {
	return (&jsBroker{g: g, js: g.JetStream}).Start(ctx)
}

// Start checks the gate, and reads what the broker needs to run it.
func (b *jsBroker) Start(ctx context.Context) error {
	g := b.g
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
	}
	if g.Output == "" || g.DeadLetter == "" {
		return refuse("no output or dead-letter subject")
	}
	// The operator's mistakes first, before the server is asked anything
	// or a consumer is made on it.
	outs := [...]struct{ what, subject string }{{"output", g.Output}, {"dead-letter", g.DeadLetter}}
	// readsOwn refuses an input, read by filters, that covers the subject
	// of out.
	readsOwn := func(filters []string, out struct{ what, subject string }) error {
		for _, f := range filters {
			if subjectsOverlap(f, out.subject) {
				return refuse("the input %s covers the %s subject %s: the gate would read its own copies", f, out.what, out.subject)
			}
		}
		return nil
	}
	for _, out := range outs {
		if !literal(out.subject) {
			return refuse("the %s subject %q is not one subject to publish to (a wildcard, a space or an empty token)", out.what, out.subject)
		}
		if g.From == nil {
			if err := readsOwn([]string{g.Input}, out); err != nil {
				return err
			}
		}
	}
	if g.Output == g.DeadLetter {
		return refuse("the output is the dead-letter subject %s: valid messages and dead letters would be mixed", g.Output)
	}
	if !g.JetStream.Conn().IsConnected() {
		return errors.New("nats: not connected")
	}
	// The output and the dead letters next, before a consumer is made.
	window, err := b.outputs(ctx, refuse)
	if err != nil {
		return err
	}
	// A message comes again after AckWait when its acknowledgement is
	// lost: its copy must still be known then (see the README).
	short := func(ackWait time.Duration) error {
		if window.d < ackWait {
			return refuse("the %s stream %s has a duplicate window of %v, shorter than the input consumer's AckWait %v: a message that comes again would be stored twice", window.what, window.stream, window.d, ackWait)
		}
		return nil
	}
	named := g.From == nil // by Input and Durable
	if named {
		stream, err := g.JetStream.StreamNameBySubject(ctx, g.Input)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return refuse("no stream stores the input subject %s", g.Input)
		}
		if err != nil {
			return fmt.Errorf("nats: finding the stream of the input subject %s: %w", g.Input, err)
		}
		g.From, err = g.JetStream.Consumer(ctx, stream, g.Durable)
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			cfg := DurableConfig(g.Durable, g.Input)
			if err := short(cfg.AckWait); err != nil {
				return err
			}
			g.From, err = g.JetStream.CreateConsumer(ctx, stream, cfg)
		}
		if errors.Is(err, jetstream.ErrInvalidConsumerName) {
			return refuse("%v", err)
		}
		if errors.Is(err, jetstream.ErrNotPullConsumer) {
			return refuse("the durable consumer %s pushes its messages: a gate pulls them", g.Durable)
		}
		if err != nil {
			return fmt.Errorf("nats: reading or making the input consumer %s: %w", g.Durable, err)
		}
	}
	info, err := g.From.Info(ctx)
	if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
		if g.Input == "" {
			return refuse("the input consumer is gone: %v", err)
		}
		// Deleted since it was found or made: find or make it again,
		// the next time.
		g.From = nil
	}
	if err != nil {
		return fmt.Errorf("nats: reading the input consumer: %w", err)
	}
	// A consumer that takes a message for acknowledged, or stops
	// delivering it, before the gate has stored it would drop it in
	// silence (decision 16).
	if info.Config.AckPolicy != jetstream.AckExplicitPolicy {
		return refuse("the input consumer %s does not have each message acknowledged (ack policy %s): it would take messages the gate has not stored for done", info.Name, info.Config.AckPolicy)
	}
	if info.Config.MaxDeliver > 0 {
		return refuse("the input consumer %s stops delivering a message after MaxDeliver %d deliveries: a message the gate could not store yet would wait in its stream for ever (make it -1)", info.Name, info.Config.MaxDeliver)
	}
	if err := short(info.Config.AckWait); err != nil {
		return err
	}
	in, err := g.JetStream.Stream(ctx, info.Stream)
	if err != nil {
		return fmt.Errorf("nats: reading the input stream: %w", err)
	}
	inInfo := in.CachedInfo()
	filters := slices.Clip(info.Config.FilterSubjects)
	if info.Config.FilterSubject != "" {
		filters = append(filters, info.Config.FilterSubject)
	}
	if len(filters) == 0 {
		filters = inInfo.Config.Subjects
	}
	// A durable the operator made reads what it was made to read: if that
	// is not Input, the gate would read other messages than it was told
	// to, in silence.
	if named && !slices.Equal(filters, []string{g.Input}) {
		g.From = nil
		return refuse("the durable consumer %s reads %s, not the input %s: name its subject as the input, or another durable", g.Durable, strings.Join(filters, " "), g.Input)
	}
	for _, out := range outs {
		if err := readsOwn(filters, out); err != nil {
			return err
		}
	}
	b.incarnation = incarnation(inInfo)
	if b.pull == nil || b.pull.subject != pullSubject(g.JetStream, info) {
		b.closePuller()
		b.pull = newPuller(g.JetStream, info)
	}
	return nil
}

// window is the shorter duplicate window of the output and dead-letter
// streams, and which it is.
type window struct {
	what, stream string
	d            time.Duration
}

// outputs finds the output and dead-letter streams and reads their
// limits, and returns the shorter of their duplicate windows; or an
// error made by refuse if one would hold or drop the gate's messages.
func (b *jsBroker) outputs(ctx context.Context, refuse func(string, ...any) error) (window, error) {
	g := b.g
	maxPayload := int(g.JetStream.Conn().MaxPayload())
	var w window
	for _, out := range []struct {
		what, subject string
		stream        *jetstream.Stream
		limit         *int
	}{{"output", g.Output, &b.out, &b.outLimit}, {"dead-letter", g.DeadLetter, &b.dead, &b.deadLimit}} {
		name, err := g.JetStream.StreamNameBySubject(ctx, out.subject)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return w, refuse("no stream stores the %s subject %s", out.what, out.subject)
		}
		if err != nil {
			return w, fmt.Errorf("nats: finding the stream of the %s subject %s: %w", out.what, out.subject, err)
		}
		if *out.stream, err = g.JetStream.Stream(ctx, name); err != nil {
			return w, fmt.Errorf("nats: reading the %s stream %s: %w", out.what, name, err)
		}
		cfg := (*out.stream).CachedInfo().Config
		*out.limit = streamLimit(cfg, maxPayload)
		switch {
		case *out.limit < MinMaxPayload:
			return w, refuse("the %s stream %s stores messages of at most %d bytes, below %d", out.what, name, *out.limit, MinMaxPayload)
		case cfg.NoAck:
			return w, refuse("the %s stream %s does not acknowledge what it stores (no_ack): the gate would wait for it for ever", out.what, name)
		case cfg.Sealed:
			return w, refuse("the %s stream %s is sealed: it stores nothing more", out.what, name)
		}
		if w.stream == "" || cfg.Duplicates < w.d {
			w = window{out.what, name, cfg.Duplicates}
		}
	}
	b.deadNow.Store(0)
	return w, nil
}

// streamLimit returns the size of the largest message a stream of
// configuration cfg stores, on a server whose limit is maxPayload.
func streamLimit(cfg jetstream.StreamConfig, maxPayload int) int {
	if m := int(cfg.MaxMsgSize); m > 0 {
		return min(m, maxPayload)
	}
	return maxPayload
}

// incarnation names one life of a stream: its name and the time it was
// made, so that the dead letters of a stream deleted and made again,
// whose sequences start again at 1, are not taken for those of the first.
func incarnation(info *jetstream.StreamInfo) string {
	return info.Config.Name + "@" + info.Created.UTC().Format(time.RFC3339Nano)
}

// literal reports whether subject is one a message can be published to:
// tokens without wildcards or white space, none of them empty.
func literal(subject string) bool {
	for _, t := range strings.Split(subject, ".") {
		if t == "" || t == "*" || t == ">" || strings.ContainsAny(t, " \t\r\n") {
			return false
		}
	}
	return true
}

// subjectsOverlap reports whether a message could match both subject
// patterns a and b (with NATS's wildcards: * one token, > the rest).
func subjectsOverlap(a, b string) bool {
	at, bt := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; ; i++ {
		switch {
		case i == len(at) || i == len(bt):
			return len(at) == len(bt)
		case at[i] == ">" || bt[i] == ">":
			return true
		case at[i] != "*" && bt[i] != "*" && at[i] != bt[i]:
			return false
		}
	}
}

// jsBroker adapts JetStream to gate.Broker.
type jsBroker struct {
	g                   *Gate
	js                  jetstream.JetStream
	out, dead           jetstream.Stream
	outLimit, deadLimit int
	incarnation         string
	// refused says that the server refused a copy or a dead letter as
	// too large for its stream, and deadNow is the dead-letter stream's
	// limit read again then (see readLimits); 0 until it is.
	refused atomic.Bool
	deadNow atomic.Int64
	pull    *puller // of From

	acks acks // of what it publishes
	mu   sync.Mutex
	free []*outgoing // to reuse (see jsBroker.outgoing)
}

// delivery is a message as JetStream delivered it. Its metadata is read
// from its reply subject only when asked for: a message forwarded needs
// none.
type delivery struct {
	m  pulled
	md *natsgo.MsgMetadata
}

// pulled is a message as the gate pulled it, read through the methods
// of jetstream.Msg that the gate uses.
type pulled struct{ *natsgo.Msg }

func (m pulled) Headers() natsgo.Header { return m.Header }
func (m pulled) Data() []byte           { return m.Msg.Data }

func (d *delivery) Header() ce.Header  { return d.m.Header }
func (d *delivery) Body() []byte       { return d.m.Msg.Data }
func (d *delivery) Deliveries() uint64 { return d.metadata().NumDelivered }
func (d *delivery) Place() gate.Place {
	md := d.metadata()
	return gate.Place{Subject: d.m.Subject, Stream: md.Stream, Sequence: md.Sequence.Stream}
}

// metadata returns the message's metadata. Fetch delivers only messages
// with a reply subject to read it from.
func (d *delivery) metadata() *natsgo.MsgMetadata {
	if d.md == nil {
		d.md, _ = d.m.Metadata()
		if d.md == nil {
			d.md = new(natsgo.MsgMetadata)
		}
	}
	return d.md
}

func (b *jsBroker) Fetch(ctx context.Context, max int, wait bool) ([]gate.Delivery, error) {
	msgs, err := b.pull.fetch(max, wait, orDefaultDuration(b.g.MaxWait, time.Second))
	if len(msgs) == 0 && err != nil {
		return nil, consumerGone(err)
	}
	// A message that came before an error is the gate's: the error, if
	// it lasts, comes again with the next fetch.
	var ds []gate.Delivery
	if len(msgs) > 0 {
		all := make([]delivery, len(msgs)) // the batch's deliveries, in one allocation
		ds = make([]gate.Delivery, len(msgs))
		for i, m := range msgs {
			all[i].m = pulled{m}
			ds[i] = &all[i]
		}
	}
	if len(ds) == 0 && wait {
		// Nothing came for a while. A pull from a consumer that is gone
		// finds no one to answer it and looks the same: ask.
		if _, err := b.g.From.Info(ctx); err != nil {
			return nil, consumerGone(err)
		}
	}
	return ds, nil
}

// consumerGone marks as fatal the error of a fetch from a consumer that
// no longer exists.
func consumerGone(err error) error {
	if errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
		return gate.Fatal(fmt.Errorf("nats: the input consumer is gone (its stream deleted or made again?): %w", err))
	}
	return err
}

// The limits read at start (Start) may be above the server's: one
// restarted with a smaller max_payload, which nats.go then holds its
// messages to (natsgo.ErrMaxPayload). Forward and DeadLetter follow it:
// a copy above it is too large, and a dead letter is cut to it.

func (b *jsBroker) Forward(gd gate.Delivery, id msg.Identity) (gate.Pending, error) {
	if b.refused.Swap(false) {
		b.readLimits()
	}
	o, err := b.copyOf(gd.(*delivery), id)
	if err != nil {
		return nil, err
	}
	p, err := b.publish(o, b.out)
	if errors.Is(err, natsgo.ErrMaxPayload) {
		return nil, gate.TooLarge(headerSize(o.m.Header)+len(o.m.Data), int(b.js.Conn().MaxPayload()))
	}
	return p, err
}

func (b *jsBroker) DeadLetter(gd gate.Delivery, v gate.Verdict) (gate.Pending, error) {
	limit := b.deadLimit
	if now := int(b.deadNow.Load()); now > 0 {
		limit = now
	}
	p, err := b.deadLetter(gd.(*delivery), v, limit)
	if errors.Is(err, natsgo.ErrMaxPayload) {
		p, err = b.deadLetter(gd.(*delivery), v, min(limit, int(b.js.Conn().MaxPayload())))
	}
	return p, err
}

// readLimits reads the output and dead-letter streams' limits on a
// message again, after the server refused a copy or a dead letter as
// larger than one of them allows (its limit lowered, or the stream made
// again with a smaller one, since Start read them): the message comes
// again, and is then dead-lettered, or its dead letter cut, to fit.
// Forward calls it, from the one goroutine that calls Forward: the
// output's limit is read there only.
func (b *jsBroker) readLimits() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	limit := func(s jetstream.Stream, was int) int {
		info, err := s.Info(ctx)
		if err != nil {
			return was // asked again after the next refusal
		}
		return streamLimit(info.Config, int(b.js.Conn().MaxPayload()))
	}
	b.outLimit = limit(b.out, b.outLimit)
	b.deadNow.Store(int64(limit(b.dead, b.deadLimit)))
}

// sizeWatch is the Pending of a copy or dead letter, which tells its
// broker when the server refused it as too large for its stream.
type sizeWatch struct{ *outgoing }

func (w sizeWatch) Wait(ctx context.Context) (gate.Stored, error) {
	s, err := w.outgoing.Wait(ctx)
	if errors.Is(err, jetstream.ErrStreamMessageExceedsMaximum) {
		w.broker.refused.Store(true)
	}
	return s, err
}

// deadLetter publishes the dead letter of d, with verdict v, cut to
// limit bytes.
func (b *jsBroker) deadLetter(d *delivery, v gate.Verdict, limit int) (gate.Pending, error) {
	o, err := b.deadLetterOf(d, v, limit)
	if err != nil {
		return nil, err
	}
	return b.publish(o, b.dead)
}

// deadLetterOf returns the dead letter of d (see deadLetter), its headers
// in the outgoing's own map.
func (b *jsBroker) deadLetterOf(d *delivery, v gate.Verdict, limit int) (*outgoing, error) {
	o := b.outgoing()
	if o.dead == nil {
		o.dead = make(natsgo.Header, 8)
	}
	clear(o.dead)
	var err error
	if o.m, err = deadLetter(b.g.DeadLetter, d.m, v, b.incarnation, limit, o.dead); err != nil {
		o.release()
		return nil, err
	}
	return o, nil
}

// publish starts publishing o to stream. An outgoing whose publishing
// failed is not reused.
func (b *jsBroker) publish(o *outgoing, stream jetstream.Stream) (gate.Pending, error) {
	o.stream = stream
	if err := b.acks.publish(b.js.Conn(), o); err != nil {
		return nil, err
	}
	return sizeWatch{o}, nil
}

// DecodeIdentity judges d as judge says, borrowing from its body: the
// gate is done with the message before it acknowledges d.
func (b *jsBroker) DecodeIdentity(kinds *msg.Kinds, gd gate.Delivery) (msg.Message, msg.Identity, error) {
	return judge(ce.NATS.Borrowing(), kinds, gd.(*delivery).m.Msg)
}

// judge decodes m as binding does (ce.NATS, borrowing or not), and
// besides finds the headers that cannot be passed on, each a violation
// of rule header: headers nats.go could not read, which it hands over as
// none, so that the message would be judged, and forwarded, without them;
// header names it will not publish, which would make the copy and the
// dead letter fail for ever; and a header of decision 14 in another case
// (CE-ID), which a reader that ignores case could take for the one
// checked. The message is then a dead letter, its headers what of them
// can be read, such names percent-escaped (forwardHeaders). The gate and
// the Consumer judge alike.
func judge(binding ce.Binding, kinds *msg.Kinds, in *natsgo.Msg) (msg.Message, msg.Identity, error) {
	// A message whose headers hold none of decision 14's (onlyMsgID) is
	// judged as one without headers, which it is to ce.NATS: its seven
	// look-ups saved.
	bare := onlyMsgID(in.Header)
	var h ce.Header
	if !bare {
		h = in.Header
	}
	m, id, err := binding.DecodeIdentity(kinds, h, in.Data)
	var bad []*msg.Violation
	if unreadableHeaders(in) {
		bad = append(bad, &msg.Violation{Rule: msg.RuleHeader, Message: "its headers cannot be read: not a NATS header block"})
	}
	var names []string
	if !bare { // a Nats-Msg-Id alone is a name NATS publishes, none of decision 14's
		for k := range in.Header {
			if !validKey(k) || ce.NATS.HeaderInOtherCase(k) != "" {
				names = append(names, k)
			}
		}
	}
	slices.Sort(names)
	for _, k := range names {
		q, _ := json.Marshal(k)
		why := "not a header name NATS publishes"
		if name := ce.NATS.HeaderInOtherCase(k); name != "" {
			why = "the header " + name + " in another case: a reader that ignores case could take it for the one checked"
		}
		bad = append(bad, &msg.Violation{Rule: msg.RuleHeader, Message: why, Value: string(q)})
	}
	if bad == nil {
		return m, id, err
	}
	if e, ok := errors.AsType[*msg.Error](err); ok {
		e.Violations = append(e.Violations, bad...)
		return m, id, e
	}
	return m, id, &msg.Error{Violations: bad}
}

// closePuller ends the subscription of the puller, if there is one.
func (b *jsBroker) closePuller() {
	if b.pull != nil {
		b.pull.close()
	}
}

func (b *jsBroker) Ack(d gate.Delivery) error { return d.(*delivery).m.Ack() }

func (b *jsBroker) Retry(gd gate.Delivery) {
	d := gd.(*delivery)
	d.m.NakWithDelay(retryDelay(d.Deliveries()))
}

// retryDelay is how long a message whose copy could not be stored waits
// before it comes again, after its nth delivery: 50 ms, doubling up to
// 5 s, so that a server that refuses every copy (its stream gone, say) is
// not asked again at once for ever.
func retryDelay(n uint64) time.Duration {
	return min(5*time.Second, 50*time.Millisecond<<min(n-1, 10))
}

func (b *jsBroker) State(ctx context.Context) gate.State {
	info, err := b.g.From.Info(ctx)
	switch {
	case err != nil:
		return gate.AcksAwaited
	case info.NumPending > 0:
		return gate.Waiting
	case info.NumAckPending > 0:
		return gate.AcksAwaited
	}
	return gate.Idle
}

// orDefaultDuration returns d, or def if d is 0.
func orDefaultDuration(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
