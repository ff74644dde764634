package nats

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"sync"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// acks receives JetStream's acknowledgements of what a gate publishes,
// its copies and dead letters, and hands each to its outgoing. A gate
// publishes through its connection with a reply subject of its own
// (outgoing.reply), as jetstream's PublishMsgAsync does, without what a
// gate has no use for and costs it a microsecond a message on a core:
// a future, a timer and a reply subject made for each message, the
// acknowledgement read by reflection (encoding/json), and a limit of
// messages in flight, which the gate keeps itself (two batches). So the
// JetStream's options of asynchronous publishing (its ack and error
// handlers, its limit and timeout) do not apply to the gate's messages:
// the gate waits for each acknowledgement up to its StoreTimeout.
//
// As jetstream does, it fails every acknowledgement awaited when the
// connection is lost: the server may have stored the message, or not,
// and the message comes again.
type acks struct {
	mu      sync.Mutex
	nc      *natsgo.Conn
	prefix  string // of the reply subjects: an inbox, and a dot
	sub     *natsgo.Subscription
	lost    chan natsgo.Status   // the connection's status, while sub is
	waiting map[uint64]*outgoing // published and awaiting acknowledgement, by outgoing.id
	ids     uint64               // the last outgoing.id given
}

// ackResult is what became of an outgoing: JetStream's acknowledgement,
// or why there is none.
type ackResult struct {
	ack pubAck
	err error
}

// pubAck is the part of JetStream's acknowledgement a gate reads.
type pubAck struct {
	seq       uint64
	duplicate bool
}

// subscribe makes the subscription of the acknowledgements on nc, the
// first time.
func (a *acks) subscribe(nc *natsgo.Conn) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sub != nil {
		return nil
	}
	if a.prefix == "" {
		a.nc, a.prefix = nc, nc.NewInbox()+"."
		a.waiting = make(map[uint64]*outgoing)
	}
	// Registered before the subscription, so that no loss of the
	// connection after it is missed.
	lost := a.nc.StatusChanged(natsgo.RECONNECTING, natsgo.CLOSED)
	sub, err := a.nc.Subscribe(a.prefix+"*", a.receive)
	if err != nil {
		a.nc.RemoveStatusListener(lost)
		return err
	}
	// Acknowledgements come no faster than messages are published, a
	// few batches at a time: none is dropped as a slow consumer's.
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		sub.Unsubscribe()
		a.nc.RemoveStatusListener(lost)
		return err
	}
	a.sub, a.lost = sub, lost
	go a.failOnLoss(lost)
	return nil
}

// close ends the subscription. Outgoings still awaited are failed.
func (a *acks) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sub == nil {
		return
	}
	a.sub.Unsubscribe()
	a.nc.RemoveStatusListener(a.lost) // closes it: failOnLoss returns
	a.sub, a.lost = nil, nil
	a.failAll(natsgo.ErrConnectionClosed)
}

// failOnLoss fails the outgoings awaited each time the connection is
// lost, until it is closed or lost is.
func (a *acks) failOnLoss(lost chan natsgo.Status) {
	for s := range lost {
		err := natsgo.ErrDisconnected
		if s == natsgo.CLOSED {
			err = natsgo.ErrConnectionClosed
		}
		a.mu.Lock()
		a.failAll(err)
		a.mu.Unlock()
		if s == natsgo.CLOSED {
			return
		}
	}
}

// failAll fails every outgoing awaited with err. a.mu must be held.
func (a *acks) failAll(err error) {
	for id, o := range a.waiting {
		delete(a.waiting, id)
		o.result <- ackResult{err: err}
	}
}

// publish publishes o through nc, with its own reply subject, and
// awaits its acknowledgement.
func (a *acks) publish(nc *natsgo.Conn, o *outgoing) error {
	if err := a.subscribe(nc); err != nil {
		return err
	}
	a.mu.Lock()
	if o.id == 0 {
		a.ids++
		o.id = a.ids
		o.reply = a.prefix + strconv.FormatUint(o.id, 10)
		o.result = make(chan ackResult, 1)
	}
	a.waiting[o.id] = o // before it is published: its acknowledgement may come at once
	a.mu.Unlock()
	o.m.Reply = o.reply
	err := nc.PublishMsg(&o.m)
	if err != nil {
		a.forget(o)
	}
	return err
}

// forget stops awaiting o's acknowledgement.
func (a *acks) forget(o *outgoing) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.waiting, o.id)
}

// receive hands an acknowledgement to its outgoing, if it is awaited.
func (a *acks) receive(m *natsgo.Msg) {
	id, err := strconv.ParseUint(m.Subject[min(len(a.prefix), len(m.Subject)):], 10, 64)
	if err != nil {
		return
	}
	a.mu.Lock()
	o := a.waiting[id]
	delete(a.waiting, id)
	a.mu.Unlock()
	if o == nil {
		return // failed already, the connection lost
	}
	var r ackResult
	r.ack, r.err = readAck(m)
	o.result <- r // its one result: the channel has room for it
}

// readAck reads JetStream's answer to a message published, as jetstream's
// PublishMsgAsync does: its acknowledgement, or the error it gives.
func readAck(m *natsgo.Msg) (pubAck, error) {
	if len(m.Data) == 0 && m.Header.Get(statusHeader) == "503" {
		return pubAck{}, jetstream.ErrNoStreamResponse // no stream stores the subject
	}
	if a, ok := scanAck(m.Data); ok {
		return a, nil
	}
	var r struct {
		Error     *jetstream.APIError `json:"error"`
		Stream    string              `json:"stream"`
		Seq       uint64              `json:"seq"`
		Duplicate bool                `json:"duplicate"`
	}
	if err := json.Unmarshal(m.Data, &r); err != nil {
		return pubAck{}, jetstream.ErrInvalidJSAck
	}
	if r.Error != nil {
		return pubAck{}, r.Error
	}
	if r.Stream == "" {
		return pubAck{}, jetstream.ErrInvalidJSAck
	}
	return pubAck{seq: r.Seq, duplicate: r.Duplicate}, nil
}

// scanAck reads an acknowledgement as JetStream writes one, an object of
// a stream, a sequence and maybe "duplicate" and "domain", with no space
// or escape: {"stream":"OUT","seq":7,"duplicate":true}. It reports
// false for anything else (an error, another member, another spelling),
// which readAck then reads as JSON.
func scanAck(b []byte) (a pubAck, ok bool) {
	stream := false
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return a, false
	}
	b = b[1 : len(b)-1]
	for len(b) > 0 {
		if b[0] != '"' {
			return a, false
		}
		end := bytes.IndexByte(b[1:], '"') + 1
		if end == 0 || end+1 >= len(b) || b[end+1] != ':' {
			return a, false
		}
		key := b[1:end]
		b = b[end+2:]
		var value []byte
		if i := bytes.IndexByte(b, ','); i >= 0 {
			value, b = b[:i], b[i+1:]
			if len(b) == 0 {
				return a, false // a trailing comma
			}
		} else {
			value, b = b, nil
		}
		switch string(key) {
		case "stream", "domain":
			if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
				return a, false
			}
			s := value[1 : len(value)-1]
			for _, c := range s {
				if c < ' ' || c == '"' || c == '\\' {
					return a, false
				}
			}
			if string(key) == "stream" {
				stream = len(s) > 0
			}
		case "seq":
			if len(value) == 0 || len(value) > 1 && value[0] == '0' {
				return a, false // JSON has no leading zeros
			}
			var n uint64
			for _, c := range value {
				d := uint64(c - '0')
				if c < '0' || c > '9' || n > (math.MaxUint64-d)/10 {
					return a, false
				}
				n = n*10 + d
			}
			a.seq = n
		case "duplicate":
			if string(value) != "true" && string(value) != "false" {
				return a, false
			}
			a.duplicate = string(value) == "true"
		default:
			return a, false
		}
	}
	return a, stream
}
