// Package gate is the part of a gate that no broker shapes: judging each
// message (decoding it by the schema its CloudEvents headers name, and
// checking the headers against it, package ce), choosing the output or
// the dead letters, building the dead letter (its Verdict, and as much
// of the body as the broker's limit leaves room for, see Fit), and
// counting what became of every message (Stats). It keeps decision 16:
// whatever an input message is, it ends forwarded, stored as a dead
// letter with its verdict, or acknowledged as a redelivery of a message
// already stored; never held, dropped in silence or counted twice.
//
// A binding adapts starting, fetching, storing and acknowledging to its
// broker, as a Broker, and runs a Gate over it; waiting for a broker down
// at start, the pipeline of batches, a graceful stop and the counts are
// the Gate's:
//
//	g := gate.Gate{Broker: myBroker, Binding: ce.NATS}
//	stats, err := g.Run(ctx)
//
// The NATS binding (module github.com/fleetkit/catalogue/nats) is one;
// package gatetest holds the tests every binding must pass.
package gate
