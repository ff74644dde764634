package wire

import (
	"encoding/json"
)

// ExtraValue is Extra for a member whose value the schema also judges
// (patternProperties, additionalProperties as a schema): it returns the
// name and the value kept, and false when nothing was kept (a repeated
// name, a fatal syntax error) or reading the value found a violation of
// its own, after which checking it is of no use.
func (d *Decoder) ExtraValue(extra *map[string]json.RawMessage, base string, key []byte) (string, json.RawMessage, bool) {
	if d.mode == Judge && len(d.Buf) <= maxJudged {
		return d.judgeExtraValue(base, key)
	}
	n := d.Len()
	d.Extra(extra, base, key)
	if d.Fatal || d.Len() != n {
		return "", nil, false
	}
	raw, ok := (*extra)[string(key)]
	if !ok {
		return "", nil, false
	}
	return string(key), raw, true
}

// MemberPath returns the path token of a member of an object,
// "/"+PathToken(key), for the checks of its value.
func MemberPath(key string) string {
	return "/" + PathToken(key)
}

// Absorb adds the violations of o, which checked a value inside the one
// e checks, to those of e, counting those past the limit.
func (e *Errors) Absorb(o *Errors) {
	for _, v := range o.list {
		if e.Full() {
			e.omitted++
			continue
		}
		e.list = append(e.list, v)
	}
	e.omitted += o.omitted
}
