package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/internal/goname"
	"github.com/fleetkit/catalogue/msg"
)

// A oneOf or an anyOf beside a type ({"type": "integer", "oneOf": [...]})
// judges a value the member already holds as its own kind: its schemas
// differ not by JSON type but by what else they ask (bounds, lengths,
// patterns, formats, values). The member keeps its kind, and decoding and
// Validate count the schemas that accept its value: exactly one for a
// oneOf, at least one for an anyOf. Each schema is the branch with the
// member's type added, as JSON Schema reads it: a branch of another type
// accepts nothing, and a branch of type integer under a member of type
// number accepts the numbers whose value is an integer.
//
// A branch is refused, naming it, when it asks what a value of the
// member's kind cannot be checked for by the checks decoding and Validate
// share: members of an object, items of an array, a string enum.

// A caseSet is a oneOf or an anyOf beside a type.
type caseSet struct {
	Rule  string   // "oneOf", "anyOf", "not", "if" or "dependentSchemas"
	Cases []*field // each of the member's kind, or kindNever for a schema no value of it passes
	// Members are, for dependentSchemas, the member whose presence makes
	// each case apply.
	Members []string
}

// casesKinds are the kinds whose every check a case can make: those the
// shared checks (validate.go) cover whole.
func casesKind(k kind) bool {
	switch k {
	case kindEnum, kindArray, kindUnion, kindObject, kindNever, kindAny:
		return false
	}
	return true
}

// buildCases makes the field of member name, at path, whose schema node
// gives a type beside a oneOf, an anyOf or both.
func (b *builder) buildCases(path, name string, n node, required bool) (*field, error) {
	rest, err := json.Marshal(without(n, "oneOf", "anyOf", "not", "if", "then", "else", "dependentSchemas"))
	if err != nil {
		return nil, err
	}
	f, err := b.buildValue(path, name, rest, required)
	if err != nil {
		return nil, err
	}
	if f.Nullable || !casesKind(f.Kind) {
		return nil, fmt.Errorf("%s: %s beside a member of kind %s, or a nullable one, is not supported by the generator", path, casesKeyword(n), f.row().What)
	}
	types, _ := n.types(path)
	typ := "null" // a member whose only value is null
	if others := slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" }); len(others) > 0 {
		typ = others[0]
	}
	if raw := n["dependentSchemas"]; raw != nil {
		// f is a free object: one of declared members is not a kind
		// cases judge.
		names, err := memberOrder(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: dependentSchemas is not an object", path)
		}
		var deps map[string]json.RawMessage
		if err := json.Unmarshal(raw, &deps); err != nil {
			return nil, fmt.Errorf("%s: dependentSchemas is not an object", path)
		}
		cs := &caseSet{Rule: "dependentSchemas", Members: names}
		for _, m := range names {
			c, err := b.buildCase(msg.Pointer(path+"/dependentSchemas", m), name, typ, f, deps[m])
			if err != nil {
				return nil, err
			}
			cs.Cases = append(cs.Cases, c)
		}
		f.Cases = append(f.Cases, cs)
	}
	if n["if"] != nil && (n["then"] != nil || n["else"] != nil) {
		cs := &caseSet{Rule: "if", Cases: make([]*field, 3)}
		for i, k := range []string{"if", "then", "else"} {
			if n[k] == nil {
				continue
			}
			if cs.Cases[i], err = b.buildCase(path+"/"+k, name, typ, f, n[k]); err != nil {
				return nil, err
			}
		}
		f.Cases = append(f.Cases, cs)
	}
	for _, rule := range []string{"oneOf", "anyOf", "not"} {
		if n[rule] == nil {
			continue
		}
		list := []json.RawMessage{n[rule]}
		if rule != "not" {
			if err := json.Unmarshal(n[rule], &list); err != nil || len(list) == 0 {
				return nil, fmt.Errorf("%s: %s is not a list of schemas", path, rule)
			}
		}
		cs := &caseSet{Rule: rule}
		for i, raw := range list {
			at := fmt.Sprintf("%s/%s/%d", path, rule, i)
			if rule == "not" {
				at = path + "/not"
			}
			c, err := b.buildCase(at, name, typ, f, raw)
			if err != nil {
				return nil, err
			}
			cs.Cases = append(cs.Cases, c)
		}
		f.Cases = append(f.Cases, cs)
	}
	if f.Default != nil && string(f.Default) != "null" {
		for _, cs := range f.Cases {
			if !cs.accepts(f.Default) {
				return nil, fmt.Errorf("%s: default %s breaks the member's own schema: %s", path, f.Default, cs.Rule)
			}
		}
	}
	return f, nil
}

// buildCase makes the case at path, a branch raw of a oneOf or an anyOf
// beside type typ, judging the values of f.
func (b *builder) buildCase(path, name, typ string, f *field, raw json.RawMessage) (*field, error) {
	bn, err := b.parseNode(path, raw)
	if err != nil {
		return nil, err
	}
	bt, err := bn.types(path)
	if err != nil {
		return nil, err
	}
	list := []node{without(bn, "default"), {"type": json.RawMessage(strconv.Quote(typ))}}
	if typ == "number" && slices.Contains(bt, "integer") && !slices.Contains(bt, "number") {
		// A number passes type integer when its value is one.
		list[0] = without(list[0], "type")
		list = append(list, node{"multipleOf": json.RawMessage("1")})
	}
	merged, err := b.merge(path, list)
	if err != nil {
		return nil, err
	}
	if merged[never] != nil {
		return &field{JSON: name, Kind: kindNever}, nil
	}
	data, err := json.Marshal(merged)
	if err != nil {
		return nil, err
	}
	c, err := b.buildValue(path, name, data, false)
	if err != nil {
		return nil, err
	}
	if c.Kind == kindObject && f.Kind == kindRawObject {
		// An object of declared members judges the free object's text,
		// decoded again into a type of its own.
		for _, m := range c.Object.Fields {
			if !casesKind(m.Kind) && m.Kind != kindAny || m.Kind == kindRawObject {
				return nil, fmt.Errorf("%s/properties/%s: a member of kind %s in a schema of a %s is not supported by the generator", path, m.JSON, m.row().What, n(path))
			}
		}
		b.objectCases++
		c.Object.GoName = "objectCase" + strconv.Itoa(b.objectCases)
		return c, nil
	}
	if c.Kind == kindEnum && f.row().GoType == "string" && f.Kind != kindEnum {
		// Values of a string, compared with the member's string.
		return c, nil
	}
	same := c.Kind == f.Kind || c.row().GoType == f.row().GoType && c.row().Reader != "" && c.row().Reader == f.row().Reader
	if c.Kind != kindNever && (!same || !casesKind(c.Kind)) {
		return nil, fmt.Errorf("%s: a schema of kind %s beside type %s is not supported by the generator", path, c.row().What, typ)
	}
	return c, nil
}

// accepts reports whether the value raw, a default, passes cs.
func (cs *caseSet) accepts(raw json.RawMessage) bool {
	if cs.Rule == "dependentSchemas" {
		return true // on a free object, which takes no default
	}
	if cs.Rule == "if" {
		k := cs.Cases[2]
		if caseAccepts(cs.Cases[0], raw) {
			k = cs.Cases[1]
		}
		return k == nil || caseAccepts(k, raw)
	}
	n := 0
	for _, c := range cs.Cases {
		if c.Kind == kindNever {
			continue
		}
		if caseAccepts(c, raw) {
			n++
		}
	}
	return cs.Rule == "oneOf" && n == 1 || cs.Rule == "anyOf" && n >= 1 || cs.Rule == "not" && n == 0
}

// casesKeyword returns the first of oneOf, anyOf and not that node has,
// "" if none.
func casesKeyword(n node) string {
	if u := unionKeyword(n); u != "" {
		return u
	}
	for _, k := range []string{"not", "if", "then", "else", "dependentSchemas"} {
		if n[k] != nil {
			return k
		}
	}
	return ""
}

// caseAccepts reports whether the value raw, a default, passes case c.
func caseAccepts(c *field, raw json.RawMessage) bool {
	if c.Kind == kindNever {
		return false
	}
	d := *c
	d.Default = raw
	return d.checkDefault() == nil && allAccept(d.Cases, raw)
}

// allAccept reports whether raw passes every one of sets.
func allAccept(sets []*caseSet, raw json.RawMessage) bool {
	for _, cs := range sets {
		if !cs.accepts(raw) {
			return false
		}
	}
	return true
}

// cases writes the checks of f's cases on the value x; e is the
// *wire.Errors (or the wire.Decoder) that records a violation. Each case
// runs the shared checks into errors of its own, c1 (c2 within a case
// that has cases of its own), which only say whether it passed.
func (g *generator) cases(f *field, e, name, x string) {
	for _, cs := range f.Cases {
		g.depth++
		if cs.Rule == "if" {
			g.conditional(cs, e, name, x)
			g.depth--
			continue
		}
		if cs.Rule == "dependentSchemas" {
			g.dependentSchemas(cs, e, name, x)
			g.depth--
			continue
		}
		c, n := "c"+strconv.Itoa(g.depth), "n"+strconv.Itoa(g.depth)
		outer := g.buf
		g.buf = bytes.Buffer{}
		used := false
		for _, k := range cs.Cases {
			if k.Kind == kindNever {
				continue
			}
			mark := g.buf.Len()
			if used {
				// What the case before found.
				g.p("%s = wire.CaseErrors()", c)
			}
			if !g.caseChecks(k, c, name, x) {
				g.buf.Truncate(mark)
				g.p("%s++", n)
				continue
			}
			used = true
			g.p("if %s.Passed() {", c)
			g.p("%s++", n)
			g.p("}")
		}
		body := g.buf.Bytes()
		g.buf = outer
		g.p("{")
		if used {
			g.p("%s := wire.CaseErrors()", c)
		}
		g.p("%s := 0", n)
		g.buf.Write(body)
		g.p("%s.Cases(base, %s, msg.Rule%s, %s, %d)", e, name, goname.Exported(cs.Rule), n, len(cs.Cases))
		g.p("}")
		g.depth--
	}
}

// caseChecks writes the checks of case k on the value x into the errors
// c, a failed check only counted, and reports whether it wrote any: an
// object's text is decoded again into the case's type, and a case no
// value passes fails at once.
func (g *generator) caseChecks(k *field, c, name, x string) bool {
	switch k.Kind {
	case kindNever:
		g.p("%s.Omit()", c)
		return true
	case kindEnum:
		var vals []string
		for _, v := range k.Enum {
			vals = append(vals, strconv.Quote(v))
		}
		g.p("switch %s {", x)
		g.p("case %s:", strings.Join(vals, ", "))
		g.p("default:")
		g.p("%s.Omit()", c)
		g.p("}")
		return true
	case kindObject:
		g.p("{")
		g.p("var d wire.Decoder")
		g.p("d.Reset((%s).AppendJSON(nil))", x)
		g.p("var y %s", k.Object.GoName)
		g.p("y.decode(&d, \"\")")
		g.p("if d.Len() != 0 {")
		g.p("%s.Omit()", c)
		g.p("}")
		g.p("}")
		return true
	}
	mark := g.buf.Len()
	g.checks(k, c, name, x)
	return g.buf.Len() > mark
}

// dependentSchemas writes the checks of a free object's dependentSchemas:
// the object x must pass the schema of each member it has.
func (g *generator) dependentSchemas(cs *caseSet, e, name, x string) {
	c := "c" + strconv.Itoa(g.depth)
	for i, k := range cs.Cases {
		g.p("if _, ok := (%s).Get(%q); ok {", x, cs.Members[i])
		g.p("%s := wire.CaseErrors()", c)
		g.caseChecks(k, c, name, x)
		g.p("%s.DependentSchema(base, %s, %q, %s.Passed())", e, name, cs.Members[i], c)
		g.p("}")
	}
}

// conditional writes the checks of an if, then and else (cs.Cases, then
// and else nil when absent): the value must pass then when it passes if,
// and else when it does not.
func (g *generator) conditional(cs *caseSet, e, name, x string) {
	c, i := "c"+strconv.Itoa(g.depth), "i"+strconv.Itoa(g.depth)
	g.p("{")
	g.p("%s := wire.CaseErrors()", c)
	g.caseChecks(cs.Cases[0], c, name, x)
	g.p("%s := %s.Passed()", i, c)
	g.p("%s = wire.CaseErrors()", c)
	g.p("if %s {", i)
	if t := cs.Cases[1]; t != nil {
		g.caseChecks(t, c, name, x)
	}
	g.p("} else {")
	if el := cs.Cases[2]; el != nil {
		g.caseChecks(el, c, name, x)
	}
	g.p("}")
	g.p("%s.Conditional(base, %s, %s, %s.Passed())", e, name, i, c)
	g.p("}")
}

// n names the keyword of a case's path: oneOf, anyOf or not.
func n(path string) string {
	switch {
	case strings.Contains(path, "/anyOf/"):
		return "anyOf"
	case strings.HasSuffix(path, "/not"):
		return "not"
	}
	return "oneOf"
}

// caseObjects returns the types of f's cases that are objects, which its
// message writes among its nested ones.
func (f *field) caseObjects() []*message {
	var list []*message
	for _, cs := range f.Cases {
		for _, c := range cs.Cases {
			if c != nil && c.Object != nil {
				list = append(list, c.Object)
			}
		}
	}
	return list
}

// casesDoc describes f's cases for its doc comment.
func (f *field) casesDoc() string {
	var b strings.Builder
	for _, cs := range f.Cases {
		switch cs.Rule {
		case "dependentSchemas":
			for i, c := range cs.Cases {
				fmt.Fprintf(&b, " When it has the member %q, the schema its dependentSchemas gives that member must accept it (%s).", cs.Members[i], caseWords(c))
			}
			continue
		case "if":
			b.WriteString(" If its if's schema accepts it (" + caseWords(cs.Cases[0]) + "), its then's must (" + caseWords(cs.Cases[1]) + "); if not, its else's (" + caseWords(cs.Cases[2]) + ").")
			continue
		case "not":
			b.WriteString(" Its not's schema must refuse it:")
		case "oneOf":
			fmt.Fprintf(&b, " Exactly one of the %d schemas of its oneOf accepts it:", len(cs.Cases))
		default:
			fmt.Fprintf(&b, " At least one of the %d schemas of its anyOf accepts it:", len(cs.Cases))
		}
		for i, c := range cs.Cases {
			what := caseWords(c)
			sep := ";"
			if i == len(cs.Cases)-1 {
				sep = "."
			}
			fmt.Fprintf(&b, " (%d) %s%s", i+1, strings.TrimSuffix(what, "."), sep)
		}
	}
	return b.String()
}

// caseWords describes what case c accepts, for a doc comment.
func caseWords(c *field) string {
	switch {
	case c == nil:
		return "any value"
	case c.Kind == kindNever:
		return "no value"
	case c.Kind == kindObject:
		return "an object of its own, " + c.Object.GoName
	case c.Kind == kindEnum:
		return "one of " + c.enumList()
	}
	what := strings.TrimSuffix(strings.TrimSpace(c.limits()), ".")
	if what == "" {
		return "any " + c.row().What
	}
	return strings.ToLower(what[:1]) + what[1:]
}
