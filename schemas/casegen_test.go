package schemas_test

// This file writes the case table, testdata/cases/<schema name>.ndjson, from
// the field tables of catalogue.md (sections 2 and 8) and decisions.md,
// transcribed below by hand: never from the schema files, and never from the
// oracle, since the table is what both are held to. Each case's validity is
// stated here, with a note naming the rule it pins.
//
// After changing this file, rewrite the table and review the diff:
//
//	go test ./schemas -run TestCaseFilesAreUpToDate -update

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/jsonobject"
)

var update = flag.Bool("update", false, "rewrite testdata/cases from casegen_test.go")

func TestCaseFilesAreUpToDate(t *testing.T) {
	for _, tab := range specTables() {
		path := filepath.Join("testdata", "cases", tab.name+".ndjson")
		got := tab.generate()
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, got, 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, string(got), string(want),
			"%s differs from what casegen_test.go writes: edit casegen_test.go and run go test ./schemas -run TestCaseFilesAreUpToDate -update", path)
	}
}

// kind is a field's type in the spec's tables.
type kind int

const (
	kString      kind = iota // string
	kUUID                    // string, uuid
	kDateTime                // string, date-time
	kInteger                 // integer
	kBoolean                 // boolean
	kObject                  // object with free keys
	kStringArray             // array of string
)

// field is one row of a field table of the spec.
type field struct {
	name     string
	kind     kind
	required bool
	nullable bool
	def      string // the default as JSON, or "" for none
	sample   string // a valid value as JSON, used when the field is optional
	limited  bool   // not every string is valid: an enumeration, a length or a rule
}

// table is one schema's field table, with valid messages to vary.
type table struct {
	name    string
	section string // where the spec gives the table
	fields  []field
	base    []member // the required members, each with a valid value
	cases   []tcase
}

type member struct{ name, value string } // value is JSON text

type tcase struct {
	valid   bool
	note    string
	message string // JSON text
}

// Values used throughout. The UUIDs are random version 4 UUIDs.
const (
	uuidA = "5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44"
	uuidB = "0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21"
	uuidC = "c2e8f1a0-6d4b-4b9a-b3c5-9e7d1f2a8b60"
	uuidD = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	ts    = "2019-01-01T00:00:00Z"
)

// q returns s as a JSON string, without encoding/json's HTML escaping.
func q(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func object(members []member) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(q(m.name) + ":" + m.value)
	}
	b.WriteByte('}')
	return b.String()
}

// with returns the base message with name set to value (replaced in place,
// or added at the end).
func (t *table) with(name, value string) string {
	ms := slices.Clone(t.base)
	if i := slices.IndexFunc(ms, func(m member) bool { return m.name == name }); i >= 0 {
		ms[i].value = value
	} else {
		ms = append(ms, member{name, value})
	}
	return object(ms)
}

// withMembers returns the base message with every one of extra set.
func (t *table) withMembers(extra ...member) string {
	saved := t.base
	defer func() { t.base = saved }()
	for _, m := range extra {
		t.base = jsonMembers(t.with(m.name, m.value))
	}
	return object(t.base)
}

func jsonMembers(obj string) []member {
	list, err := jsonobject.Members([]byte(obj))
	if err != nil {
		panic(err)
	}
	ms := make([]member, len(list))
	for i, m := range list {
		ms[i] = member{m.Name, string(m.Value)}
	}
	return ms
}

func (t *table) without(name string) string {
	return object(slices.DeleteFunc(slices.Clone(t.base), func(m member) bool { return m.name == name }))
}

func (t *table) add(valid bool, note, message string) {
	t.cases = append(t.cases, tcase{valid, note, message})
}

// set adds a case setting field to value in the base message.
func (t *table) set(valid bool, name, value, why string) {
	t.add(valid, fmt.Sprintf("%s: %s %s", name, value, why), t.with(name, value))
}

func (t *table) generate() []byte {
	t.cases = nil
	t.fieldRows()
	t.extra()
	var b bytes.Buffer
	for _, c := range t.cases {
		fmt.Fprintf(&b, `{"valid":%t,"note":%s,"message":%s}`+"\n", c.valid, q(c.note), c.message)
	}
	return b.Bytes()
}

// extra holds each schema's own cases, beyond what its field table implies.
var extras = map[string]func(*table){}

func (t *table) extra() {
	t.add(true, "every required member, nothing else", object(t.base))
	var all []member
	for _, f := range t.fields {
		v := f.sample
		if v == "" {
			v = t.valueOf(f.name)
		}
		all = append(all, member{f.name, v})
	}
	t.add(true, "every member of the field table set", t.withMembers(all...))
	t.add(true, "unknown member: number (decision 3)", t.with("x_unknown", "1"))
	t.add(true, "unknown member: null (decision 3)", t.with("x_unknown", "null"))
	t.add(true, "unknown member: nested object and array (decision 3)", t.with("x_unknown", `{"a":[1,"b",null,{"c":true}]}`))
	t.add(true, "unknown member: name differing from a field only in case (decision 3)", t.with(strings.ToUpper(t.fields[0].name), `"x"`))
	t.add(false, "document is an empty object: required members absent", `{}`)
	t.add(false, "document is null, not an object", `null`)
	t.add(false, "document is an array, not an object", `[]`)
	t.add(false, "document is an array holding a valid message, not an object", "["+object(t.base)+"]")
	t.add(false, "document is a string, not an object", q(object(t.base)))
	t.add(false, "document is a number, not an object", `1`)
	t.add(false, "document is a boolean, not an object", `true`)
	extras[t.name](t)
}

func (t *table) valueOf(name string) string {
	for _, m := range t.base {
		if m.name == name {
			return m.value
		}
	}
	panic("no value for " + name)
}

// fieldRows adds the cases every row of a field table implies.
func (t *table) fieldRows() {
	for _, f := range t.fields {
		n := f.name
		if f.required {
			t.add(false, n+": absent, and required ("+t.section+")", t.without(n))
		} else {
			t.add(true, n+": absent, and optional ("+t.section+")", t.without(n))
			if f.sample != f.def {
				t.set(true, n, f.sample, "is a valid value of the optional field")
			}
		}
		switch {
		case f.nullable && f.def == "null":
			t.set(true, n, "null", "is allowed: the field is nullable, and null is its default")
		case f.nullable:
			t.set(true, n, "null", "is allowed: the field is nullable")
		case f.def != "":
			t.set(false, n, "null", "is not allowed, though the field has a default: not nullable (decision 4)")
		case !f.required:
			t.set(false, n, "null", "is not allowed, though the field is optional: not nullable (decision 4)")
		default:
			t.set(false, n, "null", "is not allowed: not nullable")
		}
		if f.def != "" && f.def != "null" {
			t.set(true, n, f.def, "is the default, given explicitly")
		}
		for _, w := range wrongTypes[f.kind] {
			t.set(false, n, w.value, "is "+w.what+", not "+kindNames[f.kind])
		}
		if f.kind == kString && !f.limited {
			t.set(true, n, `""`, "is a string: no minimum length")
		}
	}
}

var kindNames = map[kind]string{
	kString: "a string", kUUID: "a string", kDateTime: "a string", kInteger: "an integer",
	kBoolean: "a boolean", kObject: "an object", kStringArray: "an array",
}

type wrong struct{ value, what string }

var (
	notString  = []wrong{{"1", "a number"}, {"true", "a boolean"}, {"{}", "an object"}, {`["x"]`, "an array"}}
	wrongTypes = map[kind][]wrong{
		kString:      notString,
		kUUID:        notString,
		kDateTime:    notString,
		kInteger:     {{`"1"`, "a string"}, {"true", "a boolean"}, {"{}", "an object"}, {"[1]", "an array"}},
		kBoolean:     {{`"true"`, "a string"}, {"0", "a number"}, {"{}", "an object"}, {"[true]", "an array"}},
		kObject:      {{`"{}"`, "a string"}, {"1", "a number"}, {"true", "a boolean"}, {`[{"k":1}]`, "an array"}},
		kStringArray: {{`"a"`, "a string"}, {"1", "a number"}, {"true", "a boolean"}, {`{"0":"a"}`, "an object"}},
	}
)

// uuids adds the edge classes of decision 1 for a uuid field; all of them
// when full, otherwise one of each class.
func (t *table) uuids(name string, full bool) {
	valid := []wrong{
		{strings.ToUpper(uuidA), "upper case"},
		{"5F0c3a5E-8f5B-4C1e-9A39-0d2B7c9E1a44", "mixed case"},
	}
	invalid := notUUIDs(uuidA)
	if full {
		valid = append(valid,
			wrong{"00000000-0000-0000-0000-000000000000", "the nil UUID"},
			wrong{"ffffffff-ffff-ffff-ffff-ffffffffffff", "the max UUID"},
			wrong{"5f0c3a5e-8f5b-0c1e-0a39-0d2b7c9e1a44", "any version and variant nibble: the form is all that is checked"},
		)
		invalid = append(invalid,
			wrong{" " + uuidA, "a leading space"},
			wrong{uuidA + " ", "a trailing space"},
			wrong{uuidA[:35], "35 characters: last group 11 digits"},
			wrong{uuidA + "4", "37 characters: last group 13 digits"},
			wrong{"5f0c3a5e-8f5b4-c1e-9a39-0d2b7c9e1a44", "hyphen misplaced (8-5-3-4-12)"},
			wrong{"5f0c3a5e-8f5b-4c1e-9a39-0d2b-7c9e1a44", "an extra hyphen"},
			wrong{"5f0c3a5e_8f5b_4c1e_9a39_0d2b7c9e1a44", "underscores for hyphens"},
			wrong{"５f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44", "a full-width digit"},
		)
	}
	t.format(name, "a uuid", valid, invalid)
}

// notUUIDs returns, for the uuid u, a string of each class that decision
// 1 rejects, made from u.
func notUUIDs(u string) []wrong {
	return []wrong{
		{"{" + u + "}", "braces"},
		{"urn:uuid:" + u, "urn:uuid: prefix"},
		{strings.ReplaceAll(u, "-", ""), "no hyphens"},
		{u[:8] + u[9:10] + "-" + u[10:], "wrong group lengths (9-3-4-4-12)"},
		{u[:7] + "g" + u[8:], "non-hex digit g"},
		{" " + u + " ", "spaces around"},
		{"", "empty"},
	}
}

// format adds a case for each value of the string field name, valid or
// invalid as a string of the format called what (decision 1).
func (t *table) format(name, what string, valid, invalid []wrong) {
	for _, v := range valid {
		t.set(true, name, q(v.value), "is "+what+": "+v.what+" (decision 1)")
	}
	for _, v := range invalid {
		t.set(false, name, q(v.value), "is not "+what+": "+v.what+" (decision 1)")
	}
}

// dateTimes adds the edge classes of decision 1 for a date-time field: all
// of them when full, otherwise those of the decision's own text.
func (t *table) dateTimes(name string, full bool) {
	valid := []wrong{
		{"2019-01-01t00:00:00z", "lower-case t and z"},
		{"2016-12-31T23:59:60Z", "a leap second at the end of a UTC day"},
	}
	invalid := []wrong{
		{"2019-01-01T00:00:00", "no offset"},
		{"2019-01-01T00:00:00+24:00", "offset +24:00"},
		{"2019-01-01", "a date only"},
		{"2019-01-01T+1:00:00Z", "a sign in the hour"},
	}
	if full {
		valid = append(valid,
			wrong{"2019-01-01T00:00:00+23:59", "offset +23:59"},
			wrong{"2019-01-01T00:00:00.123456789012345Z", "15 fraction digits"},
			wrong{"2020-02-29T00:00:00Z", "Feb 29 of a leap year"},
			wrong{"2019-01-01T00:00:00+00:00", "offset +00:00"},
			wrong{"2019-01-01T00:00:00-00:00", "offset -00:00"},
			wrong{"2019-01-01T00:00:00-23:59", "offset -23:59"},
			wrong{"2016-12-31T15:59:60-08:00", "a leap second at 23:59:60 UTC, written with an offset"},
			wrong{"2019-01-01T00:00:00.5Z", "one fraction digit"},
			wrong{"2000-02-29T00:00:00Z", "Feb 29 of 2000, divisible by 400"},
			wrong{"0000-01-01T00:00:00Z", "year 0000"},
		)
		invalid = append(invalid,
			wrong{"2019-01-01T12:00:60Z", "second 60 not at the end of a UTC day"},
			wrong{"2016-12-31T23:59:60+01:00", "second 60 at 22:59 UTC"},
			wrong{"2019-01-01T00:00:00,5Z", "comma before the fraction"},
			wrong{"2019-02-29T00:00:00Z", "Feb 29 of a non-leap year"},
			wrong{"2019-13-01T00:00:00Z", "month 13"},
			wrong{"2019-01-32T00:00:00Z", "day 32"},
			wrong{"2019-01-01T00:00:00+00:60", "offset minute 60"},
			wrong{"2019-01-01T00:00:00.Z", "a fraction without digits"},
			wrong{"1900-02-29T00:00:00Z", "Feb 29 of 1900, not a leap year"},
			wrong{"2019-00-01T00:00:00Z", "month 0"},
			wrong{"2019-04-31T00:00:00Z", "April 31"},
			wrong{"2019-01-01T24:00:00Z", "hour 24"},
			wrong{"2019-01-01T00:60:00Z", "minute 60"},
			wrong{"2019-01-01T00:00Z", "no seconds"},
			wrong{"2019", "a bare year"},
			wrong{"00:00:00Z", "a time only"},
			wrong{"2019-01-01 00:00:00Z", "a space instead of T"},
			wrong{"2019-01-01T00:00:00+0000", "offset without colon"},
			wrong{"2019-01-01T00:00:00+01", "offset without minutes"},
			wrong{"2019-1-01T00:00:00Z", "one-digit month"},
			wrong{"20190101T000000Z", "ISO 8601 basic format"},
			wrong{"2019-01-01T00:00:00++1:00", "a doubled sign in the offset"},
			wrong{"2019-01-01T00:00:-0Z", "a sign in the second"},
			wrong{" 2019-01-01T00:00:00Z", "a leading space"},
			wrong{"2019-01-01T00:00:00Z ", "a trailing space"},
			wrong{"２０19-01-01T00:00:00Z", "full-width digits"},
			wrong{"", "empty"},
		)
	}
	t.format(name, "a date-time", valid, invalid)
}

// integers adds the cases of decision 2 for an integer field whose bounds
// admit 0 to 9.
func (t *table) integers(name string) {
	for _, v := range []string{"1.0", "1e0", "1E0", "1e+0", "100e-2", "-0", "-0.0", "0e5", "9.0", "90e-1"} {
		t.set(true, name, v, "is a mathematical integer (decision 2)")
	}
	for _, v := range []string{"1.5", "0.1", "9.5", "1e-1", "8.999999999999999999999"} {
		t.set(false, name, v, "is not an integer (decision 2)")
	}
}

// outsideInt64 adds the cases of integer field name whose values do not
// fit in an int64, which are rejected (decision 2).
func (t *table) outsideInt64(name string, values ...string) {
	for _, v := range values {
		t.set(false, name, v, "does not fit in an int64 (decision 2)")
	}
}

// enumeration adds the cases of a string field that is an enumeration of
// values (as the spec says where), and of strings near them it rejects.
func (t *table) enumeration(name, where string, values, near []string) {
	for _, v := range values {
		t.set(true, name, q(v), "is a member of the enumeration ("+where+")")
	}
	for _, v := range near {
		t.set(false, name, q(v), "is not a member of the enumeration (section 8)")
	}
}

func specTables() []*table {
	return []*table{deviceTable(), vehicleTable(), associationTable(), eventTable()}
}

// envelope is section 2.1's rows, as they apply to schema name.
func envelope(name string) []field {
	core := name != "core.association"
	sourceID := field{name: "source_id", kind: kString, required: true}
	if name == "core.vehicle" {
		sourceID.kind = kUUID
	}
	sourceType := field{name: "source_type", kind: kString, required: core, nullable: !core, sample: `"CORE"`}
	if name == "core.vehicle" {
		sourceType.def = `"CORE"`
	}
	return []field{
		{name: "message_id", kind: kUUID, required: true},
		{name: "message_type", kind: kString, required: core, def: q(name), sample: q(name)},
		sourceID,
		sourceType,
		{name: "source_message_type", kind: kString, sample: `"telemetry"`},
		{name: "tenant_id", kind: kString, required: true},
		{name: "time", kind: kDateTime, required: true},
	}
}

// envelopeCases pins section 2.1 and decision 10 beyond the field rows.
func (t *table) envelopeCases() {
	t.set(true, "message_type", q(t.name+"x"), "is any string, not only the schema's name (decision 10)")
	t.set(true, "message_type", `"example.event"`, "is any string, even another schema's name (decision 10)")
	t.set(true, "tenant_id", q("é ü 😀 \t\n\u0000"), "is a string: any characters")
	t.uuids("message_id", false)
	t.dateTimes("time", t.name != "core.vehicle")
}

func deviceTable() *table {
	t := &table{name: "core.device", section: "spec 2.2"}
	t.fields = append(envelope(t.name),
		field{name: "device_id", kind: kUUID, required: true},
		field{name: "external_id", kind: kString, required: true},
		field{name: "type", kind: kString, nullable: true, sample: `"tracker"`},
		field{name: "model", kind: kString, def: `""`, sample: `"X1"`},
		field{name: "firmware", kind: kString, def: `""`, sample: `"1.2.3"`},
		field{name: "configuration", kind: kString, def: `""`, sample: `"default"`},
		field{name: "imei", kind: kString, def: `""`, sample: `"490154203237518"`, limited: true},
		field{name: "iccid", kind: kString, def: `""`, sample: `"8931440400012345678"`},
		field{name: "carrier", kind: kString, def: `""`, sample: `"KPN"`},
		field{name: "allowed", kind: kBoolean, def: "false", sample: "true"},
		field{name: "data_provider", kind: kString, sample: `"acme"`},
		field{name: "created", kind: kDateTime, sample: q(ts)},
		field{name: "first_connected", kind: kDateTime, nullable: true, def: "null", sample: q(ts)},
	)
	t.base = []member{
		{"device_id", q(uuidA)}, {"external_id", `"ext-1"`}, {"message_id", q(uuidB)},
		{"message_type", `"core.device"`}, {"source_id", `"src-1"`}, {"source_type", `"tracker"`},
		{"tenant_id", `"club-1"`}, {"time", q(ts)},
	}
	return t
}

func vehicleTable() *table {
	t := &table{name: "core.vehicle", section: "spec 2.3"}
	t.fields = append(envelope(t.name),
		field{name: "vehicle_id", kind: kUUID, required: true},
		field{name: "make", kind: kString, nullable: true, sample: `"Volvo"`},
		field{name: "model", kind: kString, nullable: true, sample: `"XC40"`},
		field{name: "year", kind: kDateTime, nullable: true, sample: `"2019-01-01T00:00:00Z"`},
		field{name: "fuel_type", kind: kString, nullable: true, sample: `"diesel"`, limited: true},
		field{name: "vin", kind: kString, nullable: true, sample: `"YV1XZ16A1L1234567"`},
		field{name: "licence_plate", kind: kString, nullable: true, sample: `"AB-123-C"`},
		field{name: "seed_odo", kind: kInteger, def: "0", sample: "12345"},
		field{name: "seed_odo_time", kind: kDateTime, nullable: true, sample: q(ts)},
		field{name: "meta", kind: kObject, sample: `{"colour":"red","deleted":null}`},
		field{name: "specification", kind: kObject, sample: `{"engine":{"kw":110},"doors":5}`},
		field{name: "consent_status", kind: kString, nullable: true, sample: `"approved"`, limited: true},
		field{name: "data_provider_key", kind: kString, nullable: true, sample: `"key-1"`},
		field{name: "allowed", kind: kBoolean, nullable: true, sample: "true"},
		field{name: "created", kind: kDateTime, sample: q(ts)},
	)
	t.base = []member{
		{"message_id", q(uuidB)}, {"message_type", `"core.vehicle"`}, {"source_id", q(uuidA)},
		{"source_type", `"CORE"`}, {"tenant_id", `"club-1"`}, {"time", q(ts)}, {"vehicle_id", q(uuidA)},
	}
	return t
}

func associationTable() *table {
	t := &table{name: "core.association", section: "spec 2.4"}
	t.fields = append(envelope(t.name),
		field{name: "association_id", kind: kUUID, required: true},
		field{name: "device_id", kind: kUUID, required: true},
		field{name: "driver_id", kind: kUUID, nullable: true, def: "null", sample: q(uuidC)},
		field{name: "vehicle_id", kind: kUUID, nullable: true, def: "null", sample: q(uuidD)},
		field{name: "battery_id", kind: kUUID, nullable: true, def: "null", sample: q(uuidC)},
		field{name: "tags", kind: kStringArray, nullable: true, def: "[]", sample: `["fleet","night"]`},
		field{name: "external_id", kind: kString, nullable: true, sample: `"ext-1"`},
		field{name: "offset", kind: kInteger, sample: "3600"},
	)
	t.base = []member{
		{"association_id", q(uuidA)}, {"device_id", q(uuidB)}, {"message_id", q(uuidC)},
		{"source_id", `"src-1"`}, {"tenant_id", `"club-1"`}, {"time", q(ts)},
	}
	return t
}

func eventTable() *table {
	t := &table{name: "example.event", section: "spec 2.5"}
	t.fields = []field{
		{name: "id", kind: kUUID, required: true},
		{name: "type", kind: kString, required: true, limited: true},
		{name: "occurred_at", kind: kDateTime, required: true},
		{name: "priority", kind: kInteger, sample: "5"},
		{name: "tags", kind: kStringArray, sample: `["a","b"]`},
		{name: "actor", kind: kObject, sample: `{"id":"` + uuidC + `","name":"Ada"}`},
	}
	t.base = []member{{"id", q(uuidA)}, {"type", `"created"`}, {"occurred_at", q(ts)}}
	return t
}

func init() {
	extras["core.device"] = func(t *table) {
		t.envelopeCases()
		t.uuids("device_id", true)
		t.set(true, "source_id", `"not-a-uuid"`, "is a plain string in core.device, not a uuid (spec 2.1)")
		t.set(true, "source_id", q(uuidA), "may look like a uuid")
		t.dateTimes("created", false)
		t.dateTimes("first_connected", false)
		for _, v := range []wrong{
			{"490154203237518", "a valid IMEI"},
			{"356938035643809", "a valid IMEI"},
			{"012345678901237", "a valid IMEI with a leading zero"},
			{"000000000000000", "15 zeros, whose check digit is 0"},
		} {
			t.set(true, "imei", q(v.value), "is "+v.what+" (decision 6)")
		}
		for _, v := range []wrong{
			{"490154203237519", "wrong check digit"},
			{"490154203237510", "wrong check digit 0"},
			{"49015420323751", "14 digits"},
			{"4901542032375180", "16 digits"},
			{"49015420323751A", "a non-digit"},
			{"49-015420-323751-8", "digits with hyphens"},
			{" 490154203237518", "a leading space"},
			{"４90154203237518", "a full-width digit"},
			{"0", "one digit"},
		} {
			t.set(false, "imei", q(v.value), "is not a valid IMEI: "+v.what+" (decision 6)")
		}
		t.set(false, "imei", "490154203237518", "is a number, though a valid IMEI's digits, not a string")
		t.add(true, "type null and source_type set: the two are independent fields", t.withMembers(member{"type", "null"}, member{"source_type", `"tracker"`}))
	}
	extras["core.vehicle"] = func(t *table) {
		t.envelopeCases()
		t.uuids("vehicle_id", true)
		t.uuids("source_id", false)
		t.dateTimes("year", true)
		t.dateTimes("seed_odo_time", false)
		t.dateTimes("created", false)
		t.set(false, "year", `"2019"`, "is a bare year, but year is declared date-time (decision 7)")
		t.set(false, "year", "2019", "is a number, not a string (decision 7)")
		t.set(true, "source_type", `"tracker"`, "is any string; CORE is only the default")
		for _, v := range []string{"0", "1", "9007199254740993", "9223372036854775807"} {
			t.set(true, "seed_odo", v, "is at least 0 (section 8)")
		}
		t.set(false, "seed_odo", "-1", "is below the minimum 0 (section 8)")
		t.set(false, "seed_odo", "-9223372036854775808", "is below the minimum 0 (section 8)")
		t.outsideInt64("seed_odo", "9223372036854775808", "1e20")
		t.set(false, "seed_odo", "-1.0", "is an integer below the minimum 0 (section 8)")
		t.integers("seed_odo")
		t.set(false, "fuel_type", `""`, "is shorter than the minimum length 1 (section 8)")
		for _, v := range []string{"x", " ", "é", "😀"} {
			t.set(true, "fuel_type", q(v), "is one character: at least the minimum length 1 (section 8)")
		}
		t.enumeration("consent_status", "section 3", []string{"approved", "suspended", "revoked"},
			[]string{"Approved", "APPROVED", " approved", "approved ", "", "approve", "pending", "null"})
		for _, name := range []string{"meta", "specification"} {
			t.set(true, name, "{}", "is an empty object (decision 5)")
			t.set(true, name, `{"a":null}`, "holds a null value (decision 5)")
			t.set(true, name, `{"a":null,"b":{"c":null,"d":[null,1,"x",true,{}]}}`, "holds nested objects, arrays and nulls (decision 5)")
			t.set(true, name, `{"s":"x","n":-1.5e3,"b":false,"a":[],"o":{}}`, "holds values of every JSON type (decision 5)")
			t.set(true, name, `{"":1,"message_id":"not-a-uuid","meta":null}`, "has free keys, even empty or those of fields (decision 5)")
		}
		t.add(true, "make, model, vin, licence_plate, data_provider_key all null", t.withMembers(
			member{"make", "null"}, member{"model", "null"}, member{"vin", "null"}, member{"licence_plate", "null"}, member{"data_provider_key", "null"}))
	}
	extras["core.association"] = func(t *table) {
		t.envelopeCases()
		t.uuids("association_id", true)
		t.uuids("device_id", false)
		t.uuids("driver_id", false)
		t.set(true, "vehicle_id", q(strings.ToUpper(uuidD)), "is a uuid: upper case (decision 1)")
		t.set(false, "vehicle_id", q("{"+uuidD+"}"), "is not a uuid: braces (decision 1)")
		t.set(false, "vehicle_id", `""`, "is not a uuid: empty (decision 1)")
		t.set(true, "battery_id", q(strings.ToUpper(uuidC)), "is a uuid: upper case (decision 1)")
		t.set(false, "battery_id", q("urn:uuid:"+uuidC), "is not a uuid: urn:uuid: prefix (decision 1)")
		t.set(false, "battery_id", `""`, "is not a uuid: empty (decision 1)")
		t.set(true, "source_id", `"not-a-uuid"`, "is a plain string in core.association, not a uuid (spec 2.1)")
		for _, v := range []string{"0", "-1", "3600", "-9223372036854775808", "9223372036854775807"} {
			t.set(true, "offset", v, "is an integer: offset has no bounds (spec 2.4)")
		}
		t.outsideInt64("offset", "9223372036854775808", "-9223372036854775809", "1e19")
		t.set(true, "offset", "-1.0", "is a mathematical integer (decision 2)")
		t.set(true, "offset", "1e2", "is a mathematical integer (decision 2)")
		t.integers("offset")
		tagCases(t)
	}
	extras["example.event"] = func(t *table) {
		t.uuids("id", true)
		t.dateTimes("occurred_at", true)
		t.enumeration("type", "spec 2.5", []string{"created", "updated", "deleted"},
			[]string{"Created", "CREATED", " created", "created ", "", "create", "removed", "example.event"})
		for _, v := range []string{"0", "1", "9"} {
			t.set(true, "priority", v, "is within 0 to 9 (section 8)")
		}
		for _, v := range []string{"-1", "10", "1e1", "-9223372036854775808", "9223372036854775807"} {
			t.set(false, "priority", v, "is outside 0 to 9 (section 8)")
		}
		t.set(false, "priority", "9223372036854775808", "is outside 0 to 9 and does not fit in an int64 (decision 2)")
		t.set(false, "priority", "1e999", "is outside 0 to 9 and does not fit in an int64 (decision 2)")
		t.integers("priority")
		t.set(false, "priority", "-0.5", "is not an integer (decision 2)")
		t.set(false, "priority", "9.000000000000000000001", "is not an integer, though close to 9 (decision 2)")
		tagCases(t)
		actor := func(valid bool, members, why string) {
			t.set(valid, "actor", members, why)
		}
		actor(true, `{}`, "has no required members (spec 2.5)")
		actor(true, `{"id":"`+uuidC+`"}`, "has only id")
		actor(true, `{"name":"Ada"}`, "has only name")
		actor(true, `{"id":"`+uuidC+`","name":"Ada","role":"admin"}`, "has an unknown member (decision 3)")
		actor(true, `{"x":{"y":[null]}}`, "has only an unknown nested member (decision 3)")
		actor(true, `{"name":""}`, "has an empty name")
		actor(true, `{"id":"`+strings.ToUpper(uuidC)+`"}`, "has an upper-case uuid (decision 1)")
		actor(true, `{"id":"5F0c3a5E-8f5B-4C1e-9A39-0d2B7c9E1a44"}`, "has a mixed-case uuid (decision 1)")
		for _, v := range notUUIDs(uuidC) {
			actor(false, `{"id":`+q(v.value)+`}`, "has an id that is not a uuid: "+v.what+" (decision 1)")
		}
		for _, w := range append(notString, wrong{"null", "null"}) {
			actor(false, `{"id":`+w.value+`}`, "has an id that is "+w.what+", not a string")
			actor(false, `{"name":`+w.value+`}`, "has a name that is "+w.what+", not a string")
		}
		t.add(true, "unknown member named like an actor field at the top level (decision 3)", t.with("name", "1"))
	}
}

// tagCases pins the items of an array-of-string tags field.
func tagCases(t *table) {
	t.set(true, "tags", "[]", "is an empty array")
	t.set(true, "tags", `[""]`, "holds an empty string")
	t.set(true, "tags", `["a","a"]`, "holds a repeated string: items need not be unique")
	for _, w := range []wrong{
		{"[1]", "a number"}, {"[true]", "a boolean"}, {"[null]", "null"}, {`[{}]`, "an object"},
		{`[["a"]]`, "an array"}, {`["a",1]`, "a number after a string"}, {`["a",null]`, "null after a string"},
	} {
		t.set(false, "tags", w.value, "holds "+w.what+": items must be strings")
	}
}
