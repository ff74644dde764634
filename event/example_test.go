package event_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/msg"
)

// Every violation comes back at once, nested ones with their full path.
func ExampleEvent_UnmarshalJSON() {
	var e event.Event
	err := json.Unmarshal([]byte(`{
		"id": "5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44",
		"type": "Created",
		"occurred_at": "2026-11-23T08:00:00Z",
		"priority": 10,
		"tags": ["urgent", 7],
		"actor": {"id": "{5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44}"}
	}`), &e)

	var v *msg.Violation
	if errors.As(err, &v) {
		fmt.Println("first:", v)
	}
	for _, v := range err.(*msg.Error).Violations {
		fmt.Printf("%s %s %s\n", v.Path, v.Rule, v.Value)
	}
	// Output:
	// first: /type: want one of "created", "updated" or "deleted", got "Created"
	// /type enum "Created"
	// /priority maximum 10
	// /tags/1 type 7
	// /actor/id format "{5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44}"
}

// Validate checks what a Go value can hold and the schema rejects, such as
// a value outside an enumeration.
func ExampleEvent_Validate() {
	e := event.New()
	e.Type = "archived"
	fmt.Println(e.Validate())
	e.Type = event.TypeDeleted
	fmt.Println(e.Validate())
	// Output:
	// /type: want one of "created", "updated" or "deleted", got "archived"
	// <nil>
}
