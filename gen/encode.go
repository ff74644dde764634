package main

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeHint estimates the encoded size of a message from what does not
// vary: names, punctuation and the fixed-size values, and a guess at the
// rest; the generated size method adds the lengths of its strings, so
// that encoding allocates its buffer once.
func (m *message) sizeHint() int {
	n := 2
	for _, f := range m.Fields {
		n += len(f.JSON) + 4 + f.row().Size
	}
	return n
}

// size writes the method that estimates a message's encoded size.
func (g *generator) size(m *message) {
	g.p("")
	g.p("// size estimates the encoded size of v, for MarshalJSON to allocate once.")
	g.p("func (v *%s) size() int {", m.GoName)
	g.p("n := %d", m.sizeHint())
	for _, f := range m.Fields {
		x := "v." + f.GoName
		switch {
		case f.row().Sized == "strings":
			g.p("for _, s := range %s {", x)
			g.p("n += len(s) + 3")
			g.p("}")
		case f.row().Sized != "string":
		case f.Repr == reprValue:
			g.p("n += len(%s)", x)
		case f.Repr == reprNullable:
			g.p("n += len(%s.Value())", x)
		default:
			g.p("if %s != nil {", x)
			g.p("n += len(*%s)", x)
			g.p("}")
		}
	}
	g.p("return n")
	g.p("}")
}

func (g *generator) marshal(m *message, root bool) {
	n := m.GoName
	g.p("")
	what := "a message of schema " + g.sf.Schema.Name
	if !root {
		what = fmt.Sprintf("the member %q of a message of schema %s", m.Path, g.sf.Schema.Name)
	}
	g.comment(fmt.Sprintf("MarshalJSON encodes v as %s: declared members in the schema's order, then the extra members sorted by name. It does not validate v (call Validate for that), but it fails rather than alter a value it cannot encode as it is: a string that is not UTF-8, raw values that are not JSON, an extra member named like a declared one, a time RFC 3339 cannot express.", what))
	g.p("func (v %s) MarshalJSON() ([]byte, error) {", n)
	g.p("e := wire.Encoder{B: make([]byte, 0, v.size())}")
	g.p("v.encode(&e)")
	g.p("return e.Bytes()")
	g.p("}")
	if root {
		g.p("")
		g.comment("AppendJSON appends the encoding of v, as MarshalJSON writes it, to b and returns the extended buffer, or b unchanged and the error. It is the way out without encoding/json, which copies and checks all that MarshalJSON writes, and it can reuse a buffer from message to message.")
		g.p("func (v *%s) AppendJSON(b []byte) ([]byte, error) {", n)
		g.p("e := wire.Encoder{B: slices.Grow(b, v.size())}")
		g.p("v.encode(&e)")
		g.p("if _, err := e.Bytes(); err != nil {")
		g.p("return b, err")
		g.p("}")
		g.p("return e.B, nil")
		g.p("}")
	}
	g.p("")
	g.comment(fmt.Sprintf("String returns v as MarshalJSON encodes it, so that fmt prints %s as JSON rather than its Go internals; a value that cannot be encoded is described with the error instead.", what))
	g.p("func (v %s) String() string {", n)
	g.p("b, err := v.MarshalJSON()")
	g.p("if err != nil {")
	g.p("return %q + err.Error() + \")\"", n+"(cannot be encoded: ")
	g.p("}")
	g.p("return string(b)")
	g.p("}")
	g.p("")
	g.p("")
	g.p("func (v *%s) encode(e *wire.Encoder) {", n)
	g.p("outer := e.Begin()")
	for _, f := range m.Fields {
		member := "`" + strconv.Quote(f.JSON) + ":`"
		if strings.Contains(member[1:len(member)-1], "`") {
			member = strconv.Quote(strconv.Quote(f.JSON) + ":")
		}
		x := "v." + f.GoName
		write := func(x string) {
			if f.Kind == kindObject {
				g.p("%s.encode(e)", x)
				return
			}
			if f.Kind == kindArray {
				g.encodeItems(f.Item, x, 0)
				return
			}
			if f.Kind == kindUnion {
				x = "(" + x + ")"
				g.p("switch {")
				for _, b := range f.Branches {
					g.p("case %s.%s != nil:", x, b.GoName)
					y := b.pointee(x + "." + b.GoName)
					switch {
					case b.Kind == kindObject:
						g.p("%s.encode(e)", y)
					case b.row().Conv != "":
						g.p("e.%s(%s)", b.row().Writer, fmt.Sprintf(b.row().Conv, y))
					default:
						g.p("e.%s(%s)", b.row().Writer, y)
					}
				}
				g.p("default:")
				g.p("e.NoValue(%q)", f.JSON)
				g.p("}")
				return
			}
			if conv := f.row().Conv; conv != "" {
				x = fmt.Sprintf(conv, x)
			}
			g.p("e.%s(%s)", f.row().Writer, x)
		}
		switch {
		case f.Repr == reprValue:
			g.p("e.Member(%s)", member)
			write(x)
		case f.Repr == reprNullable:
			g.p("if !%s.IsAbsent() {", x)
			g.p("e.Member(%s)", member)
			g.p("if x, ok := %s.Get(); ok {", x)
			write("x")
			g.p("} else {")
			g.p("e.Null()")
			g.p("}")
			g.p("}")
		case f.Nullable:
			// Null is the default (or the member is required): nil is written as null.
			g.p("e.Member(%s)", member)
			g.p("if %s == nil {", x)
			g.p("e.Null()")
			g.p("} else {")
			write(f.pointee(x))
			g.p("}")
		default:
			g.p("if %s != nil {", x)
			g.p("e.Member(%s)", member)
			write(f.pointee(x))
			g.p("}")
		}
	}
	g.p("e.Extra(v.Extra, declared%s)", n)
	g.p("e.End(outer)")
	g.p("}")
}

// encodeItems writes the encoding of an array x whose items are of it's
// kind; depth counts the arrays x is within, which name their indexes.
func (g *generator) encodeItems(it *field, x string, depth int) {
	i := "i"
	if depth > 0 {
		i += strconv.Itoa(depth)
	}
	g.p("e.B = append(e.B, '[')")
	g.p("for %s := range %s {", i, x)
	g.p("if %s > 0 {", i)
	g.p("e.B = append(e.B, ',')")
	g.p("}")
	item := x + "[" + i + "]"
	switch {
	case it.Kind == kindObject:
		g.p("%s.encode(e)", item)
	case it.Kind == kindArray:
		g.encodeItems(it.Item, item, depth+1)
	default:
		if conv := it.row().Conv; conv != "" {
			item = fmt.Sprintf(conv, item)
		}
		g.p("e.%s(%s)", it.row().Writer, item)
	}
	g.p("}")
	g.p("e.B = append(e.B, ']')")
}

// pointee returns the value that x, a pointer to a member of f's kind,
// points to: x itself for a kind that is Held, a slice, and for an
// object, whose encode method takes its pointer.
func (f *field) pointee(x string) string {
	if f.row().Held || f.Kind == kindObject {
		return x
	}
	return "*" + x
}
