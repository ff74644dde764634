package nats

import (
	"context"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
)

// A Publisher publishes messages to JetStream, validated, with their
// schema identity in CloudEvents headers. It is safe for concurrent use if
// its JetStream is.
type Publisher struct {
	JetStream jetstream.JetStream
}

// Publish validates m and publishes it to subject: the body is its JSON
// encoding, the headers those of ce.NATS.Write, and Nats-Msg-Id is its
// message id (an event's id), so that JetStream drops a second copy
// published within the stream's duplicate window. It returns once
// JetStream has stored the message, with its acknowledgement (whose
// Duplicate field says a copy was already there).
//
// An invalid message is never published: Publish returns the *msg.Error
// of m.Validate, every violation. So is a message whose message_type is
// not its schema's name, which the headers would contradict (see
// ce.AttributesOf).
func (p Publisher) Publish(ctx context.Context, subject string, m catalogue.Message) (*jetstream.PubAck, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	out, err := newMsg(subject, m)
	if err != nil {
		return nil, err
	}
	return p.JetStream.PublishMsg(ctx, out)
}

// newMsg returns m as a NATS message to subject, with its headers and
// Nats-Msg-Id, unvalidated.
func newMsg(subject string, m catalogue.Message) (*natsgo.Msg, error) {
	data, err := m.MarshalJSON()
	if err != nil {
		return nil, err
	}
	out := &natsgo.Msg{Subject: subject, Header: make(natsgo.Header, 8), Data: data}
	if err := ce.NATS.Write(out.Header, m); err != nil {
		return nil, err
	}
	out.Header[jetstream.MsgIDHeader] = out.Header[ce.NATS.Prefix+ce.AttrID]
	return out, nil
}
