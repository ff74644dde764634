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
// A consumer decodes by them, among the kinds of a table, the published
// catalogue's (catalogue.Kinds) or another generated one:
//
//	m, err := ce.NATS.Decode(catalogue.Kinds, h, body) // *msg.Error: body and header violations together
//
// The package knows no message type. What it writes and checks comes from
// the generated code: a message's SchemaKind names its schema and which of
// its members are its id, time and source members (see msg.Kind), and its
// Identity gives their values. So a new schema, or a new major version, is
// carried as soon as it is generated, with no edit here.
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
// A uuid member is written in lower case. An association whose
// source_type is absent or null leaves that segment out
// (/tenants/{tenant_id}/sources/{source_id}: a segment fewer, which
// escaping keeps unambiguous). A schema without source members has one
// source for all its messages, msg.Kind's Source: "/" and the last part of
// its name with an s. Every event has the source "/events" (EventSource),
// and its id alone tells events apart, as CloudEvents requires of source
// and id together.
//
// Decoding picks the schema by ce-dataschema when it is there (http and
// https alike, as schemas.LookupID does), else by ce-type, at its latest
// version, else by the body's message_type (the table's Decode,
// catalogue.Decode for catalogue.Kinds). Every header
// that is present must then agree with the body: a header that contradicts
// it makes the message invalid, with a violation of rule msg.RuleHeader, and is
// never trusted over the body. No header is required, so that a message
// published without them is still judged by its message_type; a header
// given twice is a violation, since two readers could each believe another
// copy. A header agrees with the body when it means the same: a ce-id in
// either case, a ce-time in any offset, a ce-source whose segments,
// unescaped, are the source members' values, a uuid member's in either
// case. A header is compared only with a member the body gave: not with
// one whose own value breaks the schema, nor with one decoding never
// reached, the body cut short or no object (a Kafka tombstone), whose
// violation then says it all.
//
// A gate, which decodes a message and writes its headers onto the copy it
// passes on, uses the Borrowing binding's DecodeIdentity, then
// AppendHeaders (or WriteIdentity), so that the message's schema is looked
// up and its identity read once, and the body is not copied. A gate whose
// headers are a WrittenHeader learns, from the decoding, whether its copy
// may carry them as they are, without writing them again.
package ce
