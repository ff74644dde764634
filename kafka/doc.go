// Package kafka carries the catalogue's messages on Kafka (decision 15):
// a record's value is the message, byte for byte, or the message framed
// in the schema-registry wire format for teams whose serializers expect
// it, and its schema identity travels in CloudEvents binary-mode headers
// with Kafka's ce_ prefix.
//
// It is a module of its own, github.com/fleetkit/catalogue/kafka, so that
// the message types' module stays free of Kafka clients.
package kafka
