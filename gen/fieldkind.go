package main

import (
	"encoding/json"
	"fmt"

	"github.com/fleetkit/catalogue/internal/format"
	"math/big"
	"strconv"
	"strings"
)

// A kind is what a member holds, as the generated code sees it: a row of
// fieldKinds.
type kind int

const (
	kindString kind = iota
	kindUUID
	kindDateTime
	kindInt
	kindBool
	kindNumber    // any JSON number, held as its text
	kindEnum      // a string from a fixed list
	kindStrings   // an array of strings
	kindRawArray  // an array whose items may be any JSON values
	kindNull      // null, a member's only value
	kindAny       // any JSON value: a member whose schema asserts nothing
	kindDate      // a string of format date
	kindTimeOfDay // a string of format time
	kindDuration  // a string of format duration
	kindEmail     // a string of format email
	kindIPv4      // a string of format ipv4
	kindIPv6      // a string of format ipv6
	kindURI       // a string of format uri
	kindHostname  // a string of format hostname
	kindArray     // an array of items of one kind, other than plain strings
	kindUnion     // oneOf or anyOf whose branches differ by JSON type
	kindNever     // no value: the member may only be absent
	kindRawObject // an object with free members holding any JSON
	kindObject    // an object with declared members: a struct of its own
)

// A fieldKind says everything the generator does with a member of one
// kind: how the schema declares it, its Go type, how it is decoded,
// validated, encoded and documented. The model (model.go) and the files
// that write decoders (decode.go), validators (validate.go) and encoders
// (encode.go) read it rather than switch over kinds, so that adding a
// kind, such as a format, is adding a row here and the runtime methods
// the row names (see the package doc).
type fieldKind struct {
	// JSONType and Format are how a schema declares a member of the kind:
	// its type besides null, and its format. A row without a JSONType is
	// recognized by build, from more than these (enum, items, properties).
	JSONType, Format string
	// What names the kind in the generator's errors.
	What string

	// GoType is the Go type of a value; for the kinds that name a type of
	// their own (enum, object), it is the member's type name.
	GoType string
	// Import is the package GoType needs, if any.
	Import string
	// Held is true for a slice, which an optional member holds as it is,
	// nil when absent, rather than through a pointer.
	Held bool

	// Reader is the wire.Decoder method that reads a value; "" for the
	// kinds decode.go reads by code of their own (Decode).
	Reader string
	// Decode, when set, writes the decoding of a member of the kind, in
	// place of a call to Reader.
	Decode func(g *generator, m *message, f *field, name string)

	// Validate, when set, writes Validate's checks of a value x of the
	// kind beyond its type, batched telling that a string's UTF-8 is
	// checked with the message's other strings.
	Validate func(g *generator, f *field, name, x string, batched bool)
	// Rejects names, for Validate's doc comment, what a Go value of the
	// kind can hold that the schema rejects; "" for nothing of its own.
	Rejects string
	// Zero is the test, with %s for the value, by which Unset reports a
	// required member still holding its Go zero value; "" to leave such
	// members out (0 and false are values a producer means).
	Zero string

	// Writer is the wire.Encoder method that writes a value; "" for an
	// object, which encodes itself. Conv, when set, converts the value
	// for it (%s for the value).
	Writer, Conv string
	// Size is the guess of sizeHint at the encoded length of a value;
	// Sized adds, at run time, the length of the string ("string") or of
	// every string of the array ("strings").
	Size  int
	Sized string

	// Note ends the doc comment of a member of the kind.
	Note string
	// Default, when set, returns the Go literal of a schema's default for
	// a member of the kind, or "" for the Go zero value; a schema giving a
	// default (other than null) to a kind without it is refused.
	Default func(raw json.RawMessage) (string, error)
	// Bounds and Lengths say whether the schema may bound the value
	// (minimum, maximum) or its length in characters (minLength,
	// maxLength).
	Bounds, Lengths bool
	// Check, for a string of a format held as its text, names the
	// function of package wire (over package format) that checks it.
	Check string
	// NumberBounds says whether the schema may bound a number of any
	// value, compared exactly as text (minimum, maximum, the exclusive
	// bounds, multipleOf).
	NumberBounds bool
	// Items says whether the schema may count or compare the items of
	// the value (minItems, maxItems, uniqueItems).
	Items bool
}

// fieldKinds is the table of kinds, a row for each. It is filled in by
// init, since its functions read it.
var fieldKinds [kindObject + 1]fieldKind

func init() {
	fieldKinds = [...]fieldKind{
		kindString: {
			What:     "string",
			JSONType: "string", GoType: "string",
			Reader: "String", Validate: validateString, Zero: `%s == ""`,
			Writer: "String", Size: 2, Sized: "string",
			Default: defaultString, Lengths: true,
		},
		kindUUID: {
			What:     "uuid",
			JSONType: "string", Format: "uuid", GoType: "uuid.UUID", Import: "github.com/google/uuid",
			Reader: "UUID", Zero: "%s == uuid.Nil",
			Writer: "UUID", Size: 38,
		},
		kindDateTime: {
			What:     "date-time",
			JSONType: "string", Format: "date-time", GoType: "time.Time", Import: "time",
			Reader: "DateTime", Validate: validateTime, Rejects: "times RFC 3339 cannot express", Zero: "%s.IsZero()",
			Writer: "Time", Size: 37,
			Note: " An RFC 3339 date-time; a leap second (23:59:60) decodes as 23:59:59 of the same minute, and fractions finer than a nanosecond are truncated.",
		},
		kindInt: {
			What:     "integer",
			JSONType: "integer", GoType: "int64",
			Reader: "Int", Validate: validateChecks,
			Writer: "Int", Size: 8,
			Default: defaultInt, Bounds: true,
		},
		kindNumber: {
			What:     "number",
			JSONType: "number", GoType: "json.Number", Import: "encoding/json",
			Reader: "NumberValue", Validate: validateNumber, Rejects: "numbers that are not JSON",
			Writer: "Number", Size: 2, Sized: "string",
			Default: defaultNumber, NumberBounds: true,
			Note: " A JSON number, held as its text (json.Number), so that no digit is lost and bounds are compared exactly.",
		},
		kindBool: {
			What:     "boolean",
			JSONType: "boolean", GoType: "bool",
			Reader: "Bool", Validate: validateChecks,
			Writer: "Bool", Size: 8,
			Default: defaultBool,
		},
		kindEnum: {
			What:   "enum",
			Decode: decodeEnum, Validate: validateEnum, Rejects: "enum values", Zero: `%s == ""`,
			Writer: "String", Conv: "string(%s)", Size: 2, Sized: "string",
			Default: defaultString,
		},
		kindStrings: {
			What:   "array of strings",
			GoType: "[]string", Held: true,
			Decode: decodeStrings, Validate: validateStrings,
			Writer: "Strings", Size: 2, Sized: "strings",
			Default: defaultStrings, Items: true,
		},
		kindRawArray: {
			What:   "array",
			GoType: "[]json.RawMessage", Import: "encoding/json", Held: true,
			Reader: "RawArray", Validate: validateRawArray,
			Writer: "RawArray", Size: 64,
			Items: true,
			Note:  " Each item is any JSON value, null included, kept as its text.",
		},
		kindNull: {
			What:   "null",
			GoType: "struct{}",
			Reader: "NullValue",
			Writer: "NullValue", Size: 4,
			Note: " Its only value is null: a member of type struct{} is present, and encodes as null.",
		},
		kindAny: {
			What:   "any value",
			GoType: "json.RawMessage", Import: "encoding/json", Held: true,
			Reader: "AnyValue", Validate: validateAny,
			Writer: "Raw", Size: 16,
			Note: " Any JSON value, null included, kept as its text; nil is absent.",
		},
		kindArray: {
			What: "array of items", Held: true,
			Decode: decodeArray, Validate: validateArray,
			Size: 16, Items: true,
		},
		kindUnion: {
			What:   "union",
			Decode: decodeUnion, Validate: validateUnion,
			Size: 16,
		},
		kindNever: {
			What:   "no value",
			GoType: "json.RawMessage", Import: "encoding/json", Held: true,
			Decode: decodeNever, Validate: validateNever, Rejects: "members the schema allows no value for",
			Writer: "Raw", Size: 8,
			Note: " The schema allows no value here: the member may only be absent, and any value is a violation.",
		},
		kindRawObject: {
			What:   "free object",
			GoType: "object.Object", Import: "github.com/fleetkit/catalogue/object",
			Reader: "FreeObject", Validate: validateChecks,
			Writer: "Object", Size: 64,
			Note: " Any member name, any value, null included: object.Object keeps the object's text as it is, so that a null value and every digit of a number survive decoding and encoding.",
		},
		kindObject: {
			What:   "object",
			Decode: decodeObject, Validate: validateObject,
			Size: 64,
		},
	}
	// The formats held as their text: a string, checked.
	for k, f := range map[kind][2]string{
		kindDate: {"date", "CheckDate"}, kindTimeOfDay: {"time", "CheckTime"}, kindDuration: {"duration", "CheckDuration"},
		kindEmail: {"email", "CheckEmail"}, kindIPv4: {"ipv4", "CheckIPv4"}, kindIPv6: {"ipv6", "CheckIPv6"}, kindURI: {"uri", "CheckURI"},
		kindHostname: {"hostname", "CheckHostname"},
	} {
		fieldKinds[k] = fieldKind{
			What:     f[0],
			JSONType: "string", Format: f[0], GoType: "string",
			Reader: "String", Validate: validateString, Rejects: "strings not of their format", Zero: `%s == ""`,
			Writer: "String", Size: 2, Sized: "string",
			Default: defaultString, Lengths: true, Check: f[1],
			Note: " A string of format " + f[0] + ", held as its text.",
		}
	}
}

// row returns the row of f's kind.
func (f *field) row() *fieldKind { return &fieldKinds[f.Kind] }

// kindOf returns the kind a schema declares with a JSON type and format,
// among the rows that say how they are declared.
func kindOf(jsonType, format string) (kind, bool) {
	for k, row := range fieldKinds {
		if row.JSONType != "" && row.JSONType == jsonType && row.Format == format {
			return kind(k), true
		}
	}
	return 0, false
}

// defaultString is the literal of a string's default.
func defaultString(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || s == "" {
		return "", err
	}
	return strconv.Quote(s), nil
}

// defaultInt is the literal of an integer's default, which may be
// written 1.0 or 1e2 in the schema.
func defaultInt(raw json.RawMessage) (string, error) {
	r, ok := new(big.Rat).SetString(string(raw))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return "", fmt.Errorf("not an integer that fits in an int64")
	}
	if r.Sign() == 0 {
		return "", nil
	}
	return r.Num().String(), nil
}

// defaultBool is the literal of a boolean's default.
func defaultBool(raw json.RawMessage) (string, error) {
	switch string(raw) {
	case "false":
		return "", nil
	case "true":
		return "true", nil
	}
	return "", fmt.Errorf("not a boolean")
}

// defaultStrings is the literal of an array of strings' default.
func defaultStrings(raw json.RawMessage) (string, error) {
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", err
	}
	items := make([]string, len(list))
	for i, s := range list {
		items[i] = strconv.Quote(s)
	}
	return "[]string{" + strings.Join(items, ", ") + "}", nil
}

// defaultNumber is the literal of a number's default: its text.
func defaultNumber(raw json.RawMessage) (string, error) {
	if _, ok := new(big.Rat).SetString(string(raw)); !ok || raw[0] == '"' {
		return "", fmt.Errorf("not a number")
	}
	return strconv.Quote(string(raw)), nil
}

// formatChecks are the checks of the formats held as their text, by the
// name of their wire function, for what the generator checks itself.
var formatChecks = map[string]func(string) string{
	"CheckDate": format.CheckDate, "CheckTime": format.CheckTime, "CheckDuration": format.CheckDuration,
	"CheckEmail": format.CheckEmail, "CheckIPv4": format.CheckIPv4, "CheckIPv6": format.CheckIPv6, "CheckURI": format.CheckURI,
	"CheckHostname": format.CheckHostname,
}
