// Package device holds the message type of the catalogue's core.device
// schema, version 1.0, generated from schemas/core.device-1.0.json: a
// device known to the platform.
//
// A producer starts from New, which fills in the schema's defaults, sets
// the rest, checks with Unset that no required member was forgotten (the
// schema, and so Validate, accepts an empty string, the nil uuid and the
// zero time), validates, and encodes with AppendJSON:
//
//	d := device.New() // defaults: message_type "core.device", model "", allowed false, ...
//	d.MessageID = uuid.New() // github.com/google/uuid
//	d.DeviceID = id
//	// ... the other required members
//	if unset := d.Unset(); unset != nil {
//		return fmt.Errorf("required members not set: %v", unset)
//	}
//	if err := d.Validate(); err != nil {
//		return err // an *msg.Error: every violation, with its JSON path
//	}
//	buf, err = d.AppendJSON(buf[:0])
//
// A consumer decodes with Parse, which accepts exactly the messages the
// schema accepts, plus the catalogue's IMEI rule (IMEI is empty, meaning
// not set, or a valid IMEI: see package imei), and otherwise returns an
// *msg.Error listing every violation, and no message:
//
//	d, err := device.Parse(data)
//
// The type also works with encoding/json, with the same verdicts, but at a
// price: json.Unmarshal scans the whole input itself before it calls
// UnmarshalJSON, which costs several times the decoding, and reports
// malformed JSON with a *json.SyntaxError of its own rather than an
// *msg.Error; json.Marshal copies and checks all that MarshalJSON writes.
package device
