package compat

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fleetkit/catalogue/imei"
	"github.com/fleetkit/catalogue/msg"
)

// reason is a set of the causes for which a node rejects a value.
type reason uint32

const (
	rType          reason = 1 << iota // not one of the node's types
	rInt64                            // an integer beyond int64 in a member typed integer (decision 2)
	rEnum                             // not in the enumeration
	rFormat                           // not of the format
	rMinimum                          // below the minimum
	rMaximum                          // above the maximum
	rMinLength                        // shorter than the minimum length
	rPattern                          // does not match the pattern
	rIMEI                             // neither "" nor a valid IMEI (decision 6)
	rRequired                         // an object lacks a required member
	rMember                           // a member or item is rejected
	rMaxLength                        // longer than the maximum length
	rExMinimum                        // not above the exclusive minimum
	rExMaximum                        // not below the exclusive maximum
	rMinItems                         // fewer items than the minimum
	rMaxItems                         // more items than the maximum
	rAdditional                       // a member a closed object does not declare
	rMultipleOf                       // not a multiple of multipleOf
	rUnique                           // two items are equal
	rMinProps                         // fewer members than the minimum
	rMaxProps                         // more members than the maximum
	rDependent                        // a member present lacks one it requires
	rPropertyNames                    // a member's name is not one propertyNames allows
)

var (
	minInt64 = new(big.Rat).SetInt64(-1 << 63)
	maxInt64 = new(big.Rat).SetInt64(1<<63 - 1)
)

// noWitness stands for an object the checker cannot show: one that
// a member with a keyword it cannot decide keeps it from building.
type noWitness struct{}

// unsure reports whether a keyword the checker cannot decide may keep it
// from showing an object n accepts: on a member n requires, at any depth.
func (n *node) unsure() bool {
	if len(n.refused) > 0 || n.hardPattern() {
		return true
	}
	for _, r := range n.required {
		if m := n.member(r); m != nil && m.unsure() || n.patternJudges(r) {
			return true
		}
	}
	return false
}

// hardPattern reports whether n's pattern may keep the checker from
// finding a string n accepts where there is one: beside a format or the
// IMEI rule, which are not regular, or beyond the bounds of its search.
func (n *node) hardPattern() bool {
	if n.pattern == nil || n.hasEnum {
		return false
	}
	if n.regexp == nil || n.format != "" || n.imei {
		return true
	}
	_, ok := regularStrings(n, nil)
	return !ok
}

// typeOf returns the type bit of v.
func typeOf(v value) uint8 {
	switch v := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case *big.Rat:
		if v.IsInt() {
			return tInteger
		}
		return tFraction
	case string:
		return tString
	case []value:
		return tArray
	}
	return tObject
}

// typeName names the type bit t for a message.
func typeName(t uint8) string {
	switch t {
	case tNull:
		return "null"
	case tBoolean:
		return "a boolean"
	case tInteger:
		return "an integer"
	case tFraction:
		return "a number that is not an integer"
	case tString:
		return "a string"
	case tArray:
		return "an array"
	}
	return "an object"
}

// rejects returns every reason n rejects v for; 0 means n accepts v.
func (n *node) rejects(v value) reason {
	var r reason
	t := typeOf(v)
	if n.types&t == 0 {
		r |= rType
	}
	if n.hasEnum && !n.enumerates(v) {
		r |= rEnum
	}
	switch v := v.(type) {
	case *big.Rat:
		if n.intRule && v.IsInt() && (v.Cmp(minInt64) < 0 || v.Cmp(maxInt64) > 0) {
			r |= rInt64
		}
		if n.min != nil && v.Cmp(n.min) < 0 {
			r |= rMinimum
		}
		if n.max != nil && v.Cmp(n.max) > 0 {
			r |= rMaximum
		}
		if n.mult != nil && !new(big.Rat).Quo(v, n.mult).IsInt() {
			r |= rMultipleOf
		}
		if n.exMin != nil && v.Cmp(n.exMin) <= 0 {
			r |= rExMinimum
		}
		if n.exMax != nil && v.Cmp(n.exMax) >= 0 {
			r |= rExMaximum
		}
	case string:
		if n.minLen > 0 && utf8.RuneCountInString(v) < n.minLen {
			r |= rMinLength
		}
		if n.maxLen != nil && utf8.RuneCountInString(v) > *n.maxLen {
			r |= rMaxLength
		}
		if n.format != "" && !formats[n.format](v) {
			r |= rFormat
		}
		if n.regexp != nil && !n.regexp.MatchString(v) {
			r |= rPattern
		}
		if n.imei && v != "" && !imei.Valid(v) {
			r |= rIMEI
		}
	case []value:
		if n.minItems != nil && len(v) < *n.minItems {
			r |= rMinItems
		}
		if n.maxItems != nil && len(v) > *n.maxItems {
			r |= rMaxItems
		}
		if n.unique && !distinct(v) {
			r |= rUnique
		}
		items := n.items
		for _, e := range v {
			if items != nil && items.rejects(e) != 0 {
				r |= rMember
				break
			}
		}
	case *object:
		for _, name := range n.required {
			if _, ok := v.get(name); !ok {
				r |= rRequired
				break
			}
		}
		for _, m := range v.members {
			if p := n.member(m.name); p != nil && p.rejects(m.value) != 0 {
				r |= rMember
			}
			others, closed := n.others(m.name)
			if closed {
				r |= rAdditional
			}
			for _, p := range others {
				if p.rejects(m.value) != 0 {
					r |= rMember
				}
			}
		}
		if n.propNames != nil {
			for _, m := range v.members {
				if n.propNames.rejects(m.name) != 0 {
					r |= rPropertyNames
				}
			}
		}
		if n.minProps != nil && len(v.members) < *n.minProps {
			r |= rMinProps
		}
		if n.maxProps != nil && len(v.members) > *n.maxProps {
			r |= rMaxProps
		}
		for _, d := range n.deps {
			if _, ok := v.get(d.on); !ok {
				continue
			}
			for _, name := range d.then {
				if _, ok := v.get(name); !ok {
					r |= rDependent
				}
			}
		}
	}
	return r
}

func (n *node) accepts(v value) bool { return n.rejects(v) == 0 }

// enumerates reports whether v is in n's enumeration, by JSON equality:
// by their canonical text, in which equal values are written alike.
func (n *node) enumerates(v value) bool {
	if _, ok := v.(noWitness); ok {
		return false
	}
	return n.enumSet[canonText(v)]
}

// canonText returns v as JSON text in which equal values are written
// alike: numbers by their value (jsonText does), the members of objects
// sorted by name.
func canonText(v value) string {
	switch v := v.(type) {
	case []value:
		var b strings.Builder
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(canonText(e))
		}
		return b.String() + "]"
	case *object:
		ms := slices.Clone(v.members)
		slices.SortFunc(ms, func(x, y member) int { return strings.Compare(x.name, y.name) })
		var b strings.Builder
		b.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonText(m.name) + ":" + canonText(m.value))
		}
		return b.String() + "}"
	}
	return jsonText(v)
}

// distinct reports whether no two items of a are equal.
func distinct(a []value) bool {
	for i := range a {
		for j := range i {
			if equal(a[i], a[j]) {
				return false
			}
		}
	}
	return true
}

// equal reports whether two JSON values are equal, numbers by value.
func equal(a, b value) bool {
	switch a := a.(type) {
	case *big.Rat:
		b, ok := b.(*big.Rat)
		return ok && a.Cmp(b) == 0
	case []value:
		b, ok := b.([]value)
		return ok && slices.EqualFunc(a, b, equal)
	case *object:
		b, ok := b.(*object)
		if !ok || len(a.members) != len(b.members) {
			return false
		}
		for _, m := range a.members {
			w, ok := b.get(m.name)
			if !ok || !equal(m.value, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// scalars returns values of every JSON type but arrays and objects such
// that, for any difference between what a and b accept among scalars, one
// of them shows it. Each accepted set is a union of cells, and the
// candidates hold a value of every cell:
//
//   - numbers: a node's verdict on a number changes only at its bounds, its
//     enumerated values and the ends of int64, and otherwise depends only
//     on whether the number is an integer; so the candidates are those
//     points and an integer and a non-integer of every interval between
//     them;
//   - strings: a verdict depends on the string's class (empty, uuid,
//     date-time, valid IMEI, anything else), on its length relative to the
//     minimum lengths, and on its being enumerated; so the candidates are
//     the enumerated strings and one string of every class and length
//     interval that no enumeration holds. Patterns break this, which is why
//     two strings parts are compared only when patternsDecidable says so.
//
// They come in an order that makes good examples: integers, small first,
// then other numbers, booleans, strings, null.
func scalars(a, b *node) []value {
	var enums []value
	for _, n := range []*node{a, b} {
		if n != nil {
			enums = append(enums, n.enum...)
		}
	}
	out := numbers(a, b, enums)
	out = append(out, true, false)
	out = append(out, stringsOf(a, b, enums)...)
	return append(out, nil)
}

// numbers returns the number candidates of a and b.
func numbers(a, b *node, enums []value) []value {
	var points []*big.Rat
	intRule := false
	for _, n := range []*node{a, b} {
		if n == nil {
			continue
		}
		for _, r := range []*big.Rat{n.min, n.max, n.exMin, n.exMax} {
			if r != nil {
				points = append(points, r)
			}
		}
		intRule = intRule || n.intRule
	}
	for _, e := range enums {
		if r, ok := e.(*big.Rat); ok {
			points = append(points, r)
		}
	}
	if intRule {
		points = append(points, minInt64, maxInt64)
	}
	slices.SortFunc(points, (*big.Rat).Cmp)
	points = slices.CompactFunc(points, func(x, y *big.Rat) bool { return x.Cmp(y) == 0 })

	var cands []*big.Rat
	cands = append(cands, points...)
	half := big.NewRat(1, 2)
	one := big.NewRat(1, 1)
	if len(points) == 0 {
		cands = append(cands, new(big.Rat), half)
	} else {
		// Below the first point and above the last.
		lo := floor(points[0])
		if lo.Cmp(points[0]) == 0 {
			lo.Sub(lo, one)
		}
		cands = append(cands, lo, new(big.Rat).Sub(lo, half))
		hi := floor(points[len(points)-1])
		hi.Add(hi, one)
		cands = append(cands, hi, new(big.Rat).Add(hi, half))
	}
	for i := 0; i+1 < len(points); i++ {
		x, y := points[i], points[i+1]
		n := floor(x)
		n.Add(n, one) // the least integer above x
		if n.Cmp(y) < 0 {
			cands = append(cands, n)
			cands = append(cands, mid(x, n)) // no integer lies strictly between x and n
		} else {
			cands = append(cands, mid(x, y))
		}
	}
	cands = append(cands, multiples(a, b, points)...)
	// A few familiar values make nicer examples when they fall in a cell.
	cands = append(cands, new(big.Rat), big.NewRat(1, 1))
	slices.SortStableFunc(cands, func(x, y *big.Rat) int {
		if x.IsInt() != y.IsInt() {
			if x.IsInt() {
				return -1
			}
			return 1
		}
		return new(big.Rat).Abs(x).Cmp(new(big.Rat).Abs(y))
	})
	cands = slices.CompactFunc(cands, func(x, y *big.Rat) bool { return x.Cmp(y) == 0 })
	out := make([]value, len(cands))
	for i, c := range cands {
		out[i] = c
	}
	return out
}

func floor(r *big.Rat) *big.Rat {
	q := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: rounds toward -inf for a positive divisor
	return new(big.Rat).SetInt(q)
}

func mid(x, y *big.Rat) *big.Rat {
	m := new(big.Rat).Add(x, y)
	return m.Quo(m, big.NewRat(2, 1))
}

// stringsOf returns the string candidates of a and b.
func stringsOf(a, b *node, enums []value) []value {
	var out []value
	taken := map[string]bool{}
	for _, e := range enums {
		if s, ok := e.(string); ok && !taken[s] {
			taken[s] = true
			out = append(out, s)
		}
	}
	bounds := []int{0}
	for _, n := range []*node{a, b} {
		if n != nil && n.minLen > 0 {
			bounds = append(bounds, n.minLen)
		}
		if n != nil && n.maxLen != nil {
			// The lengths above the maximum begin a cell of their own.
			bounds = append(bounds, *n.maxLen+1)
		}
	}
	bounds = append(bounds, formatCuts(a, b)...)
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	// cells are the length intervals [bounds[i], bounds[i+1]).
	inCell := func(length int) []int {
		var ls []int
		for i, lo := range bounds {
			hi := -1
			if i+1 < len(bounds) {
				hi = bounds[i+1]
			}
			l := max(lo, length)
			if hi < 0 || l < hi {
				ls = append(ls, l)
			}
		}
		return ls
	}
	add := func(s string) {
		if !taken[s] {
			taken[s] = true
			out = append(out, s)
		}
	}
	// Anything else: not empty, and of no format. Lowercase letters are
	// never a uuid, date-time or IMEI.
	for _, l := range inCell(1) {
		add(fresh(taken, func(i int) string { return strings.Repeat(string(rune('x'+i%3)), l) + suffix(i) }))
	}
	add(fresh(taken, func(i int) string { return fmt.Sprintf("5f0c3a5e-8f5b-4c1e-9a39-%012x", 0x0d2b7c9e1a44+i) }))
	for _, l := range inCell(20) {
		if l == 21 {
			l = 22 // no date-time has 21 characters
		}
		add(fresh(taken, func(i int) string { return dateTimeOfLength(i, l) }))
	}
	// The other formats of a and b, in every cell, and strings of none
	// that are not even host names.
	var fs []string
	for _, n := range []*node{a, b} {
		if n != nil && n.format != "" && n.format != "uuid" && n.format != "date-time" && !slices.Contains(fs, n.format) {
			fs = append(fs, n.format)
		}
	}
	if len(fs) > 0 {
		fs = append(fs, "")
	}
	for _, f := range fs {
		for c, lo := range bounds {
			hi := -1
			if c+1 < len(bounds) {
				hi = bounds[c+1]
			}
			for l := max(lo, 1); l < lo+16 && (hi < 0 || l < hi); l++ {
				if f == "" {
					add(fresh(taken, func(i int) string { return underscores(i, l) }))
					break
				}
				if _, ok := ofLength(f, 0, l); ok {
					add(fresh(taken, func(i int) string { s, _ := ofLength(f, i, l); return s }))
					break
				}
			}
		}
	}
	add(fresh(taken, func(i int) string {
		body := fmt.Sprintf("%014d", 49015420323751+i)
		d, _ := imei.CheckDigit(body)
		return body + strconv.Itoa(d)
	}))
	add("")
	// A pattern's strings: a shortest of each kind regularStrings finds.
	if a != nil && (a.prog != nil || b != nil && b.prog != nil) {
		strs, _ := regularStrings(a, b)
		for _, s := range strs {
			add(s)
		}
	}
	return out
}

// suffix makes the i-th of a family of strings differ from the others
// once the three letters are used up, keeping it free of formats.
func suffix(i int) string {
	if i < 3 {
		return ""
	}
	return strings.Repeat("q", i/3)
}

// fresh returns the first gen(i) not taken; a family of strings that an
// enumeration exhausts (a schema would have to list thousands of them)
// gives its first again rather than loop.
func fresh(taken map[string]bool, gen func(int) string) string {
	for i := 0; i < 1<<14; i++ {
		if s := gen(i); !taken[s] {
			return s
		}
	}
	return gen(0)
}

// dateTimeOfLength returns the i-th date-time of length l, which is 20 or
// at least 22: with a fraction of l-21 digits when l is over 20.
func dateTimeOfLength(i, l int) string {
	day := fmt.Sprintf("2019-01-%02dT00:00:%02d", 1+i%28, i/28%60)
	if l == 20 {
		if i >= 28*60 {
			return day + "." + strconv.Itoa(i) + "Z" // longer: taken sets are far smaller
		}
		return day + "Z"
	}
	frac := fmt.Sprintf("%0*d", l-21, i)
	return day[:len("2019-01-01T00:00:00")] + "." + frac[len(frac)-(l-21):] + "Z"
}

// patternsDecidable reports whether the checker can compare the strings a
// accepts and b rejects exactly: when neither has a pattern; when a
// enumerates its strings (every one is a candidate); when their patterns
// and every other keyword on strings are the same; or when the strings
// both accept are regular languages (a pattern and bounds on the length,
// without format or IMEI rule; an enumeration is a finite language),
// whose difference regularStrings searches.
func patternsDecidable(a, b *node) bool {
	if a.pattern == nil && b.pattern == nil || a.types&tString == 0 {
		return true
	}
	if a.pattern != nil && a.regexp == nil || b.pattern != nil && b.regexp == nil {
		return false
	}
	if a.hasEnum {
		return true
	}
	if a.pattern != nil && b.pattern != nil && *a.pattern == *b.pattern {
		sameEnum := a.hasEnum == b.hasEnum && len(a.enum) == len(b.enum) &&
			!slices.ContainsFunc(a.enum, func(e value) bool { return b.rejects(e)&rEnum != 0 })
		sameMax := (a.maxLen == nil) == (b.maxLen == nil) && (a.maxLen == nil || *a.maxLen == *b.maxLen)
		if a.types&tString == b.types&tString && a.format == b.format && a.minLen == b.minLen && sameMax && a.imei == b.imei && sameEnum {
			return true
		}
	}
	if a.format != "" || b.format != "" && !b.hasEnum || a.imei || b.imei && !b.hasEnum {
		return false
	}
	_, ok := regularStrings(a, b)
	return ok
}

// example returns a value both a and b accept (b nil: any), preferring
// simple ones, or false if there is none that it can show: it never
// answers for a node with a keyword it cannot decide.
func example(a, b *node) (value, bool) {
	if a == nil || len(a.refused) > 0 || b != nil && len(b.refused) > 0 {
		return nil, false
	}
	// Witnesses build the same examples again and again (the members a
	// message requires): once per pair of nodes is enough.
	if e, ok := a.examples[b]; ok {
		return e.v, e.ok
	}
	v, ok := findExample(a, b)
	if a.examples == nil {
		a.examples = map[*node]exampleOf{}
	}
	a.examples[b] = exampleOf{v, ok}
	return v, ok
}

type exampleOf struct {
	v  value
	ok bool
}

func findExample(a, b *node) (value, bool) {
	both := func(v value) bool { return a.accepts(v) && (b == nil || b.accepts(v)) }
	for _, n := range []*node{a, b} {
		if n != nil && n.def != nil && both(*n.def) {
			return *n.def, true // the most natural value of all
		}
	}
	for _, e := range a.enum {
		if typeOf(e) != tNull && both(e) {
			return e, true
		}
	}
	cands := scalars(a, b)
	for _, v := range cands {
		if typeOf(v) != tNull && both(v) {
			return v, true
		}
	}
	if o, ok := baseObject(a, b, "", true); ok && both(o) {
		return o, true
	}
	if both([]value{}) {
		return []value{}, true
	}
	if a.types&tArray != 0 && !a.hasEnum {
		// An array of a length the bounds allow.
		for _, l := range lengths(a, orAny(b, a, "")) {
			if l == 0 {
				continue
			}
			if arr, ok := arrayOf(a, b, l); ok && both(arr) {
				return arr, true
			}
		}
	}
	if both(nil) {
		return nil, true
	}
	return nil, false
}

// baseObject returns an object that a accepts, without member except: the
// members a requires, and those b requires that a declares, each with a
// value both accept where there is one. With strict, it fails unless b
// accepts it too. It fails if a accepts no object (that it can show).
func baseObject(a, b *node, except string, strict bool) (*object, bool) {
	if a == nil || a.types&tObject == 0 || a.hasEnum || len(a.refused) > 0 {
		return nil, false
	}
	var names []string
	names = append(names, a.required...)
	if b != nil {
		for _, r := range b.required {
			if !a.isReq[r] {
				names = append(names, r)
			}
		}
	}
	o := &object{}
	for _, name := range names {
		if name == except {
			continue
		}
		if a.closedTo(name) {
			// A closed a rejects the member: if a requires it, a
			// accepts no object at all.
			if a.isReq[name] {
				return nil, false
			}
			continue
		}
		an := a.member(name)
		if an == nil {
			if strict {
				return nil, false
			}
			continue // b requires a member a does not declare: a's messages lack it
		}
		var bn *node
		if b != nil {
			bn = b.member(name)
		}
		v, ok := example(an, bn)
		if !ok && !strict && a.isReq[name] {
			v, ok = example(an, nil)
		}
		if !ok {
			if a.isReq[name] || strict {
				return nil, false
			}
			continue
		}
		o.members = append(o.members, member{name, v})
	}
	return settle(o, a, b, except, strict)
}

// settle completes o, an object of a's members, to one a accepts: with
// optional members (those both declare first, then, if a is open, names
// neither declares) up to a's least count of members, and with the
// members a's dependencies require of those present. It never adds
// except. It fails where it cannot.
func settle(o *object, a, b *node, except string, strict bool) (*object, bool) {
	has := func(name string) bool { _, ok := o.get(name); return ok }
	add := func(name string) bool {
		if name == except || has(name) || a.closedTo(name) {
			return false
		}
		an := a.member(name)
		if an == nil {
			var ok bool
			if an, ok = a.open(name); !ok {
				return false
			}
		}
		var bn *node
		if b != nil {
			bn = b.member(name)
		}
		v, ok := example(an, bn)
		if !ok && !strict {
			v, ok = example(an, nil)
		}
		if ok {
			o.members = append(o.members, member{name, v})
		}
		return ok
	}
	isKey := func(name string) bool {
		return slices.ContainsFunc(a.deps, func(d dependency) bool { return d.on == name })
	}
	if a.minProps != nil {
		for _, name := range a.order {
			if len(o.members) >= *a.minProps {
				break
			}
			if !isKey(name) && (b == nil || b.declares(name) || !strict) {
				add(name)
			}
		}
		for i := 0; len(o.members) < *a.minProps && !a.closed && i <= *a.minProps; i++ {
			if strict && b != nil && b.closed {
				break
			}
			other := b
			if other == nil {
				other = &node{}
			}
			name := extraName(a, other) + strings.Repeat("x", i)
			if !a.declares(name) && !other.declares(name) {
				add(name)
			}
		}
		if len(o.members) < *a.minProps {
			return nil, false
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range a.deps {
			if !has(d.on) {
				continue
			}
			for _, name := range d.then {
				if !has(name) && name != except {
					if !add(name) {
						return nil, false
					}
					changed = true
				}
			}
		}
	}
	// Over the maximum, the members a does not need go first (those b
	// requires among them).
	for i := len(o.members) - 1; a.maxProps != nil && len(o.members) > *a.maxProps && i >= 0; i-- {
		if name := o.members[i].name; !a.forces(name) && !dependedOn(o, a, name) {
			o.members = slices.Delete(o.members, i, i+1)
		}
	}
	if a.maxProps != nil && len(o.members) > *a.maxProps {
		return nil, false
	}
	for _, m := range o.members {
		if a.patternJudges(m.name) && !a.accepts(o) {
			return nil, false // a pattern rejects a value its property allows
		}
	}
	return o, true
}

// jsonText returns v as compact JSON text.
func jsonText(v value) string {
	return string(appendJSON(nil, v))
}

func appendJSON(b []byte, v value) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case *big.Rat:
		return append(b, decimal(v)...)
	case string:
		return msg.AppendJSONString(b, v) // '<' as it is, in a witness and in a sentence
	case []value:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case noWitness:
		return append(b, "an object"...)
	case *object:
		b = append(b, '{')
		for i, m := range v.members {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, m.name)
			b = append(b, ':')
			b = appendJSON(b, m.value)
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("compat: %T is not a JSON value", v))
}

// decimal writes r, whose denominator has no prime factor but 2 and 5 (it
// comes from JSON numbers, halved), exactly.
func decimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	d := new(big.Int).Set(r.Denom())
	count := func(p int64) int {
		n := 0
		for q, m := new(big.Int), new(big.Int); ; n++ {
			q.QuoRem(d, big.NewInt(p), m)
			if m.Sign() != 0 {
				return n
			}
			d.Set(q)
		}
	}
	twos := count(2)
	fives := count(5)
	return r.FloatString(max(twos, fives))
}

// arrayOf returns an array of length l that a accepts, its items an
// example both a's and b's items accept where there is one, else one a's
// items accept; false if there is none to show.
func arrayOf(a, b *node, l int) ([]value, bool) {
	arr := make([]value, l)
	if l == 0 {
		return arr, true
	}
	ai := orAny(a.items, a, "/items")
	var bi *node
	if b != nil {
		bi = orAny(b.items, b, "/items")
	}
	if a.unique {
		return distinctItems(ai, bi, l, nil)
	}
	item, ok := example(ai, bi)
	if !ok {
		if item, ok = example(ai, nil); !ok {
			return nil, false
		}
	}
	for i := range arr {
		arr[i] = item
	}
	return arr, true
}

// distinctItems returns l values, no two equal nor equal to avoid, that
// a accepts, those b (if not nil) accepts too first; false if it finds
// fewer.
func distinctItems(a, b *node, l int, avoid value) ([]value, bool) {
	var out []value
	take := func(v value) {
		if len(out) < l && (avoid == nil || !equal(v, avoid)) && !slices.ContainsFunc(out, func(w value) bool { return equal(v, w) }) {
			out = append(out, v)
		}
	}
	var cands []value
	if v, ok := example(a, b); ok {
		cands = append(cands, v)
	}
	if v, ok := example(a, nil); ok {
		cands = append(cands, v)
	}
	cands = append(cands, scalars(a, b)...)
	cands = append(cands, []value{}, &object{})
	for _, both := range []bool{true, false} {
		for _, v := range cands {
			if a.accepts(v) && (!both || b == nil || b.accepts(v)) {
				take(v)
			}
		}
	}
	return out, len(out) == l
}

// lengths returns the lengths of array that tell a's and b's item counts
// apart: 0, 1, and each bound and its neighbours.
func lengths(a, b *node) []int {
	ls := []int{0, 1}
	if a.unique || b.unique {
		ls = append(ls, 2) // the least that can repeat an item
	}
	for _, n := range []*node{a, b} {
		for _, l := range []*int{n.minItems, n.maxItems} {
			if l != nil {
				ls = append(ls, *l-1, *l, *l+1)
			}
		}
	}
	slices.Sort(ls)
	ls = slices.Compact(ls)
	return slices.DeleteFunc(ls, func(l int) bool { return l < 0 })
}

// padded returns an array a accepts holding child, padded with items a
// (and b, if not nil) accept to a's least length.
func padded(a, b *node, child value) ([]value, bool) {
	if a.maxItems != nil && *a.maxItems == 0 {
		return nil, false
	}
	n := 1
	if a.minItems != nil && *a.minItems > 1 {
		n = *a.minItems
	}
	if a.unique {
		var bi *node
		if b != nil {
			bi = orAny(b.items, b, "/items")
		}
		rest, ok := distinctItems(orAny(a.items, a, "/items"), bi, n-1, child)
		return append([]value{child}, rest...), ok
	}
	arr, ok := arrayOf(a, b, n-1)
	if !ok {
		return nil, false
	}
	return append([]value{child}, arr...), true
}

// multiples returns, when a or b has a multipleOf, numbers of every
// class of divisibility by the two, and by 1 (integers), in every
// interval between points: the first two multiples of each of these and
// of their least common multiples at or after the interval's start (if
// the interval holds only one, a class it alone would show is empty),
// and a few numbers from the start on the grid of the multipleOfs'
// least common denominator and between its points, among which one is a
// multiple of neither wherever the interval has one.
func multiples(a, b *node, points []*big.Rat) []*big.Rat {
	var ms []*big.Rat
	for _, n := range []*node{a, b} {
		if n != nil && n.mult != nil {
			ms = append(ms, n.mult)
		}
	}
	if len(ms) == 0 {
		return nil
	}
	one := big.NewRat(1, 1)
	base := append(slices.Clone(ms), one)
	gens := slices.Clone(base)
	for i := range base {
		for j := i + 1; j < len(base); j++ {
			gens = append(gens, lcm(base[i], base[j]))
		}
	}
	gens = append(gens, lcm(lcm(ms[0], ms[len(ms)-1]), one))
	// The grid: multiples of 1/D, D the least common denominator.
	d := big.NewInt(1)
	for _, m := range ms {
		g := new(big.Int).GCD(nil, nil, d, m.Denom())
		d.Mul(d, m.Denom()).Quo(d, g)
	}
	step := new(big.Rat).SetFrac(big.NewInt(1), d)
	half := new(big.Rat).Mul(step, big.NewRat(1, 2))
	// The starts of the intervals: below every point, and at and just
	// past each.
	var starts []*big.Rat
	lowest := big.NewRat(-1000, 1)
	if len(points) > 0 {
		lowest = new(big.Rat).Sub(floor(points[0]), big.NewRat(1000, 1))
	}
	starts = append(starts, lowest)
	for _, p := range points {
		f := floor(p)
		starts = append(starts, p, f, new(big.Rat).Add(f, one))
	}
	var out []*big.Rat
	for _, s := range starts {
		for _, g := range gens {
			// The first multiple of g at or after s, and the next.
			q := new(big.Rat).Quo(s, g)
			k := floor(q)
			if k.Cmp(q) < 0 {
				k.Add(k, one)
			}
			m := new(big.Rat).Mul(k, g)
			out = append(out, m, new(big.Rat).Add(m, g))
		}
		x := new(big.Rat).Set(s)
		for i := 0; i < 200; i++ {
			out = append(out, new(big.Rat).Set(x))
			if i < 4 {
				out = append(out, new(big.Rat).Add(x, half))
			}
			x.Add(x, step)
		}
	}
	return out
}

// lcm returns the least common multiple of two positive rationals.
func lcm(x, y *big.Rat) *big.Rat {
	g := new(big.Int).GCD(nil, nil, x.Num(), y.Num())
	num := new(big.Int).Mul(x.Num(), y.Num())
	num.Quo(num, g)
	den := new(big.Int).GCD(nil, nil, x.Denom(), y.Denom())
	return new(big.Rat).SetFrac(num, den)
}

// underscores returns the i-th string of length l of underscores and
// digits: of no format, not even a host name.
func underscores(i, l int) string {
	d := strconv.Itoa(i)
	if len(d) >= l {
		return strings.Repeat("_", l)
	}
	return strings.Repeat("_", l-len(d)) + d
}
