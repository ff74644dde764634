// Package oracle is the test oracle of the catalogue: the spec-compliant
// verdict on a message, reached without any of the library's own decoding
// or validation code, so that tests across the repository can hold that code
// to it.
//
//	ok, why := oracle.Verdict("core.device", data)
//	if ok != wantOK {
//		t.Errorf("verdict %v, want %v: %v", ok, wantOK, why)
//	}
//
// The verdict is first of all an independent JSON Schema validator's:
// github.com/santhosh-tekuri/jsonschema/v6, given the four embedded schema
// files with format assertion on and no way to load anything else (the
// draft-07 and 2020-12 meta-schemas are built into it), with patterns
// read as ECMA-262 with the u flag, as JSON Schema asks, by
// github.com/dlclark/regexp2 in place of the validator's default RE2 (see
// CompileECMA, and regexp.go for the three places where the oracle
// corrects regexp2 toward ECMA-262). Around it, the
// oracle adds the rules of the specification (catalogue.md) and its
// decisions (decisions.md) that a schema cannot express or that the
// validator gets wrong, each as narrow as it can be:
//
//   - Decision 11: a message is UTF-8 and nothing in it is silently
//     repaired. Invalid UTF-8, and a \u escape of a lone surrogate (which
//     encoding/json, and so the validator, would turn into U+FFFD), make a
//     message invalid.
//   - A message is exactly one JSON document; only whitespace may follow it.
//   - Decision 12: no object at any depth repeats a member name. Names are
//     compared after unescaping, so {"a":1,"\u0061":2} repeats "a". The
//     validator reads objects into Go maps, where the last value silently
//     wins, so it cannot see this.
//   - Decision 6: core.device's imei, when a string, is either "" (the
//     default, "not set") or 15 ASCII digits whose last is the Luhn check
//     digit of the others (imei.Valid). The schema cannot say this without
//     rejecting its own default.
//   - Decision 2: a mathematical integer in a member the schema types
//     "integer" must fit in an int64. This is the documented limit of the
//     library, not a rule of JSON Schema, which has no bound.
//   - Decision 1: a string in a member of format "date-time" must also match
//     a strict RFC 3339 grammar (ASCII digits, exact digit counts). This
//     corrects a known bug of the validator rather than adding a rule: it
//     reads the hour, minute, second and offset fields with strconv.Atoi,
//     which accepts a sign, so it takes "2019-01-01T+1:00:00Z",
//     "2019-01-01T-0:00:00Z", "2019-01-01T00:00:+1Z" and
//     "2019-01-01T00:00:00++1:00" as date-times. The grammar checks only
//     shape; ranges, calendar days and leap seconds stay the validator's.
//
// Numbers reach the validator as their exact text (json.Number), which it
// reads with math/big. A number whose written exponent exceeds 1000 in
// magnitude, or whose text is longer than 1000 bytes, could make that take
// very long, so such a number is replaced, in the copy given to the
// validator only, by a short stand-in that agrees with it in everything the
// validator can observe with these schemas: its sign, whether it is zero,
// whether it is an integer, and its order relative to every integer bound
// below 10^400 (the schemas' bounds are 0 and 9). The schemas have no
// numeric enum, const or multipleOf; the oracle checks at start-up that they
// use no keyword beyond those it has reasoned about. The int64 rule is
// decided on the exact number, by arithmetic on its decimal digits and
// exponent, not on the stand-in; so 1e999999 in core.vehicle's seed_odo is
// an integer out of int64 range and invalid, and the same number anywhere
// in meta, or in a member the schema does not declare, is fine.
package oracle
