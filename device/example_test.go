package device_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/msg"
)

// A producer starts from New, which fills in the schema's defaults, sets
// the rest, checks that no required member was forgotten, validates and
// encodes.
func Example_produce() {
	d := device.New()
	d.MessageID = uuid.MustParse("0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f")
	d.SourceID = "352094083215876"
	d.SourceType = "teltonika"
	d.TenantID = "acme"
	d.Time = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	d.DeviceID = uuid.MustParse("9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4")
	d.ExternalID = "352094083215876"
	d.IMEI = "490154203237518"
	d.Allowed = true

	if unset := d.Unset(); unset != nil {
		fmt.Println("not set:", unset)
		return
	}
	if err := d.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	data, err := d.AppendJSON(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(data))
	// Output:
	// {"message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","message_type":"core.device","source_id":"352094083215876","source_type":"teltonika","tenant_id":"acme","time":"2026-11-23T08:00:00Z","device_id":"9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4","external_id":"352094083215876","model":"","firmware":"","configuration":"","imei":"490154203237518","iccid":"","carrier":"","allowed":true,"first_connected":null}
}

// A consumer decodes with Parse; a message that breaks the schema gives
// every violation at once, each with its path, rule and value.
func Example_consume() {
	data := []byte(`{
		"message_id": "0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f",
		"message_type": "core.device",
		"source_id": "352094083215876",
		"source_type": null,
		"time": "2026-11-23 08:00:00",
		"device_id": "9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4",
		"external_id": "352094083215876",
		"imei": "490154203237519"
	}`)
	_, err := device.Parse(data)

	var e *msg.Error
	if errors.As(err, &e) {
		for _, v := range e.Violations {
			fmt.Printf("%s [%s] %s\n", v.Path, v.Rule, v.Message)
		}
	}
	// Output:
	// /source_type [type] want a string, got null
	// /time [format] not a date-time: want 'T' between date and time
	// /imei [imei] not an IMEI: check digit is 9, want 8
	// /tenant_id [required] required member is missing
}

// Unset names the required members a producer forgot: Validate accepts
// their zero values, as the schema does.
func ExampleDevice_Unset() {
	d := device.New()
	d.DeviceID = uuid.MustParse("9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4")
	fmt.Println(d.Validate())
	fmt.Println(d.Unset())
	// Output:
	// <nil>
	// [/message_id /source_id /source_type /tenant_id /time /external_id]
}

// Through encoding/json, malformed JSON is reported by encoding/json
// itself, before the library sees it; Parse reports it as a violation.
func ExampleParse_syntax() {
	data := []byte(`{"message_id": "0b7f3c52-`)
	_, err := device.Parse(data)
	var v *msg.Violation
	fmt.Println(errors.As(err, &v), err)

	var d device.Device
	err = json.Unmarshal(data, &d)
	_, isSyntax := errors.AsType[*json.SyntaxError](err)
	fmt.Println(errors.As(err, &v), isSyntax)
	// Output:
	// true /message_id: unterminated string at byte offset 25
	// false true
}
