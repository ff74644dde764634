package object_test

import (
	"encoding/json"
	"fmt"

	"github.com/fleetkit/catalogue/object"
)

func ExampleObject() {
	o, err := object.Parse([]byte(`{"colour": "red", "fleet_number": null}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for name, value := range o.All() {
		fmt.Println(name, string(value))
	}
	fmt.Println(o)
	// Output:
	// colour "red"
	// fleet_number null
	// {"colour":"red","fleet_number":null}
}

// New makes an Object of members built in Go, sorted by name; a value
// that is not one JSON value is refused, as it would be in a message.
func ExampleNew() {
	o, err := object.New(map[string]json.RawMessage{
		"fleet_number": json.RawMessage(`null`),
		"colour":       json.RawMessage(`"red"`),
	})
	fmt.Println(o, err)
	_, err = object.New(map[string]json.RawMessage{"colour": json.RawMessage(`red`)})
	fmt.Println(err)
	// Output:
	// {"colour":"red","fleet_number":null} <nil>
	// /colour: not a JSON value: want a value, got character 'r' at byte offset 0
}
