package schemas_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fleetkit/catalogue/schemas"
)

func ExampleLookup() {
	s, err := schemas.Lookup("core.device", "1.0")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.ID)
	fmt.Println(s.File())
	fmt.Println(s.Required)

	_, err = schemas.Lookup("core.device", "2.0")
	fmt.Println(errors.Is(err, schemas.ErrUnknown))
	// Output:
	// https://catalogue.fleetkit.dev/api/schemas/core.device/versions/1.0
	// core.device-1.0.json
	// [device_id external_id message_id message_type source_id source_type tenant_id time]
	// true
}

func ExampleLookupID() {
	// The catalogue has been published under both schemes; either finds
	// the schema.
	for _, id := range []string{
		"https://catalogue.fleetkit.dev/api/schemas/core.vehicle/versions/1.0",
		"http://catalogue.fleetkit.dev/api/schemas/core.vehicle/versions/1.0",
	} {
		s, err := schemas.LookupID(id)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(s.Name, s.Version)
	}
	_, err := schemas.LookupID("https://example.com/api/schemas/core.vehicle/versions/1.0")
	fmt.Println(errors.Is(err, schemas.ErrUnknown))
	// Output:
	// core.vehicle 1.0
	// core.vehicle 1.0
	// true
}

func ExampleSchema_JSON() {
	s, err := schemas.Lookup("example.event", "1.0")
	if err != nil {
		fmt.Println(err)
		return
	}
	var doc struct {
		Schema   string   `json:"$schema"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(s.JSON(), &doc); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Schema)
	fmt.Println(doc.Required)
	// Output:
	// https://json-schema.org/draft/2020-12/schema
	// [id type occurred_at]
}
