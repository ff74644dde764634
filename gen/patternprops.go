package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/msg"
)

// patternProperties and additionalProperties as a schema. The members
// they judge are those a message does not declare, so they stay in its
// Extra, as their JSON text, and each value is checked, as it is decoded
// and by Validate, against the schema of every pattern its name matches
// (ECMA-262 patterns, not anchored, compiled once into a package
// variable) or, when it matches none, against additionalProperties. A
// declared member whose name matches a pattern is held to both schemas:
// the generator merges them, as an allOf, into the member's own.
//
// A value schema is checked by decoding the value again, from its text,
// into a throwaway value of its kind with the code a member of that
// schema would have: its violations carry the member's path.

// An extraSchema is the schema of the undeclared members a pattern (or,
// with Pattern "", additionalProperties) names.
type extraSchema struct {
	Pattern, RE2 string
	Var          string // the package variable of the compiled pattern
	Func         string // the function that checks a value
	Value        *field // the value's schema, as a member's
}

// extraKinds are the kinds a value of patternProperties or
// additionalProperties may be: those read by one call of the decoder,
// and a union of them.
func extraKind(f *field) bool {
	switch f.Kind {
	case kindNever, kindAny, kindNull, kindUnion:
		return true
	case kindEnum, kindObject, kindArray:
		return false
	}
	return f.row().Reader != ""
}

// extraSchemas reads an object's patternProperties and its
// additionalProperties when a schema, and merges the schemas of the
// patterns a declared member's name matches into its own, in props.
func (b *builder) extraSchemas(m *message, path string, n node, props map[string]json.RawMessage) error {
	keys, err := memberOrder(n["patternProperties"])
	if err != nil {
		return fmt.Errorf("%s: patternProperties is not an object", orRoot(path))
	}
	var pats map[string]json.RawMessage
	if n["patternProperties"] != nil {
		if err := json.Unmarshal(n["patternProperties"], &pats); err != nil {
			return fmt.Errorf("%s: patternProperties is not an object", orRoot(path))
		}
	}
	prefix := unexport(m.GoName)
	for i, k := range keys {
		at := msg.Pointer(path+"/patternProperties", k)
		re2, err := ecmaToRE2(k)
		if err != nil {
			return fmt.Errorf("%s: pattern %s: %v", at, strconv.Quote(k), err)
		}
		re := regexp.MustCompile(re2)
		for name, raw := range props {
			if re.MatchString(name) {
				props[name] = json.RawMessage(fmt.Sprintf(`{"allOf": [%s, %s]}`, raw, pats[k]))
			}
		}
		x := &extraSchema{Pattern: k, RE2: re2, Var: fmt.Sprintf("%sKey%d", prefix, i+1), Func: fmt.Sprintf("check%sKey%d", m.GoName, i+1)}
		if x.Value, err = b.extraValue(at, fmt.Sprintf("%sKey%dValue", prefix, i+1), pats[k]); err != nil {
			return err
		}
		m.Extras = append(m.Extras, x)
	}
	switch raw := n["additionalProperties"]; string(raw) {
	case "", "true", "{}", "false":
	default:
		x := &extraSchema{Func: "check" + m.GoName + "Additional"}
		if x.Value, err = b.extraValue(path+"/additionalProperties", prefix+"AdditionalValue", raw); err != nil {
			return err
		}
		if x.Value.Kind == kindNever {
			// additionalProperties false, written as a schema.
			m.Closed = true
			break
		}
		m.Additional = x
	}
	return nil
}

// extraValue builds the schema raw, at path, of the values of undeclared
// members; goName names the type of its union, if it is one.
func (b *builder) extraValue(path, goName string, raw json.RawMessage) (*field, error) {
	f, err := b.buildValue(path, "value", raw, false)
	if err != nil {
		return nil, err
	}
	if !extraKind(f) || f.Default != nil {
		return nil, fmt.Errorf("%s: a value of kind %s, or with a default, is not supported by the generator", path, f.row().What)
	}
	f.GoName, f.EnumType = "Value", goName
	for _, br := range f.Branches {
		if br.Object != nil {
			return nil, fmt.Errorf("%s: a value of kind %s with a branch of declared members is not supported by the generator", path, f.row().What)
		}
	}
	return f, nil
}

// extras writes m's compiled patterns, the functions that check the
// values of its undeclared members, and their union types.
func (g *generator) extras(m *message) {
	if len(m.Extras) == 0 && m.Additional == nil {
		return
	}
	g.p("")
	g.p("// The patterns of the patternProperties of %s, as Go's regexp reads", m.GoName)
	g.p("// them (each matches exactly the strings the ECMA-262 pattern does).")
	g.p("var (")
	for _, x := range m.Extras {
		g.p("%s = regexp.MustCompile(%s) // %s", x.Var, strconv.Quote(x.RE2), strconv.Quote(x.Pattern))
	}
	g.p(")")
	for _, x := range m.allExtras() {
		what := "its additionalProperties"
		if x.Pattern != "" {
			what = "the patternProperties " + strconv.Quote(x.Pattern)
		}
		g.p("")
		g.p("// %s checks raw, the value of the member name of a %s at base,", x.Func, m.GoName)
		g.p("// against the schema of %s.", what)
		g.p("func %s(e *wire.Errors, base, name string, raw []byte) {", x.Func)
		g.checkFuncBody(x)
		if x.Value.Kind == kindUnion {
			g.union(m, x.Value)
		}
	}
}

// allExtras lists m's value schemas: its patterns', then its
// additionalProperties'.
func (m *message) allExtras() []*extraSchema {
	list := m.Extras
	if m.Additional != nil {
		list = append(list[:len(list):len(list)], m.Additional)
	}
	return list
}

// decodeExtra writes what decoding does with an undeclared member, named
// key, of m: its value is kept in Extra and checked against the schema
// of every pattern its name matches, or of additionalProperties; or, when
// the object is closed and no pattern matches, it is refused.
func (g *generator) decodeExtra(m *message) {
	if len(m.Extras) == 0 && m.Additional == nil {
		if m.Closed {
			g.p("d.Additional(base, key)")
		} else {
			g.p("d.Extra(&v.Extra, base, key)")
		}
		return
	}
	none := g.matches(m, "Match(key)")
	if m.Closed {
		g.p("if %s {", none)
		g.p("d.Additional(base, key)")
		g.p("break")
		g.p("}")
	}
	g.p("if k, raw, ok := d.ExtraValue(&v.Extra, base, key); ok {")
	g.p("name := wire.MemberPath(k)")
	for i, x := range m.Extras {
		g.p("if m%d {", i+1)
		g.p("%s(&d.Errors, base, name, raw)", x.Func)
		g.p("}")
	}
	if m.Additional != nil {
		g.p("if %s {", none)
		g.p("%s(&d.Errors, base, name, raw)", m.Additional.Func)
		g.p("}")
	}
	g.p("}")
}

// matches writes, for each pattern of m, whether the member's name
// matches it (m1, m2, …, by the regexp method call match), and returns the
// condition that it matches none.
func (g *generator) matches(m *message, match string) string {
	if len(m.Extras) == 0 {
		return "true"
	}
	var vars []string
	for i, x := range m.Extras {
		g.p("m%d := %s.%s", i+1, x.Var, match)
		vars = append(vars, fmt.Sprintf("m%d", i+1))
	}
	return "!(" + strings.Join(vars, " || ") + ")"
}

// validateExtra writes Validate's checks of an extra member k, of value
// raw, of m: those decodeExtra makes.
func (g *generator) validateExtra(m *message) {
	if len(m.Extras) == 0 && m.Additional == nil {
		if m.Closed {
			g.p("e.Additional(base, k)")
		}
		return
	}
	none := g.matches(m, "MatchString(k)")
	for i, x := range m.Extras {
		g.p("if m%d {", i+1)
		g.p("%s(e, base, wire.MemberPath(k), raw)", x.Func)
		g.p("}")
	}
	switch {
	case m.Closed:
		g.p("if %s {", none)
		g.p("e.Additional(base, k)")
		g.p("}")
	case m.Additional != nil:
		g.p("if %s {", none)
		g.p("%s(e, base, wire.MemberPath(k), raw)", m.Additional.Func)
		g.p("}")
	}
}

// extrasDoc tells, for the doc comment of m's Extra, what its
// undeclared members must be.
func (m *message) extrasDoc() string {
	var b strings.Builder
	for _, x := range m.Extras {
		fmt.Fprintf(&b, " A member whose name matches the pattern %s (patternProperties) must be %s.", strconv.Quote(x.Pattern), x.Value.valueWords())
	}
	if m.Additional != nil {
		if len(m.Extras) > 0 {
			fmt.Fprintf(&b, " Any other must be %s (additionalProperties).", m.Additional.Value.valueWords())
		} else {
			fmt.Fprintf(&b, " Each must be %s (additionalProperties).", m.Additional.Value.valueWords())
		}
	}
	return b.String()
}

// valueWords describes the values f's schema allows, for a doc comment.
func (f *field) valueWords() string {
	switch f.Kind {
	case kindNever:
		return "absent: the schema allows no value"
	case kindAny:
		return "any value"
	case kindUnion:
		var what, limits []string
		for _, b := range f.Branches {
			what = append(what, typeWords(b.JSON))
			if l := strings.TrimSpace(b.limits()); l != "" {
				limits = append(limits, "as "+typeWords(b.JSON)+", "+strings.ToLower(l[:1])+strings.TrimSuffix(l[1:], "."))
			}
		}
		if f.Nullable {
			what = append(what, "null")
		}
		s := orList(what)
		if len(what) == len(allTypes) {
			s = "any value"
		}
		if len(limits) > 0 {
			s += "; " + strings.Join(limits, "; ")
		}
		return s
	}
	s := typeWords(f.row().What)
	if f.Nullable {
		s += " or null"
	}
	if l := f.limits(); l != "" {
		s += ":" + strings.ToLower(l[:2]) + strings.TrimSuffix(l[2:], ".")
	}
	return s
}

// decodesAgain reports whether validating m, or a message within it,
// decodes a value again from its text: the members its
// patternProperties or additionalProperties judge, or an object a case
// judges.
func (m *message) decodesAgain() bool {
	again := len(m.Extras) > 0 || m.Additional != nil
	m.walkFields(func(f *field) {
		again = again || len(f.caseObjects()) > 0
	})
	for _, n := range m.Nested {
		again = again || n.decodesAgain()
	}
	return again
}

// checkFuncBody writes the body of the function that checks a value's
// text, raw, against the schema of x, into e.
func (g *generator) checkFuncBody(x *extraSchema) {
	if x.Value.Kind == kindAny && x.Value.ValuesVar == "" {
		g.p("}")
		return
	}
	g.p("var d wire.Decoder")
	g.p("d.Reset(raw)")
	g.p("var v struct{ Value %s }", x.Value.fieldType())
	g.decodeField(&message{}, x.Value, "name")
	g.p("_ = v")
	g.p("e.Absorb(&d.Errors)")
	g.p("}")
}
