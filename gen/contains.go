package main

import (
	"fmt"
	"strconv"
)

// contains, minContains and maxContains, on an array whose items may be
// any JSON values ([]json.RawMessage): each item is decoded again, from
// its text, with the code a member of the contains schema has (as the
// values of patternProperties are), into errors that only count, and the
// items that pass are counted against minContains (1 unless given) and
// maxContains. Draft 7 has neither bound: there, contains asks for one
// item at least.

// contains reads the contains of f, at path, from node.
func (b *builder) contains(f *field, path string, n node) error {
	raw, ok := n["contains"]
	if !ok {
		return nil
	}
	if f.Kind != kindRawArray {
		return fmt.Errorf("%s: contains on an %s, whose items are typed, is not supported by the generator", path, f.row().What)
	}
	b.containsSchemas++
	k := b.containsSchemas
	x := &extraSchema{Func: "checkContains" + strconv.Itoa(k)}
	var err error
	if x.Value, err = b.extraValue(path+"/contains", "contains"+strconv.Itoa(k)+"Value", raw); err != nil {
		return err
	}
	f.Contains, f.MinContains, f.MaxContains = x, 1, -1
	if b.draft7 {
		return nil
	}
	if c, err := n.count(path, "minContains"); err != nil {
		return err
	} else if c != nil {
		f.MinContains = *c
	}
	if c, err := n.count(path, "maxContains"); err != nil {
		return err
	} else if c != nil {
		f.MaxContains = *c
	}
	return nil
}

// containsCheck writes the check of f's contains on the array x.
func (g *generator) containsCheck(f *field, e, name, x string) {
	g.p("{")
	g.p("n := 0")
	g.p("for _, item := range %s {", x)
	g.p("c := wire.CaseErrors()")
	g.p("%s(&c, \"\", \"\", item)", f.Contains.Func)
	g.p("if c.Passed() {")
	g.p("n++")
	g.p("}")
	g.p("}")
	g.p("%s.Contains(base, %s, n, %d, %d)", e, name, f.MinContains, f.MaxContains)
	g.p("}")
}

// containsFuncs writes the function that checks an item against each
// contains schema of the file, and the union types of those schemas.
func (g *generator) containsFuncs() {
	g.sf.Root.walkFields(func(f *field) {
		if f.Contains == nil {
			return
		}
		x := f.Contains
		g.p("")
		g.p("// %s checks raw, an item of the array %q, against the schema of", x.Func, f.JSON)
		g.p("// its contains.")
		g.p("func %s(e *wire.Errors, base, name string, raw []byte) {", x.Func)
		g.checkFuncBody(x)
		if x.Value.Kind == kindUnion {
			g.union(g.sf.Root, x.Value)
		}
	})
}

// containsDoc states f's contains, for its doc comment.
func (f *field) containsDoc() string {
	if f.Contains == nil {
		return ""
	}
	s := fmt.Sprintf(" At least %d of its items must be %s (contains)", f.MinContains, f.Contains.Value.valueWords())
	if f.MaxContains >= 0 {
		s += fmt.Sprintf(", and at most %d", f.MaxContains)
	}
	return s + "."
}
