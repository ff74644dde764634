package compat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// The JSON types a node may accept, as bits. JSON Schema's "number" is
// tInteger|tFraction: the checker tells integers from other numbers because
// "integer" accepts only the former (decision 2: 1.0 is an integer).
const (
	tNull uint8 = 1 << iota
	tBoolean
	tInteger  // numbers that are mathematical integers
	tFraction // numbers that are not
	tString
	tArray
	tObject
	tAll = tNull | tBoolean | tInteger | tFraction | tString | tArray | tObject
)

var typeBits = map[string]uint8{
	"null": tNull, "boolean": tBoolean, "integer": tInteger, "number": tInteger | tFraction,
	"string": tString, "array": tArray, "object": tObject,
}

// limits on what the checker reasons about: a bound or length beyond them
// would make a witness (or the arithmetic on it) larger than any input
// justifies, so a schema using one is refused with code "limit-exceeded".
const (
	maxMinLength  = 1 << 12
	maxNumberText = 100 // digits and exponent of a bound or enumerated number
)

// dialects are the $schema URIs whose meaning of the keywords the checker
// reads is the one it implements (draft 6 onwards: integers include 1.0).
var dialects = map[string]bool{
	"http://json-schema.org/draft-06/schema":       true,
	"http://json-schema.org/draft-07/schema":       true,
	"https://json-schema.org/draft/2019-09/schema": true,
	"https://json-schema.org/draft/2020-12/schema": true,
}

// annotations are keywords that change no verdict.
var annotations = map[string]bool{
	"title": true, "description": true, "$comment": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
}

// node is one (sub)schema, reduced to what decides which values it
// accepts.
type node struct {
	parent *node
	seg    string // the schema pointer segments from parent, such as "/properties/kind"

	types   uint8 // accepted JSON types; tAll without "type"
	intRule bool  // "type" names "integer": integers must fit in an int64 (decision 2)
	hasEnum bool
	enum    []value
	enumSet map[string]bool // the canonical text of each value of enum (canonText)
	// composite says the enumeration holds arrays or objects.
	composite bool
	format    string // "" or a key of formats
	min, max  *big.Rat
	// exMin and exMax are exclusiveMinimum and exclusiveMaximum.
	exMin, exMax *big.Rat
	maxLen       *int // maxLength; nil without one
	// minItems and maxItems bound an array's length; nil without.
	minItems, maxItems *int
	// closed is additionalProperties false: no member but those the
	// object declares.
	closed bool
	// addl is additionalProperties as a schema other than {}: it judges
	// the members neither properties nor patternProperties name; nil
	// without one.
	addl *node
	// patterns is patternProperties, in the schema's order.
	patterns []patternProp
	// raw is the schema n is read from, its $refs inlined (nil for a
	// node the checker makes).
	raw value
	// propNames is propertyNames, the schema every member's name (a
	// string) must pass; nil without one.
	propNames *node
	// unique is uniqueItems: no two items equal (1 equals 1.0).
	unique bool
	// minProps and maxProps bound an object's count of members; nil
	// without.
	minProps, maxProps *int
	// deps is dependentRequired (or draft 7's dependencies in the array
	// form): a member present requires the names listed, in order.
	deps []dependency
	// draft7 says the schema is of draft 6 or 7, whose dependencies are
	// 2019-09's dependentRequired.
	draft7 bool
	// mult is multipleOf, which accepts a number exactly when the
	// number divided by it is an integer (exact decimals: 0.3 is a
	// multiple of 0.1); nil without.
	mult     *big.Rat
	minLen   int
	pattern  *string
	regexp   *regexp.Regexp      // the pattern, read as ECMA-262
	prog     *syntax.Prog        // the pattern as an automaton
	enumProg *syntax.Prog        // the enumerated strings n accepts, as an automaton
	regular  map[*node]regularOf // regularStrings' answers, by the other node
	budget   *int                // the work left to the searches of one comparison
	def      *value              // the default, if any
	imei     bool                // the IMEI rule (decision 6) applies to strings
	extra    []schemas.ExtraRule // at a schema's root: the catalogue's rules on its members, always judged
	items    *node               // nil: any item
	props    map[string]*node
	order    []string            // property names in the schema's order
	required []string            // in the schema's order, without repeats
	isReq    map[string]bool     // the members of required
	refused  []refusal           // keywords the checker cannot decide
	examples map[*node]exampleOf // example's answers, by the other node
}

// dependency is one entry of dependentRequired: if is present, then
// every name of then must be.
type dependency struct {
	on   string
	then []string
}

// refusal is a keyword the checker does not decide, with the finding's code.
type refusal struct {
	keyword, code, why string
}

// pointer returns n's JSON Pointer in its schema.
func (n *node) pointer() string {
	var segs []string
	for m := n; m != nil; m = m.parent {
		segs = append(segs, m.seg)
	}
	slices.Reverse(segs)
	return strings.Join(segs, "")
}

// member returns the node that judges member name of an object at n, or
// nil if n does not declare name (in properties or required).
func (n *node) member(name string) *node {
	if p := n.props[name]; p != nil {
		return p
	}
	for _, r := range n.extra {
		if r.Member == name {
			// An extra rule (decision 6) holds for its member whether
			// or not a version declares it.
			m := &node{parent: n, seg: msg.Pointer("/properties", name), types: tAll}
			if others, _ := n.others(name); len(others) == 1 {
				// Judged by additionalProperties or a pattern too: a
				// copy of its node, without the answers it keeps.
				c := *others[0]
				c.regular, c.examples = nil, nil
				m = &c
			}
			m.apply(r)
			return m
		}
	}
	if n.isReq[name] {
		if others, _ := n.others(name); len(others) == 1 {
			// Required, and judged as a member properties do not name.
			return others[0]
		}
		return &node{parent: n, seg: "/required", types: tAll}
	}
	return nil
}

// declares reports whether n declares member name.
func (n *node) declares(name string) bool { return n.member(name) != nil }

// names returns the names n declares: its properties in order, then the
// required names that are not properties.
func (n *node) names() []string {
	names := slices.Clone(n.order)
	for _, r := range n.required {
		if n.props[r] == nil {
			names = append(names, r)
		}
	}
	for _, r := range n.extra {
		if n.props[r.Member] == nil && !n.isReq[r.Member] {
			names = append(names, r.Member)
		}
	}
	return names
}

// apply applies the catalogue's extra rule r to n, the node of its member.
func (n *node) apply(r schemas.ExtraRule) {
	n.imei = n.imei || r.Rule == msg.RuleIMEI
}

// extraRules returns the catalogue's extra rules on the schema name, for
// its root, which refuses those the checker does not know: a rule added
// to the table must be taught to the checker, never passed over.
func (n *node) extraRules(name string) []schemas.ExtraRule {
	rules := schemas.ExtraRules(name)
	for _, r := range rules {
		if r.Rule != msg.RuleIMEI {
			n.refuse(string(r.Rule), "unknown-rule", fmt.Sprintf("the catalogue's rule %q on %s, which the checker does not compare", r.Rule, r.Pointer()))
		}
	}
	return rules
}

// parseSchema reads a schema file into its tree of nodes. name is the
// schema's name, for the rules that belong to one schema (decision 6).
func parseSchema(data []byte, name string, lookup lookupFunc) (*node, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("the schema is not UTF-8")
	}
	doc, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	doc = inlineRefs(doc, lookup)
	if obj, ok := doc.(*object); ok {
		if d, ok := obj.get("$schema"); ok {
			s, isStr := d.(string)
			if !isStr {
				return nil, errors.New("/$schema: want a string")
			}
			if !dialects[strings.TrimSuffix(s, "#")] {
				root, err := build(doc, nil, "", name)
				if err != nil {
					return nil, err
				}
				root.extra = root.extraRules(name)
				root.refused = append(root.refused, refusal{"$schema", "unknown-dialect",
					fmt.Sprintf("the dialect %s is not one whose keywords the checker reads (draft-06 to 2020-12)", strconv.Quote(s))})
				return root, nil
			}
		}
	}
	root, err := build(doc, nil, "", name)
	if err != nil {
		return nil, err
	}
	root.extra = root.extraRules(name)
	return root, nil
}

// build makes the node of the schema v found at seg under parent.
func build(v value, parent *node, seg, name string) (*node, error) {
	n := &node{parent: parent, seg: seg, types: tAll, raw: v}
	if parent != nil {
		n.draft7 = parent.draft7
	} else if o, ok := v.(*object); ok {
		if d, ok := o.get("$schema"); ok {
			str, _ := d.(string)
			n.draft7 = strings.Contains(str, "draft-07") || strings.Contains(str, "draft-06")
		}
	}
	switch v := v.(type) {
	case bool:
		if !v {
			n.types = 0
		}
		return n, nil
	case *object:
		v = compose(v)
		for _, m := range v.members {
			if err := n.keyword(m.name, m.value, name); err != nil {
				return nil, fmt.Errorf("%s: %v", msg.Pointer(n.pointer(), m.name), err)
			}
		}
		return n, nil
	}
	return nil, fmt.Errorf("%s: a schema must be an object or a boolean", orRoot(n.pointer()))
}

// keyword reads one keyword of n's schema.
func (n *node) keyword(kw string, v value, name string) error {
	switch {
	case annotations[kw]:
		return nil
	case kw == "$defs" || kw == "definitions":
		// Read where a $ref names them (see inlineRefs).
		return nil
	case (kw == "$schema" || kw == "$id") && n.parent == nil:
		if _, ok := v.(string); !ok {
			return errors.New("want a string")
		}
		return nil
	}
	switch kw {
	case refusedMember:
		n.refuse("allOf", "undecidable-composition", fmt.Sprintf("%s, which the checker cannot compare", v))
	case nothingMember:
		n.types = 0
	case "type":
		n.types = 0
		names := []value{v}
		if a, ok := v.([]value); ok {
			names = a
			if len(a) == 0 {
				return errors.New("want at least one type")
			}
		}
		seen := map[string]bool{}
		for _, t := range names {
			s, _ := t.(string)
			bits, ok := typeBits[s]
			if !ok {
				return fmt.Errorf("%s is not a JSON Schema type", jsonText(t))
			}
			if seen[s] {
				return fmt.Errorf("type %q repeated", s)
			}
			seen[s] = true
			n.types |= bits
			n.intRule = n.intRule || s == "integer"
		}
	case "enum":
		a, ok := v.([]value)
		if !ok {
			return errors.New("want an array")
		}
		var enum []value
		for _, e := range a {
			switch e := e.(type) {
			case *big.Rat:
				if tooLong(e) {
					n.refuse(kw, "limit-exceeded", "an enumerated number with more than 100 digits")
					return nil
				}
			}
			enum = append(enum, e)
		}
		if n.hasEnum {
			// A const came first: the values both allow.
			enum = slices.DeleteFunc(enum, func(e value) bool { return !n.enumSet[canonText(e)] })
		}
		n.setEnum(enum)
	case "format":
		s, ok := v.(string)
		if !ok {
			return errors.New("want a string")
		}
		if formats[s] == nil {
			n.refuse(kw, "unknown-format", fmt.Sprintf("the format %s, which the checker does not know (it knows %s)", strconv.Quote(s), formatNames))
			return nil
		}
		n.format = s
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		r, ok := v.(*big.Rat)
		if !ok {
			return errors.New("want a number")
		}
		if tooLong(r) {
			n.refuse(kw, "limit-exceeded", "a bound with more than 100 digits")
			return nil
		}
		switch kw {
		case "minimum":
			n.min = r
		case "maximum":
			n.max = r
		case "exclusiveMinimum":
			n.exMin = r
		default:
			n.exMax = r
		}
	case "uniqueItems":
		b, ok := v.(bool)
		if !ok {
			return errors.New("want a boolean")
		}
		n.unique = b
	case "dependentRequired", "dependencies":
		if n.draft7 != (kw == "dependencies") {
			n.refuse(kw, "unknown-keyword", fmt.Sprintf("the keyword %s, which means nothing in this schema's dialect", strconv.Quote(kw)))
			return nil
		}
		o, ok := v.(*object)
		if !ok {
			return errors.New("want an object")
		}
		for _, m := range o.members {
			a, ok := m.value.([]value)
			if !ok {
				if kw == "dependencies" {
					n.refuse(kw, "unknown-keyword", "dependencies on a schema, which the checker does not compare")
					return nil
				}
				return errors.New("want arrays of strings")
			}
			d := dependency{on: m.name}
			for _, e := range a {
				s, ok := e.(string)
				if !ok {
					return errors.New("want arrays of strings")
				}
				d.then = append(d.then, s)
			}
			n.deps = append(n.deps, d)
		}
	case "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
		r, ok := v.(*big.Rat)
		if !ok || !r.IsInt() || r.Sign() < 0 {
			return errors.New("want a non-negative integer")
		}
		if r.Cmp(big.NewRat(maxMinLength, 1)) > 0 {
			n.refuse(kw, "limit-exceeded", fmt.Sprintf("a %s over %d", kw, maxMinLength))
			return nil
		}
		l := int(r.Num().Int64())
		switch kw {
		case "maxLength":
			n.maxLen = &l
		case "minItems":
			n.minItems = &l
		case "maxItems":
			n.maxItems = &l
		case "minProperties":
			n.minProps = &l
		default:
			n.maxProps = &l
		}
	case "additionalProperties":
		switch v := v.(type) {
		case bool:
			n.closed = !v
		case *object:
			if len(v.members) > 0 {
				addl, err := build(v, n, "/additionalProperties", name)
				if err != nil {
					return err
				}
				n.addl = addl
			}
		default:
			return errors.New("want a boolean or a schema")
		}
	case "patternProperties":
		return n.readPatternProperties(v, name)
	case "propertyNames":
		names, err := build(v, n, "/propertyNames", name)
		if err != nil {
			return err
		}
		n.propNames = names
	case "const":
		// An enumeration of one value; beside an enum, the values both
		// allow.
		if c, ok := v.(*big.Rat); ok {
			if tooLong(c) {
				n.refuse(kw, "limit-exceeded", "a const number with more than 100 digits")
				return nil
			}
		}
		enum := []value{v}
		if n.hasEnum && !n.enumSet[canonText(v)] {
			enum = nil
		}
		n.setEnum(enum)
	case "multipleOf":
		r, ok := v.(*big.Rat)
		if !ok || r.Sign() <= 0 {
			return errors.New("want a positive number")
		}
		if r.Num().BitLen() > 40 || r.Denom().BitLen() > 40 {
			n.refuse(kw, "limit-exceeded", "a multipleOf whose numerator or denominator is beyond 2^40")
			return nil
		}
		n.mult = r
	case "minLength":
		r, ok := v.(*big.Rat)
		if !ok || !r.IsInt() || r.Sign() < 0 {
			return errors.New("want a non-negative integer")
		}
		if r.Cmp(big.NewRat(maxMinLength, 1)) > 0 {
			n.refuse(kw, "limit-exceeded", fmt.Sprintf("a minimum length over %d", maxMinLength))
			return nil
		}
		n.minLen = int(r.Num().Int64())
	case "pattern":
		s, ok := v.(string)
		if !ok {
			return errors.New("want a string")
		}
		n.pattern = &s
		var err error
		if n.regexp, n.prog, err = compilePattern(s); err != nil {
			// Without it the checker cannot even build an example here.
			n.refuse(kw, "undecidable-pattern", fmt.Sprintf("the pattern %s, which is not a regular expression the checker can compare (%v)", strconv.Quote(s), err))
		}
	case "default":
		n.def = &v
	case "required":
		a, ok := v.([]value)
		if !ok {
			return errors.New("want an array of strings")
		}
		n.isReq = map[string]bool{}
		for _, r := range a {
			s, ok := r.(string)
			if !ok {
				return errors.New("want an array of strings")
			}
			if n.isReq[s] {
				return fmt.Errorf("%q repeated", s)
			}
			n.isReq[s] = true
			n.required = append(n.required, s)
		}
	case "properties":
		o, ok := v.(*object)
		if !ok {
			return errors.New("want an object")
		}
		n.props = make(map[string]*node, len(o.members))
		for _, m := range o.members {
			p, err := build(m.value, n, msg.Pointer("/properties", m.name), name)
			if err != nil {
				return err
			}
			if n.parent == nil {
				for _, r := range schemas.ExtraRules(name) {
					if r.Member == m.name {
						p.apply(r)
					}
				}
			}
			n.props[m.name] = p
			n.order = append(n.order, m.name)
		}
	case "items":
		if _, ok := v.([]value); ok {
			n.refuse(kw, "unknown-keyword", "items as an array (tuple validation), which the checker does not compare")
			return nil
		}
		items, err := build(v, n, "/items", name)
		if err != nil {
			return err
		}
		n.items = items
	case "$ref":
		// One inlineRefs left: see ref.go.
		ref, _ := v.(string)
		n.refuse(kw, "unknown-keyword", fmt.Sprintf("the reference %s, which the checker does not follow: it names another file than the catalogue's, nothing, or a schema that contains it, or inlining it would pass the checker's bound", strconv.Quote(ref)))
	default:
		n.refuse(kw, "unknown-keyword", fmt.Sprintf("the keyword %s, which the checker does not know", strconv.Quote(kw)))
	}
	return nil
}

// setEnum makes enum n's enumeration.
func (n *node) setEnum(enum []value) {
	n.hasEnum, n.enum = true, enum
	n.enumSet = make(map[string]bool, len(enum))
	for _, e := range enum {
		n.enumSet[canonText(e)] = true
		switch e.(type) {
		case []value, *object:
			n.composite = true
		}
	}
}

func (n *node) refuse(kw, code, why string) {
	n.refused = append(n.refused, refusal{kw, code, why})
}

// share gives n and every node under it the budget of the searches of
// patterns.
func (n *node) share(budget *int) {
	n.budget = budget
	for _, p := range n.props {
		p.share(budget)
	}
	if n.items != nil {
		n.items.share(budget)
	}
	if n.addl != nil {
		n.addl.share(budget)
	}
	for _, p := range n.patterns {
		p.node.share(budget)
	}
	if n.propNames != nil {
		n.propNames.share(budget)
	}
}

// tooLong reports whether r, read from a schema, is beyond maxNumberText.
func tooLong(r *big.Rat) bool {
	return len(r.Num().String())+len(r.Denom().String()) > maxNumberText
}

// value is a JSON value: nil, bool, *big.Rat, string, []value or *object.
type value = any

// object is a JSON object whose members keep their order.
type object struct {
	members []member
}

type member struct {
	name  string
	value value
}

func (o *object) get(name string) (value, bool) {
	for _, m := range o.members {
		if m.name == name {
			return m.value, true
		}
	}
	return nil, false
}

// with returns a copy of o with name set to v, in place or at the end.
func (o *object) with(name string, v value) *object {
	c := &object{members: slices.Clone(o.members)}
	for i := range c.members {
		if c.members[i].name == name {
			c.members[i].value = v
			return c
		}
	}
	c.members = append(c.members, member{name, v})
	return c
}

// parseJSON reads one JSON document, refusing repeated member names
// (decision 12 holds for schemas too: a repeated keyword is ambiguous).
func parseJSON(data []byte) (value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var read func(depth int) (value, error)
	read = func(depth int) (value, error) {
		if depth > 10000 {
			return nil, errors.New("the schema nests deeper than 10000")
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '[' {
				a := []value{}
				for dec.More() {
					e, err := read(depth + 1)
					if err != nil {
						return nil, err
					}
					a = append(a, e)
				}
				_, err := dec.Token()
				return a, err
			}
			o := &object{}
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				name := k.(string)
				if seen[name] {
					return nil, fmt.Errorf("member %q repeated", name)
				}
				seen[name] = true
				e, err := read(depth + 1)
				if err != nil {
					return nil, err
				}
				o.members = append(o.members, member{name, e})
			}
			_, err := dec.Token()
			return o, err
		case json.Number:
			if len(tok) > 1000 || bigExponent(string(tok)) {
				return nil, fmt.Errorf("number %.40s is beyond what the checker reads (1000 characters, exponent 1000)", tok)
			}
			r, ok := new(big.Rat).SetString(string(tok))
			if !ok {
				return nil, fmt.Errorf("number %.40s is not a JSON number", tok)
			}
			return r, nil
		}
		return tok, nil
	}
	v, err := read(0)
	if err != nil {
		return nil, fmt.Errorf("not a JSON document: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a JSON document: more after the first value")
	}
	return v, nil
}

// bigExponent reports whether the JSON number lit has an exponent beyond
// 1000 in magnitude, whose value big.Rat would take long to compute.
func bigExponent(lit string) bool {
	i := strings.IndexAny(lit, "eE")
	if i < 0 {
		return false
	}
	e, err := strconv.Atoi(lit[i+1:])
	return err != nil || e > 1000 || e < -1000
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "(root)"
	}
	return ptr
}
