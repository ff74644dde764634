// Package vehicle holds the message type of the catalogue's core.vehicle
// schema, version 1.0, generated from schemas/core.vehicle-1.0.json: a
// vehicle known to the platform.
//
// A producer starts from New, sets the members, checks with Unset that no
// required one was forgotten, validates, and encodes with AppendJSON; a
// consumer decodes with Parse, which returns an *msg.Error listing every
// violation, and no message, exactly when the schema rejects the message:
//
//	v := vehicle.New() // defaults: message_type "core.vehicle"
//	// ... the required members
//	if unset := v.Unset(); unset != nil {
//		return fmt.Errorf("required members not set: %v", unset)
//	}
//	if err := v.Validate(); err != nil {
//		return err
//	}
//	buf, err = v.AppendJSON(buf[:0])
//
//	v, err := vehicle.Parse(data)
//
// Prefer them to json.Marshal and json.Unmarshal, which give the same
// verdicts at several times the cost, and report malformed JSON with a
// *json.SyntaxError of their own rather than an *msg.Error.
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
