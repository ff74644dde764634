package association_test

import (
	"encoding/json"
	"fmt"

	"github.com/fleetkit/catalogue/association"
)

// Tags tells an absent member, which takes the default [], from null.
func ExampleAssociation_tags() {
	const head = `"message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","source_id":"s","tenant_id":"acme","time":"2026-11-23T08:00:00Z",` +
		`"association_id":"5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a","device_id":"9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4"`
	for _, msg := range []string{`{` + head + `}`, `{` + head + `,"tags":null}`, `{` + head + `,"tags":["night"]}`} {
		var a association.Association
		if err := json.Unmarshal([]byte(msg), &a); err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%q nil=%v\n", a.Tags, a.Tags == nil)
	}
	// Output:
	// [] nil=false
	// [] nil=true
	// ["night"] nil=false
}
