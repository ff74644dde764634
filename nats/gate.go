package nats

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
)

// A Gate republishes the messages of a JetStream consumer: a valid one to
// Output, with its body as it came and the headers of decision 14 (those
// it came with that agree, and any it lacked), Nats-Msg-Id being its
// message id; an invalid one to DeadLetter (see the package doc). Each
// message is acknowledged once its copy is stored. Since a message whose
// acknowledgement was lost comes again, and its copy is then a duplicate
// JetStream drops, every message ends up once in Output or DeadLetter, as
// long as the copies' streams' duplicate windows cover the time a message
// may take to come again (the consumer's AckWait and then some).
//
// Several gates may read one durable consumer at once, on as many
// machines: JetStream shares the messages out between them.
type Gate struct {
	JetStream jetstream.JetStream
	// From is the consumer to read, such as one made with DurableConfig.
	From jetstream.Consumer
	// Output and DeadLetter are the subjects of valid and invalid
	// messages: streams must hold them.
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

	// passThrough republishes every message as it came, unjudged: the
	// ceiling the benchmarks compare the gate with.
	passThrough bool
}

// GateStats counts what a gate did.
type GateStats struct {
	Messages int   // messages republished and acknowledged
	Valid    int   // of which to Output
	Invalid  int   // of which to DeadLetter
	Bytes    int64 // the size of their bodies
	Retried  int   // messages whose copy was not stored, left to come again
}

// Run runs the gate until ctx is done, or with UntilIdle until nothing is
// left, and returns what it did. Errors talking to the server (it
// restarting, say) are waited out, not returned: the messages involved
// come again.
func (g *Gate) Run(ctx context.Context) (GateStats, error) {
	// Judging and publishing one batch overlaps with waiting for
	// JetStream to store the copies of the one before: confirm waits and
	// acknowledges, in a goroutine of its own, up to two batches behind.
	var (
		mu sync.Mutex
		st GateStats
	)
	batches := make(chan []inflight, 2)
	var unconfirmed atomic.Int32 // batches sent and not yet confirmed
	confirmed := make(chan struct{})
	go func() {
		defer close(confirmed)
		for batch := range batches {
			g.confirm(ctx, batch, &mu, &st)
			unconfirmed.Add(-1)
		}
	}()
	finish := func() GateStats {
		close(batches)
		<-confirmed
		mu.Lock()
		defer mu.Unlock()
		return st
	}

	waited := false
	for ctx.Err() == nil {
		// Take what is there at once, up to a batch; when nothing is,
		// wait for one message, so that a quiet stream's messages are not
		// held back to fill a batch.
		var batch jetstream.MessageBatch
		var err error
		if waited {
			batch, err = g.From.FetchNoWait(orDefault(g.Batch, 256))
		} else {
			batch, err = g.From.Fetch(1, jetstream.FetchMaxWait(orDefaultDuration(g.MaxWait, time.Second)))
		}
		if err != nil {
			pause(ctx, 100*time.Millisecond)
			continue
		}
		var msgs []jetstream.Msg
		for m := range batch.Messages() {
			msgs = append(msgs, m)
		}
		outs, valid := g.judgeAll(msgs)
		pending := make([]inflight, 0, len(msgs))
		retried := 0
		for i, m := range msgs {
			out, valid := outs[i], valid[i]
			if out == nil {
				retried++
				m.Nak()
				continue
			}
			f, err := g.JetStream.PublishMsgAsync(out)
			if err != nil {
				retried++
				m.Nak()
				continue
			}
			pending = append(pending, inflight{m, f, valid})
		}
		if retried > 0 {
			mu.Lock()
			st.Retried += retried
			mu.Unlock()
		}
		waited = len(pending) > 0
		if waited {
			unconfirmed.Add(1)
			batches <- pending
			continue
		}
		if g.UntilIdle {
			// Nothing came. A fetch can come back empty while messages
			// wait (the server answering late on a busy machine): fetch
			// again at once, rather than wait for what is in flight.
			if g.state(ctx) == msgsWaiting {
				continue
			}
			// Once what is in flight is acknowledged, the consumer tells
			// whether anything is left.
			for unconfirmed.Load() > 0 && ctx.Err() == nil {
				pause(ctx, time.Millisecond)
			}
			// The acknowledgements just sent may still be on their way:
			// ask again a few times while only they keep the consumer
			// busy.
			s := g.state(ctx)
			for try := 0; s == acksAwaited && try < 5 && ctx.Err() == nil; try++ {
				pause(ctx, 20*time.Millisecond)
				s = g.state(ctx)
			}
			if s == consumerIdle {
				break
			}
		}
	}
	return finish(), nil
}

// inflight is a message whose copy is being published.
type inflight struct {
	m     jetstream.Msg
	ack   jetstream.PubAckFuture
	valid bool
}

// confirm waits for the copies of a batch to be stored and acknowledges
// their messages, counting them in st.
func (g *Gate) confirm(ctx context.Context, batch []inflight, mu *sync.Mutex, st *GateStats) {
	var done GateStats
	// Stored or not, a copy not confirmed in time leaves its message to
	// come again after AckWait.
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, p := range batch {
		select {
		case <-p.ack.Ok():
			if p.m.Ack() != nil {
				continue // it comes again, and its copy is a duplicate
			}
			done.Messages++
			done.Bytes += int64(len(p.m.Data()))
			if p.valid {
				done.Valid++
			} else {
				done.Invalid++
			}
		case <-p.ack.Err():
			done.Retried++
			p.m.Nak()
		case <-wait.Done():
			done.Retried++
		}
	}
	mu.Lock()
	st.Messages += done.Messages
	st.Valid += done.Valid
	st.Invalid += done.Invalid
	st.Bytes += done.Bytes
	st.Retried += done.Retried
	now := *st
	mu.Unlock()
	if g.Progress != nil {
		g.Progress(now)
	}
}

// judgeAll judges msgs, on every core when there are enough of them, and
// returns the copy of each to publish and whether it is valid.
func (g *Gate) judgeAll(msgs []jetstream.Msg) ([]*natsgo.Msg, []bool) {
	outs, valid := make([]*natsgo.Msg, len(msgs)), make([]bool, len(msgs))
	workers := min(runtime.GOMAXPROCS(0), len(msgs)/32+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(msgs); i += workers {
				outs[i], valid[i] = g.judge(msgs[i])
			}
		})
	}
	wg.Wait()
	return outs, valid
}

// judge returns the copy of m to publish, and whether it is valid; nil if
// the message is not one JetStream delivered.
func (g *Gate) judge(m jetstream.Msg) (*natsgo.Msg, bool) {
	md, err := m.Metadata()
	if err != nil {
		return nil, false
	}
	if g.passThrough {
		out := &natsgo.Msg{Subject: g.Output, Header: forwardHeaders(m.Headers()), Data: m.Data()}
		if id := m.Headers()[jetstream.MsgIDHeader]; id != nil {
			out.Header[jetstream.MsgIDHeader] = id
		}
		return out, true
	}
	// The identity Decode checked the headers against is the one the
	// output's headers are written from: the message is read once.
	msg, id, err := ce.NATS.DecodeIdentity(catalogue.Kinds, m.Headers(), m.Data())
	if err == nil {
		out := &natsgo.Msg{Subject: g.Output, Header: forwardHeaders(m.Headers()), Data: m.Data()}
		// Overwrite what agreed with the message with the canonical form,
		// and add what was missing.
		if err = ce.NATS.WriteIdentity(out.Header, id); err == nil {
			out.Header[jetstream.MsgIDHeader] = out.Header[ce.NATS.Prefix+ce.AttrID]
			return out, true
		}
	}
	v := verdictOf(err)
	if msg != nil {
		v.Schema = msg.SchemaName()
	}
	return deadLetter(g.DeadLetter, m, md, v), false
}

// A consumerState is what a consumer has left, as UntilIdle sees it.
type consumerState int

const (
	consumerIdle consumerState = iota // nothing to deliver or awaiting acknowledgement
	acksAwaited                       // acknowledgements awaited, or the server did not answer
	msgsWaiting                       // messages waiting to be delivered
)

// state asks the consumer what it has left.
func (g *Gate) state(ctx context.Context) consumerState {
	info, err := g.From.Info(ctx)
	switch {
	case err != nil:
		return acksAwaited
	case info.NumPending > 0:
		return msgsWaiting
	case info.NumAckPending > 0:
		return acksAwaited
	}
	return consumerIdle
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

// orDefaultDuration returns d, or def if d is 0.
func orDefaultDuration(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
