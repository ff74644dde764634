// Package ce carries a message's schema identity beside its body, as
// CloudEvents 1.0 binary content mode does (decision 14 of the catalogue):
// the body is the message, byte for byte, and headers name its schema.
//
// A producer sets the headers of a message it has validated:
//
//	h := nats.Header{} // or an http.Header, or anything with Values and Set
//	if err := ce.NATS.Write(h, d); err != nil {
//		return err
//	}
//
// A consumer decodes by them:
//
//	m, err := ce.NATS.Decode(h, body) // *msg.Error: body and header violations together
//
// The headers, for the prefix "ce-" (NATS and HTTP; Kafka uses "ce_"):
//
//	Content-Type    application/json
//	ce-specversion  1.0
//	ce-id           message_id (an event's id)
//	ce-type         the schema's name, such as core.device
//	ce-source       see below
//	ce-time         time (an event's occurred_at), in RFC 3339
//	ce-dataschema   the schema's $id, which names its version
//
// ce-source is a URI reference derived from the message's source members,
// each percent-escaped as a path segment (url.PathEscape), so that no
// value of a message can put a slash, a control character, CR or LF into
// a header:
//
//	/tenants/{tenant_id}/sources/{source_type}/{source_id}
//
// An association whose source_type is absent or null leaves that segment
// out (/tenants/{tenant_id}/sources/{source_id}: a segment fewer, which
// escaping keeps unambiguous). An event has no source members: every event
// has the source "/events" (EventSource), and its id alone tells events
// apart, as CloudEvents requires of source and id together.
//
// Decoding picks the schema by ce-dataschema when it is there (http and
// https alike, as schemas.LookupID does), else by ce-type, at its latest
// version, else by the body's message_type (catalogue.Decode). Every header
// that is present must then agree with the body: a header that contradicts
// it makes the message invalid, with a violation of rule msg.RuleHeader, and is
// never trusted over the body. No header is required, so that a message
// published without them is still judged by its message_type; a header
// given twice is a violation, since two readers could each believe another
// copy.
package ce
