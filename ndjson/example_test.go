package ndjson_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/ndjson"
)

// Check judges each line by its message_type, on every core, and hands
// the results over in input order.
func ExampleCheck() {
	stream := strings.NewReader(`{"message_type":"example.event","id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","type":"created","occurred_at":"2026-11-23T08:00:00Z"}

{"message_type":"example.event","id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","type":"archived","occurred_at":"2026-11-23T08:00:00Z"}
{"message_type":"core.driver"}
`)
	stats, err := ndjson.Check(context.Background(), stream, ndjson.Options{}, func(r ndjson.Result) error {
		schema := r.Schema
		if schema == "" {
			schema = "?" // no schema could be chosen
		}
		for _, v := range r.Violations() {
			fmt.Printf("line %d: %s: %s: %s\n", r.Line, schema, v.Path, v.Message)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d messages, %d valid\n", stats.Messages, stats.Valid)
	// Output:
	// line 3: example.event: /type: want one of "created", "updated" or "deleted", got "archived"
	// line 4: ?: /message_type: unknown message type "core.driver" (known types: core.association, core.device, core.vehicle, example.event)
	// 3 messages, 1 valid
}

// Messages hands out each line's message, decoded, in input order, or the
// verdict on it: a consumer needs no line reader of its own, and gets the
// verdicts msgcheck check gives. Default decodes the events, which carry
// no message_type, in a stream of entity messages.
func ExampleMessages() {
	stream := strings.NewReader(`{"message_type":"core.association","message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","source_id":"s","tenant_id":"acme","time":"2026-11-23T08:00:00Z","association_id":"5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a","device_id":"9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4"}

{"message_type":"core.association","message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","source_id":"s","tenant_id":"acme","time":"2026-11-23T08:00:00Z","association_id":
{"id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","type":"created","occurred_at":"2026-11-23T08:00:00Z"}
`)
	for d, err := range ndjson.Messages(context.Background(), stream, ndjson.Options{Default: "example.event"}) {
		if err != nil {
			fmt.Println(err) // reading the stream failed: it ends here
			return
		}
		if d.Err != nil {
			fmt.Printf("line %d: %v\n", d.Line, d.Err) // an invalid message: the stream goes on
			continue
		}
		switch m := d.Message.(type) {
		case *association.Association:
			fmt.Printf("line %d: association of device %s in tenant %s\n", d.Line, m.DeviceID, m.TenantID)
		case *event.Event:
			fmt.Printf("line %d: event %s\n", d.Line, m.Type)
		}
	}
	// Output:
	// line 1: association of device 9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4 in tenant acme
	// line 3: /association_id: unexpected end of input, want a value at byte offset 169
	// line 4: event created
}
