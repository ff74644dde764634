package compat

import (
	"net/url"
	"strings"
)

// A $ref into the schema's own file ("#/$defs/point") is replaced, before
// the checker reads the schema, by the schema it names, so that two
// versions are compared by what they accept whether or not they share a
// definition. In draft 7 a $ref hides what stands beside it; in 2020-12
// it applies with it, which the checker reads only when what stands
// beside it merely describes. A $ref to another file, one that names
// nothing, one inside a schema it names (a recursive schema), or one
// beside assertions in 2020-12, is left for the checker to refuse as the
// keyword it does not know.

// maxRefDepth bounds how many $refs one inlining follows.
const maxRefDepth = 32

// inlineRefs returns doc with its own $refs inlined where the checker
// reads schemas: at the root, in properties and in items.
func inlineRefs(doc value) value {
	draft7 := false
	if o, ok := doc.(*object); ok {
		if s, ok := o.get("$schema"); ok {
			str, _ := s.(string)
			draft7 = strings.Contains(str, "draft-07") || strings.Contains(str, "draft-06")
		}
	}
	r := refs{doc: doc, draft7: draft7}
	return r.schema(doc, 0)
}

type refs struct {
	doc    value
	draft7 bool
}

// schema returns v, a schema, with its $refs inlined.
func (r refs) schema(v value, depth int) value {
	o, ok := v.(*object)
	if !ok {
		return v
	}
	if ref, ok := o.get("$ref"); ok && depth < maxRefDepth {
		if target, ok := r.target(ref, o); ok {
			return r.schema(target, depth+1)
		}
		return v
	}
	out := &object{members: make([]member, len(o.members))}
	for i, m := range o.members {
		switch m.name {
		case "properties":
			if props, ok := m.value.(*object); ok {
				inlined := &object{members: make([]member, len(props.members))}
				for j, p := range props.members {
					inlined.members[j] = member{p.name, r.schema(p.value, depth)}
				}
				m.value = inlined
			}
		case "items":
			m.value = r.schema(m.value, depth)
		}
		out.members[i] = m
	}
	return out
}

// target returns the schema the $ref of o names, if it is one to inline.
func (r refs) target(ref value, o *object) (value, bool) {
	s, ok := ref.(string)
	if !ok || !strings.HasPrefix(s, "#") {
		return nil, false
	}
	if !r.draft7 {
		for _, m := range o.members {
			if m.name != "$ref" && !annotations[m.name] {
				return nil, false
			}
		}
	}
	frag, err := url.PathUnescape(s[1:])
	if err != nil || frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, false
	}
	at := r.doc
	if frag == "" {
		return nil, false // the whole schema: recursive
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		obj, ok := at.(*object)
		if !ok {
			return nil, false
		}
		if at, ok = obj.get(tok); !ok {
			return nil, false
		}
	}
	return at, true
}
