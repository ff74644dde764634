// Package association holds the message type of the catalogue's
// core.association schema, version 1.0, generated from
// schemas/core.association-1.0.json: an association of a device with a
// driver, a vehicle, a battery or tags.
//
// A producer starts from New, sets the members, checks with Unset that no
// required one was forgotten, validates, and encodes with AppendJSON; a
// consumer decodes with Parse, which returns an *msg.Error listing every
// violation, and no message, exactly when the schema rejects the message:
//
//	a := association.New()
//	// ... the required members
//	if unset := a.Unset(); unset != nil {
//		return fmt.Errorf("required members not set: %v", unset)
//	}
//	if err := a.Validate(); err != nil {
//		return err
//	}
//	buf, err = a.AppendJSON(buf[:0])
//
//	a, err := association.Parse(data)
//
// Prefer them to json.Marshal and json.Unmarshal, which give the same
// verdicts at several times the cost, and report malformed JSON with a
// *json.SyntaxError of their own rather than an *msg.Error.
//
// Tags tells null from absent, as the schema does: an absent tags member
// decodes to its default, an empty, non-nil slice, and a null one to nil.
package association
