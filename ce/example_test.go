package ce_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/device"
)

// A producer gives a validated message its headers; a consumer decodes the
// body by them, and a header that contradicts the body is a violation.
func Example() {
	d := device.New()
	d.MessageID = uuid.MustParse("0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f")
	d.SourceID, d.SourceType, d.TenantID = "352094083215876", "teltonika", "acme"
	d.Time = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	d.DeviceID = uuid.MustParse("9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4")
	d.ExternalID = "352094083215876"
	if err := d.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	body, _ := d.MarshalJSON()

	h := http.Header{}
	if err := ce.HTTP.Write(h, d); err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range []string{"Ce-Id", "Ce-Type", "Ce-Source", "Ce-Time", "Ce-Dataschema"} {
		fmt.Printf("%s: %s\n", k, h.Get(k))
	}

	m, err := ce.HTTP.Decode(catalogue.Kinds, h, body)
	fmt.Printf("%T %v\n", m, err)

	h.Set("ce-id", "7a1f0e52-0000-4000-8000-000000000000")
	_, err = ce.HTTP.Decode(catalogue.Kinds, h, body)
	fmt.Println(err)
	// Output:
	// Ce-Id: 0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f
	// Ce-Type: core.device
	// Ce-Source: /tenants/acme/sources/teltonika/352094083215876
	// Ce-Time: 2026-11-23T08:00:00Z
	// Ce-Dataschema: https://catalogue.fleetkit.dev/api/schemas/core.device/versions/1.0
	// *device.Device <nil>
	// /message_id: ce-id contradicts the message's message_id 0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f
}
