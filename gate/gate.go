package gate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/msg"
)

// A Delivery is one input message as the broker delivered it.
type Delivery interface {
	// Header returns the message's headers.
	Header() ce.Header
	// Body returns its body.
	Body() []byte
	// Place returns where it was.
	Place() Place
	// Deliveries returns how many times it was delivered, this time
	// included.
	Deliveries() uint64
}

// A Broker is what a binding adapts: fetching input, storing copies and
// dead letters, and acknowledging. The Gate does the rest.
type Broker interface {
	// Start checks, before the first fetch, that the gate can work. An
	// error wrapping ErrRefused (it cannot store its output or dead
	// letters, or would read them back), or wrapped by Fatal, stops the
	// gate; any other (the broker down) is waited out, with back-off.
	// It is called again after an error wrapped by Restart.
	Start(ctx context.Context) error
	// Fetch returns the next input messages, at most max of them. With
	// wait it waits a while for the first one when there is none;
	// without, it returns what is there at once. An error wrapped by
	// Fatal stops the gate; any other is waited out.
	Fetch(ctx context.Context, max int, wait bool) ([]Delivery, error)
	// Forward starts storing the copy of d, the valid message whose
	// identity is id, in the output, with the headers of decision 14 and
	// its id as the key the broker drops a second copy by. An error wrapping ErrTooLarge says
	// that the copy is larger than the broker stores, an *msg.Error that
	// m cannot be given headers that agree with it: the Gate then
	// dead-letters d.
	Forward(d Delivery, id msg.Identity) (Pending, error)
	// DeadLetter starts storing the dead letter of d, with its verdict v
	// and what of d's headers and body fits (FitDeadLetter), under a key
	// that names d's place in this incarnation of its stream, so that the
	// dead letter of a redelivery is dropped as a duplicate. An error
	// (wrapping ErrTooLarge if not even the verdict fits) leaves d to
	// come again.
	DeadLetter(d Delivery, v Verdict) (Pending, error)
	// Ack acknowledges d: it is not to come again.
	Ack(d Delivery) error
	// Retry leaves d to come again, after a back-off that grows with its
	// deliveries.
	Retry(d Delivery)
	// State tells what the input has left to deliver, for UntilIdle.
	State(ctx context.Context) State
}

// Pending is a copy or a dead letter on its way to the broker's store.
type Pending interface {
	// Wait waits until the broker has stored it, or refused it.
	Wait(ctx context.Context) (Stored, error)
}

// Stored is what the broker said on storing a copy or a dead letter.
type Stored struct {
	// Duplicate says that the broker had one with the same key already,
	// and dropped this one.
	Duplicate bool
	// Previous returns the body of the one the broker had, for a
	// duplicate copy; an error wrapping ErrGone if the broker no longer
	// has it.
	Previous func(ctx context.Context) ([]byte, error)
}

// A Transactional broker stores a batch whole or not at all: the copies
// and dead letters of the batch last fetched, and the acknowledgement of
// every message in it, as a Kafka transaction commits produced records
// and consumed offsets together. The Gate finds out whether its Broker is
// one, and then stores one batch at a time: it issues every copy and
// dead letter of the batch (Forward, DeadLetter), calls Commit, and only
// then waits for their Pendings, which resolve as the commit did.
//
// Its Forward and DeadLetter may return a nil Pending: the copy or dead
// letter is then stored as the batch commits, or not at all. Its Ack is
// a no-op: a committed batch is acknowledged. Retry, called for a
// message of the batch under way, before Commit, means that the batch
// must not commit: Commit aborts it, and every message of it comes again
// (the Gate counts each in Stats.Retries). Called after Commit, for the
// messages of an aborted batch, it has nothing left to do.
type Transactional interface {
	// Commit stores, in one step, every copy and dead letter issued
	// since the last Fetch, with the acknowledgement of every message
	// that Fetch returned; or, when one could not be issued or stored,
	// or Retry was called for one of them, none of it. It returns nil
	// if the batch committed; an error if it did not, its messages to
	// come again; or an error wrapped by Fatal if no batch can follow,
	// which stops the gate. ctx is the gate's: a gate told to stop
	// still commits the batch it holds, and the broker decides how long
	// it may take.
	Commit(ctx context.Context) error
}

// A Decoder is a Broker whose deliveries say more about the schema of
// their message than their headers do, such as Kafka's records framed in
// the schema-registry wire format. The Gate judges a delivery with its
// DecodeIdentity, which must give what the Gate's Binding gives for a
// delivery without such a framing, instead of the Binding's; but it may
// give no message, only its identity, for one it judged without
// building it (ce.Binding's Judging): the Gate needs no more of a
// message than its verdict, its identity and its schema, which the
// identity's kind names. It is called from several goroutines at once
// when Gate.Judges is more than 1.
type Decoder interface {
	// DecodeIdentity decodes d as the message it holds, borrowing from
	// its body (see ce.Binding's Borrowing), among the kinds of the
	// table kinds, and returns it with its identity, as ce.Binding's
	// DecodeIdentity does.
	DecodeIdentity(kinds *msg.Kinds, d Delivery) (msg.Message, msg.Identity, error)
}

// ErrRefused is the error of a gate that refuses to start, because it
// could not store its output or dead letters, or would read them back as
// input (decision 16).
var ErrRefused = errors.New("gate refused to start")

// ErrGone is the error of Stored.Previous when the broker no longer has
// the message stored under the key.
var ErrGone = errors.New("no longer stored")

// A State is what an input has left, as UntilIdle sees it.
type State int

// The states of an input.
const (
	Idle        State = iota // nothing to deliver or awaiting acknowledgement
	AcksAwaited              // acknowledgements awaited, or the broker did not answer
	Waiting                  // messages waiting to be delivered
)

// Fatal marks err as one that stops a gate: Run returns it.
func Fatal(err error) error { return &fatalError{err: err} }

// Restart marks err, returned by Fetch or a Transactional broker's
// Commit, as one after which the broker cannot go on as it is, but can
// start again (its connection failed for good, and a new one would not):
// the gate stops fetching, settles what it holds, backs off as it does
// at start, and calls Start again, which makes the broker anew. Stats go
// on from one start to the next.
func Restart(err error) error { return &fatalError{err: err, restart: true} }

// fatalError is the error of Fatal and Restart.
type fatalError struct {
	err     error
	restart bool
}

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

// Stats counts what a gate did. Every input message it ended is counted
// once in Messages (as Forwarded or DeadLetters) or in Redeliveries;
// Retries counts the times it left one to come again.
type Stats struct {
	Messages     int   // distinct messages stored: Forwarded + DeadLetters
	Forwarded    int   // of which to the output
	DeadLetters  int   // of which to the dead letters
	Bytes        int64 // the size of their bodies
	Redeliveries int   // messages acknowledged as another delivery of one already stored
	Retries      int   // times a message was not stored and left to come again
}

// Add adds o's counts to s's: the counts of several gates, or of one
// gate's several runs.
func (s *Stats) Add(o Stats) {
	s.Messages += o.Messages
	s.Forwarded += o.Forwarded
	s.DeadLetters += o.DeadLetters
	s.Bytes += o.Bytes
	s.Redeliveries += o.Redeliveries
	s.Retries += o.Retries
}

// A Gate reads messages from a Broker and ends each one in one of three
// ways (decision 16): forwarded to the output, stored as a dead letter
// with its verdict, or acknowledged as a redelivery of a message already
// stored. A message is acknowledged only once what became of it is
// stored; one that could not be stored is left to come again.
//
// A copy too large for the broker is dead-lettered (msg.RuleTooLarge),
// and a dead letter too large is cut to fit (FitDeadLetter). A copy the broker
// drops as a duplicate of one stored under the same id, or whose id the
// gate's own DuplicateWindow holds, is compared with that one: the same
// body is a redelivery, another is dead-lettered (msg.RuleDuplicateID).
type Gate struct {
	// Broker is the binding's broker; a Transactional one stores a
	// batch whole or not at all, and a Decoder judges its deliveries.
	Broker Broker
	// Binding names the headers of decision 14 on the broker.
	Binding ce.Binding
	// Kinds is the table of the schemas a message may follow; nil means
	// the published catalogue's, catalogue.Kinds.
	Kinds *msg.Kinds
	// Batch is the most messages to fetch and store at a time; 0 means
	// 256.
	Batch int
	// Judges is how many goroutines judge the messages of a batch at
	// once, each a run of at least 32 of them; 0 means 1. Judging a
	// message takes a few microseconds: more than one pays only where
	// storing a copy costs the gate's process as little (the Kafka
	// binding sets GOMAXPROCS); on NATS, spreading a batch over two cores
	// cost more CPU time than it gained (its BenchmarkGate). More gates
	// use more cores too.
	Judges int
	// DuplicateWindow is, for a broker that does not drop a second copy
	// stored under one id (Kafka has no such window), how many of the
	// ids it forwarded last the gate keeps itself, each with a digest
	// (SHA-256) of the message's body, to tell a redelivery of a message
	// forwarded (the same body) from another message that reuses its id;
	// 0 means none, the broker dropping duplicates (Forward's
	// Stored.Duplicate). A gate that keeps a window stores one batch at
	// a time: the ids of a batch are in the window before the next is
	// judged. The window is kept from one Run to the next, and an id
	// enters it only once its copy is stored.
	DuplicateWindow int
	// UntilIdle makes Run return once the input has nothing left to
	// deliver or waiting for an acknowledgement.
	UntilIdle bool
	// Progress, if not nil, is called after every batch with the totals
	// so far, from one goroutine at a time.
	Progress func(Stats)
	// Log, if not nil, is told of copies the broker refused, and of
	// fetches that failed.
	Log *slog.Logger
	// StoreTimeout bounds the wait for the broker to store a batch; 0
	// means 10 seconds. A message whose copy is not confirmed in time
	// comes again.
	StoreTimeout time.Duration

	window  *window // the ids forwarded last, with DuplicateWindow
	decoder Decoder // Broker, if it is one
}

// Run starts the gate (Broker.Start) and runs it until ctx is done, or
// with UntilIdle until nothing is left, and returns what it did. A broker
// down at start is waited for, with back-off (100 ms doubling to 10 s,
// randomised so that many gates do not come back at once); a gate the
// broker refuses returns an error wrapping ErrRefused. When ctx is done
// it stops fetching and settles what it holds: the batches in flight are
// confirmed and acknowledged. Errors from the broker are waited out, not
// returned, except those marked Fatal; after one marked Restart, the
// broker is started again as at first, with back-off.
func (g *Gate) Run(ctx context.Context) (Stats, error) {
	var st Stats
	for try := 1; ; try++ {
		err := g.Broker.Start(ctx)
		if err == nil {
			if try > 1 {
				g.log(slog.LevelInfo, "the broker is back; starting")
			}
			before := st.Messages
			st, err = g.run(ctx, st)
			if e, ok := errors.AsType[*fatalError](err); !ok || !e.restart || ctx.Err() != nil {
				return st, err
			}
			if st.Messages > before {
				try = 1 // it worked for a while: back off from the start again
			}
			wait := Backoff(try)
			g.log(slog.LevelWarn, "the broker cannot go on; starting it again", "in", wait.Round(time.Millisecond), "error", err)
			if pause(ctx, wait); ctx.Err() != nil {
				return st, nil
			}
			continue
		}
		if _, ok := errors.AsType[*fatalError](err); ok || errors.Is(err, ErrRefused) {
			return st, err
		}
		if ctx.Err() != nil {
			return st, nil // stopped before it started
		}
		wait := Backoff(try)
		g.log(slog.LevelWarn, "cannot start yet; trying again", "in", wait.Round(time.Millisecond), "error", err)
		pause(ctx, wait)
	}
}

// Backoff returns how long a gate waits before its nth attempt (from 1)
// to reach a broker: 100 ms doubling to 10 s, randomised so that many
// gates do not come back at once. Every binding's gate waits so.
func Backoff(n int) time.Duration {
	d := min(10*time.Second, 100*time.Millisecond<<min(n, 16))
	return d/2 + rand.N(d/2+1)
}

// run runs the gate once it has started, and returns its totals: what
// it did added to st.
func (g *Gate) run(ctx context.Context, st Stats) (Stats, error) {
	// Judging and storing one batch overlaps with waiting for the broker
	// to store the one before: confirm waits and acknowledges, in a
	// goroutine of its own, up to two batches behind. A broker that
	// commits a batch whole, and a gate that keeps the ids it forwarded,
	// store one at a time instead: the next batch is judged against the
	// ids of the last.
	var mu sync.Mutex
	count := func(done Stats, progress bool) {
		mu.Lock()
		st.Add(done)
		now := st
		mu.Unlock()
		if progress && g.Progress != nil {
			g.Progress(now)
		}
	}
	txn, transactional := g.Broker.(Transactional)
	g.decoder, _ = g.Broker.(Decoder)
	if g.DuplicateWindow > 0 && g.window == nil {
		g.window = newWindow(g.DuplicateWindow)
	}
	oneAtATime := transactional || g.window != nil
	var forwarded map[uuid.UUID]digest // in the batch under way, when the gate keeps a window
	if g.window != nil {
		forwarded = make(map[uuid.UUID]digest)
	}
	batches := make(chan []inflight, 2)
	spare := make(chan []inflight, 3) // batches confirmed, their memory to reuse
	var unconfirmed atomic.Int32      // batches sent and not yet confirmed
	confirmed := make(chan struct{})
	confirmedOne := make(chan struct{}, 1) // a batch was confirmed
	settle := context.WithoutCancel(ctx)   // a stopped gate still settles what it holds
	go func() {
		defer close(confirmed)
		for batch := range batches {
			done := g.confirm(settle, batch, nil)
			clear(batch)
			select {
			case spare <- batch[:0]:
			default:
			}
			unconfirmed.Add(-1)
			select {
			case confirmedOne <- struct{}{}:
			default:
			}
			count(done, true)
		}
	}()
	finish := func(err error) (Stats, error) {
		close(batches)
		<-confirmed
		mu.Lock()
		defer mu.Unlock()
		return st, err
	}

	batchSize := g.Batch
	if batchSize == 0 {
		batchSize = 256
	}
	waited := false
	failing := false
	var judgements []judged // each batch's, reused
	for ctx.Err() == nil {
		ds, err := g.Broker.Fetch(ctx, batchSize, !waited)
		if err != nil {
			if _, ok := errors.AsType[*fatalError](err); ok {
				return finish(err)
			}
			if !failing && ctx.Err() == nil {
				g.log(slog.LevelWarn, "fetching failed; trying again", "error", err)
			}
			failing = true
			pause(ctx, 100*time.Millisecond)
			continue
		}
		failing = false
		judgements = g.judgeAll(ds, judgements)
		var pending []inflight
		select {
		case pending = <-spare:
		default:
		}
		pending = slices.Grow(pending, len(ds))
		var retries Stats
		var firstErr error
		clear(forwarded)
		for i, d := range ds {
			f, err := g.store(d, judgements[i], forwarded)
			if err != nil {
				retries.Retries++
				firstErr = cmpOr(firstErr, err)
				g.Broker.Retry(d)
				continue
			}
			pending = append(pending, f)
		}
		clear(judgements) // holding no message until the next batch
		if firstErr != nil {
			g.log(slog.LevelWarn, "copies not stored, left to come again", "count", retries.Retries, "error", firstErr)
			count(retries, false)
		}
		if oneAtATime {
			if len(ds) == 0 {
				if g.UntilIdle && g.idle(ctx, &unconfirmed) {
					break
				}
				waited = false
				continue
			}
			var err error
			if transactional {
				err = txn.Commit(ctx)
			}
			count(g.confirm(settle, pending, err), true)
			if _, ok := errors.AsType[*fatalError](err); ok {
				return finish(err)
			}
			waited = true
			continue
		}
		waited = len(pending) > 0
		if waited {
			unconfirmed.Add(1)
			batches <- pending
			continue
		}
		if len(ds) == 0 && unconfirmed.Load() > 0 {
			// Nothing came while batches are in flight: the input may be
			// holding back until they are acknowledged (its limit of
			// messages awaiting acknowledgement). Fetch again, without
			// waiting, once one is, rather than wait for a single message.
			select {
			case <-confirmedOne:
			case <-ctx.Done():
			}
			waited = true
			continue
		}
		if g.UntilIdle && g.idle(ctx, &unconfirmed) {
			break
		}
	}
	return finish(nil)
}

// idle reports whether the input has nothing left, once what is in
// flight is acknowledged.
func (g *Gate) idle(ctx context.Context, unconfirmed *atomic.Int32) bool {
	// A fetch can come back empty while messages wait (the server
	// answering late on a busy machine): fetch again at once, rather than
	// wait for what is in flight.
	if g.Broker.State(ctx) == Waiting {
		return false
	}
	for unconfirmed.Load() > 0 && ctx.Err() == nil {
		pause(ctx, time.Millisecond)
	}
	// The acknowledgements just sent may still be on their way: ask again
	// a few times while only they keep the input busy.
	s := g.Broker.State(ctx)
	for try := 0; s == AcksAwaited && try < 5 && ctx.Err() == nil; try++ {
		pause(ctx, 20*time.Millisecond)
		s = g.Broker.State(ctx)
	}
	return s == Idle
}

// judged is the judgement on one delivery: the message to forward, its
// identity and the digest of its body (when the gate keeps a window), or
// the verdict of its dead letter.
type judged struct {
	m       catalogue.Message
	id      msg.Identity
	sum     digest
	verdict *Verdict
}

// inflight is a delivery whose copy or dead letter is being stored.
type inflight struct {
	d Delivery
	// p is nil for a copy or dead letter a Transactional broker stores
	// as the batch commits, and for a redelivery found in the window.
	p          Pending
	forward    bool
	redelivery bool      // found in the window: nothing to store
	id         uuid.UUID // for a copy, when the gate keeps a window
	sum        digest
}

// store starts storing d's copy or dead letter. forwarded holds the ids
// forwarded so far in the batch, when the gate keeps a window, and gets
// d's if it is forwarded.
func (g *Gate) store(d Delivery, j judged, forwarded map[uuid.UUID]digest) (inflight, error) {
	if j.verdict == nil && g.window != nil {
		sum, ok := forwarded[j.id.ID]
		if !ok {
			sum, ok = g.window.get(j.id.ID)
		}
		switch {
		case ok && sum == j.sum:
			return inflight{d: d, forward: true, redelivery: true}, nil
		case ok:
			v := reusedID(j.m, j.id, "another message, with another body, was forwarded under its id")
			j.verdict = &v
		}
	}
	if j.verdict == nil {
		p, err := g.Broker.Forward(d, j.id)
		if err == nil {
			if forwarded != nil {
				forwarded[j.id.ID] = j.sum
			}
			return inflight{d: d, p: p, forward: true, id: j.id.ID, sum: j.sum}, nil
		}
		var v Verdict
		if _, ok := errors.AsType[*msg.Error](err); ok {
			// Headers that cannot agree with the message (see ce.Binding's
			// Write).
			v = verdictOf(j.m, j.id, err)
		} else if errors.Is(err, ErrTooLarge) {
			v = verdictOf(j.m, j.id, nil)
			v.Violations = []*msg.Violation{{Rule: msg.RuleTooLarge, Message: "its copy is " + err.Error()}}
		} else {
			return inflight{}, err
		}
		j.verdict = &v
	}
	p, err := g.deadLetter(d, *j.verdict)
	return inflight{d: d, p: p}, err
}

// deadLetter starts storing d's dead letter with verdict v, its place and
// deliveries filled in.
func (g *Gate) deadLetter(d Delivery, v Verdict) (Pending, error) {
	v.Place, v.Deliveries = d.Place(), d.Deliveries()
	return g.Broker.DeadLetter(d, v)
}

// confirm waits for the copies of a batch to be stored and acknowledges
// their messages, and returns what it counted. committed is what
// committing the batch gave, for a Transactional broker: the outcome of
// what has no Pending of its own.
func (g *Gate) confirm(ctx context.Context, batch []inflight, committed error) Stats {
	var done Stats
	timeout := g.StoreTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	wait, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var firstErr error
	for _, f := range batch {
		s, err := Stored{Duplicate: f.redelivery}, committed
		forward := f.forward
		if f.p != nil {
			s, err = f.p.Wait(wait)
			if err == nil && forward && s.Duplicate {
				// Stored under its id already: by this message, or another.
				s, forward, err = g.compare(wait, f.d, s)
			}
		}
		switch {
		case err != nil:
			done.Retries++
			firstErr = cmpOr(firstErr, err)
			g.Broker.Retry(f.d)
			continue
		case s.Duplicate:
			done.Redeliveries++
		default:
			done.Messages++
			done.Bytes += int64(len(f.d.Body()))
			if forward {
				done.Forwarded++
				if g.window != nil {
					g.window.add(f.id, f.sum)
				}
			} else {
				done.DeadLetters++
			}
		}
		// Whatever became of it is stored: an acknowledgement that is lost
		// makes it come again, and then a duplicate.
		g.Broker.Ack(f.d)
	}
	if firstErr != nil {
		g.log(slog.LevelWarn, "copies not confirmed, left to come again", "count", done.Retries, "error", firstErr)
	}
	return done
}

// compare compares the body of d, whose copy the broker dropped as a
// duplicate (s), with the one stored under its id: the same body is a
// redelivery (Stored.Duplicate, forward true); another is dead-lettered,
// and compare returns what storing the dead letter gave (forward false).
// A stored body that is gone cannot be compared: the message is
// dead-lettered, saying so, rather than dropped.
func (g *Gate) compare(ctx context.Context, d Delivery, s Stored) (_ Stored, forward bool, _ error) {
	prev, err := s.Previous(ctx)
	switch {
	case err == nil && bytes.Equal(prev, d.Body()):
		return Stored{Duplicate: true}, true, nil
	case err != nil && !errors.Is(err, ErrGone):
		return Stored{}, true, err
	}
	why := "another message, with another body, was forwarded under its id"
	if err != nil {
		why = "a message was forwarded under its id, and is no longer stored to be compared with"
	}
	// The message was valid: read again, it is the same message, its
	// identity the same.
	m, id, _ := g.decode(d)
	p, err := g.deadLetter(d, reusedID(m, id, why))
	if err != nil {
		return Stored{}, false, err
	}
	s, err = p.Wait(ctx)
	return s, false, err
}

// reusedID returns the verdict on m, a valid message of identity id whose
// id was forwarded with another message: why says how the gate knows.
func reusedID(m catalogue.Message, id msg.Identity, why string) Verdict {
	v := verdictOf(m, id, nil)
	v.Violations = []*msg.Violation{{Rule: msg.RuleDuplicateID, Message: why}}
	if id.Kind != nil {
		v.Violations[0].Path = id.Kind.IDMember
		v.Violations[0].Value = `"` + id.ID.String() + `"`
	}
	return v
}

// verdictOf is VerdictOf for a message of identity id, which a Decoder
// may have judged without building it (m nil): its schema is then its
// identity's kind's.
func verdictOf(m catalogue.Message, id msg.Identity, err error) Verdict {
	v := VerdictOf(m, err)
	if m == nil && id.Kind != nil {
		v.Schema, v.Version = id.Kind.Name, id.Kind.Version
	}
	return v
}

// judgeAll judges ds, into out's memory if it has room: on Judges
// goroutines, each a run of at least minRun of them, or one after the
// other. What depends on their order (the window, the batch's own ids)
// is store's, in the order of ds.
func (g *Gate) judgeAll(ds []Delivery, out []judged) []judged {
	out = slices.Grow(out[:0], len(ds))[:len(ds)]
	workers := min(g.Judges, len(ds)/minRun)
	if workers <= 1 {
		for i, d := range ds {
			out[i] = g.judge(d)
		}
		return out
	}
	var wg sync.WaitGroup
	size := (len(ds) + workers - 1) / workers
	for lo := 0; lo < len(ds); lo += size {
		hi := min(lo+size, len(ds))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				out[i] = g.judge(ds[i])
			}
		})
	}
	wg.Wait()
	return out
}

// minRun is the fewest messages judgeAll gives a goroutine of its own.
const minRun = 32

// judge decodes d as the message its headers name, and returns it if it
// is valid, or its verdict.
func (g *Gate) judge(d Delivery) judged {
	// The identity the headers were checked against is the one the copy's
	// headers are written from: the message is read once. It borrows from
	// the body, which the gate holds, unchanged, until the copy or the
	// dead letter is stored: the body is forwarded byte for byte, so that
	// the message is read only for its verdict and its identity, and a
	// copy of it would be waste.
	m, id, err := g.decode(d)
	if err != nil {
		v := verdictOf(m, id, err)
		return judged{verdict: &v}
	}
	j := judged{m: m, id: id}
	if g.window != nil {
		j.sum = sha256.Sum256(d.Body())
	}
	return j
}

// decode decodes d, by the Broker if it is a Decoder, else by the
// Binding's headers.
func (g *Gate) decode(d Delivery) (catalogue.Message, msg.Identity, error) {
	if g.decoder != nil {
		return g.decoder.DecodeIdentity(g.kinds(), d)
	}
	return g.Binding.Borrowing().DecodeIdentity(g.kinds(), d.Header(), d.Body())
}

// kinds returns the table of kinds to judge by.
func (g *Gate) kinds() *msg.Kinds {
	if g.Kinds == nil {
		return catalogue.Kinds
	}
	return g.Kinds
}

func (g *Gate) log(level slog.Level, text string, args ...any) {
	if g.Log != nil {
		g.Log.Log(context.Background(), level, text, args...)
	}
}

// cmpOr returns a if it is not nil, else b.
func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// pause waits for d, or until ctx is done.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// TooLarge returns an error wrapping ErrTooLarge for something of size
// bytes where the broker stores at most limit.
func TooLarge(size, limit int) error {
	return fmt.Errorf("%d bytes with its headers, %w (%d)", size, ErrTooLarge, limit)
}

// A digest is the SHA-256 of a message's body, all 32 bytes of it: the
// window takes two bodies with one id and equal digests for one message
// delivered twice, and acknowledges the second without storing it, so a
// collision would drop a distinct message silently, neither forwarded
// nor dead-lettered. The bodies are the input's, written by whoever may
// produce to it, who can read what was forwarded: a hash whose
// collisions can be made (FNV, xxHash, CRC) would let such a producer
// send a message the gate swallows, and a keyed one (hash/maphash, with
// a secret seed) resists only attacks its authors foresaw, as its
// documentation says: it is not cryptographic. A collision of SHA-256 is
// beyond anyone's reach; cut to 128 bits it would take 2^64 tries, which
// is not. On hardware with SHA instructions (amd64's SHA-NI, arm64's
// SHA2) crypto/sha256 costs about 2 cycles a byte, a few percent of
// judging a message, on the judges' goroutines.
type digest = [sha256.Size]byte

// window holds the last n message ids forwarded, each with the digest of
// its body. It grows as ids come, rather than take the room of n at
// start: some 85 bytes an id, 8.6 MB for 100,000, which a gate that
// forwards few never needs. Its map holds only where each id is in the
// ring: the groups of slots a look-up reads, in memory a gate's caches
// mostly no longer hold, are less than half as large as they would be
// with the digests in them (BenchmarkWindow: a third less time).
type window struct {
	at   map[uuid.UUID]int32 // where each id is in ring
	ring []idSum             // oldest at next, once full
	next int32
	n    int
}

// idSum is an id of the window, and its body's digest.
type idSum struct {
	id  uuid.UUID
	sum digest
}

func newWindow(n int) *window {
	return &window{at: make(map[uuid.UUID]int32), n: min(n, math.MaxInt32)}
}

func (w *window) get(id uuid.UUID) (digest, bool) {
	i, ok := w.at[id]
	if !ok {
		return digest{}, false
	}
	return w.ring[i].sum, true
}

// add adds id, forwarded with a body of digest sum, forgetting the oldest
// id if the window is full.
func (w *window) add(id uuid.UUID, sum digest) {
	if _, ok := w.at[id]; ok {
		return
	}
	if len(w.ring) < w.n {
		if len(w.ring) == cap(w.ring) {
			// Doubling: append grows a large slice by a quarter, which
			// would copy the ring some five times over as it fills.
			w.ring = slices.Grow(w.ring, min(w.n, max(2*len(w.ring), 256))-len(w.ring))
		}
		w.at[id] = int32(len(w.ring))
		w.ring = append(w.ring, idSum{id, sum})
		return
	}
	delete(w.at, w.ring[w.next].id)
	w.ring[w.next] = idSum{id, sum}
	w.at[id] = w.next
	if w.next++; int(w.next) == len(w.ring) {
		w.next = 0
	}
}
