package wire

import (
	"bytes"
	"encoding/json"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/fleetkit/catalogue/internal/format"
	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/object"
)

// RawArray reads an array whose items may be any JSON values, each kept
// as its text in canonical form (see Raw). An empty array gives an
// empty, non-nil slice.
func (d *Decoder) RawArray(base, name string) ([]json.RawMessage, bool) {
	if !d.Array(base, name) {
		return nil, false
	}
	list, ok := []json.RawMessage{}, true
	for i := 0; d.More(base, name, ']', i); i++ {
		d.item = i
		v := d.raw(base, name, "")
		d.item = -1
		if v == nil {
			// A syntax error, or a repeated name found in the item.
			ok = false
			continue
		}
		list = append(list, v)
	}
	return list, ok && !d.Fatal
}

// RawArray writes an array of JSON values, each in canonical form.
func (e *Encoder) RawArray(list []json.RawMessage) {
	e.B = append(e.B, '[')
	for i, raw := range list {
		if i > 0 {
			e.B = append(e.B, ',')
		}
		e.Raw(raw)
	}
	e.B = append(e.B, ']')
}

// RawItems checks that every item of an array of JSON values is one, as
// a Go value built by hand may not be.
func (e *Errors) RawItems(base, name string, list []json.RawMessage) {
	for i, raw := range list {
		e.rawJSON(base, name+"/"+strconv.Itoa(i), raw)
	}
}

// MinItems checks that an array of n items has at least min.
func (e *Errors) MinItems(base, name string, n, min int) {
	if n < min {
		e.count(base, name, msg.RuleMinItems, "want at least ", n, min, " items")
	}
}

// MaxItems checks that an array of n items has at most max.
func (e *Errors) MaxItems(base, name string, n, max int) {
	if n > max {
		e.count(base, name, msg.RuleMaxItems, "want at most ", n, max, " items")
	}
}

func (e *Errors) count(base, name string, rule msg.Rule, want string, n, limit int, what string) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, rule, "", want+strconv.Itoa(limit)+what+", got "+strconv.Itoa(n))
}

// uniqueScan is the length up to which uniqueness is checked by comparing
// every pair, which allocates nothing; longer arrays go through a map,
// so that the check stays linear.
const uniqueScan = 16

// UniqueStrings checks that no two strings of list are equal.
func (e *Errors) UniqueStrings(base, name string, list []string) {
	if len(list) <= uniqueScan {
		for i := range list {
			for j := i + 1; j < len(list); j++ {
				if list[i] == list[j] {
					e.notUnique(base, name, i, j)
					return
				}
			}
		}
		return
	}
	seen := make(map[string]int, len(list))
	for j, s := range list {
		if i, dup := seen[s]; dup {
			e.notUnique(base, name, i, j)
			return
		}
		seen[s] = j
	}
}

// UniqueRaw checks that no two items of list are equal as JSON Schema
// compares values: 1 equals 1.0, "\u0041" equals "A", and objects equal
// whatever the order of their members. Each item is turned into a form
// that is the same exactly for equal values, and the forms are compared
// through a map, so that the check is linear in the array's text.
func (e *Errors) UniqueRaw(base, name string, list []json.RawMessage) {
	if len(list) < 2 {
		return
	}
	seen := make(map[string]int, len(list))
	var buf []byte
	for j, raw := range list {
		buf = equalForm(buf[:0], raw)
		if i, dup := seen[string(buf)]; dup {
			e.notUnique(base, name, i, j)
			return
		}
		seen[string(buf)] = j
	}
}

func (e *Errors) notUnique(base, name string, i, j int) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, msg.RuleUniqueItems, "", "want unique items, got items "+strconv.Itoa(i)+" and "+strconv.Itoa(j)+" equal")
}

// equalForm appends to dst the form of the JSON value raw that is the
// same for two values exactly when JSON Schema calls them equal. raw
// must be valid JSON: what decoding keeps, or what RawItems accepts
// (text that is not JSON gives a form of its own, equal to no other).
func equalForm(dst, raw []byte) []byte {
	if _, reason := Check(raw); reason != "" {
		return append(append(dst, 0xff), raw...)
	}
	f := former{b: raw}
	return f.value(dst)
}

type former struct {
	b []byte
	p int
	// s reads the strings, unescaping them in its scratch buffer, which
	// it keeps from one string to the next.
	s jsontext.Scanner
}

func (f *former) ws() {
	for f.p < len(f.b) && (f.b[f.p] == ' ' || f.b[f.p] == '\t' || f.b[f.p] == '\n' || f.b[f.p] == '\r') {
		f.p++
	}
}

func (f *former) value(dst []byte) []byte {
	f.ws()
	switch c := f.b[f.p]; {
	case c == 'n':
		f.p += 4
		return append(dst, 'n')
	case c == 't':
		f.p += 4
		return append(dst, 't')
	case c == 'f':
		f.p += 5
		return append(dst, 'f')
	case c == '"':
		return f.str(append(dst, '"'))
	case c == '[':
		f.p++
		dst = append(dst, '[')
		f.ws()
		if f.b[f.p] == ']' {
			f.p++
			return append(dst, ']')
		}
		for {
			dst = f.value(dst)
			f.ws()
			c := f.b[f.p]
			f.p++
			if c == ']' {
				return append(dst, ']')
			}
			dst = append(dst, ',')
		}
	case c == '{':
		return f.object(dst)
	default:
		return f.number(dst)
	}
}

// str appends a string's value, unescaped, with its length before it so
// that no two sequences of strings run together alike.
func (f *former) str(dst []byte) []byte {
	f.s.Buf, f.s.Pos = f.b, f.p
	v := f.s.Str()
	f.p = f.s.Pos
	dst = strconv.AppendInt(dst, int64(len(v)), 10)
	dst = append(dst, ':')
	return append(dst, v...)
}

// A member is one member of an object, as the forms of its name and value.
type member struct{ name, value []byte }

// object appends an object's members sorted by the forms of their names.
func (f *former) object(dst []byte) []byte {
	f.p++
	var members []member
	for {
		f.ws()
		if f.b[f.p] == '}' {
			f.p++
			break
		}
		name := f.str(nil)
		f.ws()
		f.p++ // ':'
		value := f.value(nil)
		members = append(members, member{name, value})
		f.ws()
		if f.b[f.p] == ',' {
			f.p++
		}
	}
	// Names are unique (decoding refuses repeated ones); an object may
	// have many, so the sort is not quadratic.
	slices.SortFunc(members, func(a, b member) int { return bytes.Compare(a.name, b.name) })
	dst = append(dst, '{')
	for _, m := range members {
		dst = append(dst, m.name...)
		dst = append(dst, m.value...)
	}
	return append(dst, '}')
}

// number appends a number's value: "0" for zero (-0 included), else its
// sign, its significant digits without leading or trailing zeros, and
// the exponent of the first of them.
func (f *former) number(dst []byte) []byte {
	neg := f.b[f.p] == '-'
	if neg {
		f.p++
	}
	var digits []byte
	point := 0 // digits before the decimal point
	for f.p < len(f.b) && f.b[f.p] >= '0' && f.b[f.p] <= '9' {
		digits = append(digits, f.b[f.p])
		point++
		f.p++
	}
	if f.p < len(f.b) && f.b[f.p] == '.' {
		f.p++
		for f.p < len(f.b) && f.b[f.p] >= '0' && f.b[f.p] <= '9' {
			digits = append(digits, f.b[f.p])
			f.p++
		}
	}
	exp := new(big.Int)
	if f.p < len(f.b) && (f.b[f.p] == 'e' || f.b[f.p] == 'E') {
		f.p++
		s := f.p
		if f.b[f.p] == '+' || f.b[f.p] == '-' {
			f.p++
		}
		for f.p < len(f.b) && f.b[f.p] >= '0' && f.b[f.p] <= '9' {
			f.p++
		}
		exp.SetString(string(f.b[s:f.p]), 10)
	}
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	digits = digits[lead:]
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		return append(dst, '0')
	}
	if neg {
		dst = append(dst, '-')
	}
	dst = append(dst, digits...)
	dst = append(dst, 'e')
	return exp.Add(exp, big.NewInt(int64(point-lead))).Append(dst, 10)
}

// NullValue reads the value of a member whose only type is null.
func (d *Decoder) NullValue(base, name string) (struct{}, bool) {
	if d.Fatal {
		return struct{}{}, false
	}
	if d.Null() {
		return struct{}{}, true
	}
	d.mistyped(base, name, "", "null")
	return struct{}{}, false
}

// NullValue writes the value of a member whose only type is null.
func (e *Encoder) NullValue(struct{}) { e.Null() }

// AnyValue reads a member whose value may be any JSON value, as Raw does.
func (d *Decoder) AnyValue(base, name string) (json.RawMessage, bool) {
	v := d.raw(base, name, "")
	return v, v != nil
}

// RawValue checks that raw, a member's value built by hand, is JSON.
func (e *Errors) RawValue(base, name string, raw json.RawMessage) {
	e.rawJSON(base, name, raw)
}

// Additional records that the member key of the object at base is one
// the schema does not allow (additionalProperties false), and skips its
// value.
func (d *Decoder) Additional(base string, key []byte) {
	name := "/" + PathToken(string(key[:min(len(key), shortLen+utf8.UTFMax)]))
	d.additional(&d.Errors, base, name, key)
	d.skip(base, name, "")
}

// Additional records that the extra member key, built by hand, is one
// the schema does not allow.
func (e *Errors) Additional(base, key string) {
	e.additional(e, base, "/"+PathToken(key), []byte(key))
}

func (e *Errors) additional(to *Errors, base, name string, key []byte) {
	if to.Full() {
		to.Omit()
		return
	}
	to.Add(base, name, msg.RuleAdditionalProperties, Quote(string(key[:min(len(key), shortLen+utf8.UTFMax)])), "member not allowed: the schema allows only the members it declares")
}

// MinProperties checks that an object of n members has at least min.
func (e *Errors) MinProperties(base string, n, min int) {
	if n < min {
		e.count(base, "", msg.RuleMinProperties, "want at least ", n, min, " members")
	}
}

// MaxProperties checks that an object of n members has at most max.
func (e *Errors) MaxProperties(base string, n, max int) {
	if n > max {
		e.count(base, "", msg.RuleMaxProperties, "want at most ", n, max, " members")
	}
}

// Dependent records that the member base+name is absent while the member
// named by, which requires it, is present (dependentRequired, or the
// dependencies of draft 7, the rule).
func (e *Errors) Dependent(base, name string, rule msg.Rule, by string) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, rule, "", "required member is missing: the member "+strconv.Quote(by)+" is present")
}

// NumberValue reads a number, any JSON number, as its text: nothing of
// its digits is lost, and checks compare it exactly.
func (d *Decoder) NumberValue(base, name string) (json.Number, bool) {
	if d.Fatal {
		return "", false
	}
	c := d.WS()
	if c != '-' && (c < '0' || c > '9') {
		d.mistyped(base, name, "", "a number")
		return "", false
	}
	d.last = d.Pos
	num := d.Number()
	if d.Fatal {
		d.place(base, name, "")
		return "", false
	}
	k := d.Keep(d.last, d.last+len(num))
	return json.Number(unsafe.String(unsafe.SliceData(k), len(k))), true
}

// Number writes a number as its text, which must be a JSON number.
func (e *Encoder) Number(n json.Number) {
	if !format.ValidNumber([]byte(n)) {
		e.fail("cannot encode number " + strconv.Quote(Shorten(string(n))) + ": not a JSON number")
		return
	}
	e.B = append(e.B, n...)
}

// NumberText checks that a number built by hand is a JSON number.
func (e *Errors) NumberText(base, name string, n json.Number) {
	if !format.ValidNumber([]byte(n)) {
		e.Add(base, name, msg.RuleSyntax, Quote(string(n)), "not a JSON number")
	}
}

// A Factor is a multipleOf read once, in a package variable of the
// generated code (see format.Factor).
type Factor = format.Factor

// NewFactor reads a multipleOf (see format.NewFactor).
func NewFactor(s string) *Factor { return format.NewFactor(s) }

// NumberMin checks that n is at least min, exactly; NumberMax that it is
// at most max, NumberAbove that it is more than limit, NumberBelow that
// it is less. A text that is not a number is NumberText's to report.
func (e *Errors) NumberMin(base, name string, n json.Number, min string) {
	if format.CompareNumbers([]byte(n), []byte(min)) < 0 && format.ValidNumber([]byte(n)) {
		e.numberBound(base, name, msg.RuleMinimum, "want at least ", n, min)
	}
}

// NumberMax: see NumberMin.
func (e *Errors) NumberMax(base, name string, n json.Number, max string) {
	if format.CompareNumbers([]byte(n), []byte(max)) > 0 && format.ValidNumber([]byte(n)) {
		e.numberBound(base, name, msg.RuleMaximum, "want at most ", n, max)
	}
}

// NumberAbove: see NumberMin.
func (e *Errors) NumberAbove(base, name string, n json.Number, limit string) {
	if format.CompareNumbers([]byte(n), []byte(limit)) <= 0 && format.ValidNumber([]byte(n)) {
		e.numberBound(base, name, msg.RuleExclusiveMinimum, "want more than ", n, limit)
	}
}

// NumberBelow: see NumberMin.
func (e *Errors) NumberBelow(base, name string, n json.Number, limit string) {
	if format.CompareNumbers([]byte(n), []byte(limit)) >= 0 && format.ValidNumber([]byte(n)) {
		e.numberBound(base, name, msg.RuleExclusiveMaximum, "want less than ", n, limit)
	}
}

func (e *Errors) numberBound(base, name string, rule msg.Rule, want string, n json.Number, limit string) {
	if e.Full() {
		e.Omit()
		return
	}
	v := Shorten(string(n))
	e.Add(base, name, rule, v, want+limit+", got "+v)
}

// NumberMultipleOf checks that n is a multiple of f, exactly (0.3 is a
// multiple of 0.1); factor is the schema's text of f, for the message.
func (e *Errors) NumberMultipleOf(base, name string, n json.Number, f *Factor, factor string) {
	multiple, ok := f.MultipleOf([]byte(n))
	if multiple || !format.ValidNumber([]byte(n)) {
		return
	}
	if e.Full() {
		e.Omit()
		return
	}
	v := Shorten(string(n))
	if !ok {
		e.Add(base, name, msg.RuleRange, v, "a number of more than "+strconv.Itoa(format.MaxMultipleDigits)+" significant digits cannot be checked for multipleOf, a documented limit of the library")
		return
	}
	e.Add(base, name, msg.RuleMultipleOf, v, "want a multiple of "+factor+", got "+v)
}

// Format checks that s is of the named format, by check, one of the
// Check functions below; it records rule format with check's reason.
func (e *Errors) Format(base, name, s string, check func(string) string, format string) {
	if why := check(s); why != "" {
		if e.Full() {
			e.Omit()
			return
		}
		e.Add(base, name, msg.RuleFormat, Quote(s), "not a "+format+": "+why)
	}
}

// The checks of the formats held as their text (see package format).
var (
	CheckDate     = format.CheckDate
	CheckTime     = format.CheckTime
	CheckDuration = format.CheckDuration
	CheckEmail    = format.CheckEmail
	CheckIPv4     = format.CheckIPv4
	CheckIPv6     = format.CheckIPv6
	CheckURI      = format.CheckURI
)

// indexes are the path tokens of the first array items, so that a path
// costs an allocation only past them, and only when it is used.
var indexes = func() (list [256]string) {
	for i := range list {
		list[i] = "/" + strconv.Itoa(i)
	}
	return list
}()

// Index returns the path token of the i-th item of an array: "/i".
func Index(i int) string {
	if i < len(indexes) {
		return indexes[i]
	}
	return "/" + strconv.Itoa(i)
}

// Mistyped records that the value at base+name is of none of the types
// want names, and skips it.
func (d *Decoder) Mistyped(base, name, want string) {
	d.mistyped(base, name, "", want)
}

// Union checks, for Validate, that a union member built by hand holds
// exactly one value: n is how many of its branches are set.
func (e *Errors) Union(base, name string, rule msg.Rule, n int) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, rule, "", "want exactly one of the union's values set, got "+strconv.Itoa(n))
}

// NoValue makes encoding fail for a union member that holds no value.
func (e *Encoder) NoValue(member string) {
	e.fail("cannot encode member " + strconv.Quote(member) + ": its union holds no value")
}

// Never records that the member base+name has a value where its schema
// allows none (rule false, or the enum, const or type that no value of
// the member passes).
func (e *Errors) Never(base, name string, rule msg.Rule) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, rule, "", "the schema allows no value here: the member must be absent")
}

// Values are the values an enum or const allows, each as the form
// equalForm gives it, read once into a package variable of the
// generated code.
type Values struct {
	forms map[string]bool
	want  string // the values as the schema writes them, for messages
}

// NewValues reads the JSON values an enum or const allows.
func NewValues(values ...string) *Values {
	vs := &Values{forms: make(map[string]bool, len(values))}
	for _, v := range values {
		vs.forms[string(equalForm(nil, []byte(v)))] = true
	}
	if len(values) == 1 {
		vs.want = values[0]
	} else {
		vs.want = "one of " + strings.Join(values, ", ")
	}
	return vs
}

// RawValues checks that raw is one of the values vs allows, by JSON
// equality; rule is enum or const.
func (e *Errors) RawValues(base, name string, raw json.RawMessage, vs *Values, rule msg.Rule) {
	if !vs.forms[string(equalForm(nil, raw))] {
		e.notValue(base, name, ShortenBytes(raw), vs, rule)
	}
}

// NumberValues is RawValues for a number.
func (e *Errors) NumberValues(base, name string, n json.Number, vs *Values, rule msg.Rule) {
	e.RawValues(base, name, json.RawMessage(n), vs, rule)
}

// ArrayValues is RawValues for an array of any values.
func (e *Errors) ArrayValues(base, name string, list []json.RawMessage, vs *Values, rule msg.Rule) {
	form := []byte{'['}
	for i, raw := range list {
		if i > 0 {
			form = append(form, ',')
		}
		form = equalForm(form, raw)
	}
	if !vs.forms[string(append(form, ']'))] {
		text, _ := json.Marshal(list)
		e.notValue(base, name, ShortenBytes(text), vs, rule)
	}
}

// ObjectValues is RawValues for a free object.
func (e *Errors) ObjectValues(base, name string, o object.Object, vs *Values, rule msg.Rule) {
	e.RawValues(base, name, o.AppendJSON(nil), vs, rule)
}

func (e *Errors) notValue(base, name, value string, vs *Values, rule msg.Rule) {
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, name, rule, value, "want "+vs.want+", got "+value)
}

// Names are an object's propertyNames, a schema every member name must
// pass, read once into a package variable of the generated code: lengths
// in code points, a pattern, and a format's check, each optional.
type Names struct {
	MinLength int
	MaxLength int // -1 for none
	Pattern   *regexp.Regexp
	Check     func(string) string
	Schema    string // the schema as written, for messages
}

// PropertyName checks that the member name key of the object at base
// passes ns.
func (e *Errors) PropertyName(base, key string, ns *Names) {
	n := utf8.RuneCountInString(key)
	if n >= ns.MinLength && (ns.MaxLength < 0 || n <= ns.MaxLength) &&
		(ns.Pattern == nil || ns.Pattern.MatchString(key)) && (ns.Check == nil || ns.Check(key) == "") {
		return
	}
	if e.Full() {
		e.Omit()
		return
	}
	e.Add(base, "/"+PathToken(key), msg.RulePropertyNames, Quote(key), "member name not allowed: want a name that passes "+ns.Schema)
}

// PropertyName is Errors.PropertyName for a name read from the input,
// valid until the next string is read.
func (d *Decoder) PropertyName(base string, key []byte, ns *Names) {
	d.Errors.PropertyName(base, string(key), ns)
}
