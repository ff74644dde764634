// Package vehicle holds the message type of the catalogue's core.vehicle
// schema, version 1.0, generated from schemas/core.vehicle-1.0.json: a
// vehicle known to the platform.
//
// Most members are nullable without a default: they are msg.Nullable
// values, which tell absent, null and a value apart, so that a message
// that clears a member (null) is not mistaken for one that leaves it alone
// (absent). Meta and Specification keep each value as JSON text: a null
// value, which asks for that key to be deleted, survives decoding and
// encoding.
//
// Year is declared a date-time, as published, although samples elsewhere
// show a bare year such as "2019": such a message does not conform, and is
// rejected.
package vehicle
