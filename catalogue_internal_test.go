package catalogue

import (
	"bytes"
	"testing"
)

// glances are beginnings of messages that leadingType must read as
// messageType does, or leave to it.
var glances = []string{
	`{"message_type":"core.device"}`,
	` { "message_type" : "core.vehicle" } `,
	"{\n\t\"message_id\":\"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f\" ,\r\n \"message_type\":\t\"core.association\"}",
	`{"message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","message_type":"core.device"}`,
	`{"message_id":"x\"","message_type":"core.device"}`,
	`{"message_id":"\u0030","message_type":"core.device"}`,
	`{"message_id":7,"message_type":"core.device"}`,
	`{"message_id":"","message_type":"core.device"}`,
	`{"message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f-0b7f3c52-1a8e-4c9d-9f0e","message_type":"core.device"}`,
	`{"message_type":"core.d\u0065vice"}`,
	`{"message_type":"core.device\u0000"}`,
	"{\"message_type\":\"core.device\x00\"}",
	"{\"message_type\":\"core.dev\xffice\"}",
	"{\"message_type\":\"core.device\x7f\"}",
	`{"message_type":"core.device"`,
	`{"message_type":"core.device`,
	`{"message_type" "core.device"}`,
	`{"message_type":"core.device","message_type":"core.vehicle"}`,
	`{"message_type":"core.device"]`,
	`{"message_typ":"core.device"}`,
	`{"message_type":""}`,
	`{"message_type":"x"}`,
	`{"tenant_id":"t","message_type":"core.vehicle"}`,
	`{"message_id":"0b7f3c52","message_id":"0b7f3c52","message_type":"core.vehicle"}`,
	`[{"message_type":"core.device"}]`,
	`{"message_id":"0b7f3c52" "message_type":"core.device"}`,
	`{"message_id""0b7f3c52","message_type":"core.device"}`,
}

// TestLeadingTypeReadsAsMessageTypeDoes pins the glance Decode takes at a
// message's first members: where it finds a message_type, messageType,
// reading the message in full, finds the same one without error.
func TestLeadingTypeReadsAsMessageTypeDoes(t *testing.T) {
	found := 0
	for _, data := range glances {
		if leadingTypeAgrees(t, []byte(data)) {
			found++
		}
	}
	// The glance is meant to find the common beginnings, not only to be
	// safe by finding nothing.
	if found < 8 {
		t.Errorf("leadingType found a message_type in %d of the beginnings, want at least 8", found)
	}
}

func FuzzLeadingType(f *testing.F) {
	for _, data := range glances {
		f.Add([]byte(data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		leadingTypeAgrees(t, data)
	})
}

// leadingTypeAgrees checks leadingType against messageType on data and
// reports whether leadingType found a message_type.
func leadingTypeAgrees(t *testing.T, data []byte) bool {
	t.Helper()
	typ, ok := leadingType(data)
	if !ok {
		return false
	}
	want, err := messageType(data)
	if err != nil || !bytes.Equal(typ, want) {
		t.Errorf("%q: leadingType found %q, messageType %q, %v", data, typ, want, err)
	}
	return true
}
