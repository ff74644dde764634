// Package event holds the message type of the catalogue's example.event
// schema, version 1.0, generated from schemas/example.event-1.0.json: an
// event recording that something was created, updated or deleted.
//
// A producer starts from New, sets the members, checks with Unset that no
// required one was forgotten, validates, and encodes with AppendJSON; a
// consumer decodes with Parse, which returns an *msg.Error listing every
// violation, and no message, exactly when the schema rejects the message:
//
//	e := event.New()
//	// ... the required members
//	if unset := e.Unset(); unset != nil {
//		return fmt.Errorf("required members not set: %v", unset)
//	}
//	if err := e.Validate(); err != nil {
//		return err
//	}
//	buf, err = e.AppendJSON(buf[:0])
//
//	e, err := event.Parse(data)
//
// Prefer them to json.Marshal and json.Unmarshal, which give the same
// verdicts at several times the cost, and report malformed JSON with a
// *json.SyntaxError of their own rather than an *msg.Error.
//
// Unlike the core.* messages it has no message_type member, so that
// catalogue.Decode cannot tell an event by its content: where the kind is
// known only at run time, decode it with catalogue.DecodeOr or
// catalogue.DecodeAs, naming the schema.
package event
