package compat

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/msg"
)

// checker compares two parsed versions and collects the findings.
type checker struct {
	opt                    Options
	old, new               *node
	oldVersion, newVersion string
	report                 *Report
	seen                   map[string]bool // keys of the findings made
	index                  map[string]int  // the index of a finding by key; -1 if left out
	budget                 int             // bytes of findings still allowed
}

// step is one step from a node to a member of its messages: a member
// name, or (items) the first item of an array.
type step struct {
	name  string
	items bool
}

// direction is one direction of a comparison: messages src accepts,
// judged by dst.
type direction struct {
	mode     Mode
	src, dst *node // the roots
}

func (c *checker) compare() {
	mode := c.opt.mode()
	if mode&Backward != 0 {
		c.walk(direction{Backward, c.old, c.new}, c.old, c.new, nil)
	}
	if mode&Forward != 0 {
		c.walk(direction{Forward, c.new, c.old}, c.new, c.old, nil)
	}
}

// oldNew returns the pair (s, t) of a direction as (old node, new node).
func (d direction) oldNew(s, t *node) (*node, *node) {
	if d.mode == Forward {
		return t, s
	}
	return s, t
}

// walk finds the values s accepts and t rejects at the member path leads
// to: s and t are the nodes there in the direction's source and
// destination versions. It is called only where src's messages can reach.
func (c *checker) walk(d direction, s, t *node, path []step) {
	if unchanged(s, t) || narrowsOnly(s, t) {
		return // s accepts only values t accepts
	}
	o, n := d.oldNew(s, t)
	refused := false
	for _, x := range []*node{o, n} {
		for _, r := range x.refused {
			c.refusal(x, r, path)
			refused = true
		}
	}
	if refused {
		// What this node accepts is unknown, and so is whatever is
		// found below it: the refusal is the finding.
		return
	}
	if !patternsDecidable(s, t) {
		c.refusal(n, refusal{"pattern", "undecidable-pattern", "a pattern, changed or beside other changed keywords on strings, which the checker cannot compare"}, path)
	}

	// Scalars: every cell of the candidates.
	decidableStrings := patternsDecidable(s, t)
	for _, v := range scalars(s, t) {
		if typeOf(v) == tString && !decidableStrings {
			continue
		}
		if !s.accepts(v) {
			continue
		}
		if why := t.rejects(v); why != 0 {
			c.differs(d, s, t, path, v, why)
		}
	}

	// Enumerated arrays and objects: each of s's, judged by t. An
	// enumeration of them in t alone is a finite set that s's infinitely
	// many arrays or objects are not compared with.
	if s.hasEnum {
		for _, e := range s.enum {
			if typeOf(e)&(tArray|tObject) != 0 && s.accepts(e) {
				if why := t.rejects(e); why != 0 {
					c.differs(d, s, t, path, e, why)
				}
			}
		}
	} else if t.composite && s.types&(tArray|tObject) != 0 {
		c.refusal(t, refusal{"enum", "undecidable-enum", "an enumeration of arrays or objects, against a version that enumerates none"}, path)
	}

	// Arrays: every length either bounds tells apart, then the items.
	if s.types&tArray != 0 && !s.hasEnum && len(s.refused) == 0 {
		lengthDiffers := false
		for _, l := range lengths(s, t) {
			// An array of one item repeated, and one of distinct items.
			for _, unique := range []bool{false, true} {
				arr, ok := arrayOf(s, t, l)
				if unique {
					if l < 2 {
						continue // no item to repeat
					}
					arr, ok = distinctItems(orAny(s.items, s, "/items"), t.items, l, nil)
				}
				if !ok || !s.accepts(arr) {
					continue
				}
				if why := t.rejects(arr); why&^rMember != 0 {
					c.differs(d, s, t, path, arr, why&^rMember)
					lengthDiffers = lengthDiffers || why&rType != 0
				}
			}
		}
		hasItems := s.maxItems == nil || *s.maxItems > 0
		if !lengthDiffers && hasItems && (s.items != nil || t.items != nil) { // two missing items accept alike
			c.walk(d, orAny(s.items, s, "/items"), orAny(t.items, t, "/items"), append(path, step{items: true}))
		}
	}

	// Objects. Without an object of s to show (when a member s requires
	// has a keyword the checker cannot decide, or a pattern it finds no
	// string for), what the checker cannot decide is the finding: the
	// refusals of those members, which break every direction.
	var base value = noWitness{}
	if b, ok := baseObject(s, t, "", false); ok {
		base = b
	} else if s.types&tObject == 0 || s.hasEnum || !s.unsure() {
		return // s accepts no object
	} else {
		c.refuseUnsure(s, path)
		return
	}
	// Required members and dependencies are compared one by one below.
	if why := t.rejects(base); why&^(rRequired|rMember|rDependent) != 0 {
		c.differs(d, s, t, path, base, why&^(rRequired|rMember|rDependent))
		return
	}
	for _, name := range t.required {
		if !s.isReq[name] && !s.forces(name) {
			var without value = noWitness{}
			if b, ok := baseObject(s, t, name, false); ok {
				without = b
			} else if !s.unsure() {
				continue // s has no message without it (its dependencies or counts)
			}
			c.differs(d, s, t, path, without, rRequired, name)
		}
	}
	c.objectCounts(d, s, t, path)
	c.dependencies(d, s, t, path)
	// A closed t rejects a member it does not declare: one s declares
	// (decision 13's assumption does not help: t says so itself), or one
	// neither declares, which an open s accepts (decision 3).
	if b, ok := base.(*object); ok && t.closed {
		for _, name := range append(s.names(), extraName(s, t)) {
			if t.props[name] != nil || !s.canCarry(name) {
				continue
			}
			sm := s.member(name)
			if sm == nil {
				sm = &node{types: tAll}
			}
			if v, ok := example(sm, nil); ok {
				if w, ok := settle(b.with(name, v), s, t, "", false); ok && s.accepts(w) && t.rejects(w)&rAdditional != 0 {
					c.differs(d, s, t, path, w, rAdditional, name)
				}
			}
		}
	}
	for _, name := range s.names() {
		tn := t.member(name)
		if tn == nil && t.judgesOthers() && !t.closedTo(name) {
			// t judges it as a member it does not declare.
			if m, ok := t.open(name); ok {
				tn = m
			}
		}
		if tn == nil {
			continue // the other direction sees it as open content
		}
		if !s.canCarry(name) {
			continue // s rejects every message that has it
		}
		if (s.patternJudges(name) || t.patternJudges(name)) && !sameJudges(s, t, name) {
			continue // refused where the regions are compared (others)
		}
		c.walk(d, s.member(name), tn, append(path, step{name: name}))
	}
	if b, ok := base.(*object); ok {
		c.others(d, s, t, path, b)
		c.propertyNames(d, s, t, path, b)
	}
	for _, name := range t.names() {
		if !s.declares(name) && s.canCarry(name) {
			c.openContent(d, s, t, path, name)
		}
	}
	c.defaults(d, s, t, path)
}

// orAny returns n, or for nil the node that accepts anything.
func orAny(n, parent *node, seg string) *node {
	if n != nil {
		return n
	}
	return &node{parent: parent, seg: seg, types: tAll}
}

// differs records that s accepts v and t rejects it for why (at path's
// member, named is the required member for rRequired).
func (c *checker) differs(d direction, s, t *node, path []step, v value, why reason, named ...string) {
	code, key, text := c.explain(d, s, t, v, why, named)
	pure := why&(why-1) == 0
	ptr := memberPointer(path)
	if len(named) > 0 {
		ptr = msg.Pointer(ptr, named[0]) // the member the witness lacks
	}
	c.add(d, code, key, pure, s, t, path, ptr, v, text)
}

// precedence orders the reasons by which a finding is named when a value
// is rejected for several.
var precedence = []reason{rType, rInt64, rEnum, rFormat, rPattern, rMinimum, rMaximum, rExMinimum, rExMaximum, rMinLength, rMaxLength, rMinItems, rMaxItems, rUnique, rMultipleOf, rRequired, rDependent, rMinProps, rMaxProps, rAdditional, rPropertyNames, rIMEI, rMember}

// valueKeywords are the keywords whose findings say only that the
// keyword's value changes: for each, the codes of its findings backward
// and forward, what the message calls it, and its value in a version.
var valueKeywords = map[reason]struct {
	backCode, fwdCode, what string
	value                   func(*node) string
}{
	rFormat:     {"format-changed", "format-changed", "format", formatText},
	rPattern:    {"pattern-changed", "pattern-changed", "pattern", patternText},
	rMinimum:    {"minimum-raised", "minimum-lowered", "minimum", func(n *node) string { return ratText(n.min) }},
	rMaximum:    {"maximum-lowered", "maximum-raised", "maximum", func(n *node) string { return ratText(n.max) }},
	rExMinimum:  {"exclusive-minimum-raised", "exclusive-minimum-lowered", "exclusive minimum", func(n *node) string { return ratText(n.exMin) }},
	rExMaximum:  {"exclusive-maximum-lowered", "exclusive-maximum-raised", "exclusive maximum", func(n *node) string { return ratText(n.exMax) }},
	rMultipleOf: {"multiple-of-changed", "multiple-of-changed", "multipleOf", func(n *node) string { return ratText(n.mult) }},
	rMinLength:  {"min-length-raised", "min-length-lowered", "minimum length", func(n *node) string { return strconv.Itoa(n.minLen) }},
	rMaxLength:  {"max-length-lowered", "max-length-raised", "maximum length", func(n *node) string { return lengthText(n.maxLen) }},
	rMinItems:   {"min-items-raised", "min-items-lowered", "minimum number of items", func(n *node) string { return lengthText(n.minItems) }},
	rMaxItems:   {"max-items-lowered", "max-items-raised", "maximum number of items", func(n *node) string { return lengthText(n.maxItems) }},
	rMinProps:   {"min-properties-raised", "min-properties-lowered", "minimum number of members", func(n *node) string { return lengthText(n.minProps) }},
	rMaxProps:   {"max-properties-lowered", "max-properties-raised", "maximum number of members", func(n *node) string { return lengthText(n.maxProps) }},
}

// explain names the difference: its code, its key among findings (one
// finding per code and member, and per value for enumerations and types),
// and its message.
func (c *checker) explain(d direction, s, t *node, v value, why reason, named []string) (code, key, msg string) {
	var first reason
	for _, r := range precedence {
		if why&r != 0 {
			first = r
			break
		}
	}
	back := d.mode == Backward
	o, n := d.oldNew(s, t)
	ov, nv := c.oldVersion, c.newVersion
	pick := func(backCode, fwdCode string) string {
		if back {
			return backCode
		}
		return fwdCode
	}
	text := jsonText(v)
	if k, ok := valueKeywords[first]; ok {
		msg = fmt.Sprintf("the %s changes from %s in %s to %s in %s, so %s accepts %s and %s does not; keep the %s, or publish a new major version",
			k.what, k.value(o), ov, k.value(n), nv, versionOf(back, ov, nv), text, versionOf(!back, ov, nv), k.what)
		return pick(k.backCode, k.fwdCode), key, msg
	}
	switch first {
	case rType, rInt64:
		what := typeName(typeOf(v))
		if first == rInt64 {
			what = "an integer beyond int64 (decision 2)"
		}
		code = pick("type-narrowed", "type-widened")
		if back {
			msg = fmt.Sprintf("%s no longer accepts %s here (type %s), which %s accepts (type %s); accept it again, or publish a new major version", nv, what, typeText(n), ov, typeText(o))
		} else {
			msg = fmt.Sprintf("%s accepts %s here (type %s), which %s rejects (type %s); consumers of %s would reject it: publish a new major version, or do not accept it", nv, what, typeText(n), ov, typeText(o), ov)
		}
	case rEnum:
		key = text
		switch {
		case back && s.hasEnum:
			code = "enum-value-removed"
			msg = fmt.Sprintf("%s drops %s from the enumeration; keep it, or publish a new major version", nv, text)
		case back:
			code = "enum-added"
			msg = fmt.Sprintf("%s restricts the member to an enumeration that lacks %s, which %s accepts; drop the enumeration, or publish a new major version", nv, text, ov)
		case s.hasEnum:
			code = "enum-value-added"
			msg = fmt.Sprintf("%s adds %s to the enumeration, which consumers of %s reject; publish it in a new major version", nv, text, ov)
		default:
			code = "enum-removed"
			msg = fmt.Sprintf("%s drops the enumeration, so accepts %s, which consumers of %s reject; keep the enumeration, or publish a new major version", nv, text, ov)
		}
	case rAdditional:
		name := memberNamed(named, v, func(name string) bool { return t.props[name] == nil })
		key = name
		code = pick("additional-properties-closed", "additional-properties-opened")
		msg = fmt.Sprintf("%s accepts the member %s here and %s, which allows only the members it declares, rejects it; keep the object open, or publish a new major version",
			versionOf(back, ov, nv), strconv.Quote(name), versionOf(!back, ov, nv))
	case rPropertyNames:
		name := memberNamed(named, v, func(name string) bool { return t.propNames != nil && t.propNames.rejects(name) != 0 })
		key = name
		code = pick("property-names-narrowed", "property-names-widened")
		msg = fmt.Sprintf("%s accepts a member named %s here and %s, whose propertyNames rejects the name, does not; keep propertyNames as it was, or publish a new major version",
			versionOf(back, ov, nv), strconv.Quote(name), versionOf(!back, ov, nv))
	case rUnique:
		code = pick("unique-items-added", "unique-items-removed")
		msg = fmt.Sprintf("%s requires the items to be unique and %s does not, so %s accepts %s and %s does not; keep uniqueItems as it was, or publish a new major version",
			versionOf(!back, ov, nv), versionOf(back, ov, nv), versionOf(back, ov, nv), text, versionOf(!back, ov, nv))
	case rDependent:
		if len(named) < 2 {
			panic("compat: a dependency's finding without its members")
		}
		on, then := named[0], named[1]
		key = on + " " + then
		code = pick("dependency-added", "dependency-removed")
		msg = fmt.Sprintf("%s requires the member %s wherever %s is present and %s does not, so %s accepts %s and %s does not; keep the dependencies as they were, or publish a new major version",
			versionOf(!back, ov, nv), strconv.Quote(then), strconv.Quote(on), versionOf(back, ov, nv), versionOf(back, ov, nv), text, versionOf(!back, ov, nv))
	case rRequired:
		name := named[0]
		key = name
		if back {
			code = "required-added"
			msg = fmt.Sprintf("%s requires the member %s, which messages of %s may lack; make it optional, or publish a new major version", nv, strconv.Quote(name), ov)
		} else {
			code = "required-removed"
			msg = fmt.Sprintf("%s no longer requires the member %s, which consumers of %s require; keep it required, or publish a new major version", nv, strconv.Quote(name), ov)
		}
	default:
		// rIMEI and rMember never tell two versions apart: decision 6 is
		// the same in every version, and members are compared one by one.
		code = pick("type-narrowed", "type-widened")
		msg = fmt.Sprintf("%s accepts %s and %s does not", versionOf(back, ov, nv), text, versionOf(!back, ov, nv))
	}
	return code, key, msg
}

// memberNamed returns the member a finding is about: the one named, or
// else the first member of the object v for which is holds.
func memberNamed(named []string, v value, is func(name string) bool) string {
	if len(named) > 0 {
		return named[0]
	}
	if obj, ok := v.(*object); ok {
		for _, m := range obj.members {
			if is(m.name) {
				return m.name
			}
		}
	}
	return ""
}

func versionOf(old bool, ov, nv string) string {
	if old {
		return ov
	}
	return nv
}

func typeText(n *node) string {
	if n.types == tAll {
		return "any"
	}
	var names []string
	for _, t := range []struct {
		bits uint8
		name string
	}{{tNull, "null"}, {tBoolean, "boolean"}, {tInteger | tFraction, "number"}, {tInteger, "integer"}, {tString, "string"}, {tArray, "array"}, {tObject, "object"}} {
		if n.types&t.bits == t.bits && !(t.name == "integer" && n.types&tFraction != 0) {
			names = append(names, t.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

func formatText(n *node) string {
	if n.format == "" {
		return "none"
	}
	return n.format
}

func ratText(r *big.Rat) string {
	if r == nil {
		return "none"
	}
	return decimal(r)
}

// refusal records a keyword the checker cannot decide: a break in every
// direction checked, without a witness.
func (c *checker) refusal(n *node, r refusal, path []step) {
	ptr := msg.Pointer(n.pointer(), r.keyword)
	if r.keyword == "$schema" {
		ptr = "/$schema"
	}
	key := "refusal " + r.code + " " + ptr
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.append(Finding{
		Code: r.code, Breaks: c.opt.mode(), Direction: c.opt.mode(),
		SchemaPointer: ptr, MemberPointer: memberPointer(path),
		Message: fmt.Sprintf("%s uses %s; the checker cannot tell what changes, so it counts this as a break both ways", c.newVersion, r.why),
	})
}

// add records a difference found with witness value v at path, unless a
// finding of the same key is already made; a pure witness (rejected for
// one reason alone) replaces an impure one.
func (c *checker) add(d direction, code, key string, pure bool, s, t *node, path []step, memberPtr string, v value, msg string) {
	o, n := d.oldNew(s, t)
	ptr := n.pointer()
	if n.seg == "/required" {
		ptr = o.pointer()
	}
	switch code {
	case "required-added":
		ptr = n.pointer() + "/required"
	case "required-removed":
		ptr = o.pointer() + "/required"
	}
	k := fmt.Sprintf("%d %s %s %q", d.mode, code, memberPtr, key)
	f := Finding{
		Code: code, Breaks: d.mode, Direction: d.mode,
		SchemaPointer: ptr, MemberPointer: memberPtr, Message: msg,
	}
	if code == "open-content" {
		f.Warning = !c.opt.Strict
		if f.Warning {
			f.Breaks = 0
		}
	}
	i, seen := c.index[k]
	if seen && (i < 0 || !pure || c.report.Findings[i].pure) {
		return
	}
	if !seen && c.spent(f.Breaks) {
		c.index[k] = -1
		return
	}
	if _, none := v.(noWitness); !none {
		if w, ok := embed(d.src, d.dst, path, v); ok {
			f.Witness = []byte(jsonText(w))
		}
	}
	if f.Witness == nil {
		f.Message += " (no witness: the schema leaves no message the checker can vouch for)"
	}
	f.key, f.pure = k, pure
	if seen {
		c.report.Findings[i] = f // a purer witness of the same finding
		return
	}
	c.index[k] = -1
	if c.append(f) {
		c.index[k] = len(c.report.Findings) - 1
	}
}

// spent reports whether the report's budget is spent, counting the
// finding it keeps from being made (one that breaks, if breaks is set).
func (c *checker) spent(breaks Mode) bool {
	if c.budget > 0 {
		return false
	}
	c.report.Omitted++
	c.report.OmittedBreaks = c.report.OmittedBreaks || breaks != 0
	return true
}

// append adds f to the report, within its size budget, and reports
// whether it did.
func (c *checker) append(f Finding) bool {
	size := len(f.Witness) + len(f.Message) + len(f.SchemaPointer) + len(f.MemberPointer) + 64
	if c.budget < size {
		c.budget = 0
		c.report.Omitted++
		c.report.OmittedBreaks = c.report.OmittedBreaks || f.Breaks != 0
		return false
	}
	c.budget -= size
	c.report.Findings = append(c.report.Findings, f)
	return true
}

// openContent records a member t declares and s does not: s's messages
// do not carry it (decision 13's assumption); without the assumption they
// could, with a value t rejects.
func (c *checker) openContent(d direction, s, t *node, path []step, name string) {
	tn := t.member(name)
	anything, ok := s.open(name)
	if !ok {
		return // refused: a pattern matches a declared name (see others)
	}
	for _, v := range scalars(anything, tn) {
		if anything.accepts(v) && tn.rejects(v) != 0 {
			c.openContentFinding(d, s, t, path, name, v)
			return
		}
	}
	for _, v := range []value{[]value{}, &object{}} {
		if anything.accepts(v) && tn.rejects(v) != 0 {
			c.openContentFinding(d, s, t, path, name, v)
			return
		}
	}
}

func (c *checker) openContentFinding(d direction, s, t *node, path []step, name string, v value) {
	var msg string
	if d.mode == Backward {
		msg = fmt.Sprintf("%s adds the member %s: compatible only if no message of %s carries it as an unknown member (decision 13); this one does, and %s rejects it",
			c.newVersion, strconv.Quote(name), c.oldVersion, c.newVersion)
	} else {
		msg = fmt.Sprintf("%s removes the member %s: compatible only if no message of %s carries it as an unknown member (decision 13); this one does, and %s rejects it",
			c.newVersion, strconv.Quote(name), c.newVersion, c.oldVersion)
	}
	member := append(path[:len(path):len(path)], step{name: name})
	// The witness sets the member on a message of s, which t judges.
	c.addOpen(d, s, t, member, name, v, msg)
}

// addOpen records an open-content finding: the witness is s's base object
// with the member set, judged by t, whose node for the member is at the
// end of path.
func (c *checker) addOpen(d direction, s, t *node, path []step, name string, v value, msg string) {
	k := fmt.Sprintf("%d open-content %s", d.mode, memberPointer(path))
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	breaks := d.mode
	if !c.opt.Strict {
		breaks = 0
	}
	if c.spent(breaks) {
		return
	}
	f := Finding{Code: "open-content", Breaks: d.mode, Direction: d.mode, Message: msg, MemberPointer: memberPointer(path)}
	f.SchemaPointer = t.member(name).pointer()
	if !c.opt.Strict {
		f.Warning, f.Breaks = true, 0
	}
	parentPath := path[:len(path)-1]
	if base, ok := baseObject(s, t, name, false); ok {
		// With the member, what s's dependencies require of it.
		if o, ok := settle(base.with(name, v), s, t, "", false); ok {
			if w, ok := embed(d.src, d.dst, parentPath, o); ok {
				f.Witness = []byte(jsonText(w))
			}
		}
	}
	if f.Witness == nil {
		f.Message += " (no witness: the schema leaves no message the checker can vouch for)"
	}
	c.append(f)
}

// defaults records members both versions declare, optional in both, whose
// defaults differ: absent, they decode to different values.
func (c *checker) defaults(d direction, s, t *node, path []step) {
	o, n := d.oldNew(s, t)
	for _, name := range o.order {
		on, nn := o.props[name], n.props[name]
		if nn == nil || o.isReq[name] || n.isReq[name] {
			continue
		}
		if on.def == nil && nn.def == nil || on.def != nil && nn.def != nil && equal(*on.def, *nn.def) {
			continue
		}
		member := append(path[:len(path):len(path)], step{name: name})
		k := "default-changed " + memberPointer(member)
		if c.seen[k] {
			continue
		}
		c.seen[k] = true
		if c.spent(c.opt.mode()) {
			continue
		}
		f := Finding{
			Code: "default-changed", Breaks: c.opt.mode(), Direction: Full,
			SchemaPointer: nn.pointer() + "/default", MemberPointer: memberPointer(member),
			Message: fmt.Sprintf("the default changes from %s in %s to %s in %s, so a message without the member means something else to each; keep the default, or publish a new major version",
				defaultText(on), c.oldVersion, defaultText(nn), c.newVersion),
		}
		// A message both versions accept, without the member.
		if base, ok := baseObject(o, n, name, true); ok {
			if w, ok := embedBoth(c.old, c.new, path, base); ok {
				f.Witness = []byte(jsonText(w))
			}
		}
		if f.Witness == nil {
			f.Message += " (no witness: no message accepted by both versions leaves the member out)"
		}
		c.append(f)
	}
}

func defaultText(n *node) string {
	if n.def == nil {
		return "none"
	}
	return jsonText(*n.def)
}

// embed returns a message src accepts whose member at path is v, built
// from the members src requires; dst must judge the member at path by
// the node it has there. It fails where it cannot vouch for the message.
func embed(src, dst *node, path []step, v value) (value, bool) {
	if len(src.refused) > 0 || dst != nil && len(dst.refused) > 0 {
		return nil, false
	}
	if len(path) == 0 {
		return v, true
	}
	st := path[0]
	if st.items {
		var dItems *node
		if dst != nil {
			dItems = orAny(dst.items, dst, "/items")
		}
		child, ok := embed(orAny(src.items, src, "/items"), dItems, path[1:], v)
		if !ok {
			return nil, false
		}
		return padded(src, dst, child)
	}
	var dm *node
	if dst != nil {
		dm = dst.member(st.name)
	}
	if src.closedTo(st.name) {
		return nil, false // src rejects every message that has it
	}
	sm := src.member(st.name)
	if sm == nil {
		// The member is open content in src: what its patternProperties
		// or additionalProperties allow.
		var ok bool
		if sm, ok = src.open(st.name); !ok {
			return nil, false
		}
	}
	child, ok := embed(sm, dm, path[1:], v)
	if !ok {
		return nil, false
	}
	base, ok := baseObject(src, dst, st.name, false)
	if !ok {
		return nil, false
	}
	// With the member, what src's dependencies require of it.
	w, ok := settle(base.with(st.name, child), src, dst, "", false)
	if !ok {
		return nil, false
	}
	for i := 0; src.maxProps != nil && len(w.members) > *src.maxProps && i < len(w.members); {
		// The member takes the place of one added only to count.
		if name := w.members[i].name; name != st.name && !src.forces(name) && !dependedOn(w, src, name) {
			w.members = slices.Delete(w.members, i, i+1)
			continue
		}
		i++
	}
	return w, true
}

// dependedOn reports whether a dependency of n requires the member name
// of o, because of another member o has.
func dependedOn(o *object, n *node, name string) bool {
	for _, d := range n.deps {
		if _, ok := o.get(d.on); ok && slices.Contains(d.then, name) {
			return true
		}
	}
	return false
}

// embedBoth is embed for a message both versions must accept.
func embedBoth(a, b *node, path []step, v value) (value, bool) {
	if len(a.refused) > 0 || len(b.refused) > 0 {
		return nil, false
	}
	if len(path) == 0 {
		return v, a.accepts(v) && b.accepts(v)
	}
	st := path[0]
	if st.items {
		child, ok := embedBoth(orAny(a.items, a, "/items"), orAny(b.items, b, "/items"), path[1:], v)
		if !ok {
			return nil, false
		}
		arr, ok := padded(a, b, child)
		return arr, ok && a.accepts(arr) && b.accepts(arr)
	}
	am, bm := a.member(st.name), b.member(st.name)
	if am == nil || bm == nil {
		return nil, false
	}
	child, ok := embedBoth(am, bm, path[1:], v)
	if !ok {
		return nil, false
	}
	base, ok := baseObject(a, b, st.name, true)
	if !ok {
		return nil, false
	}
	w := base.with(st.name, child)
	return w, a.accepts(w) && b.accepts(w)
}

// memberPointer returns the JSON Pointer of the member path leads to, in
// the witness: an array's first item is /0.
func memberPointer(path []step) string {
	var b strings.Builder
	for _, st := range path {
		if st.items {
			b.WriteString("/0")
		} else {
			b.WriteString(msg.Pointer("", st.name))
		}
	}
	return b.String()
}

func lengthText(l *int) string {
	if l == nil {
		return "none"
	}
	return strconv.Itoa(*l)
}

// extraName returns a member name neither a nor b declares, for an
// object's undeclared member.
func extraName(a, b *node) string {
	for i := 0; ; i++ {
		name := "extra" + strings.Repeat("_", i)
		if !a.declares(name) && !b.declares(name) {
			return name
		}
	}
}

func patternText(n *node) string {
	if n.pattern == nil {
		return "none"
	}
	return jsonText(*n.pattern)
}

// objectCounts finds the counts of members s accepts and t rejects: for
// each count either bound tells apart, an object of s with that many.
func (c *checker) objectCounts(d direction, s, t *node, path []step) {
	if s.minProps == nil && s.maxProps == nil && t.minProps == nil && t.maxProps == nil {
		return
	}
	counts := []int{0, 1}
	for _, n := range []*node{s, t} {
		for _, l := range []*int{n.minProps, n.maxProps} {
			if l != nil {
				counts = append(counts, *l-1, *l, *l+1)
			}
		}
	}
	for _, n := range counts {
		o, ok := objectOfCount(s, t, n)
		if !ok || !s.accepts(o) {
			continue
		}
		if why := t.rejects(o) & (rMinProps | rMaxProps); why != 0 {
			c.differs(d, s, t, path, o, why)
		}
	}
}

// objectOfCount returns an object s accepts with n members, false if it
// finds none.
func objectOfCount(s, t *node, n int) (*object, bool) {
	if n < 0 {
		return nil, false
	}
	o, ok := baseObject(s, t, "", false)
	if !ok {
		return nil, false
	}
	for i := 0; len(o.members) > n && i < len(o.members); {
		if name := o.members[i].name; !s.isReq[name] && !s.forces(name) {
			o.members = slices.Delete(o.members, i, i+1)
			continue
		}
		i++
	}
	if len(o.members) < n {
		grown := *s
		grown.minProps = &n
		if o, ok = settle(o, &grown, t, "", false); !ok {
			return nil, false
		}
	}
	return o, len(o.members) == n
}

// forces reports whether an object n accepts must have the member name:
// it is required, or a dependency of a member that is.
func (n *node) forces(name string) bool {
	seen := map[string]bool{}
	var visit func(string) bool
	visit = func(m string) bool {
		if m == name {
			return true
		}
		if seen[m] {
			return false
		}
		seen[m] = true
		for _, d := range n.deps {
			if d.on == m && slices.ContainsFunc(d.then, visit) {
				return true
			}
		}
		return false
	}
	return slices.ContainsFunc(n.required, visit)
}

// dependencies finds, for each dependency of t, an object s accepts that
// has the member it depends on and lacks one it requires.
func (c *checker) dependencies(d direction, s, t *node, path []step) {
	for _, dep := range t.deps {
		if !s.canCarry(dep.on) || !s.declares(dep.on) && t.declares(dep.on) {
			continue // s's messages never carry it
		}
		for _, then := range dep.then {
			o, ok := baseObject(s, t, then, false)
			if !ok {
				continue
			}
			if _, has := o.get(dep.on); !has {
				sm := s.member(dep.on)
				if sm == nil {
					sm = &node{types: tAll}
				}
				v, ok := example(sm, t.member(dep.on))
				if !ok {
					if v, ok = example(sm, nil); !ok {
						continue
					}
				}
				o.members = append(o.members, member{dep.on, v})
				if o, ok = settle(o, s, t, then, false); !ok {
					continue
				}
			}
			if _, has := o.get(then); !has && s.accepts(o) && t.rejects(o)&rDependent != 0 {
				c.differs(d, s, t, path, o, rDependent, dep.on, then)
			}
		}
	}
}

// refuseUnsure records the refusals that keep the checker from showing
// an object n accepts: of the members n requires, at any depth.
func (c *checker) refuseUnsure(n *node, path []step) {
	for _, r := range n.refused {
		c.refusal(n, r, path)
	}
	if len(n.refused) == 0 && n.hardPattern() {
		c.refusal(n, refusal{"pattern", "undecidable-pattern", "a pattern beside a format or the IMEI rule, or beyond the checker's bounds, for which it finds no string"}, path)
	}
	for _, name := range n.required {
		if n.patternJudges(name) {
			c.refusal(n, refusal{"patternProperties", "undecidable-pattern", fmt.Sprintf("a pattern of patternProperties that matches the required member %s, which it judges beside properties", strconv.Quote(name))}, path)
		}
	}
	for _, name := range n.required {
		if m := n.member(name); m != nil && m.unsure() {
			c.refuseUnsure(m, append(path[:len(path):len(path)], step{name: name}))
		}
	}
}

// canCarry reports whether an object n accepts may have the member name:
// n is not closed to it, and its members it must have leave room for it
// under its maxProperties.
func (n *node) canCarry(name string) bool {
	if n.closedTo(name) {
		return false
	}
	if n.maxProps == nil || n.forces(name) {
		return true
	}
	forced := 0
	for _, m := range n.names() {
		if n.forces(m) {
			forced++
		}
	}
	for _, d := range n.deps {
		for _, m := range d.then {
			if !n.declares(m) && n.forces(m) {
				forced++
			}
		}
	}
	return forced < *n.maxProps
}
