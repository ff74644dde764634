package compat_test

import (
	"fmt"
	"os"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/schemas"
)

// A proposed 1.2 of the fixture family drops an enumerated value, lowers a
// maximum and changes a default: each finding comes with a message that
// proves it.
func ExampleCompare() {
	c, err := schemas.Load(os.DirFS("../testdata/fixture-breaking"))
	if err != nil {
		panic(err)
	}
	old, _ := c.Lookup("demo.sensor", "1.1")
	proposed, _ := c.Lookup("demo.sensor", "1.2")
	r, err := compat.Compare(old, proposed, compat.Options{}) // Full: the rule for minors
	if err != nil {
		panic(err)
	}
	fmt.Println("compatible:", r.Compatible())
	for _, f := range r.Findings {
		fmt.Printf("%s %s %s\n  witness: %s\n", f.Breaks, f.Code, f.MemberPointer, f.Witness)
	}
	// Output:
	// compatible: false
	// backward enum-value-removed /kind
	//   witness: {"message_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","message_type":"demo.sensor","sensor_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","time":"2019-01-01T00:00:00Z","kind":"humidity"}
	// backward maximum-lowered /level
	//   witness: {"message_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","message_type":"demo.sensor","sensor_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","kind":"temperature","time":"2019-01-01T00:00:00Z","level":51}
	// full default-changed /unit
	//   witness: {"message_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","message_type":"demo.sensor","sensor_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","kind":"temperature","time":"2019-01-01T00:00:00Z"}
}

// CheckCatalogue checks a folder of versions as decision 13 asks: every
// minor against every earlier minor of its major.
func ExampleCheckCatalogue() {
	c, err := schemas.Load(os.DirFS("../testdata/fixture-breaking"))
	if err != nil {
		panic(err)
	}
	reports, err := compat.CheckCatalogue(c, compat.Options{})
	if err != nil {
		panic(err)
	}
	for _, r := range reports {
		fmt.Printf("%s %s -> %s compatible: %v\n", r.New.Name, r.Old.Version, r.New.Version, r.Compatible())
	}
	// Output:
	// demo.sensor 1.0 -> 1.1 compatible: true
	// demo.sensor 1.0 -> 1.2 compatible: false
	// demo.sensor 1.1 -> 1.2 compatible: false
}
