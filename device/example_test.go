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
// the rest, validates and encodes.
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

	if err := d.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	data, err := json.Marshal(d)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(data))
	// Output:
	// {"message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","message_type":"core.device","source_id":"352094083215876","source_type":"teltonika","tenant_id":"acme","time":"2026-11-23T08:00:00Z","device_id":"9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4","external_id":"352094083215876","model":"","firmware":"","configuration":"","imei":"490154203237518","iccid":"","carrier":"","allowed":true,"first_connected":null}
}

// A consumer decodes with json.Unmarshal; a message that breaks the schema
// gives every violation at once, each with its path, rule and value.
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
	var d device.Device
	err := json.Unmarshal(data, &d)

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
