package main

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/internal/goname"
)

// checks writes the checks of a value x beyond its type and format, which
// decoding and Validate share; e is a *wire.Errors.
func (g *generator) checks(f *field, e, name, x string) {
	if f.Min != nil {
		g.p("%s.Min(base, %s, %s, %d)", e, name, x, *f.Min)
	}
	if f.Max != nil {
		g.p("%s.Max(base, %s, %s, %d)", e, name, x, *f.Max)
	}
	if f.Above != nil {
		g.p("%s.Above(base, %s, %s, %d)", e, name, x, *f.Above)
	}
	if f.Below != nil {
		g.p("%s.Below(base, %s, %s, %d)", e, name, x, *f.Below)
	}
	if f.MultipleOf != nil {
		g.p("%s.MultipleOf(base, %s, %s, %d, %q)", e, name, x, *f.MultipleOf, f.Factor)
	}
	for _, b := range []struct{ check, limit string }{
		{"NumberMin", f.NumMin}, {"NumberMax", f.NumMax}, {"NumberAbove", f.NumAbove}, {"NumberBelow", f.NumBelow},
	} {
		if b.limit != "" {
			g.p("%s.%s(base, %s, %s, %q)", e, b.check, name, x, b.limit)
		}
	}
	if f.FactorVar != "" {
		g.p("%s.NumberMultipleOf(base, %s, %s, %s, %q)", e, name, x, f.FactorVar, f.Factor)
	}
	if c := f.row().Check; c != "" {
		g.p("%s.Format(base, %s, %s, wire.%s, %q)", e, name, x, c, f.row().Format)
	}
	if f.MinLength > 0 {
		g.p("%s.MinLength(base, %s, %s, %d)", e, name, x, f.MinLength)
	}
	if f.MaxLength != nil {
		g.p("%s.MaxLength(base, %s, %s, %d)", e, name, x, *f.MaxLength)
	}
	if f.Pattern != "" {
		g.p("%s.Pattern(base, %s, %s, %s, %q)", e, name, x, f.PatternVar, f.Pattern)
	}
	if f.IMEI {
		g.p("%s.IMEI(base, %s, %s)", e, name, x)
	}
	if f.ValuesVar != "" {
		check := map[kind]string{kindNumber: "NumberValues", kindRawArray: "ArrayValues", kindRawObject: "ObjectValues", kindAny: "RawValues"}[f.Kind]
		g.p("%s.%s(base, %s, %s, %s, msg.Rule%s)", e, check, name, x, f.ValuesVar, goname.Exported(f.Values))
	}
	if f.MinItems != nil {
		g.p("%s.MinItems(base, %s, len(%s), %d)", e, name, x, *f.MinItems)
	}
	if f.MaxItems != nil {
		g.p("%s.MaxItems(base, %s, len(%s), %d)", e, name, x, *f.MaxItems)
	}
	if f.Unique && f.Kind == kindStrings {
		g.p("%s.UniqueStrings(base, %s, %s)", e, name, x)
	}
	if f.Unique && f.Kind == kindRawArray {
		g.p("%s.UniqueRaw(base, %s, %s)", e, name, x)
	}
	if f.Allowed != nil {
		var tests []string
		for _, v := range f.Allowed {
			tests = append(tests, x+" != "+v)
		}
		what := "Int"
		if f.Kind == kindBool {
			what = "Bool"
		}
		g.p("if %s {", strings.Join(tests, " && "))
		g.p("%s.%s%s(base, %s, %s, %q)", e, what, f.valuesCheck(), name, x, f.enumList())
		g.p("}")
	}
	if f.Contains != nil {
		g.containsCheck(f, e, name, x)
	}
	g.cases(f, e, name, x)
}

// valuesCheck names the check of wire.Errors that reports a value outside
// those the schema lists: Enum, or Const when the schema gives a const.
func (f *field) valuesCheck() string {
	if f.Values == "const" {
		return "Const"
	}
	return "Enum"
}

func (g *generator) validate(m *message) {
	n := m.GoName
	g.p("")
	allocs := " It allocates nothing when v is valid."
	if m.decodesAgain() {
		allocs = " It allocates nothing when v is valid, but to decode again the members patternProperties or additionalProperties judge, and the objects the schemas of a oneOf or an anyOf judge."
	}
	g.comment("Validate reports whether v, as it would be encoded, is a message its schema accepts: nil if it is, an *msg.Error listing every violation if not. It checks what a Go value can hold and the schema rejects: " + m.checked() + "." + allocs)
	g.p("func (v *%s) Validate() error {", n)
	g.p("var e wire.Errors")
	g.p("v.validate(&e, \"\")")
	g.p("return e.Err()")
	g.p("}")
	g.p("")
	g.p("")
	g.p("func (v *%s) validate(e *wire.Errors, base string) {", n)
	// The strings held by value, which are "" when absent or null, are
	// checked for UTF-8 in one call, and one by one, for the paths, only
	// if one of them fails.
	var batch []*field
	for _, f := range m.Fields {
		if f.inBatch() {
			batch = append(batch, f)
		}
	}
	batched := len(batch) > 1
	if batched {
		var args []string
		for _, f := range batch {
			if f.Repr == reprNullable {
				args = append(args, "v."+f.GoName+".Value()")
			} else {
				args = append(args, "v."+f.GoName)
			}
		}
		g.p("if !wire.ValidStrings(%s) {", strings.Join(args, ", "))
		for i, f := range batch {
			g.p("e.String(base, %q, %s)", "/"+f.JSON, args[i])
		}
		g.p("}")
	}
	for _, f := range m.Fields {
		g.validateField(f, batched && f.inBatch())
	}
	g.objectChecks(m)
	// Ranging over a nil map still costs a call.
	g.p("if len(v.Extra) > 0 {")
	g.p("for k, raw := range v.Extra {")
	g.p("e.Member(base, \"\", k, raw, declared%s)", n)
	if m.Names != nil {
		g.p("e.PropertyName(base, k, %s)", namesVar(m))
	}
	g.validateExtra(m)
	g.p("}")
	g.p("}")
	g.p("}")
}

// unset writes what reports the required members still holding their Go
// zero value: Unset on the root message, and on every message the unset
// method it and its parents call.
func (g *generator) unset(m *message, root bool) {
	n := m.GoName
	if root {
		g.p("")
		g.comment("Unset returns the JSON Pointers of the required members of v, nested ones included, that still hold the zero value of their Go type: an empty string, the nil uuid, the zero time. The schema accepts these values, and so does Validate, which is exact; but in a message built by hand they are most likely members its producer forgot to set, so call Unset before publishing. Numbers and booleans are left out, since 0 and false are values a producer means. It returns nil, allocating nothing, when every required member is set.")
		g.p("func (v *%s) Unset() []string {", n)
		g.p("return v.unset(nil, \"\")")
		g.p("}")
	}
	g.p("")
	g.p("func (v *%s) unset(list []string, base string) []string {", n)
	for _, f := range m.Fields {
		x := "v." + f.GoName
		path := strconv.Quote("/" + f.JSON)
		if f.Kind == kindObject {
			switch f.Repr {
			case reprValue:
				g.p("list = %s.unset(list, base+%s)", x, path)
			case reprPointer:
				g.p("if %s != nil {", x)
				g.p("list = %s.unset(list, base+%s)", x, path)
				g.p("}")
			case reprNullable:
				g.p("if x, ok := %s.Get(); ok {", x)
				g.p("list = x.unset(list, base+%s)", path)
				g.p("}")
			}
			continue
		}
		if !f.Required || f.Nullable || f.Repr != reprValue {
			continue
		}
		zero := f.row().Zero
		if zero == "" {
			continue
		}
		g.p("if "+zero+" {", x)
		g.p("list = append(list, base+%s)", path)
		g.p("}")
	}
	g.p("return list")
	g.p("}")
}

// checked lists, for Validate's doc comment, what a value of m can hold
// that its schema rejects.
func (m *message) checked() string {
	has := make(map[string]bool)
	var walk func(m *message)
	walk = func(m *message) {
		for _, f := range m.Fields {
			has[f.row().Rejects] = true
			has["bounds"] = has["bounds"] || f.Min != nil || f.Max != nil || f.Above != nil || f.Below != nil ||
				f.NumMin != "" || f.NumMax != "" || f.NumAbove != "" || f.NumBelow != ""
			has["multiples"] = has["multiples"] || f.MultipleOf != nil || f.FactorVar != ""
			has["lengths"] = has["lengths"] || f.MinLength > 0 || f.MaxLength != nil
			has["item counts"] = has["item counts"] || f.MinItems != nil || f.MaxItems != nil
			has["patterns"] = has["patterns"] || f.Pattern != ""
			has["repeated items"] = has["repeated items"] || f.Unique
			has["the IMEI rule"] = has["the IMEI rule"] || f.IMEI
			has[fieldKinds[kindEnum].Rejects] = has[fieldKinds[kindEnum].Rejects] || f.Allowed != nil
			if f.Object != nil {
				walk(f.Object)
			}
		}
	}
	walk(m)
	// The enum values first, then the schema's own rules, then what else
	// the kinds reject, in the table's order.
	order := []string{fieldKinds[kindEnum].Rejects, "bounds", "multiples", "lengths", "patterns", "item counts", "repeated items", "the IMEI rule"}
	for _, row := range fieldKinds {
		if row.Rejects != "" && !slices.Contains(order, row.Rejects) {
			order = append(order, row.Rejects)
		}
	}
	var list []string
	for _, what := range order {
		if has[what] {
			list = append(list, what)
		}
	}
	list = append(list, "strings that are not UTF-8", "extra members that are not JSON or are named like declared ones")
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

// inBatch reports whether f is a string that Validate checks for UTF-8
// together with the others of its message: one held by value, not behind
// a pointer.
func (f *field) inBatch() bool {
	return f.Kind == kindString && (f.Repr == reprValue || f.Repr == reprNullable)
}

// validateField writes the checks of f, if it has any, guarded by its
// presence; batched says its UTF-8 is checked with the message's other
// strings.
func (g *generator) validateField(f *field, batched bool) {
	name := strconv.Quote("/" + f.JSON)
	x := "v." + f.GoName
	guard := ""
	switch {
	case f.Repr == reprNullable:
		guard = "if x, ok := " + x + ".Get(); ok {"
		x = "x"
	case f.Repr == reprPointer && !f.row().Held:
		guard = "if " + x + " != nil {"
		if f.Kind != kindObject {
			x = "*" + x
		}
	case f.Repr == reprPointer && (f.MinItems != nil || f.ValuesVar != "" || f.Contains != nil || len(f.Cases) > 0):
		// A nil slice is an absent member, which minItems, contains, the
		// values of an enum and the schemas of a oneOf allow.
		guard = "if " + x + " != nil {"
	}
	outer := g.buf
	g.buf = bytes.Buffer{}
	if validate := f.row().Validate; validate != nil {
		validate(g, f, name, x, batched)
	}
	body := g.buf.Bytes()
	g.buf = outer
	if len(body) == 0 {
		return
	}
	if guard != "" {
		g.p("%s", guard)
	}
	g.buf.Write(body)
	if guard != "" {
		g.p("}")
	}
}

// validateString writes the checks of a string: UTF-8, unless batched,
// and those of the schema.
func validateString(g *generator, f *field, name, x string, batched bool) {
	if !batched {
		g.p("e.String(base, %s, %s)", name, x)
	}
	g.checks(f, "e", name, x)
}

// validateChecks writes the checks of the schema on a value, its bounds.
func validateChecks(g *generator, f *field, name, x string, _ bool) {
	g.checks(f, "e", name, x)
}

// validateTime writes the check that a time is one RFC 3339 can express.
func validateTime(g *generator, _ *field, name, x string, _ bool) {
	g.p("e.Time(base, %s, %s)", name, x)
}

// validateEnum writes the check that an enum holds one of its values.
func validateEnum(g *generator, f *field, name, x string, _ bool) {
	g.p("switch %s {", x)
	var cases []string
	for i := range f.Enum {
		cases = append(cases, f.EnumConsts[i])
	}
	g.p("case %s:", strings.Join(cases, ", "))
	g.p("default:")
	g.p("e.%s(base, %s, wire.Quote(string(%s)), %q)", f.valuesCheck(), name, x, f.enumList())
	g.p("}")
}

// validateStrings writes the check of an array's strings for UTF-8, and
// those of the schema.
func validateStrings(g *generator, f *field, name, x string, _ bool) {
	g.p("if !wire.ValidStrings(%s...) {", x)
	g.p("for i, s := range %s {", x)
	g.p("e.StringItem(base, %s, i, s)", name)
	g.p("}")
	g.p("}")
	g.checks(f, "e", name, x)
}

// validateRawArray writes the check that an array's items are JSON, and
// those of the schema.
func validateRawArray(g *generator, f *field, name, x string, _ bool) {
	g.p("e.RawItems(base, %s, %s)", name, x)
	g.checks(f, "e", name, x)
}

// validateObject writes the call of an object's own validate.
func validateObject(g *generator, _ *field, name, x string, _ bool) {
	g.p("%s.validate(e, wire.Join(base, %s))", x, name)
}

// validateAny writes the check that a value built by hand is JSON.
func validateAny(g *generator, f *field, name, x string, _ bool) {
	if f.Repr == reprPointer {
		// nil is absent.
		g.p("if %s != nil {", x)
		g.p("e.RawValue(base, %s, %s)", name, x)
		g.checks(f, "e", name, x)
		g.p("}")
		return
	}
	g.p("e.RawValue(base, %s, %s)", name, x)
	g.checks(f, "e", name, x)
}

// present returns the expression that tells whether f, held in x, is
// present in the message as it would be encoded.
func (f *field) present(x string) string {
	switch f.Repr {
	case reprNullable:
		return "!" + x + ".IsAbsent()"
	case reprPointer:
		return x + " != nil"
	}
	return "true"
}

// objectChecks writes the checks of Validate on the object as a whole:
// its count of members and its dependent members.
func (g *generator) objectChecks(m *message) {
	if m.MinProps != nil || m.MaxProps != nil {
		g.p("n := len(v.Extra)")
		for _, f := range m.Fields {
			if p := f.present("v." + f.GoName); p == "true" {
				g.p("n++")
			} else {
				g.p("if %s {", p)
				g.p("n++")
				g.p("}")
			}
		}
		if m.MinProps != nil {
			g.p("e.MinProperties(base, n, %d)", *m.MinProps)
		}
		if m.MaxProps != nil {
			g.p("e.MaxProperties(base, n, %d)", *m.MaxProps)
		}
	}
	for _, d := range m.Dependents {
		g.p("if %s && !(%s) {", d.If.present("v."+d.If.GoName), d.Then.present("v."+d.Then.GoName))
		g.p("e.Dependent(base, %q, msg.Rule%s, %q)", "/"+d.Then.JSON, goname.Exported(m.DependentRule), d.If.JSON)
		g.p("}")
	}
}

// validateNumber writes the check that a number built by hand is JSON,
// and those of the schema.
func validateNumber(g *generator, f *field, name, x string, _ bool) {
	g.p("e.NumberText(base, %s, %s)", name, x)
	g.checks(f, "e", name, x)
}

// validateArray writes the checks of each item of an array, at its
// index, and those of the array.
func validateArray(g *generator, f *field, name, x string, _ bool) {
	it := f.Item
	outer := g.buf
	g.buf = bytes.Buffer{}
	if it.Kind == kindObject {
		g.p("%s[i].validate(e, wire.Join(base, name))", x)
	} else if it.Kind == kindNever {
		// Any item at all breaks the rule, nil as much as a value.
		g.p("e.Never(base, name, msg.Rule%s)", goname.Exported(it.Never))
	} else if validate := it.row().Validate; validate != nil {
		validate(g, it, "name", "x", false)
		if g.buf.Len() > 0 {
			checks := bytes.Clone(g.buf.Bytes())
			g.buf.Reset()
			g.p("x := %s[i]", x)
			g.buf.Write(checks)
		}
	}
	body := g.buf.Bytes()
	g.buf = outer
	if len(body) > 0 {
		g.p("if len(%s) > 0 {", x)
		g.p("base := wire.Join(base, %s)", name)
		g.p("for i := range %s {", x)
		g.p("name := wire.Index(i)")
		g.buf.Write(body)
		g.p("}")
		g.p("}")
	}
	g.checks(f, "e", name, x)
}

// validateUnion writes the check that exactly one branch of a union is
// set, and the checks of that branch.
func validateUnion(g *generator, f *field, name, x string, _ bool) {
	g.p("{")
	g.p("n := 0")
	for _, b := range f.Branches {
		g.p("if y := (%s).%s; y != nil {", x, b.GoName)
		g.p("n++")
		if validate := b.row().Validate; validate != nil {
			validate(g, b, name, b.pointee("y"), false)
		}
		g.p("}")
	}
	g.p("if n != 1 {")
	g.p("e.Union(base, %s, msg.Rule%s, n)", name, goname.Exported(f.Union))
	g.p("}")
	g.p("}")
}

// validateNever writes the check that a member the schema allows no
// value for is absent.
func validateNever(g *generator, f *field, name, x string, _ bool) {
	g.p("if %s != nil {", x)
	g.p("e.Never(base, %s, msg.Rule%s)", name, goname.Exported(f.Never))
	g.p("}")
}
