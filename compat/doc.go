// Package compat checks that a new version of a schema is compatible with
// an old one, as decision 13 defines it, and proves every break with a
// message.
//
//	r, err := compat.Compare(old, new, compat.Options{}) // Full: the rule for minors
//	if err != nil {
//		return err // a schema it cannot read
//	}
//	for _, f := range r.Findings {
//		fmt.Println(f) // /properties/kind: backward: enum-value-removed: ...; witness: {...}
//	}
//	if !r.Compatible() {
//		// publish it as a new major version instead
//	}
//
// Backward compatibility holds when every message the old version accepts
// the new accepts; forward, when every message the new accepts the old
// accepts; full, when both hold and every member both declare decodes,
// when absent, to the same value (its default). Messages are judged as the
// library judges them: by the JSON Schema, formats asserted, plus the
// decisions a schema cannot express (an integer fits in an int64; the IMEI
// of core.device). Compatibility is judged on declared members (decision
// 13): a message is assumed not to carry, as an unknown member, a name the
// other version declares; what holds only under that assumption is a
// warning ("open-content"), which Options.Strict turns into a break.
//
// The checker is exact over these keywords: type
// (null included), enum and const (by JSON equality: 1 equals 1.0, an
// object's members in any order), format (uuid, date-time,
// date, time, duration, email, hostname, ipv4, ipv6 and uri, judged as
// the decoders judge them), minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf (in exact decimals: 0.3 is a multiple of
// 0.1), minLength, maxLength, pattern, minItems, maxItems, uniqueItems
// (1 equals 1.0), items, properties, required, additionalProperties (true,
// false or a schema), patternProperties, propertyNames, minProperties,
// maxProperties, dependentRequired (draft 7's
// dependencies in the array form), default, at any depth. Before it
// compares, it inlines every $ref into the same file ($defs or
// definitions) or to another schema of the catalogue by its $id, merges
// every allOf, and reads a oneOf or anyOf whose branches differ by JSON
// type as one schema of all their types; titles, descriptions and other
// annotations change nothing. For every difference it finds a witness, a
// message one version accepts and the other rejects, from a finite set
// of candidates that holds a value of every class the two schemas can
// tell apart (see the comment on scalars); so where it finds none, there
// is none.
//
// Members an object does not declare are compared region by region: the
// names are cut by which patterns of patternProperties (of either
// version) match them, a shortest name of each region found by one
// search over the product of the automata, and each region's schemas
// (a pattern's, additionalProperties', or none) compared as a member's.
// propertyNames is compared as a schema of strings over the names. What
// neither version changes is no difference: a schema equal in both (JSON
// equality, $refs inlined) is not compared, whatever keywords it holds,
// and not, if, then, else, contains, maxContains and dependentSchemas
// added to an otherwise unchanged schema only narrow it: the direction
// from the narrower version holds.
//
// Two patterns are compared as automata (regexp/syntax's programs over
// code points, read as ECMA-262 by internal/pattern, with the bounds on
// the length beside them; an enumeration is a finite language): the
// witness is a shortest string one accepts and the other refuses. A
// pattern that is not regular (backreferences, lookaround), one beside a
// format or the IMEI rule where the two versions differ, and a pair whose
// automata exceed the checker's bounds are refused as
// "undecidable-pattern"; an allOf, oneOf or anyOf that cannot be merged
// exactly (two different patterns, branches of overlapping types, an
// enumeration in a branch), or two patterns of patternProperties that
// meet in a region of names where the schemas change, as
// "undecidable-composition"; a pattern of patternProperties that matches
// a declared member whose schemas change, as "undecidable-pattern"; names
// a changed propertyNames rejects for which no message can be shown, as
// "undecidable-property-names". Any other keyword that changes (not, if,
// then, else, contains, dependentSchemas, dependentRequired in draft 7
// or dependencies in 2020-12, where they mean nothing) is reported as a
// break with a code of its own,
// never passed over, as is an enumeration of arrays or objects against a
// version that enumerates none ("undecidable-enum").
//
// The codes of a Finding:
//
//	type-narrowed       the new version rejects a type the old accepts (null included)
//	type-widened        the new version accepts a type the old rejects
//	enum-value-removed  an enumerated value is gone
//	enum-value-added    a value is added to an enumeration
//	enum-added          an enumeration now restricts a member that had none
//	enum-removed        an enumeration is dropped
//	format-changed      the format is added, removed or changed, so which strings pass
//	minimum-raised, minimum-lowered, maximum-lowered, maximum-raised
//	exclusive-minimum-raised, exclusive-minimum-lowered
//	exclusive-maximum-lowered, exclusive-maximum-raised
//	min-length-raised, min-length-lowered, max-length-lowered, max-length-raised
//	min-items-raised, min-items-lowered, max-items-lowered, max-items-raised
//	additional-properties-closed, additional-properties-opened
//	property-names-narrowed, property-names-widened
//	multiple-of-changed a multipleOf changes, and so which numbers pass
//	pattern-changed     the pattern changes, and so which strings pass
//	unique-items-added, unique-items-removed
//	min-properties-raised, min-properties-lowered, max-properties-lowered, max-properties-raised
//	dependency-added    a member now requires another wherever it is present
//	dependency-removed  a member no longer does
//	required-added      a member becomes required
//	required-removed    a required member becomes optional or goes
//	default-changed     a member's default is added, removed or changed
//	open-content        a member is added or removed: a warning, a break with Options.Strict
//	unknown-keyword     a keyword the checker does not know
//	unknown-format      a format the checker does not know
//	unknown-rule        a rule of the catalogue beyond JSON Schema (schemas.ExtraRules) other than the IMEI's
//	unknown-dialect     a $schema other than drafts 6, 7, 2019-09 and 2020-12
//	undecidable-pattern a pattern that is not regular, beside a format, or beyond the bounds
//	undecidable-composition an allOf, oneOf or anyOf that cannot be merged exactly
//	undecidable-enum    an enumeration of arrays or objects against none
//	undecidable-property-names a propertyNames the checker finds no message for
//	limit-exceeded      a bound, length or number too large to reason about
package compat
