package compat

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fleetkit/catalogue/schemas"
)

// ErrNoExample is the error, wrapped, of Example for a schema of which the
// checker can show no message it accepts.
var ErrNoExample = errors.New("compat: no example")

// Example returns a message that s accepts, built from the values the
// checker builds its witnesses from: every member s declares, at any
// depth, in the schema's order, each with its default where it has one,
// otherwise the simplest value s accepts there (an array holds one item).
// A member that no value it can show satisfies is left out if optional;
// if required, the example is the message of required members alone that
// witnesses start from. It returns an error wrapping ErrNoExample where a
// keyword the checker cannot decide (see the package documentation)
// keeps it from showing any message.
func Example(s schemas.Schema) (json.RawMessage, error) {
	root, err := parseSchema(s.JSON(), s.Name, schemas.LookupID)
	if err != nil {
		return nil, fmt.Errorf("compat: %s %s: %v", s.Name, s.Version, err)
	}
	v, ok := fullExample(root)
	if !ok || root.rejects(v) != 0 {
		return nil, fmt.Errorf("%w of %s %s", ErrNoExample, s.Name, s.Version)
	}
	return json.RawMessage(jsonText(v)), nil
}

// fullExample returns a value n accepts, with every member n declares
// where n is an object, and one item where it is an array.
func fullExample(n *node) (value, bool) {
	if len(n.refused) > 0 || n.hasEnum || n.def != nil {
		return example(n, nil)
	}
	switch {
	case n.types&tObject != 0 && len(n.names()) > 0:
		o := &object{}
		for _, name := range n.names() {
			v, ok := fullExample(n.member(name))
			if !ok {
				if n.isReq[name] {
					return example(n, nil)
				}
				continue
			}
			o.members = append(o.members, member{name, v})
		}
		if n.rejects(o) != 0 {
			return example(n, nil)
		}
		return o, true
	case n.types&tArray != 0 && n.items != nil:
		if item, ok := fullExample(n.items); ok {
			if a := []value{item}; n.rejects(a) == 0 {
				return a, true
			}
		}
	}
	return example(n, nil)
}
