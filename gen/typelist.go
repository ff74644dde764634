package main

import (
	"encoding/json"
	"slices"
	"strconv"
)

// allTypes are the JSON types, integer among number's values.
var allTypes = []string{"null", "boolean", "object", "array", "number", "string"}

// buildTypeList makes f, whose schema node gives a list of types
// ({"type": ["integer", "string"]}) and no oneOf or anyOf, a union of one
// branch per type: node with that type alone, so that each keyword
// applies to the values of the types it asks of, as in JSON Schema. Its
// rule is type: a hand-built value that holds no branch, or several,
// breaks it. A list with both integer and number is the number branch
// alone, since every integer is a number.
func (b *builder) buildTypeList(f *field, path string, n node, types []string) error {
	if slices.Contains(types, "number") {
		types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "integer" })
	}
	var branches []json.RawMessage
	for _, t := range types {
		bn := without(n, "type", "default", "description", "title")
		bn["type"] = json.RawMessage(strconv.Quote(t))
		raw, err := json.Marshal(bn)
		if err != nil {
			return err
		}
		branches = append(branches, raw)
	}
	list, err := json.Marshal(branches)
	if err != nil {
		return err
	}
	u := node{"type": list}
	for _, k := range []string{"default", "description", "title"} {
		if n[k] != nil {
			u[k] = n[k]
		}
	}
	return b.buildUnion(f, path, "type", u)
}
