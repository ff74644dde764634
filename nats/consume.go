package nats

import (
	"context"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/gate"
)

// DurableConfig returns the configuration of a durable pull consumer named
// name, of the messages on subject, as Consumer and Gate expect it:
// explicit acknowledgement, an AckWait of 30 s, room for 8,192 messages
// awaiting acknowledgement (several gates' batches in flight), and no
// limit on deliveries, since they bound deliveries themselves and
// dead-letter a message at the bound where JetStream would drop it
// silently.
func DurableConfig(name, subject string) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       name,
		FilterSubject: subject,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       30 * time.Second,
		MaxDeliver:    -1,
		// Room for several gates' batches in flight: a consumer holds
		// back its messages while this many await acknowledgement.
		MaxAckPending: 8192,
	}
}

// A Consumer hands an application the messages of a JetStream consumer,
// decoded exactly by the schema their headers name (see ce.Binding's
// Decode). A message that cannot be decoded, and one the handler has
// failed on MaxDeliver times, is published to DeadLetter (see the package
// doc) and acknowledged once JetStream has stored it.
type Consumer struct {
	JetStream jetstream.JetStream
	// From is the consumer to read, such as one made with DurableConfig.
	// Its MaxDeliver, if it has one, must be above the Consumer's.
	From jetstream.Consumer
	// DeadLetter is the subject of dead letters: a stream must hold it.
	DeadLetter string
	// MaxDeliver is how many times a message is handed to the handler
	// before it is dead-lettered; 0 means 5.
	MaxDeliver int
	// Backoff is how long to wait before delivering a message again after
	// the handler's nth failure: the nth delay, or the last one after as
	// many failures. Empty means 1s, 5s, 30s.
	Backoff []time.Duration
	// Batch is how many messages to ask JetStream for at a time; 0 means
	// 100.
	Batch int

	incarnation string // of From's stream, for the ids of dead letters
}

// Consume hands the messages to handle, one at a time, until ctx is done,
// and then returns nil. A message is acknowledged once handle returns nil;
// when it returns an error the message is delivered again, after the
// back-off, unless it has been delivered MaxDeliver times, when it is
// dead-lettered with the error. A message is handed over at least once:
// if an acknowledgement is lost, it comes again.
func (c *Consumer) Consume(ctx context.Context, handle func(context.Context, catalogue.Message) error) error {
	info, err := c.From.Info(ctx)
	if err != nil {
		return err
	}
	in, err := c.JetStream.Stream(ctx, info.Stream)
	if err != nil {
		return err
	}
	c.incarnation = incarnation(in.CachedInfo())
	// Pulled as the gate pulls (puller): nats.go's iterator takes a
	// stored message with an empty body and a Status header for the
	// server's own status, and never hands it over.
	p := newPuller(c.JetStream, info)
	defer p.close()
	batch := orDefault(c.Batch, 100)
	for ctx.Err() == nil {
		msgs, err := p.fetch(batch, false, 0)
		if len(msgs) == 0 && err == nil {
			msgs, err = p.fetch(1, true, time.Second)
		}
		for _, m := range msgs {
			c.handle(ctx, m, handle)
		}
		if err != nil && len(msgs) == 0 {
			// The server gone for a while, or the consumer: the
			// connection carries on across reconnections.
			select {
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
			}
		}
	}
	return nil
}

// handle acts on one message and acknowledges it, or not.
func (c *Consumer) handle(ctx context.Context, m *natsgo.Msg, handle func(context.Context, catalogue.Message) error) {
	md, err := m.Metadata()
	if err != nil {
		m.Term() // not a JetStream message: it cannot be delivered again
		return
	}
	msg, _, err := judge(ce.NATS, catalogue.Kinds, m) // as the gate judges, the message the handler's to keep
	if err != nil {
		c.deadLetter(ctx, m, md, gate.VerdictOf(msg, err))
		return
	}
	herr := handle(ctx, msg)
	switch {
	case herr == nil:
		m.Ack()
	case md.NumDelivered >= uint64(orDefault(c.MaxDeliver, 5)):
		v := gate.VerdictOf(msg, nil)
		v.Error = herr.Error()
		c.deadLetter(ctx, m, md, v)
	default:
		backoff := c.Backoff
		if len(backoff) == 0 {
			backoff = []time.Duration{time.Second, 5 * time.Second, 30 * time.Second}
		}
		m.NakWithDelay(backoff[min(int(md.NumDelivered), len(backoff))-1])
	}
}

// deadLetter publishes the dead letter of m and acknowledges m once it is
// stored; if it cannot be stored, m is delivered again.
func (c *Consumer) deadLetter(ctx context.Context, m *natsgo.Msg, md *natsgo.MsgMetadata, v gate.Verdict) {
	v.Place = gate.Place{Subject: m.Subject, Stream: md.Stream, Sequence: md.Sequence.Stream}
	v.Deliveries = md.NumDelivered
	out, err := deadLetter(c.DeadLetter, pulled{m}, v, c.incarnation, int(c.JetStream.Conn().MaxPayload()), nil)
	if err == nil {
		_, err = c.JetStream.PublishMsg(ctx, &out)
	}
	if err != nil {
		m.NakWithDelay(retryDelay(md.NumDelivered))
		return
	}
	m.Ack()
}

// orDefault returns n, or def if n is 0.
func orDefault(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}
