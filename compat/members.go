package compat

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/msg"
)

// Members an object does not declare in properties are judged by
// patternProperties (every entry whose pattern matches the name) and, where
// none matches, by additionalProperties. Two versions are compared over
// the names neither declares, region by region: the names are cut into
// cells by which patterns of either version match them, each cell found,
// with a shortest name in it, by one breadth-first search over the product
// of the patterns' automata and the automaton of the declared names (see
// regular.go). In a cell, the one schema each version has for the cell's
// members (a pattern's, additionalProperties', or anything) is compared as
// a member's would be, the witness carrying a member of the cell's name.
// What the checker does not decide is refused: a pattern it cannot read,
// a cell where two patterns of one version meet (their schemas together),
// a declared name a pattern matches (the two schemas together), and a
// search beyond the bounds ("undecidable-pattern").

// patternProp is one entry of patternProperties.
type patternProp struct {
	pattern string
	re      *regexp.Regexp
	prog    *syntax.Prog
	node    *node
}

// others returns the nodes that judge the member name of an object n
// accepts, beside its properties: every pattern that matches name, or,
// where none does and properties do not name it, additionalProperties as
// a schema. closed says n rejects the member (additionalProperties false).
func (n *node) others(name string) (nodes []*node, closed bool) {
	for _, p := range n.patterns {
		if p.re != nil && p.re.MatchString(name) {
			nodes = append(nodes, p.node)
		}
	}
	if len(nodes) > 0 || n.props[name] != nil {
		return nodes, false
	}
	if n.closed {
		return nil, true
	}
	if n.addl != nil {
		return []*node{n.addl}, false
	}
	return nil, false
}

// closedTo reports whether n rejects every object with the member name:
// additionalProperties false, or propertyNames.
func (n *node) closedTo(name string) bool {
	_, closed := n.others(name)
	return closed || n.propNames != nil && n.propNames.rejects(name) != 0
}

// open returns the node that judges the member name n does not declare:
// the one pattern that matches it, or additionalProperties, or (nil) a
// node that accepts anything. It is false where several patterns match,
// whose schemas together the checker does not build.
func (n *node) open(name string) (*node, bool) {
	nodes, _ := n.others(name)
	switch len(nodes) {
	case 0:
		return &node{parent: n, seg: "/additionalProperties", types: tAll}, true
	case 1:
		return nodes[0], true
	}
	return nil, false
}

// judgesOthers reports whether n says anything of members it does not
// declare beyond additionalProperties true or false.
func (n *node) judgesOthers() bool { return n.addl != nil || len(n.patterns) > 0 }

// readPatternProperties reads patternProperties into n.
func (n *node) readPatternProperties(v value, name string) error {
	o, ok := v.(*object)
	if !ok {
		return fmt.Errorf("want an object")
	}
	for _, m := range o.members {
		p, err := build(m.value, n, msg.Pointer("/patternProperties", m.name), name)
		if err != nil {
			return err
		}
		pp := patternProp{pattern: m.name, node: p}
		if pp.re, pp.prog, err = compilePattern(m.name); err != nil {
			n.refuse("patternProperties", "undecidable-pattern", fmt.Sprintf("the pattern %s of patternProperties, which is not a regular expression the checker can compare (%v)", strconv.Quote(m.name), err))
		}
		n.patterns = append(n.patterns, pp)
	}
	return nil
}

// cell is a region of member names: which patterns match them.
type cell struct {
	mask uint64 // bit i: pattern i of the search matches
	name string // a shortest name of the region
}

// maxCellPatterns bounds the patterns of one search of cells.
const maxCellPatterns = 32

// cells returns a name of every region of names that progs cut, leaving
// out the names of avoid: one breadth-first search over the product of
// the automata; errTooLarge beyond the checker's bounds.
func cells(progs []*syntax.Prog, avoid []string, budget *int) ([]cell, error) {
	if len(progs) > maxCellPatterns || budget != nil && *budget <= 0 {
		return nil, errTooLarge
	}
	var alts []string
	for _, a := range avoid {
		alts = append(alts, regexp.QuoteMeta(a))
	}
	expr := `[^\x00-\x{10ffff}]` // nothing
	if len(alts) > 0 {
		expr = "^(?:" + strings.Join(alts, "|") + ")$"
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, errTooLarge
	}
	names, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, errTooLarge
	}
	work := 0
	if budget != nil {
		defer func() { *budget -= work }()
	}
	all := append(progs[:len(progs):len(progs)], names)
	dfas := make([]*dfa, len(all))
	for i, p := range all {
		dfas[i] = newDFA(p, &work)
	}
	alphabet := classes(all...)
	seen := map[string]bool{}
	var queue [][]int
	var how []visit
	add := func(s []int, v visit) {
		var b strings.Builder
		for _, x := range s {
			b.WriteString(strconv.Itoa(x) + ",")
		}
		if !seen[b.String()] {
			seen[b.String()] = true
			queue = append(queue, s)
			how = append(how, v)
		}
	}
	add(make([]int, len(all)), visit{from: -1})
	found := map[uint64]bool{}
	var out []cell
	for i := 0; i < len(queue); i++ {
		if work > maxRegularWork || budget != nil && work > *budget {
			return nil, errTooLarge
		}
		s := queue[i]
		if !dfas[len(progs)].accepts(s[len(progs)]) {
			var mask uint64
			for j := range progs {
				if dfas[j].accepts(s[j]) {
					mask |= 1 << j
				}
			}
			if !found[mask] {
				found[mask] = true
				out = append(out, cell{mask, pathText(how, i)})
			}
		}
		for c, r := range alphabet {
			next := make([]int, len(all))
			for j, d := range dfas {
				next[j] = d.step(s[j], c, r)
			}
			add(next, visit{i, r})
			work++
		}
	}
	return out, nil
}

// others compares the members neither s nor t declares: for each region
// of names, the schema of each version there (see the comment at the top).
// It is called where s accepts an object, base.
func (c *checker) others(d direction, s, t *node, path []step, base *object) {
	if !s.judgesOthers() && !t.judgesOthers() {
		return // compared as additionalProperties true or false
	}
	declared := append(s.names(), t.names()...)
	var progs []*syntax.Prog
	for _, x := range []*node{s, t} {
		for _, p := range x.patterns {
			if p.prog == nil {
				return // refused where it is read
			}
			for _, name := range declared {
				if p.re.MatchString(name) && !sameJudges(s, t, name) {
					c.refusal(x, refusal{"patternProperties", "undecidable-pattern", fmt.Sprintf("a pattern of patternProperties, %s, that matches the declared member %s, which it judges beside properties", strconv.Quote(p.pattern), strconv.Quote(name))}, path)
					return
				}
			}
			progs = append(progs, p.prog)
		}
	}
	budget := s.budget
	if budget == nil {
		budget = t.budget
	}
	regions, err := cells(progs, declared, budget)
	if err != nil {
		c.refusal(t, refusal{"patternProperties", "undecidable-pattern", "patterns of patternProperties too large to compare within the checker's bounds"}, path)
		return
	}
	for _, r := range regions {
		name := r.name
		if s.propNames != nil && s.propNames.rejects(name) != 0 {
			if _, closed := s.others(name); !closed {
				// The region's other names may pass: the search does not
				// see propertyNames.
				c.refusal(s, refusal{"propertyNames", "undecidable-property-names", fmt.Sprintf("propertyNames beside patternProperties or additionalProperties, which reject names such as %s that the checker does not look past", strconv.Quote(name))}, path)
			}
			continue
		}
		if !s.canCarry(name) {
			continue // s rejects every message that has it
		}
		if sameJudges(s, t, name) {
			continue // the same schemas judge the region's members
		}
		sn, ok := s.open(name)
		if !ok {
			c.refusal(s, refusal{"patternProperties", "undecidable-composition", fmt.Sprintf("patterns of patternProperties that both match names such as %s, whose schemas together the checker does not compare", strconv.Quote(name))}, path)
			continue
		}
		if t.closedTo(name) {
			if v, ok := example(sn, nil); ok {
				if w, ok := settle(base.with(name, v), s, t, "", false); ok && s.accepts(w) && t.rejects(w)&(rAdditional|rPropertyNames) != 0 {
					c.differs(d, s, t, path, w, t.rejects(w)&(rAdditional|rPropertyNames), name)
				}
			} else if len(sn.refused) > 0 {
				c.walk(d, sn, sn, append(path, step{name: name}))
			}
			continue
		}
		tn, ok := t.open(name)
		if !ok {
			c.refusal(t, refusal{"patternProperties", "undecidable-composition", fmt.Sprintf("patterns of patternProperties that both match names such as %s, whose schemas together the checker does not compare", strconv.Quote(name))}, path)
			continue
		}
		c.walk(d, sn, tn, append(path, step{name: name}))
	}
}

// propertyNames finds a member name s accepts and t's propertyNames
// rejects, with a message of s that carries it: among the names that
// tell the two schemas of names apart (one of each class, as for any
// string) and the names s declares. Where there are such names but none
// s can carry that the checker finds a message for, it refuses
// ("undecidable-property-names"): never a false "compatible".
func (c *checker) propertyNames(d direction, s, t *node, path []step, base *object) {
	if t.propNames == nil {
		return
	}
	sn := s.propNames
	if sn == nil {
		sn = &node{parent: s, seg: "/propertyNames", types: tAll}
	}
	tn := t.propNames
	if len(sn.refused) > 0 || len(tn.refused) > 0 {
		c.walk(d, sn, tn, path) // the refusals are the finding
		return
	}
	if !patternsDecidable(sn, tn) {
		c.refusal(tn, refusal{"pattern", "undecidable-pattern", "a pattern of propertyNames which the checker cannot compare"}, path)
		return
	}
	// A closed s without patterns carries only the names it declares.
	finite := s.closed && len(s.patterns) == 0
	var names []string
	for _, v := range scalars(sn, tn) {
		if name, ok := v.(string); ok && !finite && sn.accepts(name) && tn.rejects(name) != 0 {
			names = append(names, name)
		}
	}
	for _, name := range s.names() {
		if sn.accepts(name) && tn.rejects(name) != 0 {
			names = append(names, name)
		}
	}
	unsure := false
	for _, name := range names {
		if finite && !s.canCarry(name) {
			continue // s rejects every message that has it
		}
		if t.declares(name) && !s.declares(name) || !s.canCarry(name) {
			unsure = true
			continue
		}
		unsure = true
		m := s.member(name)
		if m == nil {
			var ok bool
			if m, ok = s.open(name); !ok {
				continue
			}
		}
		v, ok := example(m, nil)
		if !ok {
			continue
		}
		if w, ok := settle(base.with(name, v), s, t, "", false); ok && s.accepts(w) && t.rejects(w)&rPropertyNames != 0 {
			c.differs(d, s, t, path, w, rPropertyNames, name)
			return
		}
	}
	if unsure {
		c.refusal(tn, refusal{"propertyNames", "undecidable-property-names", fmt.Sprintf("propertyNames that rejects names such as %s, for which the checker finds no message the other version accepts", strconv.Quote(names[0]))}, path)
	}
}

// unchanged reports whether s and t are read from the same schema (by
// JSON equality, $refs inlined), in the same dialect and under the same
// rules of the catalogue, and so accept the same values: what neither
// version changes is no difference, even where it holds keywords the
// checker does not decide (not, if, contains...). A schema that still
// holds a reference, whose target may differ, is not unchanged.
func unchanged(s, t *node) bool {
	if s.raw == nil || t.raw == nil || s.draft7 != t.draft7 || s.imei != t.imei || len(s.extra) > 0 || len(t.extra) > 0 {
		return false
	}
	return selfContained(s.raw, 0) && equal(s.raw, t.raw)
}

// selfContained reports whether the schema v holds no reference.
func selfContained(v value, depth int) bool {
	if depth > 64 {
		return false
	}
	switch v := v.(type) {
	case *object:
		for _, m := range v.members {
			switch m.name {
			case "$ref", "$dynamicRef", "$recursiveRef", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$id":
				return false
			}
			if !selfContained(m.value, depth+1) {
				return false
			}
		}
	case []value:
		for _, e := range v {
			if !selfContained(e, depth+1) {
				return false
			}
		}
	}
	return true
}

// sameJudges reports whether the member name of an object is judged by
// the same schemas in s and t (unchanged, in the same order): its
// property, the patterns that match it, additionalProperties.
func sameJudges(s, t *node, name string) bool {
	judges := func(n *node) ([]*node, bool) {
		nodes, closed := n.others(name)
		if p := n.props[name]; p != nil {
			nodes = append([]*node{p}, nodes...)
		}
		return nodes, closed || n.propNames != nil && n.propNames.rejects(name) != 0
	}
	a, aClosed := judges(s)
	b, bClosed := judges(t)
	if aClosed != bClosed || len(a) != len(b) || s.isReq[name] != t.isReq[name] {
		return false
	}
	for i := range a {
		if !unchanged(a[i], b[i]) {
			return false
		}
	}
	return true
}

// conjuncts are the keywords whose presence only narrows a schema: each
// adds a condition and relaxes none (minContains, which relaxes
// contains, is not one).
var conjuncts = map[string]bool{
	"not": true, "if": true, "then": true, "else": true, "contains": true, "maxContains": true, "dependentSchemas": true,
}

// narrowsOnly reports whether s is t with conjuncts added, and so accepts
// only what t accepts: adding a not, an if, a contains or a
// dependentSchemas to an otherwise unchanged schema narrows it, so the
// direction whose source is the narrower holds (the other is refused).
func narrowsOnly(s, t *node) bool {
	so, ok1 := s.raw.(*object)
	to, ok2 := t.raw.(*object)
	if !ok1 || !ok2 || s.draft7 != t.draft7 || s.imei != t.imei || len(s.extra) > 0 || len(t.extra) > 0 || !selfContained(so, 0) || !selfContained(to, 0) {
		return false
	}
	for _, m := range to.members {
		if v, ok := so.get(m.name); !ok || !equal(v, m.value) {
			return false
		}
	}
	added := false
	for _, m := range so.members {
		if _, ok := to.get(m.name); !ok {
			if !conjuncts[m.name] {
				return false
			}
			added = true
		}
	}
	return added
}

// patternJudges reports whether a pattern of patternProperties of n
// matches the name n declares, judging the member beside its property.
func (n *node) patternJudges(name string) bool {
	for _, p := range n.patterns {
		if p.re != nil && p.re.MatchString(name) {
			return true
		}
	}
	return false
}
