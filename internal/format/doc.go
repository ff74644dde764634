// Package format holds the exact, allocation-free parsers and printers that
// the generated message decoders and validators call for the formats the
// catalogue asserts (decisions 1 and 2 of the specification): JSON Schema's
// "uuid" and "date-time" string formats and its mathematical "integer" type.
//
// Parsers take the already-unescaped content of a JSON string, or the raw
// text of a JSON number literal, as a byte slice, and report failure with a
// short, static, lower-case reason instead of an error value, so that neither
// success nor failure allocates; the caller wraps the reason in its own
// violation type together with the field path:
//
//	id, reason := format.ParseUUID(raw)
//	if reason != "" {
//		return violation("/message_id", "format", reason)
//	}
//	ts, reason := format.ParseDateTime(rawTime)
//	n, reason, isInt := format.ParseInt(rawNumber)
//
// Printers append the canonical form to a caller-supplied buffer:
//
//	buf = format.AppendUUID(buf, id)
//	buf = format.AppendDateTime(buf, ts)
package format
