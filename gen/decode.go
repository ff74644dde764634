package main

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/internal/goname"
)

// pointees returns the members held through a pointer to a scalar: when
// there are several, decoding allocates their targets together, once.
func (m *message) pointees() []*field {
	var list []*field
	for _, f := range m.Fields {
		if f.Repr == reprPointer && !f.row().Held {
			list = append(list, f)
		}
	}
	if len(list) < 2 {
		return nil
	}
	return list
}

func pointeesType(m *message) string {
	return strings.ToLower(m.GoName[:1]) + m.GoName[1:] + "Pointees"
}

func (g *generator) unmarshal(m *message) {
	n := m.GoName
	if ps := m.pointees(); ps != nil {
		g.p("")
		g.p("// %s holds the targets of a decoded %s's pointer members, so that", pointeesType(m), n)
		g.p("// they cost one allocation rather than one each.")
		g.p("type %s struct {", pointeesType(m))
		for _, f := range ps {
			g.p("%s %s", f.GoName, f.pointeeType())
		}
		g.p("}")
	}
	g.p("")
	g.comment("UnmarshalJSON decodes a message from data into v, replacing its contents. It returns nil exactly when data is a message its schema accepts; otherwise an *msg.Error listing every violation found. Unlike encoding/json it rejects invalid UTF-8 and repeated member names, and matches member names case-sensitively.")
	g.p("func (v *%s) UnmarshalJSON(data []byte) error {", n)
	g.p("var d wire.Decoder")
	g.p("d.Reset(data)")
	g.p("v.decode(&d, \"\")")
	g.p("d.End()")
	g.p("return d.Err()")
	g.p("}")

	g.p("")
	g.p("func (v *%s) decode(d *wire.Decoder, base string) {", n)
	g.p("if !d.Object(base, \"\") {")
	g.p("*v = %s", m.defaults())
	g.p("return")
	g.p("}")
	if m.pointees() != nil {
		g.p("v.decodeMembers(d, base, nil)")
	} else {
		g.p("v.decodeMembers(d, base)")
	}
	g.p("}")

	g.p("")
	if m.pointees() != nil {
		g.p("// decodeMembers reads the members of the object begun at base. The")
		g.p("// targets of its pointer members go in p, allocated if nil.")
		g.p("func (v *%s) decodeMembers(d *wire.Decoder, base string, p *%s) {", n, pointeesType(m))
	} else {
		g.p("// decodeMembers reads the members of the object begun at base.")
		g.p("func (v *%s) decodeMembers(d *wire.Decoder, base string) {", n)
	}
	g.p("*v = %s", m.defaults())
	g.p("var seen wire.Seen")
	if m.MinProps != nil || m.MaxProps != nil {
		// The count of members, after the loop.
		g.p("i := 0")
		g.p("for ; d.More(base, \"\", '}', i); i++ {")
	} else {
		g.p("for i := 0; d.More(base, \"\", '}', i); i++ {")
	}
	g.p("switch j, key := d.Member(base, %s, &seen); j {", membersVar(m))
	var required uint64
	for i, f := range m.Fields {
		if f.Required {
			required |= uint64(1) << i
		}
		g.p("case %d: // %s", i, f.JSON)
		g.decodeField(m, f, strconv.Quote("/"+f.JSON))
	}
	g.p("case wire.Undeclared:")
	if m.Names != nil {
		g.p("d.PropertyName(base, key, %s)", namesVar(m))
	}
	g.decodeExtra(m)
	g.p("}")
	g.p("}")
	if m.MinProps != nil || m.MaxProps != nil {
		g.p("if !d.Failed() {")
		if m.MinProps != nil {
			g.p("d.MinProperties(base, i, %d)", *m.MinProps)
		}
		if m.MaxProps != nil {
			g.p("d.MaxProperties(base, i, %d)", *m.MaxProps)
		}
		g.p("}")
	}
	for _, dep := range m.Dependents {
		g.p("if seen.Bits&%#x != 0 && seen.Bits&%#x == 0 && !d.Failed() {", uint64(1)<<m.index(dep.If), uint64(1)<<m.index(dep.Then))
		g.p("d.Dependent(base, %q, msg.Rule%s, %q)", "/"+dep.Then.JSON, goname.Exported(m.DependentRule), dep.If.JSON)
		g.p("}")
	}
	if required != 0 {
		g.p("if seen.Bits&%#x != %#x && !d.Failed() {", required, required)
		for i, f := range m.Fields {
			if f.Required {
				g.p("if seen.Bits&%#x == 0 {", uint64(1)<<i)
				g.p("d.Required(base, %q)", "/"+f.JSON)
				g.p("}")
			}
		}
		g.p("}")
	}
	g.p("}")

	g.p("")
	g.p("// %s lists the members %s declares, in the schema's order; the", membersVar(m), n)
	g.p("// cases of decodeMembers are their places in it.")
	names := make([]string, len(m.Fields))
	for i, f := range m.Fields {
		names[i] = strconv.Quote(f.JSON)
	}
	g.p("var %s = wire.NewMembers(%s)", membersVar(m), strings.Join(names, ", "))
}

// membersVar names the variable that lists the declared members of m.
func membersVar(m *message) string {
	return strings.ToLower(m.GoName[:1]) + m.GoName[1:] + "Members"
}

func (g *generator) decodeField(m *message, f *field, name string) {
	nullable := f.Repr == reprNullable || f.Nullable
	if nullable {
		g.p("if d.Null() {")
		switch f.Repr {
		case reprNullable:
			g.p("v.%s = msg.Null[%s]()", f.GoName, f.goType())
		default:
			g.p("v.%s = nil", f.GoName)
		}
		g.p("} else {")
	}
	if decode := f.row().Decode; decode != nil {
		decode(g, m, f, name)
	} else {
		g.p("if x, ok := d.%s(base, %s); ok {", f.row().Reader, name)
		g.checks(f, "d", name, "x")
		if f.Repr == reprPointer && !f.row().Held && m.pointees() != nil {
			g.p("if p == nil {")
			g.p("p = new(%s)", pointeesType(m))
			g.p("}")
			g.p("p.%s = x", f.GoName)
			g.p("v.%s = &p.%s", f.GoName, f.GoName)
		} else {
			g.p("v.%s = %s", f.GoName, f.wrap("x"))
		}
		g.p("}")
	}
	if nullable {
		g.p("}")
	}
}

// wrap returns the expression that stores x in a member of f's repr.
func (f *field) wrap(x string) string {
	return f.inRepr(x, "msg.Of(%s)", "&")
}

// decodeEnum writes the decoding of an enum: the string, matched against
// each value.
func decodeEnum(g *generator, _ *message, f *field, name string) {
	g.p("if s, ok := d.Bytes(base, %s); ok {", name)
	g.p("switch string(s) {")
	for i, v := range f.Enum {
		g.p("case %q:", v)
		if f.Repr == reprPointer {
			// A constant has no address.
			g.p("x := %s", f.EnumConsts[i])
			g.p("v.%s = &x", f.GoName)
			continue
		}
		g.p("v.%s = %s", f.GoName, f.wrap(f.EnumConsts[i]))
	}
	g.p("default:")
	g.p("d.%s(base, %s, d.Last(), %q)", f.valuesCheck(), name, f.enumList())
	g.p("}")
	g.p("}")
}

// decodeStrings writes the decoding of an array of strings.
func decodeStrings(g *generator, _ *message, f *field, name string) {
	// Checks of the list need it gathered even by a decoder that keeps
	// nothing: those are read with StringList.
	checks := &generator{sf: g.sf}
	checks.checks(f, "d", name, "x")
	reader := "Strings"
	if checks.buf.Len() > 0 {
		reader = "StringList"
	}
	g.p("if x, ok := d.%s(base, %s); ok {", reader, name)
	g.buf.Write(checks.buf.Bytes())
	g.p("v.%s = x", f.GoName)
	g.p("}")
}

// decodeObject writes the decoding of an object with declared members,
// by its own decodeMembers.
func decodeObject(g *generator, m *message, f *field, name string) {
	g.p("if d.Object(base, %s) {", name)
	// The object goes with its own pointer targets, and with its
	// parent's where the parent has a place for them.
	if m.pointees() != nil {
		g.p("if p == nil {")
		g.p("p = new(%s)", pointeesType(m))
		g.p("}")
		g.p("x := &p.%s", f.GoName)
	} else {
		g.p("x := new(%s)", f.pointeeType())
	}
	if f.Object.pointees() != nil {
		g.p("x.v.decodeMembers(d, wire.Join(base, %s), &x.p)", name)
		g.p("v.%s = &x.v", f.GoName)
	} else {
		g.p("x.decodeMembers(d, wire.Join(base, %s))", name)
		g.p("v.%s = x", f.GoName)
	}
	g.p("}")
}

// index returns f's place among m's members.
func (m *message) index(f *field) int { return slices.Index(m.Fields, f) }

// decodeArray writes the decoding of an array whose items are of one
// kind: each item read as a member of that kind would be, at its index.
func decodeArray(g *generator, _ *message, f *field, name string) {
	g.p("if d.Array(base, %s) {", name)
	g.readItems(f, name, "list", 0)
	g.p("v.%s = list", f.GoName)
	g.p("}")
}

// readItems writes, where d has begun the array f at base and name, the
// reading of its items into a new slice, list (x1, x2, … for the arrays
// within it, depth deep), each at its index, and the checks of f on it.
func (g *generator) readItems(f *field, name, list string, depth int) {
	it := f.Item
	g.p("%s := []%s{}", list, it.goType())
	g.p("{")
	g.p("base := wire.Join(base, %s)", name)
	g.p("for i := 0; d.More(base, \"\", ']', i); i++ {")
	g.p("name := wire.Index(i)")
	x := "x"
	switch it.Kind {
	case kindObject:
		g.p("if d.Object(base, name) {")
		g.p("var x %s", it.goType())
		if it.Object.pointees() != nil {
			g.p("x.decodeMembers(d, wire.Join(base, name), nil)")
		} else {
			g.p("x.decodeMembers(d, wire.Join(base, name))")
		}
	case kindArray:
		x = "x" + strconv.Itoa(depth+1)
		g.p("if d.Array(base, name) {")
		g.readItems(it, "name", x, depth+1)
	case kindNever:
		g.p("if x, ok := d.AnyValue(base, name); ok {")
		g.p("d.Never(base, name, msg.Rule%s)", goname.Exported(it.Never))
	case kindStrings:
		// An item the list's checks may read: gathered even by a
		// decoder that keeps nothing.
		g.p("if x, ok := d.StringList(base, name); ok {")
		g.checks(it, "d", "name", "x")
	default:
		g.p("if x, ok := d.%s(base, name); ok {", it.row().Reader)
		g.checks(it, "d", "name", "x")
	}
	g.p("%s = append(%s, %s)", list, list, x)
	g.p("}")
	g.p("}")
	g.p("}")
	g.checks(f, "d", name, list)
}

// decodeUnion writes the decoding of a union: the value's first byte
// tells its JSON type, which picks the one branch that can accept it.
func decodeUnion(g *generator, _ *message, f *field, name string) {
	var what []string
	for _, b := range f.Branches {
		what = append(what, typeWords(b.JSON))
	}
	g.p("{")
	g.p("var u %s", f.EnumType)
	g.p("ok := true")
	g.p("switch c := d.WS(); {")
	for _, b := range f.Branches {
		switch b.JSON {
		case "string":
			g.p("case c == '\"':")
		case "object":
			g.p("case c == '{':")
		case "array":
			g.p("case c == '[':")
		case "boolean":
			g.p("case c == 't' || c == 'f':")
		default: // integer or number
			g.p("case c == '-' || c >= '0' && c <= '9':")
		}
		if b.Kind == kindObject {
			g.p("ok = d.Object(base, %s)", name)
			g.p("if ok {")
			g.p("x := new(%s)", b.Object.GoName)
			if b.Object.pointees() != nil {
				g.p("x.decodeMembers(d, wire.Join(base, %s), nil)", name)
			} else {
				g.p("x.decodeMembers(d, wire.Join(base, %s))", name)
			}
			g.p("u.%s = x", b.GoName)
			g.p("}")
			continue
		}
		g.p("var x %s", b.goType())
		g.p("if x, ok = d.%s(base, %s); ok {", b.row().Reader, name)
		g.checks(b, "d", name, "x")
		g.p("u.%s = %s", b.GoName, b.wrap("x"))
		g.p("}")
	}
	g.p("default:")
	g.p("d.Mistyped(base, %s, %q)", name, orList(what))
	g.p("ok = false")
	g.p("}")
	g.p("if ok {")
	g.p("v.%s = %s", f.GoName, f.wrap("u"))
	g.p("}")
	g.p("}")
}

// decodeNever writes the decoding of a member the schema allows no value
// for: its value is kept, for the message to encode as it came, and is a
// violation.
func decodeNever(g *generator, _ *message, f *field, name string) {
	g.p("if x, ok := d.AnyValue(base, %s); ok {", name)
	g.p("v.%s = x", f.GoName)
	g.p("d.Never(base, %s, msg.Rule%s)", name, goname.Exported(f.Never))
	g.p("}")
}

// namesVar names the variable that holds m's propertyNames.
func namesVar(m *message) string {
	return strings.ToLower(m.GoName[:1]) + m.GoName[1:] + "Names"
}
