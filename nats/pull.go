package nats

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A puller pulls the messages of a JetStream consumer, as nats.go's
// Fetch does, but tells the server's answers from the stream's messages
// by the reply subject, not by the headers: a stored message always has
// one to acknowledge it by ($JS.ACK...), the server's status (no
// messages, request timeout, consumer deleted) never has. nats.go's Fetch
// takes a stored message with an empty body and a Status header for the
// server's status, and never hands it over: any producer could hold it
// hostage for ever that way (decision 16).
//
// Its requests all answer to one subscription, each to a subject of its
// own beneath it: a message that comes late, after its request was given
// up, is still the gate's, and comes with the next fetch.
type puller struct {
	nc      *natsgo.Conn
	subject string // of the requests: $JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>
	inbox   string // each request answers to inbox.<n>
	n       uint64
	// The consumer's limits on a request (see requestBatch; and
	// MaxRequestExpires, which it refuses beyond); 0 for none. They are
	// read again from cons when it refuses a request beyond them: the
	// operator may change them under a running gate.
	maxBatch   int
	maxExpires time.Duration
	cons       jetstream.Consumer
	// maxBytes is the most bytes of messages a request asks for
	// (fetchBytes, or the consumer's MaxRequestMaxBytes if lower), and
	// large says that the next message is larger than that: the next
	// request asks for it alone, without a limit of bytes.
	maxBytes int
	large    bool

	// givenUp are the requests a fetch gave up before the server's
	// answer ended them, by reply subject, each with the time until
	// which close waits for the rest of it (see close).
	givenUp map[string]time.Time

	mu   sync.Mutex // guards sub, which a fetch makes when there is none
	sub  *natsgo.Subscription
	msgs chan *natsgo.Msg // what sub received
	done chan struct{}    // closed when sub is
}

// newPuller returns a puller of cons, whose information is info, through
// the JetStream API of js.
func newPuller(js jetstream.JetStream, cons jetstream.Consumer, info *jetstream.ConsumerInfo) *puller {
	nc := js.Conn()
	p := &puller{nc: nc, subject: pullSubject(js, info), inbox: nc.NewInbox(), cons: cons,
		msgs: make(chan *natsgo.Msg, 1024)}
	p.setLimits(info.Config)
	return p
}

// setLimits sets the limits on a request to those of a consumer of
// configuration c. It is called from the goroutine that fetches.
func (p *puller) setLimits(c jetstream.ConsumerConfig) {
	p.maxBatch, p.maxExpires = requestBatch(c), c.MaxRequestExpires
	p.maxBytes = fetchBytes
	if c.MaxRequestMaxBytes > 0 {
		p.maxBytes = min(p.maxBytes, c.MaxRequestMaxBytes)
	}
}

// fetchBytes is the most bytes of messages a fetch takes, besides one
// message larger than that, which comes alone: a batch, and the few a
// gate has in flight, hold no more than a few times this in memory,
// whatever the server's max_payload (up to 64 MiB) and the size of the
// batch. A batch of a hostile producer's largest messages would hold
// the batch's size times max_payload: 256 MiB a batch on a default
// server. It is far above what a batch of ordinary messages takes (256
// of a few kB).
const fetchBytes = 16 << 20

// readLimits reads the consumer's limits on a request again, after it
// refused one beyond them.
func (p *puller) readLimits() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if info, err := p.cons.Info(ctx); err == nil {
		p.setLimits(info.Config)
	}
}

// pullSubject returns the subject of the requests for the messages of the
// consumer named in info, through the JetStream API of js.
func pullSubject(js jetstream.JetStream, info *jetstream.ConsumerInfo) string {
	o := js.Options()
	prefix := jetstream.DefaultAPIPrefix
	switch {
	case o.Domain != "":
		prefix = "$JS." + o.Domain + ".API."
	case o.APIPrefix != "":
		prefix = strings.TrimSuffix(o.APIPrefix, ".") + "."
	}
	return prefix + "CONSUMER.MSG.NEXT." + info.Stream + "." + info.Name
}

// noWaitExpires is how long a request that does not wait for messages
// lasts at most (see fetch).
const noWaitExpires = 20 * time.Millisecond

// requestBatch returns the most messages to ask a consumer for at once,
// 0 for no limit: no more than it allows (MaxRequestBatch), which it
// refuses beyond, and no more than it lets await acknowledgement
// (MaxAckPending): a request for more gets what may be delivered, and
// then waits.
func requestBatch(c jetstream.ConsumerConfig) int {
	n := c.MaxRequestBatch
	if c.MaxAckPending > 0 && (n <= 0 || c.MaxAckPending < n) {
		n = c.MaxAckPending
	}
	return max(n, 0)
}

// pullRequest is the body of a request for messages.
type pullRequest struct {
	Batch    int           `json:"batch"`
	MaxBytes int           `json:"max_bytes,omitempty"`
	Expires  time.Duration `json:"expires,omitempty"`
	NoWait   bool          `json:"no_wait,omitempty"`
}

// fetch asks for up to max messages and returns those that come: with
// wait, it waits up to maxWait for one; without, it takes what is there.
func (p *puller) fetch(max int, wait bool, maxWait time.Duration) ([]*natsgo.Msg, error) {
	if err := p.subscribe(); err != nil {
		return nil, err
	}
	// A request without wait still expires: one that finds the consumer
	// at its MaxAckPending gets what it can and then nothing, not even
	// an answer that it is done, until it expires.
	req := pullRequest{Batch: max, MaxBytes: p.maxBytes, NoWait: true, Expires: noWaitExpires}
	switch {
	case wait:
		req = pullRequest{Batch: 1, Expires: maxWait}
	case p.large:
		req.Batch, req.MaxBytes = 1, 0
	}
	if req.Batch == 1 {
		req.MaxBytes = 0 // one message, whatever its size
	}
	p.large = false
	if p.maxBatch > 0 {
		req.Batch = min(req.Batch, p.maxBatch)
	}
	if p.maxExpires > 0 {
		req.Expires = min(req.Expires, p.maxExpires)
	}
	deadline := time.Now().Add(req.Expires + time.Second)
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	p.n++
	reply := p.inbox + "." + strconv.FormatUint(p.n, 10)
	if err := p.nc.PublishRequest(p.subject, reply, body); err != nil {
		return nil, err
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	var msgs []*natsgo.Msg
	size := 0 // of the messages, as the server counts them against MaxBytes
	for len(msgs) < req.Batch {
		var m *natsgo.Msg
		select {
		case m = <-p.msgs:
		case <-timer.C:
			p.giveUp(reply)
			return msgs, nil
		}
		if delivered(m) {
			if msgs == nil {
				// Room for the batch asked for, unless that is more than
				// any gate needs: a consumer without MaxAckPending
				// lets -batch through as it is.
				msgs = make([]*natsgo.Msg, 0, min(req.Batch, 4096))
			}
			msgs = append(msgs, m)
			// A request whose bytes are used up exactly ends without a
			// word. (A message of a request given up counts too: the
			// rest of this one's come with the next fetch.)
			if size += m.Size(); req.MaxBytes > 0 && size >= req.MaxBytes {
				return msgs, nil
			}
			continue
		}
		if m.Subject != reply {
			p.ended(m) // the answer to a request given up
			continue
		}
		switch status := m.Header.Get("Status"); status {
		case "100": // a heartbeat, or flow control: not asked for
		case "404", "408": // no messages (left), or the request expired
			return msgs, nil
		case "409":
			// The consumer deleted, or the request at odds with its
			// limits.
			description := m.Header.Get("Description")
			if strings.EqualFold(description, "Consumer Deleted") {
				return msgs, jetstream.ErrConsumerDeleted
			}
			if strings.EqualFold(description, "Message Size Exceeds MaxBytes") {
				// The next message is larger than the bytes left to the
				// request: the next request takes it, alone if it
				// must.
				p.large = len(msgs) == 0
				return msgs, nil
			}
			if strings.HasPrefix(description, "Exceeded MaxRequest") {
				// Its limits lowered since they were read: the next
				// request keeps to them.
				p.readLimits()
			}
			return msgs, fmt.Errorf("nats: pulling from the consumer: %s", description)
		case "503":
			return msgs, natsgo.ErrNoResponders // no such consumer, or no JetStream
		default:
			return msgs, fmt.Errorf("nats: pulling from the consumer: status %q %s", status, m.Header.Get("Description"))
		}
	}
	return msgs, nil
}

// subscribe makes the subscription of the answers, the first time. Its
// handler takes every message as it came: a subscription read with
// NextMsg would take one with an empty body and a Status 503 header for
// no responders, and drop it. It holds what it has not handed over
// without limit, since the server sends no more than was asked for, and
// a message dropped would wait out AckWait.
func (p *puller) subscribe() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sub != nil {
		return nil
	}
	msgs, done := p.msgs, make(chan struct{})
	sub, err := p.nc.Subscribe(p.inbox+".*", func(m *natsgo.Msg) {
		select {
		case msgs <- m:
		case <-done: // closed: the message comes again after AckWait
		}
	})
	if err != nil {
		return err
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		sub.Unsubscribe()
		return err
	}
	p.sub, p.done = sub, done
	return nil
}

// lateWait is how long, at most, close waits for the rest of a request
// a fetch gave up.
const lateWait = 5 * time.Second

// giveUp notes that a fetch gave up on its request, answering to reply,
// before the server's answer ended it (the server answering late, on a
// loaded machine or a slow link): messages may still come for it.
func (p *puller) giveUp(reply string) {
	now := time.Now()
	if p.givenUp == nil {
		p.givenUp = map[string]time.Time{}
	}
	for r, until := range p.givenUp {
		if now.After(until) {
			delete(p.givenUp, r)
		}
	}
	p.givenUp[reply] = now.Add(lateWait)
}

// ended notes m, the server's answer to a request a fetch gave up: no
// more messages come for it.
func (p *puller) ended(m *natsgo.Msg) {
	delete(p.givenUp, m.Subject)
}

// close ends the subscription. The messages that came for requests a
// fetch gave up, after it gave up on them, and were not fetched again,
// would wait out the consumer's AckWait (a minute, say) before they
// came again, and hold up the next gate: a gate stopped must leave
// nothing awaiting acknowledgement (decision 16). close gives them back
// at once (a nak), and first waits for those requests to end, up to
// lateWait after each was given up, while the connection holds, to give
// back what they bring too.
func (p *puller) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sub == nil {
		return
	}
	giveBack := func(m *natsgo.Msg) {
		if delivered(m) {
			m.Nak()
		} else {
			p.ended(m)
		}
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for p.awaitingLate() {
		select {
		case m := <-p.msgs:
			giveBack(m)
		case <-tick.C: // the time, and the connection, looked at again
		}
	}
	for len(p.msgs) > 0 {
		giveBack(<-p.msgs)
	}
	p.sub.Unsubscribe()
	close(p.done)
	p.sub = nil
}

// awaitingLate reports whether close waits for more of the requests a
// fetch gave up: one has not ended, and was given up less than
// lateWait ago, and the connection holds.
func (p *puller) awaitingLate() bool {
	if !p.nc.IsConnected() {
		return false
	}
	now := time.Now()
	for _, until := range p.givenUp {
		if now.Before(until) {
			return true
		}
	}
	return false
}

// delivered reports whether m is a message of the stream, which the
// server sends with the subject to acknowledge it at, rather than a
// status of a request (no messages, the request expired, ...).
func delivered(m *natsgo.Msg) bool { return strings.HasPrefix(m.Reply, "$JS.ACK.") }

// unreadableHeaders reports whether m came with headers nats.go could
// not read: it then hands the message over without any (Header nil), and
// only its size says there were some.
func unreadableHeaders(m *natsgo.Msg) bool {
	return m.Header == nil && m.Size() > len(m.Subject)+len(m.Reply)+len(m.Data)
}
