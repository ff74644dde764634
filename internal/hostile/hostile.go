// Package hostile builds the messages of issue 12 that cost a naive
// validator far more than their size: each is about a mebibyte and breaks
// its schema in as many places as it can, or in one place with a value as
// long as it can. Tests of every layer that reports violations (the
// library, msgcheck, the HTTP API) judge them, to pin that what a report
// costs is bounded whatever the input.
package hostile

import (
	"bytes"
	"strings"
)

// Size is about how long each message is: the largest body the HTTP API
// judges (api.MaxMessageBytes), less room for the rest of the message.
const Size = 1<<20 - 1024

// A Message is one hostile message and the schema it is judged by.
type Message struct {
	Name   string // what makes it hostile, for a test's name
	Schema string // the schema it is judged by
	Body   []byte
}

// association is a valid core.association but for its tags, which each
// message puts last.
const association = `{"message_type":"core.association","message_id":"3e4a9d85-6f7a-4c3b-9b4a-ad9f8e7b6c54","source_id":"dev-1","tenant_id":"club-1","time":"2026-03-01T08:00:15Z","association_id":"8c3f6d8b-1c8e-4f4b-8d6c-3a5e0f2b4d77","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44",`

// device is a valid core.device but for what a message adds after it.
const device = `{"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","message_type":"core.device","source_id":"dev-1","source_type":"tracker","tenant_id":"club-1","time":"2026-03-01T08:00:00Z","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44",`

// Messages returns the hostile messages. Each names its schema in its
// message_type, so that it is judged by it however it is routed.
func Messages() []Message {
	return []Message{
		{"tags of numbers", "core.association", fill(association+`"tags":[1`, ",1", "]}")},
		{"one repeated extra member", "core.device", fill(`{"message_type":"core.device","x":1`, `,"x":1`, "}")},
		{"one repeated declared member", "core.device", fill(`{"message_type":"core.device","tenant_id":"t"`, `,"tenant_id":"t"`, "}")},
		{"mistyped declared members, repeated", "core.association", fill(`{"message_type":"core.association","time":[]`, `,"time":[]`, "}")},
		{"long repeated names", "core.device", fill(`{"message_type":"core.device",`+name(4000, "n")+`:1`, `,`+name(4000, "n")+`:1`, "}")},
		{"long repeated names of escapes", "core.device", fill(`{"message_type":"core.device",`+name(2000, `\u001b`)+`:1`, `,`+name(2000, `\u001b`)+`:1`, "}")},
		{"long repeated names of line ends", "core.device", fill(`{"message_type":"core.device",`+name(2000, `\n`)+`:1`, `,`+name(2000, `\n`)+`:1`, "}")},
		{"a long string where a uuid is wanted", "core.device", long(device+`"device_id":"`, "a", `"}`)},
		{"a long IMEI", "core.device", long(device+`"imei":"`, "1", `"}`)},
		{"a long number where a string is wanted", "core.device", long(device+`"imei":1`, "0", `}`)},
		{"a long fraction where an integer is wanted", "core.association", long(association+`"offset":1.`, "5", `}`)},
		{"a long array where a string is wanted", "core.device", fill(device+`"imei":[1`, ",1", `]}`)},
		{"a long duplicate name", "core.device", []byte(`{"message_type":"core.device",` + name(Size/2-24, "d") + `:1,` + name(Size/2-24, "d") + `:2}`)},
	}
}

// fill returns head, then item as many times as fit in Size, then tail.
func fill(head, item, tail string) []byte {
	n := (Size - len(head) - len(tail)) / len(item)
	return []byte(head + strings.Repeat(item, n) + tail)
}

// long returns head, then filler repeated to make the message Size long,
// then tail.
func long(head, filler, tail string) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	b.WriteString(strings.Repeat(filler, (Size-len(head)-len(tail))/len(filler)))
	b.WriteString(tail)
	return b.Bytes()
}

// name returns a JSON string of n copies of piece, written as JSON text.
func name(n int, piece string) string {
	return `"` + strings.Repeat(piece, n) + `"`
}
