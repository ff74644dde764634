package main

import "fmt"

// entries writes the ways in besides Parse and UnmarshalJSON, for the
// root message m of the package's file: decoding that borrows from the
// input, for a caller that owns it, and judging that keeps nothing (see
// wire.Mode). Both read with the decoder UnmarshalJSON reads with, in
// another mode, so that the verdict is the same by construction.
func (g *generator) entries(m *message) {
	n := m.GoName
	g.p("")
	g.comment("decodeMode decodes data into v in mode mode, replacing its contents, and returns the decoder's verdict. A judging decoder comes from a pool, for the scratch space it reuses; another lives on the stack, as UnmarshalJSON's does.")
	g.p("func (v *%s) decodeMode(data []byte, mode wire.Mode) error {", n)
	g.p("if mode == wire.Judge {")
	g.p("d := wire.NewDecoder(data, mode)")
	g.p("v.decode(d, \"\")")
	g.p("d.End()")
	g.p("err := d.Err()")
	g.p("d.Release()")
	g.p("return err")
	g.p("}")
	g.p("var d wire.Decoder")
	g.p("d.ResetMode(data, mode)")
	g.p("v.decode(&d, \"\")")
	g.p("d.End()")
	g.p("return d.Err()")
	g.p("}")
	if g.sf.Suffix != "" {
		return
	}
	s := g.sf.Schema.Name
	g.p("")
	g.comment("ParseBorrowed is Parse for a caller that owns data, such as an HTTP request's body or a broker message's payload: it returns the same message and the same error, but the message borrows from data instead of copying what it keeps (its strings, its free objects, its extra members), which saves an allocation and a copy of the input. The caller must not modify data, nor reuse its memory (a pooled buffer, a reader's buffer), while the message or any value taken from it is in use: the message's strings would change with it, and a free object's text could stop being JSON. Strings that had escapes are copied, since their content is not in data. To keep a message longer than data, use Parse.")
	g.p("func ParseBorrowed(data []byte) (*%s, error) {", n)
	g.p("v := new(%s)", n)
	g.p("if err := v.decodeMode(data, wire.Borrow); err != nil {")
	g.p("return nil, err")
	g.p("}")
	g.p("return v, nil")
	g.p("}")
	g.p("")
	g.comment(fmt.Sprintf("Check judges data as a message of schema %s: it returns exactly the error Parse returns, with the same violations, in the same order and with the same texts, or nil when Parse would return a message. It builds no message: it keeps nothing of data, copies none of it, and holds no string, list or map of the message's, so that what it allocates, besides the violations it reports, stays below the size of data whatever data holds. It is the way to validate without decoding.", s))
	g.p("func Check(data []byte) error {")
	g.p("var v %s", n)
	g.p("return v.decodeMode(data, wire.Judge)")
	g.p("}")
}

// kindEntries writes the members of the msg.Kind of the root message m
// that reach its entries: DecodeBorrowed and Check (JudgeIdentity is
// judgeEntry's).
func (g *generator) kindEntries(m *message) {
	newExpr := g.newMessage(m)
	g.p("DecodeBorrowed: func(data []byte) (msg.Message, error) {")
	g.p("v := %s", newExpr)
	g.p("return v, v.decodeMode(data, wire.Borrow)")
	g.p("},")
	if g.sf.Suffix == "" {
		g.p("Check: Check,")
	} else {
		g.p("Check: func(data []byte) error {")
		g.p("var v %s", m.GoName)
		g.p("return v.decodeMode(data, wire.Judge)")
		g.p("},")
	}
}

// judgeEntry writes the init function that sets the JudgeIdentity of the
// msg.Kind of the root message m: there, not in the kind's literal, which
// it refers to through the message's Identity. Judged, the identity
// borrows from data, unless a string of it had escapes (or is a member's
// default): that rare message is decoded again, borrowing, for an
// identity that may be kept.
func (g *generator) judgeEntry(m *message) {
	newExpr := g.newMessage(m)
	g.p("")
	g.p("func init() {")
	g.p("%s.JudgeIdentity = func(data []byte) (msg.Identity, error) {", g.sf.kindVar())
	g.p("var v %s", m.GoName)
	g.p("err := v.decodeMode(data, wire.Judge)")
	g.p("if id := v.Identity(); wire.Within(id, data) {")
	g.p("return id, err")
	g.p("}")
	g.p("w := %s", newExpr)
	g.p("err = w.decodeMode(data, wire.Borrow)")
	g.p("return w.Identity(), err")
	g.p("}")
	g.p("}")
}

// newMessage returns the expression of a new root message m, as
// DecodeBorrowed makes it: New(), with its defaults, in a package of one
// version; new(T) where New is another version's.
func (g *generator) newMessage(m *message) string {
	if g.sf.Suffix != "" {
		return "new(" + m.GoName + ")"
	}
	return "New()"
}
