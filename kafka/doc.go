// Package kafka carries the catalogue's messages on Kafka (decision 15),
// on franz-go's client: a record's value is the message, byte for byte, or
// the message framed in the schema-registry wire format for teams whose
// serializers expect it (0x00, the schema's registry id in 4 bytes
// big-endian, then the message), and its schema identity travels in
// CloudEvents binary-mode headers with Kafka's ce_ prefix, beside
// content-type: application/json. The record key is the entity's own id
// (device_id, vehicle_id, association_id; an event's id), so that the
// messages of one entity stay in one partition, in order.
//
// A producer validates before producing, and waits for the broker:
//
//	p := kafka.Producer{Client: client, Framed: true}
//	if _, err := p.Produce(ctx, "fleet.devices", d); err != nil {
//		return err // *msg.Error for an invalid message, never produced
//	}
//
// A consumer decodes either form exactly, by the table of the published
// catalogue's kinds:
//
//	fetches.EachRecord(func(r *kgo.Record) {
//		m, err := kafka.Decode(catalogue.Kinds, r)
//		// err: *msg.Error, the body's violations and the headers'; or,
//		// for a framing or ce_dataschema naming no schema of the
//		// catalogue, an error wrapping schemas.ErrUnknown
//	})
//
// The schema is chosen by ce_dataschema, then the framing's registry id,
// then ce_type, then the body's message_type; each one present must agree
// with the others and with the body, or the message is invalid, never
// trusted over it and never skipped.
//
// A Gate keeps invalid messages out of a topic in Kafka transactions:
// each batch of input records, their copies or dead letters and the
// input's offsets commit together, so that a read_committed consumer sees
// every input exactly once (decision 16); gates scale out as a consumer
// group. It is package gate's Gate over a transactional session: judging,
// the dead letter's verdict, the rules for a reused id and a copy too
// large, the duplicate window, the counts, the back-off and the graceful
// stop are the core's, and this package adds what Kafka shapes (the
// transaction, record sizes, ce_ headers, keys, framing). A gate given
// NewSession, a way to make its sessions, starts again on a new one when
// its brokers are lost while it ends a transaction, as kafka/cmd/gate
// does.
//
// It is a module of its own, github.com/fleetkit/catalogue/kafka, so that
// the message types' module stays free of Kafka clients.
package kafka
