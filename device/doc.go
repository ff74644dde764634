// Package device holds the message type of the catalogue's core.device
// schema, version 1.0, generated from schemas/core.device-1.0.json: a
// device known to the platform.
//
// A producer fills in a message and validates it before publishing:
//
//	d := device.New() // defaults: message_type "core.device", model "", allowed false, ...
//	d.MessageID = uuid.New()
//	d.DeviceID = id
//	// ... the other required members
//	if err := d.Validate(); err != nil {
//		return err // an *msg.Error: every violation, with its JSON path
//	}
//	data, err := json.Marshal(d)
//
// A consumer decodes with json.Unmarshal, which accepts exactly the
// messages the schema accepts, plus the catalogue's IMEI rule: IMEI is
// empty, meaning not set, or a valid IMEI (see package imei).
package device
