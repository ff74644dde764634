// Package nats carries the catalogue's messages over NATS JetStream,
// validated at both ends, with their schema identity in CloudEvents
// binary-mode headers (decision 14, package ce).
//
// Its name is the transport's; import it beside nats.go under another:
//
//	import catnats "github.com/fleetkit/catalogue/nats"
//
// A producer publishes a message, which is validated first and returned
// from only once JetStream has stored it:
//
//	p := catnats.Publisher{JetStream: js}
//	ack, err := p.Publish(ctx, "fleet.devices", d) // *msg.Error: never published
//
// A consumer gets typed messages, decoded exactly by the schema their
// headers name; those that fail go to a dead-letter subject:
//
//	c := catnats.Consumer{JetStream: js, From: cons, DeadLetter: "fleet.dead"}
//	err := c.Consume(ctx, func(ctx context.Context, m catalogue.Message) error {
//		switch m := m.(type) {
//		case *device.Device:
//			// ...
//		}
//		return nil
//	})
//
// A Gate sits between a stream of untrusted messages and its readers:
// valid messages are republished to an output subject, invalid ones to a
// dead-letter subject; run as many as the load needs, on one durable
// consumer. It is package gate's core over JetStream, and keeps decision
// 16: every message ends forwarded, dead-lettered or acknowledged as a
// redelivery, within bounded time.
//
// # Dead letters
//
// A dead letter keeps the original body, byte for byte, and the original
// headers, except that JetStream's own (Nats-*, which a republished copy
// would otherwise obey: Nats-Rollup could purge the dead-letter stream)
// are renamed with the prefix Catalogue-Original-. Its header
// Catalogue-Verdict says why, as one line of JSON (gate.Verdict: the
// msg.Verdict of msgcheck check -json's lines, where the message was, and
// whether the body was cut to fit the server's limit). Its Nats-Msg-Id is
// the stream of the original, the time that stream was made, and the
// original's sequence, "STREAM@TIME:SEQ", so that a dead letter published
// again after a failure is dropped as a duplicate, whatever the message's
// own id, and one of a stream made again is not.
//
// # Nothing lost, nothing acknowledged before it is safe
//
// A message is acknowledged only once what became of it is stored: the
// handler returned nil, or JetStream acknowledged its dead letter or (in a
// gate) its copy. A failure in between leaves it unacknowledged, to be
// delivered again; the Nats-Msg-Id of what is published makes that second
// attempt a duplicate JetStream drops, for as long as the stream's
// duplicate window (Duplicates, two minutes by default). An
// acknowledgement that is lost makes the message come again too, so a
// handler sees a message at least once.
package nats
