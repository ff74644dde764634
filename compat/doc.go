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
// The checker is exact over the keywords the catalogue's schemas use:
// type (null included), enum, const, format (uuid and date-time),
// minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength,
// maxLength, minItems, maxItems, multipleOf (on integers), default,
// properties, required,
// additionalProperties (true or false) and items, at any
// depth; titles, descriptions and other annotations change nothing. For
// every difference it finds a witness, a message one version accepts and
// the other rejects, from a finite set of candidates that holds a value of
// every class the two schemas can tell apart (see the comment on
// scalars); so where it finds none, there is none. Any other keyword, and
// any change it cannot decide exactly (two different patterns), is
// reported as a break with a code of its own, never passed over.
//
// The codes of a Finding:
//
//	type-narrowed       the new version rejects a type the old accepts (null included)
//	type-widened        the new version accepts a type the old rejects
//	enum-value-removed  an enumerated value is gone
//	enum-value-added    a value is added to an enumeration
//	enum-added          an enumeration now restricts a member that had none
//	enum-removed        an enumeration is dropped
//	format-changed      the format is added, removed or changed
//	minimum-raised, minimum-lowered, maximum-lowered, maximum-raised
//	exclusive-minimum-raised, exclusive-minimum-lowered
//	exclusive-maximum-lowered, exclusive-maximum-raised
//	min-length-raised, min-length-lowered, max-length-lowered, max-length-raised
//	min-items-raised, min-items-lowered, max-items-lowered, max-items-raised
//	additional-properties-closed, additional-properties-opened
//	multiple-of-changed a multipleOf on integers changes, and so which integers pass
//	pattern-changed     two enumerations' patterns differ on a value
//	required-added      a member becomes required
//	required-removed    a required member becomes optional or goes
//	default-changed     a member's default is added, removed or changed
//	open-content        a member is added or removed: a warning, a break with Options.Strict
//	unknown-keyword     a keyword the checker does not know
//	unknown-format      a format other than uuid and date-time
//	unknown-dialect     a $schema other than drafts 6, 7, 2019-09 and 2020-12
//	undecidable-pattern a pattern that changes, or beside changed keywords on strings
//	undecidable-enum    an enumeration of arrays or objects
//	limit-exceeded      a bound, length or number too large to reason about
package compat
