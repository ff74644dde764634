package oracle

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	uuid1    = "5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44"
	uuid2    = "0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21"
	goodIMEI = "490154203237518"
)

// Minimal valid messages of each schema; the tests splice members into them.
var base = map[string]string{
	"core.device": `{"device_id":"` + uuid1 + `","external_id":"ext-1","message_id":"` + uuid2 +
		`","message_type":"core.device","source_id":"src-1","source_type":"CORE","tenant_id":"t1","time":"2019-01-01T00:00:00Z"`,
	"core.vehicle": `{"vehicle_id":"` + uuid1 + `","message_id":"` + uuid2 + `","message_type":"core.vehicle","source_id":"` + uuid1 +
		`","source_type":"CORE","tenant_id":"t1","time":"2019-01-01T00:00:00Z"`,
	"core.association": `{"association_id":"` + uuid1 + `","device_id":"` + uuid2 + `","message_id":"` + uuid2 +
		`","source_id":"src-1","tenant_id":"t1","time":"2019-01-01T00:00:00Z"`,
	"example.event": `{"id":"` + uuid1 + `","type":"created","occurred_at":"2019-01-01T00:00:00Z"`,
}

// message returns a message of schema name with the given members added; members
// is raw JSON text such as `"priority":1`, or "" for none.
func message(name, members string) []byte {
	if members == "" {
		return []byte(base[name] + "}")
	}
	return []byte(base[name] + "," + members + "}")
}

type verdictCase struct {
	note   string
	schema string
	data   []byte
	valid  bool
	why    string // a substring of one reason, when invalid
}

func runVerdicts(t *testing.T, cases []verdictCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.note, func(t *testing.T) {
			ok, why := Verdict(tc.schema, tc.data)
			require.Equal(t, tc.valid, ok, "data %q\nwhy %q", tc.data, why)
			if ok {
				assert.Nil(t, why)
				return
			}
			require.NotEmpty(t, why)
			if tc.why != "" {
				assert.Contains(t, strings.Join(why, "\n"), tc.why)
			}
		})
	}
}

func TestVerdictAcceptsTheMinimalMessages(t *testing.T) {
	for name := range base {
		ok, why := Verdict(name, message(name, ""))
		assert.True(t, ok, "%s: %v", name, why)
	}
}

func TestVerdictRejectsAnUnknownSchema(t *testing.T) {
	ok, why := Verdict("core.nothing", []byte(`{}`))
	assert.False(t, ok)
	assert.Contains(t, why[0], `"core.nothing"`)
	assert.Nil(t, Schema("core.nothing"))
}

func TestSchemaIsTheRawValidatorWithFormatsAsserted(t *testing.T) {
	s := Schema("example.event")
	require.NotNil(t, s)
	var doc any
	require.NoError(t, json.Unmarshal([]byte(`{"id":"not-a-uuid","type":"created","occurred_at":"2019-01-01T00:00:00Z"}`), &doc))
	assert.Error(t, s.Validate(doc), "format uuid must be asserted even in 2020-12")
}

func TestVerdictRejectsRepeatedMemberNames(t *testing.T) {
	runVerdicts(t, []verdictCase{
		{note: "top level", schema: "example.event", data: message("example.event", `"priority":1,"priority":2`), why: `(root): member name "priority" repeated`},
		{note: "top level, same value", schema: "example.event", data: message("example.event", `"priority":1,"priority":1`), why: "decision 12"},
		{note: "required member repeated", schema: "example.event", data: []byte(`{"id":"` + uuid1 + `","type":"created","type":"deleted","occurred_at":"2019-01-01T00:00:00Z"}`), why: `"type" repeated`},
		{note: "unknown member repeated", schema: "example.event", data: message("example.event", `"x":1,"x":null`), why: `"x" repeated`},
		{note: "nested object", schema: "example.event", data: message("example.event", `"actor":{"name":"a","name":"b"}`), why: `/actor: member name "name" repeated`},
		{note: "object in array in object", schema: "core.vehicle", data: message("core.vehicle", `"meta":{"a":[1,{"k":1,"k":2}]}`), why: `/meta/a/1: member name "k" repeated`},
		{note: "object in array in unknown member", schema: "core.device", data: message("core.device", `"extra":[[{"k":1,"k":2}]]`), why: `/extra/0/0`},
		{note: "escaped name equals plain name", schema: "example.event", data: message("example.event", `"a":1,"\u0061":2`), why: `"a" repeated`},
		{note: "both names escaped differently", schema: "example.event", data: message("example.event", `"\u00e9":1,"\u00E9":2`), why: `"é" repeated`},
		{note: "escaped solidus equals solidus", schema: "example.event", data: message("example.event", `"a/b":1,"a\/b":2`), why: `"a/b" repeated`},
		{note: "escaped surrogate pair equals the raw character", schema: "example.event", data: message("example.event", `"😀":1,"\ud83d\ude00":2`), why: `repeated`},
		{note: "escaped required name repeats it", schema: "example.event", data: message("example.event", `"\u0069d":"`+uuid2+`"`), why: `"id" repeated`},
		{note: "same name in sibling objects", schema: "core.vehicle", data: message("core.vehicle", `"meta":{"k":1},"specification":{"k":1}`), valid: true},
		{note: "same name at two depths", schema: "core.vehicle", data: message("core.vehicle", `"meta":{"meta":{"meta":null}}`), valid: true},
		{note: "names differing in case", schema: "core.vehicle", data: message("core.vehicle", `"meta":{"k":1,"K":2}`), valid: true},
		{note: "names differing in normalisation", schema: "core.vehicle", data: message("core.vehicle", `"meta":{"\u00e9":1,"e\u0301":2}`), valid: true},
	})
}

func TestVerdictRejectsWhatEncodingJSONWouldRepair(t *testing.T) {
	m := func(members string) []byte { return message("core.vehicle", members) }
	runVerdicts(t, []verdictCase{
		{note: "invalid byte in a value", schema: "core.vehicle", data: m("\"make\":\"\xff\""), why: "invalid UTF-8 at byte offset"},
		{note: "invalid byte in a member name", schema: "core.vehicle", data: m("\"\xfe\":1"), why: "invalid UTF-8"},
		{note: "invalid byte in meta", schema: "core.vehicle", data: m("\"meta\":{\"k\":\"a\xc3\"}"), why: "invalid UTF-8"},
		{note: "overlong encoding", schema: "core.vehicle", data: m("\"make\":\"\xc0\xaf\""), why: "invalid UTF-8"},
		{note: "UTF-8 encoded surrogate", schema: "core.vehicle", data: m("\"make\":\"\xed\xa0\x80\""), why: "invalid UTF-8"},
		{note: "truncated sequence at the end", schema: "core.vehicle", data: append(m(""), 0xe2, 0x82), why: "invalid UTF-8"},
		{note: "offset is reported", schema: "example.event", data: []byte("{\"x\":\"\xff\"}"), why: "byte offset 6"},
		{note: "lone high surrogate at end of string", schema: "core.vehicle", data: m(`"make":"ab\ud800"`), why: `escaped high surrogate \ud800`},
		{note: "lone high surrogate before a character", schema: "core.vehicle", data: m(`"make":"\ud800x"`), why: "high surrogate"},
		{note: "high surrogate before a non-surrogate escape", schema: "core.vehicle", data: m(`"make":"\ud800\u0041"`), why: "high surrogate"},
		{note: "two high surrogates", schema: "core.vehicle", data: m(`"make":"\ud800\ud800"`), why: "high surrogate"},
		{note: "lone low surrogate", schema: "core.vehicle", data: m(`"make":"\udc00"`), why: `escaped low surrogate \udc00`},
		{note: "pair in the wrong order", schema: "core.vehicle", data: m(`"make":"\udc00\ud800"`), why: "low surrogate"},
		{note: "upper-case lone surrogate", schema: "core.vehicle", data: m(`"make":"\uDBFF"`), why: "high surrogate"},
		{note: "lone surrogate in a member name", schema: "core.vehicle", data: m(`"\udfff":1`), why: "low surrogate"},
		{note: "lone surrogates that would repair to the same name", schema: "core.vehicle", data: m(`"meta":{"\ud800":1,"\ud801":2}`), why: "decision 11"},
		{note: "surrogate pair", schema: "core.vehicle", data: m(`"make":"\ud83d\ude00"`), valid: true},
		{note: "upper-case surrogate pair", schema: "core.vehicle", data: m(`"make":"\uD83D\uDE00"`), valid: true},
		{note: "escaped backslash before u", schema: "core.vehicle", data: m(`"make":"\\ud800"`), valid: true},
		{note: "raw non-ASCII", schema: "core.vehicle", data: m(`"make":"Škoda 😀"`), valid: true},
		{note: "escaped U+FFFD itself", schema: "core.vehicle", data: m(`"make":"\ufffd"`), valid: true},
	})
}

func TestVerdictRequiresExactlyOneDocument(t *testing.T) {
	v := string(message("example.event", ""))
	runVerdicts(t, []verdictCase{
		{note: "trailing garbage", schema: "example.event", data: []byte(v + "x"), why: "not one JSON document"},
		{note: "second document", schema: "example.event", data: []byte(v + v), why: "after top-level value"},
		{note: "second document after newline", schema: "example.event", data: []byte(v + "\n{}"), why: "not one JSON document"},
		{note: "trailing comma", schema: "example.event", data: []byte(v + ","), why: "not one JSON document"},
		{note: "trailing NUL", schema: "example.event", data: []byte(v + "\x00"), why: "not one JSON document"},
		{note: "trailing comment", schema: "example.event", data: []byte(v + "//"), why: "not one JSON document"},
		{note: "byte order mark", schema: "example.event", data: []byte("\ufeff" + v), why: "not one JSON document"},
		{note: "truncated", schema: "example.event", data: []byte(v[:len(v)-1]), why: "not one JSON document"},
		{note: "empty", schema: "example.event", data: nil, why: "not one JSON document"},
		{note: "whitespace only", schema: "example.event", data: []byte(" \n"), why: "not one JSON document"},
		{note: "non-JSON whitespace after", schema: "example.event", data: []byte(v + "\u00a0"), why: "not one JSON document"},
		{note: "trailing JSON whitespace", schema: "example.event", data: []byte(v + " \t\r\n"), valid: true},
		{note: "leading JSON whitespace", schema: "example.event", data: []byte("\n\t " + v), valid: true},
	})
}

func TestVerdictChecksIMEI(t *testing.T) {
	m := func(members string) []byte { return message("core.device", members) }
	runVerdicts(t, []verdictCase{
		{note: "empty", schema: "core.device", data: m(`"imei":""`), valid: true},
		{note: "valid", schema: "core.device", data: m(`"imei":"` + goodIMEI + `"`), valid: true},
		{note: "wrong check digit", schema: "core.device", data: m(`"imei":"490154203237519"`), why: "/imei"},
		{note: "14 digits", schema: "core.device", data: m(`"imei":"49015420323751"`), why: "decision 6"},
		{note: "escaped digits are still digits", schema: "core.device", data: m(`"imei":"\u0034` + goodIMEI[1:] + `"`), valid: true},
		{note: "not a string is the schema's business", schema: "core.device", data: m(`"imei":490154203237518`), why: "schema: at '/imei'"},
		{note: "imei elsewhere is not checked", schema: "core.vehicle", data: message("core.vehicle", `"imei":"1"`), valid: true},
	})
}

func TestVerdictHoldsIntegersToInt64(t *testing.T) {
	m := func(members string) []byte { return message("core.association", members) }
	runVerdicts(t, []verdictCase{
		{note: "max int64", schema: "core.association", data: m(`"offset":9223372036854775807`), valid: true},
		{note: "max int64 plus one", schema: "core.association", data: m(`"offset":9223372036854775808`), why: "/offset: integer 9223372036854775808 does not fit in an int64 (decision 2)"},
		{note: "min int64", schema: "core.association", data: m(`"offset":-9223372036854775808`), valid: true},
		{note: "min int64 minus one", schema: "core.association", data: m(`"offset":-9223372036854775809`), why: "decision 2"},
		{note: "max int64 in exponent form", schema: "core.association", data: m(`"offset":9.223372036854775807e18`), valid: true},
		{note: "max int64 plus one in exponent form", schema: "core.association", data: m(`"offset":9.223372036854775808E+18`), why: "decision 2"},
		{note: "max int64 with a zero fraction", schema: "core.association", data: m(`"offset":9223372036854775807.000`), valid: true},
		{note: "1e19", schema: "core.association", data: m(`"offset":1e19`), why: "decision 2"},
		{note: "huge negative", schema: "core.association", data: m(`"offset":-1e300`), why: "decision 2"},
		{note: "big non-integer is the schema's business", schema: "core.association", data: m(`"offset":10000000000000000000.5`), why: "schema: at '/offset'"},
		{note: "seed_odo 1e18", schema: "core.vehicle", data: message("core.vehicle", `"seed_odo":1e18`), valid: true},
		{note: "seed_odo 1e20", schema: "core.vehicle", data: message("core.vehicle", `"seed_odo":1e20`), why: "/seed_odo"},
		{note: "priority 1e20 breaks both rules", schema: "example.event", data: message("example.event", `"priority":1e20`), why: "decision 2"},
		{note: "unknown member out of range", schema: "core.association", data: m(`"big":1e300`), valid: true},
		{note: "meta value out of range", schema: "core.vehicle", data: message("core.vehicle", `"meta":{"n":-1e300}`), valid: true},
	})
}

func TestVerdictSurvivesHugeNumbers(t *testing.T) {
	nines := "9" + strings.Repeat("0", 1500)
	runVerdicts(t, []verdictCase{
		{note: "seed_odo 1e999999", schema: "core.vehicle", data: message("core.vehicle", `"seed_odo":1e999999`), why: "decision 2"},
		{note: "seed_odo 1e999999999", schema: "core.vehicle", data: message("core.vehicle", `"seed_odo":1e999999999`), why: "decision 2"},
		{note: "seed_odo exponent beyond int64", schema: "core.vehicle", data: message("core.vehicle", `"seed_odo":1e99999999999999999999999`), why: "decision 2"},
		{note: "seed_odo negative huge", schema: "core.vehicle", data: message("core.vehicle", `"seed_odo":-1e999999`), why: "minimum"},
		{note: "seed_odo tiny", schema: "core.vehicle", data: message("core.vehicle", `"seed_odo":1e-999999999`), why: "schema: at '/seed_odo'"},
		{note: "seed_odo zero with a huge exponent", schema: "core.vehicle", data: message("core.vehicle", `"seed_odo":0e999999999`), valid: true},
		{note: "seed_odo negative zero with a huge negative exponent", schema: "core.vehicle", data: message("core.vehicle", `"seed_odo":-0.0e-999999999`), valid: true},
		{note: "priority 9 written with 1500 zeros and a big exponent", schema: "example.event", data: message("example.event", `"priority":`+nines+`e-1500`), valid: true},
		{note: "priority 9 with a 2000-digit zero fraction", schema: "example.event", data: message("example.event", `"priority":9.`+strings.Repeat("0", 2000)), valid: true},
		{note: "priority 9 plus a tiny fraction", schema: "example.event", data: message("example.event", `"priority":9.`+strings.Repeat("0", 2000)+"1"), why: "schema: at '/priority'"},
		{note: "priority 10 written long", schema: "example.event", data: message("example.event", `"priority":1`+strings.Repeat("0", 1500)+`e-1499`), why: "maximum"},
		{note: "offset huge with many digits", schema: "core.association", data: message("core.association", `"offset":`+strings.Repeat("7", 5000)), why: "decision 2"},
		{note: "meta huge", schema: "core.vehicle", data: message("core.vehicle", `"meta":{"a":1e999999999,"b":-1e-999999999,"c":[1E+999999]}`), valid: true},
		{note: "unknown member huge", schema: "example.event", data: message("example.event", `"x":1e999999999`), valid: true},
		{note: "tags item huge is still not a string", schema: "example.event", data: message("example.event", `"tags":[1e999999999]`), why: "schema: at '/tags/0'"},
	})
}

func TestVerdictIsFastOnHugeExponents(t *testing.T) {
	start := time.Now()
	for range 20 {
		Verdict("core.vehicle", message("core.vehicle", `"seed_odo":1e999999,"meta":{"a":1e999999}`))
		Verdict("example.event", message("example.event", `"priority":-1e-999999`))
	}
	assert.Less(t, time.Since(start), 2*time.Second)
}

func TestVerdictCorrectsTheValidatorsDateTimes(t *testing.T) {
	// Each of these is accepted by the validator alone, whose time fields
	// go through strconv.Atoi; the verdict rejects them (decision 1).
	for _, s := range []string{
		"2019-01-01T+1:00:00Z",
		"2019-01-01T-0:00:00Z",
		"2019-01-01T00:+1:00Z",
		"2019-01-01T00:00:+1Z",
		"2019-01-01T00:00:00++1:00",
		"2019-01-01T00:00:00+-0:00",
		"2019-01-01T00:00:00+00:+1",
	} {
		t.Run(s, func(t *testing.T) {
			assert.NoError(t, Schema("example.event").Validate(map[string]any{"id": uuid1, "type": "created", "occurred_at": s}),
				"the validator now rejects %q: the correction may no longer be needed", s)
			for _, name := range []string{"example.event", "core.device", "core.vehicle", "core.association"} {
				field := map[string]string{"example.event": "occurred_at", "core.device": "created", "core.vehicle": "seed_odo_time", "core.association": "time"}[name]
				data := message(name, `"`+field+`":"`+s+`"`)
				if name == "core.association" {
					data = []byte(strings.Replace(base[name], "2019-01-01T00:00:00Z", s, 1) + "}")
				}
				ok, why := Verdict(name, data)
				assert.False(t, ok, "%s: %s", name, data)
				assert.Contains(t, strings.Join(why, "\n"), "decision 1")
			}
		})
	}
	runVerdicts(t, []verdictCase{
		{note: "lower case t and z", schema: "core.vehicle", data: message("core.vehicle", `"year":"2019-01-01t00:00:00z"`), valid: true},
		{note: "leap second", schema: "core.vehicle", data: message("core.vehicle", `"year":"2016-12-31T23:59:60Z"`), valid: true},
		{note: "long fraction", schema: "core.vehicle", data: message("core.vehicle", `"year":"2016-12-31T23:59:59.123456789012Z"`), valid: true},
		{note: "escaped T", schema: "core.vehicle", data: message("core.vehicle", `"year":"2016-12-31\u005423:59:59Z"`), valid: true},
		{note: "non-ASCII digit", schema: "core.vehicle", data: message("core.vehicle", `"year":"２016-12-31T23:59:59Z"`), why: "/year"},
		{note: "null year is the schema's business", schema: "core.vehicle", data: message("core.vehicle", `"year":null`), valid: true},
	})
}

func TestParseDecimal(t *testing.T) {
	for _, tc := range []struct {
		lit      string
		want     decimal
		exp      int64
		isInt    bool
		fitInt64 bool
	}{
		{"0", decimal{}, 0, true, true},
		{"-0", decimal{}, 0, true, true}, // zero has no sign
		{"0.000e-5", decimal{}, -5, true, true},
		{"1", decimal{digits: "1"}, 0, true, true},
		{"1.0", decimal{digits: "1"}, 0, true, true},
		{"1e2", decimal{digits: "1", exp: 2}, 2, true, true},
		{"100", decimal{digits: "1", exp: 2}, 0, true, true},
		{"1.5", decimal{digits: "15", exp: -1}, 0, false, false},
		{"-0.1", decimal{neg: true, digits: "1", exp: -1}, 0, false, false},
		{"12.50E-1", decimal{digits: "125", exp: -2}, -1, false, false},
		{"1E+999999999", decimal{digits: "1", exp: 999999999}, 999999999, true, false},
		{"1e99999999999999999999", decimal{digits: "1", exp: maxExp}, maxExp, true, false},
		{"-1e-99999999999999999999", decimal{neg: true, digits: "1", exp: -maxExp}, -maxExp, false, false},
		{"9223372036854775807", decimal{digits: "9223372036854775807"}, 0, true, true},
		{"9223372036854775808", decimal{digits: "9223372036854775808"}, 0, true, false},
		{"-9223372036854775808", decimal{neg: true, digits: "9223372036854775808"}, 0, true, true},
		{"-9223372036854775809", decimal{neg: true, digits: "9223372036854775809"}, 0, true, false},
	} {
		d, exp := parseDecimal(tc.lit)
		assert.Equal(t, tc.want, d, tc.lit)
		assert.Equal(t, tc.exp, exp, tc.lit)
		assert.Equal(t, tc.isInt, d.isInt(), tc.lit)
		assert.Equal(t, tc.fitInt64, d.fitsInt64(), tc.lit)
	}
}

func TestStandIn(t *testing.T) {
	for _, tc := range []struct{ lit, want string }{
		{"0e99999", "0"},
		{"-0.0e-99999", "0"},
		{"12e-99999", "0.5"},
		{"-12e-99999", "-0.5"},
		{"9" + strings.Repeat("0", 2000) + "e-2000", "9"},
		{"1e2000", "1e400"},
		{"-1e2000", "-1e400"},
		{"123." + strings.Repeat("4", 2000), "123.5"},
		{"-7." + strings.Repeat("0", 2000) + "1", "-7.5"},
		{"1.5e2000", "1e400"},
		{"1" + strings.Repeat("1", 500) + ".5", "1" + strings.Repeat("0", 400) + ".5"},
		{"1e400", "1e400"},
		{"1e399", "1" + strings.Repeat("0", 399)},
	} {
		d, _ := parseDecimal(tc.lit)
		assert.Equal(t, tc.want, standIn(d), tc.lit[:min(len(tc.lit), 30)])
	}
}

func TestNeedsStandIn(t *testing.T) {
	assert.False(t, needsStandIn("1e1000", 1000))
	assert.True(t, needsStandIn("1e1001", 1001))
	assert.True(t, needsStandIn("1e-1001", -1001))
	assert.False(t, needsStandIn(strings.Repeat("1", 1000), 0))
	assert.True(t, needsStandIn(strings.Repeat("1", 1001), 0))
}
