package format

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	validator "github.com/fleetkit/catalogue/internal/oracle"
)

// randomRounds is how many random inputs a test tries: fewer under
// -short.
func randomRounds() int {
	if testing.Short() {
		return 20000
	}
	return 200000
}

// The oracle is santhosh-tekuri/jsonschema with format assertion on: an
// independent implementation of the same JSON Schema rules. Where it is wrong
// against RFC 3339, the exception is named and kept narrow below.

var oracle = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := validator.NewCompiler()
	schemas := map[string]string{
		"uuid":      `{"type":"string","format":"uuid"}`,
		"date-time": `{"type":"string","format":"date-time"}`,
		"integer":   `{"type":"integer"}`,
		"hostname":  `{"type":"string","format":"hostname"}`,
	}
	out := map[string]*jsonschema.Schema{}
	for name, text := range schemas {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			return nil, err
		}
		url := "https://oracle.invalid/" + name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
		if out[name], err = c.Compile(url); err != nil {
			return nil, err
		}
	}
	return out, nil
})

func oracleSchema(tb testing.TB, name string) *jsonschema.Schema {
	tb.Helper()
	m, err := oracle()
	if err != nil {
		tb.Fatalf("compiling oracle schemas: %v", err)
	}
	return m[name]
}

func oracleUUID(tb testing.TB, s string) bool {
	return oracleSchema(tb, "uuid").Validate(s) == nil
}

func oracleDateTime(tb testing.TB, s string) bool {
	return oracleSchema(tb, "date-time").Validate(s) == nil
}

// oracleInteger asks the oracle whether the JSON number literal s is an
// integer. The oracle goes through big.Rat, which materialises 10^exp, so s
// must pass oracleSafeNumber.
func oracleInteger(tb testing.TB, s string) bool {
	tb.Helper()
	if !oracleSafeNumber(s) {
		tb.Fatalf("oracleInteger(%q): too large for the oracle", s)
	}
	return oracleSchema(tb, "integer").Validate(json.Number(s)) == nil
}

// oracleSafeNumber reports whether s is small enough for big.Rat, which
// materialises 10^exp and reduces the fraction: at most 400 bytes and an
// exponent of at most three digits keep each check well under a millisecond.
func oracleSafeNumber(s string) bool {
	if len(s) > 400 {
		return false
	}
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return true
	}
	digits := strings.TrimLeft(s[i+1:], "+-")
	digits = strings.TrimLeft(digits, "0")
	return len(digits) <= 3
}

// dateTimeTimeFields are where the two-character hour, minute and second
// fields start, which the oracle reads with strconv.Atoi; oracleOffset finds
// the offset's hour and minute fields.
var dateTimeTimeFields = []int{11, 14, 17}

// oracleOffset returns where the numeric offset starts in s as the oracle
// sees it (after the seconds and an optional fraction), or -1.
func oracleOffset(s string) int {
	if len(s) < 20 {
		return -1
	}
	i := 19
	if s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if len(s)-i != 6 || (s[i] != '+' && s[i] != '-') {
		return -1
	}
	return i
}

// oracleSignQuirk reports whether s is accepted by the oracle only because it
// reads the two-character fields hh, mm, ss and the offset's hh and mm with
// strconv.Atoi, which accepts a sign: "+5" reads as 5 and "-0" as 0, so
// "2024-01-01T+1:00:00Z" and "...T10:00:00++1:00" pass. RFC 3339 allows
// only DIGIT there. The quirk applies when replacing each such sign by '0'
// gives a string that ParseDateTime accepts: then the only disagreement is
// the sign.
func oracleSignQuirk(s string) bool {
	fields := append([]int(nil), dateTimeTimeFields...)
	if o := oracleOffset(s); o >= 0 {
		fields = append(fields, o+1, o+4)
	}
	b := []byte(s)
	changed := false
	for _, f := range fields {
		if f+1 >= len(b) {
			continue
		}
		if (b[f] == '+' || b[f] == '-') && b[f+1] >= '0' && b[f+1] <= '9' {
			b[f] = '0'
			changed = true
		}
	}
	if !changed {
		return false
	}
	_, reason := ParseDateTime(b)
	return reason == ""
}

// checkDateTimeOracle fails when ParseDateTime and the oracle disagree on s,
// outside the documented oracle quirks.
func checkDateTimeOracle(t *testing.T, s string) {
	t.Helper()
	_, reason := ParseDateTime([]byte(s))
	ours, theirs := reason == "", oracleDateTime(t, s)
	if ours == theirs {
		return
	}
	if !ours && theirs && oracleSignQuirk(s) {
		return // oracle bug: signed number field, see oracleSignQuirk
	}
	t.Errorf("ParseDateTime(%q) valid=%v (reason %q), oracle valid=%v", s, ours, reason, theirs)
}
