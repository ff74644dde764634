package nats

import (
	"cmp"
	"context"
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
// or made again, say), or if the server denies the gate's credentials a
// right it needs (to publish to Output or DeadLetter, or to read the
// output stream), the messages involved left to come again.
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
// From reads either of them, or their streams republish what they store
// to a subject From reads, or From's stream sources them onto one (the
// gate would read its own copies), or stores them, From would drop messages the gate has
// not stored (an ack policy other than explicit, a MaxDeliver), deliver
// them without their bodies (HeadersOnly) or refuse its requests
// (priority groups), a stream would hold its copies or
// store them twice (no_ack, sealed, a counter, a duplicate window
// shorter than From's AckWait), the server's limit on a message (max_payload), or a
// stream's, is below MinMaxPayload, or the server denies the gate's
// credentials reading the output stream's messages (which the gate
// compares a message reusing an id with). Any other error is one asking
// the server.
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
	if g.From == nil && !pattern(g.Input) {
		return refuse("the input subject %q is not a subject to read (a space, an empty token, or > before its end)", g.Input)
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
	if err := b.canRead(ctx); err != nil {
		return refuse("%v", err)
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
		in, err := g.JetStream.Stream(ctx, stream)
		if err != nil {
			return fmt.Errorf("nats: reading the input stream %s: %w", stream, err)
		}
		if err := b.feedsBack([]string{g.Input}, in.CachedInfo().Config, refuse); err != nil {
			return err
		}
		if err := b.storedWithInput(stream, refuse); err != nil {
			return err
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
	if err := unfit(info, refuse); err != nil {
		return err
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
	if !named { // checked above, before the consumer was made
		if err := b.feedsBack(filters, inInfo.Config, refuse); err != nil {
			return err
		}
		if err := b.storedWithInput(inInfo.Config.Name, refuse); err != nil {
			return err
		}
	}
	b.incarnation = incarnation(inInfo)
	if b.pull == nil || b.pull.subject != pullSubject(g.JetStream, info) {
		b.closePuller()
		b.pull = newPuller(g.JetStream, g.From, info)
	} else {
		// The same consumer: its limits as they are now.
		b.pull.cons = g.From
		b.pull.setLimits(info.Config)
	}
	return nil
}

// unfit returns an error made by refuse if the consumer of info would
// drop messages, or hold them, whatever the gate does: Start refuses
// such a consumer, and Fetch stops the gate whose consumer is changed
// to one.
func unfit(info *jetstream.ConsumerInfo, refuse func(string, ...any) error) error {
	// A consumer that takes a message for acknowledged, or stops
	// delivering it, before the gate has stored it would drop it in
	// silence (decision 16).
	c := info.Config
	switch {
	case c.AckPolicy != jetstream.AckExplicitPolicy:
		return refuse("the input consumer %s does not have each message acknowledged (ack policy %s): it would take messages the gate has not stored for done", info.Name, c.AckPolicy)
	case c.MaxDeliver > 0:
		return refuse("the input consumer %s stops delivering a message after MaxDeliver %d deliveries: a message the gate could not store yet would wait in its stream for ever (make it -1)", info.Name, c.MaxDeliver)
	case c.HeadersOnly:
		return refuse("the input consumer %s delivers headers only: the gate would judge, and dead-letter, every message without its body", info.Name)
	case len(c.PriorityGroups) > 0:
		// Every request must name one of them, which the gate's do not:
		// the consumer would refuse each.
		return refuse("the input consumer %s has priority groups (%s): a gate's requests name none", info.Name, strings.Join(c.PriorityGroups, " "))
	}
	return nil
}

// feedsBack returns an error made by refuse if what the gate stores in
// the output or dead-letter stream would come back to its input, read by
// filters from a stream of configuration in, otherwise than by its
// subject (see Start's readsOwn): republished by the stream that stores
// it (RePublish), or sourced or mirrored by the input stream, onto a
// subject the input reads. A dead letter would come back, be
// dead-lettered again under another id, and come back again, for ever.
func (b *jsBroker) feedsBack(filters []string, in jetstream.StreamConfig, refuse func(string, ...any) error) error {
	covered := func(subject string) string {
		for _, f := range filters {
			if subjectsOverlap(f, subject) {
				return f
			}
		}
		return ""
	}
	sources := slices.Clip(in.Sources)
	if in.Mirror != nil {
		sources = append(sources, in.Mirror)
	}
	for _, out := range []struct {
		what, subject string
		cfg           jetstream.StreamConfig
	}{{"output", b.g.Output, b.out.CachedInfo().Config}, {"dead-letter", b.g.DeadLetter, b.dead.CachedInfo().Config}} {
		if rp := out.cfg.RePublish; rp != nil && subjectsOverlap(cmp.Or(rp.Source, ">"), out.subject) {
			if f := covered(destination(rp.Destination)); f != "" {
				return refuse("the %s stream %s republishes what it stores to %s, which the input %s covers: the gate would read its own copies", out.what, out.cfg.Name, rp.Destination, f)
			}
		}
		for _, src := range sources {
			if src == nil || src.Name != out.cfg.Name || src.External != nil {
				continue
			}
			for _, to := range landing(src, out.subject) {
				if f := covered(to); f != "" {
					return refuse("the input stream %s sources the %s stream %s onto %s, which the input %s covers: the gate would read its own copies", in.Name, out.what, out.cfg.Name, to, f)
				}
			}
		}
	}
	return nil
}

// storedWithInput returns an error made by refuse if the input stream,
// named in, stores the output or the dead letters too. One duplicate
// window would then hold the input's ids and the gate's: a copy's
// Nats-Msg-Id is its message's id, which a Publisher gives the message
// too, so that the stream would take each copy for a duplicate of the
// message it copies, and the gate would acknowledge the message as a
// redelivery, never forwarded; and a producer could give its message
// the Nats-Msg-Id of a dead letter to come, which the stream would drop.
func (b *jsBroker) storedWithInput(in string, refuse func(string, ...any) error) error {
	for _, out := range []struct {
		what, subject string
		stream        jetstream.Stream
	}{{"output", b.g.Output, b.out}, {"dead-letter", b.g.DeadLetter, b.dead}} {
		if out.stream.CachedInfo().Config.Name == in {
			return refuse("the %s subject %s is stored by the input stream %s: its duplicate window would take the gate's messages for its input's", out.what, out.subject, in)
		}
	}
	return nil
}

// landing returns the subjects onto which a stream that sources src (or
// mirrors it) stores its messages of subject: those its transforms give
// them, or subject itself if it has none and its filter takes them.
func landing(src *jetstream.StreamSource, subject string) []string {
	if len(src.SubjectTransforms) == 0 {
		if src.FilterSubject == "" || subjectsOverlap(src.FilterSubject, subject) {
			return []string{subject}
		}
		return nil
	}
	var to []string
	for _, t := range src.SubjectTransforms {
		if subjectsOverlap(t.Source, subject) {
			to = append(to, cmp.Or(destination(t.Destination), subject))
		}
	}
	return to
}

// destination returns the destination of a subject transform as a
// pattern of the subjects it makes: a token that a mapping function
// makes ({{wildcard(1)}}, $1) a wildcard, since it may be anything, and
// one that may make several ({{split(1,-)}}) the rest.
func destination(d string) string {
	tokens := strings.Split(d, ".")
	for i, t := range tokens {
		if strings.Contains(t, "{{") || strings.HasPrefix(t, "$") {
			if strings.Contains(strings.ToLower(t), "split") {
				return strings.Join(append(tokens[:i], ">"), ".")
			}
			tokens[i] = "*"
		}
	}
	return strings.Join(tokens, ".")
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
		case cfg.AllowMsgCounter:
			return w, refuse("the %s stream %s is a counter: it stores only messages that add to it (Nats-Incr)", out.what, name)
		}
		if w.stream == "" || cfg.Duplicates < w.d {
			w = window{out.what, name, cfg.Duplicates}
		}
	}
	b.deadNow.Store(0)
	return w, nil
}

// canRead checks that the gate may read the output stream's messages,
// as it reads the copy stored under an id to compare it with a message
// that reuses the id (sizeWatch): it reads the last one, if any. It
// returns an error if the server denies it that (a permissions
// violation), and nil otherwise: any other failure is the next
// comparison's.
func (b *jsBroker) canRead(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	seq := max(b.out.CachedInfo().State.LastSeq, 1)
	if _, err := b.out.GetMsg(ctx, seq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		return b.deniedReading(err)
	}
	return nil
}

// deniedReading returns an error saying so if err, the error of reading
// a message of the output stream, is the server's denial; nil otherwise.
// The server denies a request by an error of the connection, and never
// answers it: the request's error is its time running out.
func (b *jsBroker) deniedReading(err error) error {
	name := b.out.CachedInfo().Config.Name
	for _, api := range []string{"MSG.GET." + name, "DIRECT.GET." + name} {
		if d := denied(b.js.Conn(), err, api); d != nil {
			return fmt.Errorf("nats: the gate may not read the output stream %s, and could not tell a message that comes again from another reusing its id: %w", name, d)
		}
	}
	return nil
}

// denied returns the permissions violation that made a request or a
// publication to subject fail with err, if the connection's last error
// is one, for subject or a subject beneath it.
func denied(nc *natsgo.Conn, err error, subject string) error {
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, natsgo.ErrTimeout) && !errors.Is(err, jetstream.ErrAsyncPublishTimeout) {
		return nil
	}
	last := nc.LastError()
	if !errors.Is(last, natsgo.ErrPermissionViolation) {
		return nil
	}
	if text := last.Error(); strings.Contains(text, "."+subject+`"`) || strings.Contains(text, "."+subject+".") || strings.Contains(text, `"`+subject+`"`) {
		return last
	}
	return nil
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
	return pattern(subject) && !slices.ContainsFunc(strings.Split(subject, "."), func(t string) bool { return t == "*" || t == ">" })
}

// pattern reports whether subject is one a consumer can read: tokens
// without white space, none of them empty, and > only as the last.
func pattern(subject string) bool {
	tokens := strings.Split(subject, ".")
	for i, t := range tokens {
		if t == "" || t == ">" && i < len(tokens)-1 || strings.ContainsAny(t, " \t\r\n") {
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
	// lost is the error of a right the server denies the gate since it
	// started (to publish its copies or dead letters, to read its
	// output): the next Fetch stops the gate with it, rather than leave
	// every message to come again for ever.
	lost atomic.Pointer[error]

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
	if lost := b.lost.Load(); lost != nil {
		return nil, gate.Fatal(*lost)
	}
	msgs, err := b.pull.fetch(max, wait, orDefaultDuration(b.g.MaxWait, time.Second))
	if len(msgs) == 0 && err != nil {
		return nil, b.fatal(ctx, err)
	}
	// A message that came before an error is the gate's: the error, if
	// it lasts, comes again with the next fetch.
	var ds []gate.Delivery
	if len(msgs) > 0 {
		all := make([]delivery, len(msgs)) // the batch's deliveries, in one allocation
		ds = make([]gate.Delivery, len(msgs))
		for i, m := range msgs {
			if m.Subject == b.g.Output || m.Subject == b.g.DeadLetter {
				return nil, b.feedingBack(m.Subject)
			}
			all[i].m = pulled{m}
			ds[i] = &all[i]
		}
	}
	if len(ds) == 0 && wait {
		// Nothing came for a while. A pull from a consumer that is gone
		// finds no one to answer it and looks the same: ask; and check
		// that it was not changed to one that Start refuses.
		info, err := b.g.From.Info(ctx)
		if err != nil {
			return nil, b.fatal(ctx, err)
		}
		if err := unfit(info, changed); err != nil {
			return nil, gate.Fatal(err)
		}
	}
	return ds, nil
}

// changed makes the error of a consumer changed under the gate to one
// Start refuses (see unfit).
func changed(format string, args ...any) error {
	return fmt.Errorf("nats: changed while the gate ran: "+format, args...)
}

// feedingBack returns the error that stops a gate whose input brought
// back a message of the output or dead-letter subject: its consumer
// changed, since the gate started, to read it (Start refuses one that
// does). Each of its dead letters would come back and be dead-lettered
// again, under another id, for ever. The messages of the batch come
// again after AckWait, to a gate whose consumer is mended.
func (b *jsBroker) feedingBack(subject string) error {
	what := "output"
	if subject == b.g.DeadLetter {
		what = "dead-letter"
	}
	return gate.Fatal(fmt.Errorf("nats: the input brought back a message of the %s subject %s: its consumer reads what the gate stores, and the gate would read its own copies", what, subject))
}

// fatal marks as fatal the error of a fetch that no other can follow:
// from a consumer that no longer exists, or on a connection closed for
// good while the gate runs (nats.go closes it on an error of the server
// it cannot go on from, such as a message above a restarted server's
// smaller max_payload, published into the reconnection).
func (b *jsBroker) fatal(ctx context.Context, err error) error {
	if errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
		return gate.Fatal(fmt.Errorf("nats: the input consumer is gone (its stream deleted or made again?): %w", err))
	}
	if errors.Is(err, natsgo.ErrConnectionClosed) && ctx.Err() == nil {
		if why := b.js.Conn().LastError(); why != nil {
			err = fmt.Errorf("%w (%v)", err, why)
		}
		return gate.Fatal(err)
	}
	return err
}

// errReconnecting is the error of a copy or a dead letter that Forward
// or DeadLetter does not publish while the client reconnects: nats.go
// would keep it to send once connected again, before it learns the
// server's limit, and a server restarted with a smaller max_payload
// closes the connection for good on a message above it. Its message
// comes again instead.
var errReconnecting = errors.New("nats: not connected to the server")

// The limits read at start (Start) may be above the server's: one
// restarted with a smaller max_payload, which nats.go then holds its
// messages to (natsgo.ErrMaxPayload). Forward and DeadLetter follow it:
// a copy above it is too large, and a dead letter is cut to it.

func (b *jsBroker) Forward(gd gate.Delivery, id msg.Identity) (gate.Pending, error) {
	if !b.js.Conn().IsConnected() {
		return nil, errReconnecting
	}
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
	if !b.js.Conn().IsConnected() {
		return nil, errReconnecting
	}
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
	b, subject := w.broker, w.m.Subject
	s, err := w.outgoing.Wait(ctx)
	if errors.Is(err, jetstream.ErrStreamMessageExceedsMaximum) {
		b.refused.Store(true)
	}
	if err != nil {
		what := "output"
		if subject == b.g.DeadLetter {
			what = "dead-letter"
		}
		if d := denied(b.js.Conn(), err, subject); d != nil {
			b.lose(fmt.Errorf("nats: the gate may not publish to the %s subject %s: %w", what, subject, d))
		}
	}
	if s.Previous != nil {
		previous := s.Previous
		s.Previous = func(ctx context.Context) ([]byte, error) {
			body, err := previous(ctx)
			if d := b.deniedReading(err); d != nil {
				b.lose(d)
			}
			return body, err
		}
	}
	return s, err
}

// lose records err, the error of a right the server denies the gate, to
// stop it with.
func (b *jsBroker) lose(err error) { b.lost.CompareAndSwap(nil, &err) }

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

// DecodeIdentity judges d as judge says, without building its message
// (ce.NATS.Judging): the gate forwards the body byte for byte, and needs
// of the message only its verdict and its identity, which borrows from
// the body, which the gate holds until it acknowledges d. It returns no
// message, only the identity, whose kind names the schema, and the
// verdict Borrowing would give, with or without headers.
func (b *jsBroker) DecodeIdentity(kinds *msg.Kinds, gd gate.Delivery) (msg.Message, msg.Identity, error) {
	return judge(ce.NATS.Judging(), kinds, gd.(*delivery).m.Msg)
}

// judge decodes m as binding does (ce.NATS, judging as the gate does,
// or building the message the Consumer hands over), and besides finds
// the headers that cannot be passed on, each a violation of rule header:
// headers nats.go could not read, which it hands over as none, so that
// the message would be judged, and forwarded, without them; header names
// it will not publish, which would make the copy and the dead letter
// fail for ever; and a header of decision 14 in another case (CE-ID),
// which a reader that ignores case could take for the one checked. The
// message is then a dead letter, its headers what of them can be read,
// such names percent-escaped (forwardHeaders). The gate and the Consumer
// judge alike.
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
		why := "not a header name NATS publishes"
		if name := ce.NATS.HeaderInOtherCase(k); name != "" {
			why = "the header " + name + " in another case: a reader that ignores case could take it for the one checked"
		}
		bad = append(bad, &msg.Violation{Rule: msg.RuleHeader, Message: why, Value: string(msg.AppendJSONString(nil, k))})
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
