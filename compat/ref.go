package compat

import (
	"net/url"
	"strings"

	"github.com/fleetkit/catalogue/schemas"
)

// A $ref into the schema's own file ("#/$defs/point") is replaced, before
// the checker reads the schema, by the schema it names, so that two
// versions are compared by what they accept whether or not they share a
// definition. In draft 7 a $ref hides what stands beside it; in 2020-12
// it applies with it, as an allOf of the two (see compose). A $ref to
// another file, one that names nothing, or one inside a schema it names
// (a recursive schema) is left for the checker to refuse as the keyword
// it does not know, as is every $ref past a bound on the size of the
// schema inlined (definitions that name each other twice over would
// double it at each step).

// maxRefDepth bounds how many $refs one inlining follows.
const maxRefDepth = 32

// maxInlined bounds the schemas inlining may copy, beyond the file's own.
const maxInlined = 1 << 14

// inlineRefs returns doc with its own $refs inlined where the checker
// reads schemas: at the root, in properties, patternProperties,
// additionalProperties, propertyNames and items.
func inlineRefs(doc value, lookup lookupFunc) value {
	r := refs{budget: new(int), lookup: lookup}.in(doc)
	*r.budget = maxInlined
	return r.schema(doc, 0)
}

// lookupFunc finds a schema of the catalogue by its $id.
type lookupFunc func(id string) (schemas.Schema, error)

type refs struct {
	doc    value
	id     string // the document's $id, which relative references resolve against
	draft7 bool
	budget *int // the schemas inlining may still copy
	lookup lookupFunc
}

// in returns r for the $refs of the document doc.
func (r refs) in(doc value) refs {
	r.doc, r.id, r.draft7 = doc, "", false
	if o, ok := doc.(*object); ok {
		if s, ok := o.get("$schema"); ok {
			str, _ := s.(string)
			r.draft7 = strings.Contains(str, "draft-07") || strings.Contains(str, "draft-06")
		}
		if id, ok := o.get("$id"); ok {
			r.id, _ = id.(string)
		}
	}
	return r
}

// schema returns v, a schema, with its $refs inlined.
func (r refs) schema(v value, depth int) value {
	o, ok := v.(*object)
	if !ok {
		return v
	}
	if ref, ok := o.get("$ref"); ok && depth < maxRefDepth && *r.budget > 0 {
		target, there, ok := r.target(ref)
		if !ok {
			return v
		}
		*r.budget -= size(target)
		target = there.schema(target, depth+1)
		if r.draft7 {
			return target // draft 7 ignores what stands beside a $ref
		}
		// In 2020-12 it applies with what stands beside it.
		rest := &object{}
		for _, m := range o.members {
			if m.name != "$ref" && !annotations[m.name] {
				rest.members = append(rest.members, m)
			}
		}
		if len(rest.members) == 0 {
			return target
		}
		return r.schema(rest.with("allOf", []value{target}), depth+1)
	}
	out := &object{members: make([]member, len(o.members))}
	for i, m := range o.members {
		switch m.name {
		case "properties", "patternProperties":
			if props, ok := m.value.(*object); ok {
				inlined := &object{members: make([]member, len(props.members))}
				for j, p := range props.members {
					inlined.members[j] = member{p.name, r.schema(p.value, depth)}
				}
				m.value = inlined
			}
		case "items", "additionalProperties", "propertyNames":
			m.value = r.schema(m.value, depth)
		case "allOf", "anyOf", "oneOf":
			if branches, ok := m.value.([]value); ok {
				inlined := make([]value, len(branches))
				for j, b := range branches {
					inlined[j] = r.schema(b, depth)
				}
				m.value = inlined
			}
		}
		out.members[i] = m
	}
	return out
}

// target returns the schema a $ref names, if it is one to inline, and
// the refs of the document it is in: this one, or another schema of the
// catalogue, by its $id.
func (r refs) target(ref value) (value, refs, bool) {
	s, ok := ref.(string)
	if !ok {
		return nil, r, false
	}
	if !strings.HasPrefix(s, "#") {
		there, ok := r.other(s)
		if !ok {
			return nil, r, false
		}
		r = there
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[i:]
		} else {
			return r.doc, r, true // the whole of another schema
		}
	}
	frag, err := url.PathUnescape(s[1:])
	if err != nil || frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, r, false
	}
	at := r.doc
	if frag == "" {
		return nil, r, false // the whole schema: recursive
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		obj, ok := at.(*object)
		if !ok {
			return nil, r, false
		}
		if at, ok = obj.get(tok); !ok {
			return nil, r, false
		}
	}
	return at, r, true
}

// other returns the refs of the catalogue's schema that the reference
// ref (before its fragment) names, resolved against this document's $id.
func (r refs) other(ref string) (refs, bool) {
	if r.lookup == nil {
		return r, false
	}
	u, err := url.Parse(ref)
	if err != nil {
		return r, false
	}
	if base, err := url.Parse(r.id); err == nil {
		u = base.ResolveReference(u)
	}
	u.Fragment, u.RawFragment = "", ""
	s, err := r.lookup(u.String())
	if err != nil {
		return r, false
	}
	doc, err := parseJSON(s.JSON())
	if err != nil {
		return r, false
	}
	return r.in(doc), true
}

// size returns the count of values in v, up to maxInlined.
func size(v value) int {
	n := 1
	switch v := v.(type) {
	case []value:
		for _, e := range v {
			if n += size(e); n > maxInlined {
				break
			}
		}
	case *object:
		for _, m := range v.members {
			if n += size(m.value); n > maxInlined {
				break
			}
		}
	}
	return n
}
