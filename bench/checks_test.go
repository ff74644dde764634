package bench

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestWhatEachImplAccepts pins which messages each impl accepts, so that the
// benchmarks are read knowing what each impl checks for its time: a faster
// impl that checks less has not won. Each case is a realistic message with
// one member changed (or removed, when value is empty), or, when member is
// empty, the whole message in value; valid is the verdict
// of the schema, formats asserted, and of the library's rules (doc/rules.md,
// such as the IMEI check digit); wrong lists the impls whose verdict differs
// from it. An impl not listed, such as the library's, must agree on every
// case.
func TestWhatEachImplAccepts(t *testing.T) {
	cases := []acceptCase{
		{"device", "message_id", `"not-a-uuid"`, false, "stdlib gojsonschema"},
		{"device", "message_id", `"5B3C1F0E-8A2D-4C71-9E4B-2F6D8A1C3E57"`, true, ""},
		{"device", "message_id", `"5b3c1f0e8a2d4c719e4b2f6d8a1c3e57"`, false, "stdlib gojsonschema ogen"},
		{"device", "message_id", `"{5b3c1f0e-8a2d-4c71-9e4b-2f6d8a1c3e57}"`, false, "stdlib gojsonschema ogen"},
		{"device", "message_id", `"urn:uuid:5b3c1f0e-8a2d-4c71-9e4b-2f6d8a1c3e57"`, false, "stdlib gojsonschema ogen"},
		{"device", "time", `"2026-03-14 09:26:53"`, false, ""},
		{"device", "time", `"2016-12-31T23:59:60Z"`, true, "stdlib gojsonschema ogen"},
		{"device", "time", `"2026-03-14T09:26:53.589+24:00"`, false, "stdlib gojsonschema ogen"},
		{"device", "imei", `"490154203237519"`, false, "stdlib gojsonschema ogen santhosh"},
		{"device", "model", `null`, false, "stdlib gojsonschema"},
		{"device", "allowed", `"yes"`, false, ""},
		{"device", "external_id", `null`, false, "stdlib gojsonschema"},
		{"device", "external_id", ``, false, "stdlib"},
		{"vehicle", "consent_status", `"maybe"`, false, "stdlib"},
		{"vehicle", "consent_status", `null`, true, ""},
		{"vehicle", "seed_odo", `-1`, false, "stdlib"},
		{"vehicle", "seed_odo", `1.5`, false, ""},
		{"vehicle", "seed_odo", `1.0`, true, "stdlib gojsonschema ogen"},
		{"vehicle", "seed_odo", `1e2`, true, "stdlib gojsonschema ogen"},
		{"vehicle", "fuel_type", `""`, false, "stdlib gojsonschema"},
		{"vehicle", "year", `"2019"`, false, ""},
		{"vehicle", "meta", `null`, false, "stdlib gojsonschema"},
		{"association", "tags", `[]`, true, ""},
		{"association", "tags", `null`, true, ""},
		{"association", "tags", `[1]`, false, ""},
		{"association", "driver_id", `"nope"`, false, "stdlib gojsonschema"},
		{"association", "source_type", `null`, true, ""},
		{"event", "priority", `10`, false, "stdlib"},
		{"event", "type", `"archived"`, false, "stdlib"},
		{"event", "tags", `null`, false, "stdlib gojsonschema"},
		{"event", "occurred_at", ``, false, "stdlib"},
		{"event", "", `{"id":"c4f81a2d-6b3e-4a95-8d07-e29b5c1f6a38","type":"updated","type":"created","occurred_at":"2026-03-14T09:27:01Z"}`, false, "stdlib gojsonschema ogen santhosh"},
		{"event", "", "{\"id\":\"c4f81a2d-6b3e-4a95-8d07-e29b5c1f6a38\",\"type\":\"updated\",\"occurred_at\":\"2026-03-14T09:27:01Z\",\"tags\":[\"\xff\"]}", false, "stdlib gojsonschema ogen santhosh"},
	}
	realistic := map[string][]byte{}
	for _, in := range inputs {
		if in.name == "realistic" {
			realistic[in.schema] = in.data
		}
	}
	for _, c := range cases {
		var value []byte
		if c.value != "" {
			value = []byte(c.value)
		}
		data := value
		if c.member != "" {
			data = withMember(realistic[c.schema], c.member, value)
		}
		wrong := strings.Fields(c.wrong)
		for _, im := range impls[c.schema] {
			want := c.valid != slices.Contains(wrong, im.name)
			if err := im.decode(data); (err == nil) != want {
				t.Errorf("%s: %s accepts it: %t, want %t (err: %v)", c.describe(), im.name, err == nil, want, err)
			}
		}
	}
}

type acceptCase struct {
	schema, member, value string
	valid                 bool
	wrong                 string
}

func (c acceptCase) describe() string {
	switch {
	case c.member == "":
		return fmt.Sprintf("%s %q", c.schema, c.value)
	case c.value == "":
		return fmt.Sprintf("%s without %s", c.schema, c.member)
	}
	return fmt.Sprintf("%s with %s %s", c.schema, c.member, c.value)
}
