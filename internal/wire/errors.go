// Package wire is the runtime of the generated message code: a strict,
// single-pass JSON decoder, an encoder, and the checks that decoding and
// Validate share. Generated code calls it; nothing else should.
//
// The decoder accepts exactly RFC 8259 JSON in valid UTF-8, with no
// duplicate member names at any depth and no escaped lone surrogates
// (decisions 11 and 12), and reports every schema violation it meets with
// its JSON Pointer, instead of stopping at the first.
package wire

import (
	"encoding/binary"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/fleetkit/catalogue/imei"
	"github.com/fleetkit/catalogue/internal/format"
	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/msg"
)

// Errors collects violations, the first msg.MaxViolations of them, and
// counts the rest. Its zero value is empty and ready to use; it allocates
// only when a violation is added.
type Errors struct {
	list    []*msg.Violation
	omitted int // violations found after the list was full
}

// Add records a violation of rule at base+name. The path is joined here,
// on the error path, so that callers pass static strings. Once the list
// is full, the violation is only counted.
func (e *Errors) Add(base, name string, rule msg.Rule, value, message string) {
	if e.Full() {
		e.omitted++
		return
	}
	e.list = append(e.list, &msg.Violation{Path: base + name, Rule: rule, Value: value, Message: message})
}

// Full reports whether msg.MaxViolations violations are recorded, so that
// any more will only be counted: a caller that builds the text of a
// violation checks it first, and calls Omit instead, so that a message
// with a million faults costs no more than a scan of its bytes.
func (e *Errors) Full() bool { return len(e.list) >= msg.MaxViolations }

// Omit counts a violation that is not listed, since the list is full.
func (e *Errors) Omit() { e.omitted++ }

// Join returns the path base+name of a nested object, as generated code
// passes it down. It saves the call that concatenation costs, even of an
// empty string, in the usual case of a message's own members, whose base
// is empty.
func Join(base, name string) string {
	if base == "" {
		return name
	}
	return base + name
}

// Err returns nil if no violation was recorded, and an *msg.Error listing
// them otherwise.
func (e *Errors) Err() error {
	if len(e.list) == 0 {
		return nil
	}
	return &msg.Error{Violations: e.list, Omitted: e.omitted}
}

// Len returns the number of violations found, listed or not.
func (e *Errors) Len() int { return len(e.list) + e.omitted }

// Required records that the required member base+name is absent.
func (e *Errors) Required(base, name string) {
	e.Add(base, name, msg.RuleRequired, "", "required member is missing")
}

// The checks below build what they record when they fail in a function of
// their own, called only then, so that the checks stay small: Min, Max and
// MinLength are inlined into the generated code.

// Min checks that n is at least min.
func (e *Errors) Min(base, name string, n, min int64) {
	if n < min {
		e.bound(base, name, msg.RuleMinimum, "want at least ", n, min)
	}
}

// Max checks that n is at most max.
func (e *Errors) Max(base, name string, n, max int64) {
	if n > max {
		e.bound(base, name, msg.RuleMaximum, "want at most ", n, max)
	}
}

// Above checks that n is more than limit (exclusiveMinimum).
func (e *Errors) Above(base, name string, n, limit int64) {
	if n <= limit {
		e.bound(base, name, msg.RuleExclusiveMinimum, "want more than ", n, limit)
	}
}

// Below checks that n is less than limit (exclusiveMaximum).
func (e *Errors) Below(base, name string, n, limit int64) {
	if n >= limit {
		e.bound(base, name, msg.RuleExclusiveMaximum, "want less than ", n, limit)
	}
}

// MultipleOf checks that n is a multiple of the schema's multipleOf,
// written factor, whose numerator in lowest terms is p: n is a multiple
// of p/q exactly when p divides it, which needs no division of decimals.
func (e *Errors) MultipleOf(base, name string, n, p int64, factor string) {
	if n%p != 0 {
		e.notMultiple(base, name, n, factor)
	}
}

func (e *Errors) notMultiple(base, name string, n int64, factor string) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, msg.RuleMultipleOf, strconv.FormatInt(n, 10), "want a multiple of "+factor+", got "+strconv.FormatInt(n, 10))
}

func (e *Errors) bound(base, name string, rule msg.Rule, want string, n, limit int64) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, rule, strconv.FormatInt(n, 10),
		want+strconv.FormatInt(limit, 10)+", got "+strconv.FormatInt(n, 10))
}

// MinLength checks that s has at least min characters (Unicode code
// points, as JSON Schema counts them).
func (e *Errors) MinLength(base, name string, s string, min int) {
	if len(s) < 4*min { // else it has enough: a character takes at most four bytes
		e.minLength(base, name, s, min)
	}
}

func (e *Errors) minLength(base, name string, s string, min int) {
	if n := utf8.RuneCountInString(s); n < min {
		if e.Full() {
			e.Omit()
			return
		}
		e.Add(base, name, msg.RuleMinLength, Quote(s),
			"want at least "+characters(min)+", got "+strconv.Itoa(n))
	}
}

// MaxLength checks that s has at most max characters (Unicode code
// points, as JSON Schema counts them).
func (e *Errors) MaxLength(base, name string, s string, max int) {
	if len(s) > max { // else it is short enough: a character takes at least one byte
		e.maxLength(base, name, s, max)
	}
}

func (e *Errors) maxLength(base, name string, s string, max int) {
	if n := utf8.RuneCountInString(s); n > max {
		if e.Full() {
			e.Omit()
			return
		}
		e.Add(base, name, msg.RuleMaxLength, Quote(s),
			"want at most "+characters(max)+", got "+strconv.Itoa(n))
	}
}

// Pattern checks that s matches re, the Go form of the schema's pattern,
// which the message names.
func (e *Errors) Pattern(base, name string, s string, re *regexp.Regexp, pattern string) {
	if !re.MatchString(s) {
		e.noMatch(base, name, s, pattern)
	}
}

func (e *Errors) noMatch(base, name string, s, pattern string) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, msg.RulePattern, Quote(s), "want a match of the pattern "+strconv.Quote(pattern))
}

// IMEI checks the device message's IMEI rule (decision 6): s is empty,
// meaning not set, or a valid IMEI.
func (e *Errors) IMEI(base, name string, s string) {
	if s != "" && !imei.Valid(s) {
		e.badIMEI(base, name, s)
	}
}

func (e *Errors) badIMEI(base, name string, s string) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, msg.RuleIMEI, Quote(s), "not an IMEI: "+imei.Check(s).Error())
}

// Enum records that value is not one of the allowed values, listed in
// want as they appear in a message.
func (e *Errors) Enum(base, name string, value, want string) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, msg.RuleEnum, value, "want one of "+want+", got "+value)
}

// Const records that value is not the one the schema allows, want, as
// it appears in a message.
func (e *Errors) Const(base, name string, value, want string) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, msg.RuleConst, value, "want "+want+", got "+value)
}

// IntEnum records that the integer n is not one of the allowed values,
// and IntConst that it is not the one: the generated code tests the
// values, and calls these only when n fails.
func (e *Errors) IntEnum(base, name string, n int64, want string) {
	e.Enum(base, name, strconv.FormatInt(n, 10), want)
}

// IntConst: see IntEnum.
func (e *Errors) IntConst(base, name string, n int64, want string) {
	e.Const(base, name, strconv.FormatInt(n, 10), want)
}

// BoolEnum records that the boolean b is not one of the allowed values,
// and BoolConst that it is not the one (see IntEnum).
func (e *Errors) BoolEnum(base, name string, b bool, want string) {
	e.Enum(base, name, strconv.FormatBool(b), want)
}

// BoolConst: see BoolEnum.
func (e *Errors) BoolConst(base, name string, b bool, want string) {
	e.Const(base, name, strconv.FormatBool(b), want)
}

// String checks that a Go string can be encoded as it is: valid UTF-8,
// which is all a message may hold (decision 11).
func (e *Errors) String(base, name string, s string) {
	if !ValidStrings(s) {
		e.badString(base, name, s)
	}
}

func (e *Errors) badString(base, name string, s string) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, msg.RuleSyntax, Quote(s), "invalid UTF-8 in string")
}

// ValidStrings reports whether every string of list is valid UTF-8, as
// utf8.ValidString does, faster on the short ASCII strings most members
// hold: it ORs their bytes together and decodes them only if one is
// outside ASCII. Validate calls it once for all the strings of a message,
// and checks them one by one, for their paths, only if it fails.
func ValidStrings(list ...string) bool {
	if orBytes(list)&0x8080808080808080 == 0 {
		return true
	}
	for _, s := range list {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// StringItem is String for the i-th item of an array.
func (e *Errors) StringItem(base, name string, i int, s string) {
	if !ValidStrings(s) {
		e.badString(base, name+"/"+strconv.Itoa(i), s)
	}
}

// Time checks that t can be encoded as an RFC 3339 date-time.
func (e *Errors) Time(base, name string, t time.Time) {
	if reason := format.DateTimeReason(t); reason != "" {
		e.badTime(base, name, t, reason)
	}
}

func (e *Errors) badTime(base, name string, t time.Time, reason string) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, msg.RuleFormat, Quote(timeText(t)), "not a date-time: "+reason)
}

// timeText writes t as RFC 3339 would if it could: for a time it cannot
// express, the value of a violation is the text that would have been
// sent, a year beyond 9999 or an offset in seconds included, so that it
// reads as JSON text like every other value, not as Go prints a time.
func timeText(t time.Time) string {
	layout := "2006-01-02T15:04:05.999999999Z07:00"
	if _, off := t.Zone(); off%60 != 0 {
		layout += ":00"
	}
	return t.Format(layout)
}

// Member checks a member held in a map of raw values, at base+name+"/"+key:
// its name must be valid UTF-8 and, where declared is not nil, not a name
// the schema declares (encoding it would repeat that member); its value
// must be one JSON value as a message may hold it; null is
// json.RawMessage("null"), not an empty value.
func (e *Errors) Member(base, name, key string, raw []byte, declared func(string) bool) {
	if !ValidStrings(key) {
		e.Add(base, name+"/"+PathToken(key), msg.RuleSyntax, Quote(key), "invalid UTF-8 in member name")
	}
	if declared != nil && declared(key) {
		e.Add(base, name+"/"+PathToken(key), msg.RuleDuplicate, Quote(key),
			"member is declared by the schema and cannot also be an extra member")
	}
	e.rawJSON(base, name+"/"+PathToken(key), raw)
}

// rawJSON checks that raw, a value built by hand at base+path, is one
// JSON value as a message may hold it. A repeated member name is rule
// duplicate at the repeated member, as decoding reports it; anything
// else is rule syntax at the value.
func (e *Errors) rawJSON(base, path string, raw []byte) {
	switch off, reason, cause := jsontext.CheckCause(raw); {
	case cause == jsontext.CauseDuplicate:
		e.Add(base, path+jsontext.PointerTo(raw, off, PathToken), msg.RuleDuplicate, ShortenBytes(raw),
			reason+" at byte offset "+strconv.Itoa(off)+" of the value")
	case reason != "":
		e.Add(base, path, msg.RuleSyntax, ShortenBytes(raw),
			"not a JSON value: "+reason+" at byte offset "+strconv.Itoa(off))
	}
}

func characters(n int) string {
	if n == 1 {
		return "1 character"
	}
	return strconv.Itoa(n) + " characters"
}

// orBytes ORs together the bytes of every string of list, into the low
// byte of the result or any other: whether any has its high bit set is
// all it tells. It reads eight bytes at a time, the last eight (or, in a
// string shorter than eight, four) overlapping those before, and a string
// shorter than four as its first, middle and last bytes, which are all of
// them.
func orBytes(list []string) uint64 {
	var acc uint64
	for _, s := range list {
		b := unsafe.Slice(unsafe.StringData(s), len(s)) // read, never written
		switch n := len(b); {
		case n > 16:
			acc |= binary.LittleEndian.Uint64(b[n-8:])
			for ; len(b) > 8; b = b[8:] {
				acc |= binary.LittleEndian.Uint64(b)
			}
		case n >= 8:
			acc |= binary.LittleEndian.Uint64(b) | binary.LittleEndian.Uint64(b[n-8:])
		case n >= 4:
			acc |= uint64(binary.LittleEndian.Uint32(b) | binary.LittleEndian.Uint32(b[n-4:]))
		case n > 0:
			acc |= uint64(b[0] | b[n/2] | b[n-1])
		}
	}
	return acc
}
