package catalogue_test

import (
	"errors"
	"fmt"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/msg"
)

// Decode's errors are *msg.Error values. Unlike a typed package's Parse,
// Decode returns the message it judged with its error, so that the schema
// that judged it is known; when no schema can be chosen there is no
// message, and errors.Is tells why.
func ExampleDecode_errors() {
	for _, data := range []string{
		`{"message_type":"core.device","message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","source_id":"s","source_type":"teltonika","tenant_id":"acme","time":"2026-11-23T08:00:00Z","device_id":"9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4","external_id":"x"}`,
		`{"message_type":"core.device","imei":"490154203237519"}`,
		`{"message_type":"core.driver"}`,
		`{"id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f"}`,
	} {
		m, err := catalogue.Decode([]byte(data))
		var e *msg.Error // every error of Decode is one
		errors.As(err, &e)
		switch {
		case errors.Is(err, catalogue.ErrUnknownType):
			fmt.Println("no such schema:", m == nil)
		case errors.Is(err, catalogue.ErrNoType):
			fmt.Println("no message_type:", m == nil)
		case err != nil:
			fmt.Printf("%s %s: %d violations, the first %v\n", m.SchemaName(), m.SchemaVersion(), len(e.Violations), e.Violations[0])
		default:
			switch m := m.(type) {
			case *device.Device:
				fmt.Println("device", m.DeviceID)
			}
		}
	}
	// Output:
	// device 9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4
	// core.device 1.0: 8 violations, the first /imei: not an IMEI: check digit is 9, want 8
	// no such schema: true
	// no message_type: true
}

// DecodeOr names the schema of the messages that carry no message_type,
// such as events, in a stream that mixes them with entity messages.
func ExampleDecodeOr() {
	m, err := catalogue.DecodeOr([]byte(`{"id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","type":"created","occurred_at":"2026-11-23T08:00:00Z"}`), event.Name)
	if err != nil {
		fmt.Println(err)
		return
	}
	e := m.(*event.Event)
	fmt.Println(e.SchemaName(), e.Type)
	// Output:
	// example.event created
}
