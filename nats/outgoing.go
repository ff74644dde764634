package nats

import (
	"context"
	"errors"
	"fmt"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/msg"
)

// ownHeaders is the number of headers a copy always has: those of
// decision 14 (ce.Binding's Write) and Nats-Msg-Id.
const ownHeaders = 8

// outgoing is a message a gate publishes, a copy or a dead letter, and,
// once published, the gate.Pending of its store acknowledgement.
//
// A copy takes its headers from own, a map made once for each outgoing
// and kept with it, whose values are slices of vals: setting vals gives
// the map the next message's values without hashing a key or making a
// slice. So does most input: a message whose only headers are those of
// decision 14 and its Nats-Msg-Id (a Publisher's), or Nats-Msg-Id alone
// (a producer that knows nothing of the catalogue). A message with other
// headers too has its copy's headers made afresh (forwardHeaders).
//
// The values a copy's headers are given are those the message came
// with, where they are the ones Write would set, and otherwise those of
// the message copied before it through this outgoing, where they are;
// the rest (ce-id, ce-source and ce-time of a message that came without
// them) share one string.
//
// An outgoing is reused once JetStream has acknowledged it (Wait): the
// gate publishes it itself (acks), and nats.go copies what it publishes
// (headers and body) as it publishes it, and keeps nothing. One that
// failed or timed out is left to the collector.
type outgoing struct {
	m    natsgo.Msg
	own  natsgo.Header
	keys [ownHeaders]string // own's keys, in the order of vals
	vals [ownHeaders]string
	// built holds the values Write builds, and fresh those of them that
	// are new strings; both are reused.
	built, fresh []byte
	idAt         int // the index of ce-id in vals
	// dead is the map of a dead letter's headers, made once and reused
	// (see jsBroker.deadLetter).
	dead natsgo.Header

	stream jetstream.Stream // where it is published
	// id names it to its broker's acks, reply is the subject of its
	// acknowledgement, and result receives what became of it: made the
	// first time it is published, and kept.
	id     uint64
	reply  string
	result chan ackResult
	broker *jsBroker
}

// idKey is the name of the header ce-id, whose value is also the copy's
// Nats-Msg-Id.
var idKey = ce.NATS.Prefix + ce.AttrID

// copyOf returns the copy of d, the valid message whose identity is id,
// to publish to the output: its body as it came, its headers those it
// came with, the JetStream ones renamed (forwardHeaders), and then those
// of decision 14 set, and Nats-Msg-Id its message id.
func (b *jsBroker) copyOf(d *delivery, id msg.Identity) (*outgoing, error) {
	o := b.outgoing()
	in := d.m.Headers()
	found, err := o.setValues(in, id)
	if err != nil {
		o.release()
		return nil, err
	}
	h, own := o.own, true
	if extra := len(in) - found; extra > 0 {
		if vs, ok := in[jetstream.MsgIDHeader]; ok && len(vs) == 1 && vs[0] == o.vals[o.idAt] {
			extra-- // the copy's own Nats-Msg-Id says it
		}
		if extra > 0 {
			h, own = forwardHeaders(in, o.vals[o.idAt], ownHeaders-found, false), false
			for i, k := range o.keys {
				h[k] = o.vals[i : i+1 : i+1]
			}
		}
	}
	o.m = natsgo.Msg{Subject: b.g.Output, Header: h, Data: d.m.Data()}
	size := o.ownSize()
	if !own {
		size = headerSize(h)
	}
	if size += len(o.m.Data); size > b.outLimit {
		o.release()
		return nil, gate.TooLarge(size, b.outLimit)
	}
	return o, nil
}

// setValues sets o.vals, and o.own's keys, to the headers of the message
// whose identity is id, which came with the headers in, and returns how
// many of them in has.
func (o *outgoing) setValues(in natsgo.Header, id msg.Identity) (found int, err error) {
	type span struct{ at, start, end int }
	var (
		spans [ownHeaders]span
		n     int
		i     int
	)
	bare := onlyMsgID(in) // one look-up instead of one for each header
	o.fresh, o.idAt = o.fresh[:0], -1
	o.built, err = ce.NATS.AppendHeaders(o.built[:0], id, func(key string, v []byte) {
		if i >= ownHeaders-1 {
			i++ // more than this knows of: refused below
			return
		}
		o.keys[i] = key
		if key == idKey {
			o.idAt = i
		}
		var vs []string
		if !bare {
			var ok bool
			if vs, ok = in[key]; ok {
				found++
			}
		}
		switch {
		case len(vs) == 1 && vs[0] == string(v):
			o.vals[i] = vs[0]
		case o.vals[i] == string(v):
			// As the message before had it: kept.
		default:
			spans[n] = span{i, len(o.fresh), len(o.fresh) + len(v)}
			o.fresh = append(o.fresh, v...)
			n++
		}
		i++
	})
	if err != nil {
		return 0, err
	}
	if i != ownHeaders-1 || o.idAt < 0 {
		return 0, fmt.Errorf("nats: ce wrote %d headers, want %d with %s", i, ownHeaders-1, idKey)
	}
	if n > 0 {
		fresh := string(o.fresh) // one string for all the new values
		for _, s := range spans[:n] {
			o.vals[s.at] = fresh[s.start:s.end]
		}
	}
	o.keys[ownHeaders-1] = jetstream.MsgIDHeader
	o.vals[ownHeaders-1] = o.vals[o.idAt]
	if o.own == nil {
		o.own = make(natsgo.Header, ownHeaders)
		for i, k := range o.keys {
			o.own[k] = o.vals[i : i+1 : i+1]
		}
	}
	return found, nil
}

// onlyMsgID reports whether h holds no header but a Nats-Msg-Id, or none
// at all: the headers of a producer that knows nothing of the catalogue,
// none of them one of decision 14's.
func onlyMsgID(h natsgo.Header) bool {
	return len(h) == 0 || len(h) == 1 && h[jetstream.MsgIDHeader] != nil
}

// ownSize returns the size of o.own as NATS sends it (see headerSize).
func (o *outgoing) ownSize() int {
	n := len("NATS/1.0\r\n\r\n")
	for i, k := range o.keys {
		n += len(k) + len(": \r\n") + len(o.vals[i])
	}
	return n
}

// outgoing returns an outgoing to reuse, or a new one.
//
// Those to reuse are kept in a list of the broker's, not a sync.Pool,
// which the collector empties: a gate's allocations bring a collection
// every thousand messages or so, and a pool lost one outgoing in ten
// over it, each made again with its map. The list holds no more than
// were ever in flight at once: a few batches' worth.
func (b *jsBroker) outgoing() *outgoing {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := len(b.free); n > 0 {
		o := b.free[n-1]
		b.free[n-1] = nil
		b.free = b.free[:n-1]
		return o
	}
	return &outgoing{broker: b}
}

// release leaves o, which nats.go has done with, to be reused.
func (o *outgoing) release() {
	if o.broker == nil {
		return
	}
	o.broker.mu.Lock()
	defer o.broker.mu.Unlock()
	o.broker.reuse(o)
}

// reuse adds o to the outgoings to reuse. b.mu must be held.
func (b *jsBroker) reuse(o *outgoing) {
	o.m = natsgo.Msg{}
	o.stream = nil
	b.free = append(b.free, o)
}

// Wait waits for JetStream to acknowledge o, and then leaves it to be
// reused; an outgoing that failed or timed out is not.
func (o *outgoing) Wait(ctx context.Context) (gate.Stored, error) {
	select {
	case r := <-o.result:
		if r.err != nil {
			return gate.Stored{}, r.err
		}
		return o.stored(r.ack), nil
	case <-ctx.Done():
		o.broker.acks.forget(o)
		return gate.Stored{}, ctx.Err()
	}
}

// stored leaves o, acknowledged with ack, to be reused, and returns
// what JetStream stored.
func (o *outgoing) stored(ack pubAck) gate.Stored {
	stream := o.stream
	o.release()
	s := gate.Stored{Duplicate: ack.duplicate}
	if ack.duplicate {
		s.Previous = func(ctx context.Context) ([]byte, error) {
			m, err := stream.GetMsg(ctx, ack.seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				return nil, fmt.Errorf("%w: %w", gate.ErrGone, err)
			}
			if err != nil {
				return nil, err
			}
			return m.Data, nil
		}
	}
	return s
}
