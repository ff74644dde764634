// Package gate is the part of a gate that no broker shapes: judging each
// message (decoding it by the schema its CloudEvents headers name, and
// checking the headers against it, package ce), choosing the output or
// the dead letters, building the dead letter (its Verdict, and what of
// the original's headers and body the broker's limit leaves room for,
// see FitDeadLetter), the rule for a reused id (msg.RuleDuplicateID)
// and for a copy too large (msg.RuleTooLarge), and counting what became
// of every message (Stats).
// It keeps decision 16: whatever an input message is, it ends forwarded,
// stored as a dead letter with its verdict, or acknowledged as a
// redelivery of a message already stored; never held, dropped in silence
// or counted twice.
//
// A binding adapts starting, fetching, storing and acknowledging to its
// broker, as a Broker, and runs a Gate over it; waiting for a broker down
// at start, the pipeline of batches, a graceful stop and the counts are
// the Gate's:
//
//	g := gate.Gate{Broker: myBroker, Binding: ce.NATS}
//	stats, err := g.Run(ctx)
//
// A Broker may be more than that, and the Gate finds out:
//
//   - A Transactional broker stores a batch whole or not at all, as Kafka
//     transactions commit produced records with consumed offsets. The
//     Gate issues a batch's copies and dead letters, calls Commit, and
//     counts the batch as it committed; a message left to come again
//     (Retry) before Commit aborts the batch, and every message of an
//     aborted batch is a retry, counted once in Stats.Retries each time
//     and then once where it ends.
//   - A Decoder judges its deliveries itself, for a broker whose
//     deliveries name their schema in more than headers (Kafka's registry
//     framing).
//
// A broker with no duplicate window of its own (Kafka) has the Gate keep
// one (Gate.DuplicateWindow: the ids forwarded last, each with a SHA-256
// of its body); a broker that drops a second copy under one id
// (JetStream's Nats-Msg-Id) says so in Stored, and the Gate compares the
// bodies. Either way a redelivery is acknowledged and counted as one, and
// another message under the id is a dead letter. A broker that cannot go
// on as it is, but can start anew (a Kafka session failed on its
// connection), returns an error marked Restart: the Gate starts it again,
// with the back-off of a start.
//
// The NATS binding (module github.com/fleetkit/catalogue/nats) and the
// Kafka binding (module github.com/fleetkit/catalogue/kafka, a
// Transactional Decoder) are two; package gatetest holds the tests every
// binding must pass.
package gate
