// Package msg is the vocabulary shared by the generated message types of
// the catalogue and the bindings that carry them: the violations their
// decoding and validation report and the rules they name, the Verdict
// every binding reports, the Kind of each message type, the Nullable type
// of their nullable members, and the JSON Pointers and escaped text of
// reports. It is plain Go, with no import from this module's internal
// packages; the free-form objects of messages are package object's.
//
// A message that breaks its schema gives an *Error listing every
// Violation found, each naming the member (a JSON Pointer), the rule it
// breaks and the offending value:
//
//	d, err := device.Parse(data)
//	var e *msg.Error
//	if errors.As(err, &e) { // Parse's errors are always an *msg.Error
//		for _, v := range e.Violations {
//			log.Printf("%v [%s]", v, v.Rule) // "path: message", on one line
//		}
//	}
//
// VerdictOf turns what any decoder of the library returns into the
// Verdict that msgcheck check -json, the HTTP validation route and a
// broker's dead letters report.
package msg

import (
	"strconv"
	"strings"
)

// A Rule names the constraint a Violation breaks. Most are JSON Schema
// keywords; the rest are the catalogue's own rules.
type Rule string

// The rules a message can break.
const (
	RuleSyntax               Rule = "syntax"               // the document is not well-formed UTF-8 JSON
	RuleDuplicate            Rule = "duplicate"            // an object repeats a member name, at any depth
	RuleType                 Rule = "type"                 // the value is not of the declared JSON type (null included)
	RuleRequired             Rule = "required"             // a required member is absent
	RuleFormat               Rule = "format"               // the string is not of the declared format (uuid, date-time, date, email, ...)
	RuleEnum                 Rule = "enum"                 // the value is not one of those allowed
	RuleConst                Rule = "const"                // the value is not the one allowed
	RuleMinimum              Rule = "minimum"              // the number is below the minimum
	RuleMaximum              Rule = "maximum"              // the number is above the maximum
	RuleExclusiveMinimum     Rule = "exclusiveMinimum"     // the number is not above the exclusive minimum
	RuleExclusiveMaximum     Rule = "exclusiveMaximum"     // the number is not below the exclusive maximum
	RuleMultipleOf           Rule = "multipleOf"           // the number is not a multiple of the one given
	RuleMinLength            Rule = "minLength"            // the string is shorter than allowed
	RuleMaxLength            Rule = "maxLength"            // the string is longer than allowed
	RulePattern              Rule = "pattern"              // the string does not match the pattern
	RuleMinItems             Rule = "minItems"             // the array has fewer items than allowed
	RuleMaxItems             Rule = "maxItems"             // the array has more items than allowed
	RuleUniqueItems          Rule = "uniqueItems"          // two items of the array are equal
	RuleAdditionalProperties Rule = "additionalProperties" // the object has a member the schema does not allow
	RuleMinProperties        Rule = "minProperties"        // the object has fewer members than allowed
	RuleMaxProperties        Rule = "maxProperties"        // the object has more members than allowed
	RuleDependentRequired    Rule = "dependentRequired"    // a member that another present member requires is absent
	RuleDependencies         Rule = "dependencies"         // draft 7's dependentRequired
	RuleOneOf                Rule = "oneOf"                // the value passes none, or several, of the oneOf's schemas; or a union member built by hand holds no value, or several
	RuleAnyOf                Rule = "anyOf"                // the value passes none of the anyOf's schemas; or as oneOf, for a union the schema writes with anyOf
	RuleNot                  Rule = "not"                  // the value passes the schema of the not
	RuleThen                 Rule = "then"                 // the value passes the schema of the if, and not that of the then
	RuleElse                 Rule = "else"                 // the value fails the schema of the if, and that of the else
	RuleContains             Rule = "contains"             // fewer items of the array than minContains (1 by default) pass the schema of its contains
	RuleMaxContains          Rule = "maxContains"          // more items of the array than maxContains pass the schema of its contains
	RuleDependentSchemas     Rule = "dependentSchemas"     // the object has a member whose schema in dependentSchemas it fails
	RuleFalse                Rule = "false"                // the schema allows no value for the member (a false schema): it must be absent
	RulePropertyNames        Rule = "propertyNames"        // a member name does not pass the object's propertyNames
	RuleRange                Rule = "range"                // the integer does not fit in an int64, a documented limit of the library
	RuleDepth                Rule = "depth"                // arrays and objects nest more than 10,000 deep, a documented limit of the library
	RuleIMEI                 Rule = "imei"                 // the string is neither empty nor a valid IMEI

	// The rules below are not the message's schema's but those of how it
	// was received: by its message_type, in a stream, beside headers.

	RuleMessageType Rule = "message_type" // the message_type is absent, or names no schema of the catalogue, so no schema can be chosen
	RuleSchema      Rule = "schema"       // what names the schema (a header, an argument) names none of the catalogue
	RuleHeader      Rule = "header"       // a header (CloudEvents ce-*) is malformed or contradicts the body
	RuleLineLength  Rule = "line_length"  // the line of a stream is longer than its limit, a limit of the stream, not of the schema

	// The rules a gate applies beside the schema's (decision 16): a
	// message can follow its schema and still not be forwarded.

	RuleDuplicateID Rule = "duplicate_id" // another message, with another body, was already forwarded under the message's id
	RuleTooLarge    Rule = "too_large"    // the message's copy, with the headers a gate adds, is larger than the broker stores
)

// A Violation is one way in which a message breaks its schema. Its JSON
// form, {"path", "rule", "message", "value"} with value left out when
// empty, is how msgcheck -json and the HTTP API report it.
type Violation struct {
	// Path is the JSON Pointer (RFC 6901) of the offending member, such as
	// "/actor/id"; for an absent required member, the pointer it would
	// have. The document itself is "".
	Path string `json:"path"`
	// Rule is the rule broken.
	Rule Rule `json:"rule"`
	// Message says, for a person, what was expected and what was found.
	Message string `json:"message"`
	// Value is the offending value as JSON text, shortened when long; it is
	// empty where no value is at fault (an absent member). A value built in
	// Go that JSON cannot carry is shown as the text it would be written
	// as: a time as its RFC 3339 string, a year past 9999 or an offset in
	// seconds included.
	Value string `json:"value,omitempty"`
	// Err, if not nil, is a condition the violation is an instance of,
	// which callers branch on: errors.Is(err, catalogue.ErrNoType) holds
	// for an error listing a violation whose Err is ErrNoType. It is not
	// part of the violation's JSON or text.
	Err error `json:"-"`
}

// Unwrap returns v.Err.
func (v *Violation) Unwrap() error { return v.Err }

// Error returns the violation as "path: message", on one line whatever
// the message holds: a control character, a line or paragraph separator,
// a bidirectional control or a byte that is not UTF-8, in a member name or
// a value, is written as an escape such as \x1b or \u2028, so that a
// message cannot forge a line of a report or command the terminal that
// shows it. Path and Message themselves hold the text as it is.
func (v *Violation) Error() string {
	path := v.Path
	if path == "" {
		path = "(root)"
	}
	return Escape(path) + ": " + Escape(v.Message)
}

// MaxViolations is how many violations an Error lists at most. A message
// can break its schema in as many places as it has values (an array of a
// million numbers where strings are wanted), and a report that grew with
// them would cost its reader, a log or an HTTP client, more than the
// message itself: the violations beyond the first MaxViolations are only
// counted, in Error.Omitted, and cost no memory.
const MaxViolations = 100

// Error is the error of a message that breaks its schema: its violations,
// in the order they were found, at most MaxViolations of them, and the
// number of those found after. A syntax error, which ends the reading of a
// message, is always listed, last: when the list is full, it takes the
// place of the last violation found before it, which is counted in
// Omitted instead.
type Error struct {
	Violations []*Violation
	// Omitted is the number of violations found after the first
	// MaxViolations, which are not listed. The rest of the message is
	// still read to its end, so that Omitted is exact.
	Omitted int
}

// Error returns the violations, separated by "; ", followed by
// "; ... and N more violations" when some were omitted.
func (e *Error) Error() string {
	var b strings.Builder
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.Error())
	}
	if e.Omitted > 0 {
		if len(e.Violations) > 0 {
			b.WriteString("; ")
		}
		b.WriteString(omittedText(e.Omitted))
	}
	return b.String()
}

// omittedText is how a report says that n violations were omitted:
// "... and n more violations".
func omittedText(n int) string {
	if n == 1 {
		return "... and 1 more violation"
	}
	return "... and " + strconv.Itoa(n) + " more violations"
}

// Unwrap returns the violations, so that errors.As finds the first
// *Violation and errors.Is matches any of them.
func (e *Error) Unwrap() []error {
	errs := make([]error, len(e.Violations))
	for i, v := range e.Violations {
		errs[i] = v
	}
	return errs
}

// A Message is a decoded message of one schema at one version: a value of
// a type generated from it, such as *device.Device. Package catalogue
// returns one when the schema is known only at run time.
type Message interface {
	// Validate reports whether the message, as it would be encoded, is one
	// its schema accepts, returning an *Error if not.
	Validate() error
	// Unset returns the JSON Pointers of the required members that still
	// hold the zero value of their Go type (see device.Device.Unset).
	Unset() []string
	// SchemaName returns the name of the message's schema.
	SchemaName() string
	// SchemaVersion returns the version of the message's schema: the
	// version it is judged and encoded by.
	SchemaVersion() string
	// SchemaKind returns the kind of the message: its schema and the
	// members that identify a message (see Kind).
	SchemaKind() *Kind
	// Identity returns the values of the members that identify the
	// message, as its kind names them.
	Identity() Identity
	// MarshalJSON encodes the message.
	MarshalJSON() ([]byte, error)
	// AppendJSON appends the encoding of the message to b.
	AppendJSON(b []byte) ([]byte, error)
	// UnmarshalJSON decodes data into the message, exactly as its schema
	// and the catalogue's decisions say.
	UnmarshalJSON(data []byte) error
}
