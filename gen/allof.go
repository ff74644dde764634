package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// allOf is merged into one schema when its branches agree: what each
// asserts can be written as one schema object that asserts exactly all
// of it (the tighter bound, the union of required members, the members
// of both, each merged in turn). What cannot (two patterns, two
// formats, a closed object and members it does not declare) is refused,
// saying so.

// merge returns the schema that accepts exactly what every one of list
// accepts, or why the generator cannot write it as one.
func (b *builder) merge(path string, list []node) (node, error) {
	// An if acts with the then and else beside it alone: from several
	// branches, they would read as one conditional.
	conditionals := 0
	for _, n := range list {
		if n["if"] != nil || n["then"] != nil || n["else"] != nil {
			conditionals++
		}
	}
	if conditionals > 1 {
		return nil, fmt.Errorf("%s: allOf: if, then or else in several branches, which the generator cannot write as one", orRoot(path))
	}
	out := node{}
	for _, n := range list {
		for _, k := range slices.Sorted(maps.Keys(n)) {
			v := n[k]
			old, ok := out[k]
			if !ok {
				out[k] = v
				continue
			}
			merged, err := mergeKeyword(path, k, old, v)
			if errors.Is(err, errNoValue) {
				// The branches share no type: nothing passes them all.
				return node{never: json.RawMessage(`"type"`)}, nil
			}
			if err != nil {
				return nil, err
			}
			out[k] = merged
		}
	}
	// A closed object, or one whose additionalProperties is a schema,
	// must declare every member and pattern another branch declares: for
	// it, those are additional members, which it refuses or judges.
	for _, n := range list {
		switch string(n["additionalProperties"]) {
		case "", "true", "{}":
			continue
		}
		for _, k := range []string{"properties", "patternProperties"} {
			var own map[string]json.RawMessage
			_ = json.Unmarshal(n[k], &own)
			var all map[string]json.RawMessage
			_ = json.Unmarshal(out[k], &all)
			for _, name := range slices.Sorted(maps.Keys(all)) {
				if _, ok := own[name]; !ok {
					return nil, fmt.Errorf("%s: allOf: a branch with additionalProperties %s does not declare %q in %s, which another declares", orRoot(path), n["additionalProperties"], name, k)
				}
			}
		}
	}
	return out, nil
}

// mergeKeyword returns the value of keyword k that asserts both a and b.
func mergeKeyword(path, k string, a, b json.RawMessage) (json.RawMessage, error) {
	if bytes.Equal(a, b) {
		return a, nil
	}
	refuse := func() (json.RawMessage, error) {
		return nil, fmt.Errorf("%s: allOf: two values of %s (%s and %s) the generator cannot write as one", orRoot(path), k, a, b)
	}
	switch k {
	case "title", "description", "$comment", "examples", "deprecated", "readOnly", "writeOnly":
		return a, nil
	case "type":
		return mergeTypes(path, a, b)
	case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties":
		return extreme(a, b, 1)
	case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties":
		return extreme(a, b, -1)
	case "multipleOf":
		return lcm(a, b)
	case "uniqueItems":
		if string(a) == "true" || string(b) == "true" {
			return json.RawMessage("true"), nil
		}
		return a, nil
	case "required":
		var x, y []string
		if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
			return refuse()
		}
		for _, s := range y {
			if !slices.Contains(x, s) {
				x = append(x, s)
			}
		}
		return json.Marshal(x)
	case "properties", "$defs", "definitions", "dependentRequired":
		return mergeMembers(k, a, b)
	case "items", "propertyNames", "additionalProperties":
		if k == "additionalProperties" && (string(a) == "false" || string(b) == "false") {
			return json.RawMessage("false"), nil
		}
		return json.RawMessage(`{"allOf":[` + string(a) + "," + string(b) + "]}"), nil
	case "enum", "const":
		// The values both allow, as a's text writes them; two consts
		// that differ allow nothing, which the enum then says.
		x, y := []json.RawMessage{a}, []json.RawMessage{b}
		if k == "enum" && (json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil) {
			return refuse()
		}
		both := []json.RawMessage{}
		for _, v := range x {
			cv, err := jsonCanonical(v)
			if err != nil {
				return nil, err
			}
			for _, w := range y {
				if cw, err := jsonCanonical(w); err == nil && cw == cv {
					both = append(both, v)
					break
				}
			}
		}
		if k == "const" && len(both) == 1 {
			return a, nil
		}
		if k == "const" {
			return nil, fmt.Errorf("%s: allOf: two consts (%s and %s) allow no value", orRoot(path), a, b)
		}
		return json.Marshal(both)
	}
	return refuse()
}

// errNoValue says that the branches of an allOf share no type.
var errNoValue = errors.New("allOf: its branches share no type")

// mergeTypes intersects two type keywords; integer is within number.
func mergeTypes(path string, a, b json.RawMessage) (json.RawMessage, error) {
	x, err := node{"type": a}.types(path)
	if err != nil {
		return nil, err
	}
	y, err := node{"type": b}.types(path)
	if err != nil {
		return nil, err
	}
	var both []string
	for _, t := range x {
		switch {
		case slices.Contains(y, t):
			both = append(both, t)
		case t == "integer" && slices.Contains(y, "number"):
			both = append(both, "integer")
		case t == "number" && slices.Contains(y, "integer"):
			both = append(both, "integer")
		}
	}
	if len(both) == 0 {
		return nil, errNoValue
	}
	return json.Marshal(both)
}

// extreme returns of two numbers the greater (sign 1) or the lesser.
func extreme(a, b json.RawMessage, sign int) (json.RawMessage, error) {
	x, ok1 := new(big.Rat).SetString(string(a))
	y, ok2 := new(big.Rat).SetString(string(b))
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("allOf: %s or %s is not a number", a, b)
	}
	if x.Cmp(y)*sign >= 0 {
		return a, nil
	}
	return b, nil
}

// lcm returns the least common multiple of two positive rationals: the
// values that are multiples of both are exactly its multiples.
func lcm(a, b json.RawMessage) (json.RawMessage, error) {
	x, ok1 := new(big.Rat).SetString(string(a))
	y, ok2 := new(big.Rat).SetString(string(b))
	if !ok1 || !ok2 || x.Sign() <= 0 || y.Sign() <= 0 {
		return nil, fmt.Errorf("allOf: multipleOf %s or %s is not a positive number", a, b)
	}
	// lcm(p1/q1, p2/q2) = lcm(p1, p2) / gcd(q1, q2).
	g := new(big.Int).GCD(nil, nil, x.Num(), y.Num())
	l := new(big.Int).Mul(x.Num(), y.Num())
	l.Quo(l, g)
	d := new(big.Int).GCD(nil, nil, x.Denom(), y.Denom())
	return json.RawMessage(numberText(new(big.Rat).SetFrac(l, d))), nil
}

// mergeMembers merges two objects of schemas by name, in the order of a
// then b; a name in both gets the allOf of its two schemas (or, for
// dependentRequired, the union of its lists).
func mergeMembers(k string, a, b json.RawMessage) (json.RawMessage, error) {
	order, err := memberOrder(a)
	if err != nil {
		return nil, err
	}
	more, err := memberOrder(b)
	if err != nil {
		return nil, err
	}
	var x, y map[string]json.RawMessage
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return nil, fmt.Errorf("allOf: %s is not an object", k)
	}
	for _, name := range more {
		if _, ok := x[name]; !ok {
			order = append(order, name)
		}
	}
	var out strings.Builder
	out.WriteByte('{')
	for i, name := range order {
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString(strconv.Quote(name))
		out.WriteByte(':')
		v, inX := x[name]
		w, inY := y[name]
		switch {
		case inX && inY && k == "dependentRequired":
			m, err := mergeKeyword("", "required", v, w)
			if err != nil {
				return nil, err
			}
			out.Write(m)
		case inX && inY && !bytes.Equal(v, w):
			out.WriteString(`{"allOf":[` + string(v) + "," + string(w) + "]}")
		case inX:
			out.Write(v)
		default:
			out.Write(w)
		}
	}
	out.WriteByte('}')
	return json.RawMessage(out.String()), nil
}
