package msg_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/msg"
)

// A message that breaks its schema in two places gives both violations,
// each printed on a line of its own, as the README logs them: a
// Violation prints as "path: message", escaped so that it stays one line
// whatever the message holds, and a missing member has no value to show.
func ExampleError() {
	data := []byte(`{"message_id":"5a6cbfa7-8b9c-4e5d-9d6c-cf1b0a9d8e76","message_type":"core.device",` +
		`"source_id":"dev-0003","source_type":"tracker","tenant_id":"club-1","time":"2026-03-01T08:00:25Z",` +
		`"device_id":"0e5b8f0d-3eaa-4b6d-8f8e-5c7a2b4d6f99","imei":"490154203237519"}`)
	_, err := device.Parse(data)
	var e *msg.Error // Parse's errors are always an *msg.Error
	if errors.As(err, &e) {
		for _, v := range e.Violations {
			fmt.Printf("%v [%s]\n", v, v.Rule)
		}
	}
	// Output:
	// /imei: not an IMEI: check digit is 9, want 8 [imei]
	// /external_id: required member is missing [required]
}

// TestREADMELogsViolationsAsExampleError pins that the README's logging
// example is ExampleError's loop, and shows its output.
func TestREADMELogsViolationsAsExampleError(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`log.Printf("%v [%s]", v, v.Rule)`,
		"// /imei: not an IMEI: check digit is 9, want 8 [imei]\n",
		"// /external_id: required member is missing [required]\n",
	} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("the README does not show %q", want)
		}
	}
}

// Two $ids name the same schema when their canonical forms are equal: the
// catalogue has been published under http and https (decision 9).
func ExampleCanonicalID() {
	fmt.Println(msg.CanonicalID("HTTP://Catalogue.FleetKit.dev/api/schemas/core.device/versions/1.0"))
	// Output: https://catalogue.fleetkit.dev/api/schemas/core.device/versions/1.0
}
