package ndjson_test

import (
	"context"
	"fmt"
	"strings"

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
