package compat

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
)

// Composition is compared by what it accepts: before the checker reads a
// schema, an allOf is merged into the schema that holds it, and a oneOf
// or anyOf whose branches differ by JSON type becomes one schema of all
// their types, each keyword applying only to its own branch's type. What
// cannot be merged exactly (two patterns, additionalProperties false in a
// branch that does not declare every member, branches of overlapping
// types, an enumeration in a branch) is left in place, with the reason,
// and refused as "undecidable-composition".

// refusedMember names the member under which a merge that failed leaves
// its reason, and nothingMember marks a merge that accepts nothing (two
// types apart): no schema has a name that starts with a NUL.
const (
	refusedMember = "\x00refused"
	nothingMember = "\x00nothing"
)

// keywordTypes says which JSON types each keyword judges: a keyword on
// other types accepts them all.
var keywordTypes = map[string]uint8{
	"minLength": tString, "maxLength": tString, "pattern": tString, "format": tString,
	"minimum": tInteger | tFraction, "maximum": tInteger | tFraction, "exclusiveMinimum": tInteger | tFraction,
	"exclusiveMaximum": tInteger | tFraction, "multipleOf": tInteger | tFraction,
	"items": tArray, "minItems": tArray, "maxItems": tArray, "uniqueItems": tArray,
	"properties": tObject, "required": tObject, "additionalProperties": tObject, "minProperties": tObject,
	"maxProperties": tObject, "dependentRequired": tObject, "dependencies": tObject,
}

// compose returns o with its allOf, oneOf and anyOf merged in, or o with
// the reason it cannot be merged.
func compose(o *object) *object {
	out := &object{}
	var all []value
	for _, m := range o.members {
		switch m.name {
		case "allOf":
			a, ok := m.value.([]value)
			if !ok {
				return refused(o, "allOf is not an array")
			}
			all = append(all, a...)
		case "oneOf", "anyOf":
			a, ok := m.value.([]value)
			if !ok {
				return refused(o, m.name+" is not an array")
			}
			u, why := union(a)
			if why != "" {
				return refused(o, fmt.Sprintf("a %s whose branches %s", m.name, why))
			}
			all = append(all, u)
		default:
			out.members = append(out.members, m)
		}
	}
	for _, b := range all {
		var why string
		if out, why = merge(out, b); why != "" {
			return refused(o, "an allOf whose branches "+why)
		}
	}
	return out
}

func refused(o *object, why string) *object {
	return o.with(refusedMember, why)
}

// union returns the schema that accepts what any of the branches does,
// when they accept disjoint JSON types, or why not.
func union(branches []value) (value, string) {
	out := &object{}
	var types []value
	var seen uint8
	for _, b := range branches {
		o, ok := b.(*object)
		if !ok {
			return nil, "include a boolean schema"
		}
		names := typeNames(o)
		if names == nil {
			return nil, "do not each name their types"
		}
		var bits uint8
		for _, n := range names {
			bits |= typeBits[n]
			types = append(types, n)
		}
		if bits&seen != 0 {
			return nil, "overlap in type"
		}
		seen |= bits
		for _, m := range o.members {
			switch {
			case m.name == "type" || annotations[m.name]:
			case keywordTypes[m.name] == 0:
				return nil, "hold " + strconv.Quote(m.name) + ", which judges values of every type"
			case keywordTypes[m.name]&bits == 0:
				// It judges none of the branch's values.
			default:
				out.members = append(out.members, m)
			}
		}
	}
	return out.with("type", types), ""
}

// typeNames returns the type names of the schema o, nil without "type".
func typeNames(o *object) []string {
	t, ok := o.get("type")
	if !ok {
		return nil
	}
	vs := []value{t}
	if a, ok := t.([]value); ok {
		vs = a
	}
	var names []string
	for _, v := range vs {
		s, ok := v.(string)
		if !ok || typeBits[s] == 0 {
			return nil
		}
		names = append(names, s)
	}
	return names
}

// merge returns the schema that accepts what both a and the schema b
// accept, or why the checker cannot write it as one.
func merge(a *object, b value) (*object, string) {
	switch b := b.(type) {
	case bool:
		if b {
			return a, ""
		}
		return a.with(nothingMember, true), ""
	case *object:
		b = compose(b)
		if why, ok := b.get(refusedMember); ok {
			return nil, "hold what cannot be merged: " + why.(string)
		}
		out := &object{members: slices.Clone(a.members)}
		for _, m := range b.members {
			if annotations[m.name] || m.name == "$schema" || m.name == "$id" || m.name == "$defs" || m.name == "definitions" {
				continue
			}
			have, ok := out.get(m.name)
			if !ok {
				out = out.with(m.name, m.value)
				continue
			}
			v, why := mergeKeyword(m.name, have, m.value)
			if why == "nothing" {
				out = out.with(nothingMember, true)
				continue
			}
			if why != "" {
				return nil, why
			}
			out = out.with(m.name, v)
		}
		for _, x := range []*object{a, b} {
			if why := closesOthers(x, out); why != "" {
				return nil, why
			}
		}
		return out, ""
	}
	return nil, "include a value that is not a schema"
}

// closesOthers says why x's additionalProperties false would refuse a
// member the merged schema declares, which a merge cannot keep.
func closesOthers(x, merged *object) string {
	ap, _ := x.get("additionalProperties")
	if ap != false {
		return ""
	}
	xp, _ := x.get("properties")
	mp, _ := merged.get("properties")
	xo, _ := xp.(*object)
	mo, _ := mp.(*object)
	if mo == nil {
		return ""
	}
	for _, m := range mo.members {
		if xo == nil {
			return "close an object another branch adds members to"
		}
		if _, ok := xo.get(m.name); !ok {
			return "close an object another branch adds members to"
		}
	}
	return ""
}

// mergeKeyword merges the values x and y of one keyword in two schemas.
func mergeKeyword(kw string, x, y value) (value, string) {
	if equal(x, y) {
		return x, ""
	}
	switch kw {
	case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties":
		if xr, ok := x.(*big.Rat); ok {
			if yr, ok := y.(*big.Rat); ok {
				if xr.Cmp(yr) >= 0 {
					return x, ""
				}
				return y, ""
			}
		}
	case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties":
		if xr, ok := x.(*big.Rat); ok {
			if yr, ok := y.(*big.Rat); ok {
				if xr.Cmp(yr) <= 0 {
					return x, ""
				}
				return y, ""
			}
		}
	case "uniqueItems":
		return x == true || y == true, ""
	case "additionalProperties":
		if _, ok := x.(bool); ok {
			if _, ok := y.(bool); ok {
				return x == true && y == true, ""
			}
		}
	case "required":
		xs, ok1 := x.([]value)
		ys, ok2 := y.([]value)
		if ok1 && ok2 {
			out := slices.Clone(xs)
			for _, v := range ys {
				if !slices.ContainsFunc(out, func(w value) bool { return equal(v, w) }) {
					out = append(out, v)
				}
			}
			return out, ""
		}
	case "enum":
		xs, ok1 := x.([]value)
		ys, ok2 := y.([]value)
		if ok1 && ok2 {
			return slices.DeleteFunc(slices.Clone(xs), func(v value) bool {
				return !slices.ContainsFunc(ys, func(w value) bool { return equal(v, w) })
			}), ""
		}
	case "type":
		xo, yo := (&object{}).with("type", x), (&object{}).with("type", y)
		xn, yn := typeNames(xo), typeNames(yo)
		if xn != nil && yn != nil {
			var out []value
			for _, s := range xn {
				for _, t := range yn {
					switch {
					case s == t:
						out = append(out, s)
					case s == "integer" && t == "number" || s == "number" && t == "integer":
						out = append(out, "integer")
					}
				}
			}
			if len(out) == 0 {
				return nil, "nothing" // see merge
			}
			return out, ""
		}
	case "items":
		return &object{members: []member{{"allOf", []value{x, y}}}}, ""
	case "properties", "dependentRequired", "dependencies":
		xo, ok1 := x.(*object)
		yo, ok2 := y.(*object)
		if ok1 && ok2 {
			out := &object{members: slices.Clone(xo.members)}
			for _, m := range yo.members {
				have, ok := out.get(m.name)
				switch {
				case !ok:
					out = out.with(m.name, m.value)
				case kw == "properties":
					out = out.with(m.name, &object{members: []member{{"allOf", []value{have, m.value}}}})
				default:
					v, why := mergeKeyword("required", have, m.value)
					if why != "" {
						return nil, why
					}
					out = out.with(m.name, v)
				}
			}
			return out, ""
		}
	}
	return nil, "differ on " + strconv.Quote(kw) + ", which the checker cannot merge"
}
