package vehicle_test

import (
	"encoding/json"
	"fmt"

	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/vehicle"
)

// Nullable members tell absent, null and a value apart, and meta keeps its
// null values, which ask downstream for a key to be deleted.
func Example_nullable() {
	var v vehicle.Vehicle
	err := json.Unmarshal([]byte(`{
		"message_id": "0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f",
		"message_type": "core.vehicle",
		"source_id": "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a",
		"source_type": "CORE",
		"tenant_id": "acme",
		"time": "2026-11-23T08:00:00+01:00",
		"vehicle_id": "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a",
		"make": "Volvo",
		"vin": null,
		"meta": {"colour": "red", "fleet_number": null}
	}`), &v)
	if err != nil {
		fmt.Println(err)
		return
	}
	brand, ok := v.Make.Get()
	fmt.Println(brand, ok)
	fmt.Println(v.VIN.IsNull(), v.Model.IsAbsent())
	fleet, _ := v.Meta.Get("fleet_number")
	fmt.Println(string(fleet), v.Meta)

	v.ConsentStatus = msg.Of(vehicle.ConsentStatusApproved)
	v.LicencePlate = msg.Null[string]()
	fmt.Println(v.Validate())
	// Output:
	// Volvo true
	// true true
	// null {"colour":"red","fleet_number":null}
	// <nil>
}
