package compat_test

// The "no false compatible" test: thousands of pairs of versions made by
// mutating the catalogue's schemas and the fixture, each compared by the
// checker and judged by the oracle on a corpus of messages generated from
// both versions. Wherever the checker says a direction holds, no message of
// the corpus may be a counterexample; wherever it says a direction breaks,
// its witness must hold (checkWitnesses).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/internal/casetable"
	"github.com/fleetkit/catalogue/schemas"
)

type obj = map[string]any

// family is a schema to mutate, with messages to vary.
type family struct {
	name  string
	doc   obj
	bases []obj // messages, valid or nearly, of the original schema
}

func families(t testing.TB) []family {
	var fams []family
	for _, s := range schemas.All() {
		fams = append(fams, family{name: s.Name, doc: decode(t, s.JSON()), bases: caseBases(t, s.Name)})
	}
	for _, v := range []string{"1.0", "2.0"} {
		s := lookup(t, load(t, "../testdata/fixture"), "demo.sensor", v)
		fams = append(fams, family{name: s.Name, doc: decode(t, s.JSON()), bases: []obj{
			decode(t, []byte(`{"message_id":"`+uuidA+`","message_type":"demo.sensor","sensor_id":"`+uuidB+`","kind":"temperature","level":5,"time":"2019-01-01T00:00:00Z"}`)),
			decode(t, []byte(`{"message_id":"`+uuidA+`","message_type":"demo.sensor","sensor_id":"`+uuidB+`","kind":"humidity","level":100,"unit":"kelvin","labels":["a"],"time":"2019-01-01T00:00:00Z","origin":{"id":"`+uuidB+`","name":"lab"},"location":null,"calibrated":true}`)),
		}})
	}
	return fams
}

const (
	uuidA = "5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44"
	uuidB = "0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21"
)

// caseBases returns the valid messages of the case table of the named
// schema that set every member or only the required ones.
func caseBases(t testing.TB, name string) []obj {
	var bases []obj
	for _, c := range casetable.Read(t, "../schemas/testdata/cases", name) {
		if c.Valid && strings.HasPrefix(c.Note, "every ") {
			bases = append(bases, decode(t, c.Message))
		}
	}
	require.NotEmpty(t, bases)
	return bases
}

func decode(t testing.TB, data []byte) obj {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var o obj
	require.NoError(t, dec.Decode(&o))
	return o
}

// clone deep-copies a JSON value.
func clone(v any) any {
	switch v := v.(type) {
	case obj:
		c := make(obj, len(v))
		for k, e := range v {
			c[k] = clone(e)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = clone(e)
		}
		return c
	}
	return v
}

// mutator makes random changes to a schema, within the vocabulary the
// oracle reasons about.
type mutator struct {
	r interface{ IntN(int) int } // a *rand.Rand, or fuzz input
}

// bytePicker picks by the bytes of a fuzz input, then zeros.
type bytePicker struct{ b []byte }

func (p *bytePicker) IntN(n int) int {
	if len(p.b) == 0 {
		return 0
	}
	v := int(p.b[0])
	p.b = p.b[1:]
	return v % n
}

// site is an object schema whose members a mutation may change: the root,
// or a nested object such as actor or origin.
func sites(doc obj) []obj {
	out := []obj{doc}
	props, _ := doc["properties"].(obj)
	for _, name := range slices.Sorted(keys(props)) {
		if p, ok := props[name].(obj); ok {
			if _, ok := p["properties"]; ok {
				out = append(out, p)
			}
		}
	}
	return out
}

func keys(m obj) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

var (
	typePool    = []string{"string", "integer", "number", "boolean", "null", "array", "object"}
	stringPool  = []any{"created", "updated", "deleted", "approved", "temperature", "humidity", "x", "", "CORE", "core.device", uuidA, "2019-01-01T00:00:00Z", "490154203237518"}
	patternPool = []any{"^[a-z]+$", "^[a-z]*$", "^x", "^[A-Z0-9]{1,3}$", "\\d", "^.{0,2}$", "^[^@]+@",
		// Patterns ECMA-262 and RE2 read differently, now that the oracle
		// reads ECMA-262.
		"^\\s*$", "^\\w+$", "\\bx\\b", "^.$", "^[^\\s]+$", "^\\d{2}$|^$"}
	formatPool = []any{"date", "time", "duration", "email", "hostname", "ipv4", "ipv6", "uri"}
	numberPool = []any{json.Number("0"), json.Number("1"), json.Number("-1"), json.Number("9"), json.Number("10"), json.Number("100"), json.Number("0.5"), json.Number("2.5"), json.Number("-3")}
)

func (m *mutator) pick(n int) int { return m.r.IntN(n) }

func (m *mutator) anyOf(vs []any) any { return vs[m.pick(len(vs))] }

// types returns the schema's type names.
func types(p obj) []string {
	switch t := p["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			out = append(out, e.(string))
		}
		return out
	}
	return nil
}

func setTypes(p obj, ts []string) {
	switch len(ts) {
	case 0:
		delete(p, "type")
	case 1:
		p["type"] = ts[0]
	default:
		a := make([]any, len(ts))
		for i, t := range ts {
			a[i] = t
		}
		p["type"] = a
	}
}

// mutate applies one random change to doc and describes it.
func (m *mutator) mutate(doc obj) string {
	ss := sites(doc)
	site := ss[m.pick(len(ss))]
	props, _ := site["properties"].(obj)
	if props == nil {
		props = obj{}
		site["properties"] = props
	}
	names := slices.Sorted(keys(props))
	var name string
	var p obj
	if len(names) > 0 {
		name = names[m.pick(len(names))]
		p, _ = props[name].(obj)
	}
	if p == nil {
		p = obj{}
		name = "added"
		props[name] = p
	}
	// A member behind a $ref is changed where the $ref points, so that
	// no keyword stands beside a $ref (which draft 7 ignores and the
	// oracle does not).
	if ref, ok := p["$ref"].(string); ok {
		defs, _ := doc["definitions"].(obj)
		if target, ok := defs[strings.TrimPrefix(ref, "#/definitions/")].(obj); ok {
			p = target
		}
	}
	// Sometimes change the items of an array member instead.
	if it, ok := p["items"].(obj); ok && m.pick(3) == 0 {
		p = it
		name += "[]"
	}
	if c := m.pick(26); c <= 2 || c == 25 {
		// The oracle judges multipleOf only on members typed integer
		// (its number stand-ins keep no divisibility): a change of type
		// drops it, and it comes with the type integer.
		delete(p, "multipleOf")
		if c == 25 {
			p["type"] = "integer"
			p["multipleOf"] = m.anyOf([]any{json.Number("2"), json.Number("3"), json.Number("4"), json.Number("0.5"), json.Number("1.5")})
			return name + ": multipleOf set"
		}
	}
	// A number of numberPool, and a whole number below n.
	number := func() any { return m.anyOf(numberPool) }
	count := func(n int) func() any { return func() any { return json.Number(fmt.Sprint(m.pick(n))) } }
	switch m.pick(35) {
	case 34: // a keyword the checker does not decide, added to a member
		for k, v := range m.anyOf(conjunctPool).(obj) {
			p[k] = clone(v)
		}
		return name + ": conjunct added"
	case 33: // propertyNames on the object
		return m.setOrRemove(site, "", "propertyNames", func() any { return clone(m.anyOf(namesPool)) })
	case 31: // additionalProperties as a schema on the object
		if _, ok := site["additionalProperties"].(obj); ok && m.pick(3) == 0 {
			delete(site, "additionalProperties")
			return "additionalProperties removed"
		}
		site["additionalProperties"] = clone(m.anyOf(othersPool))
		return "additionalProperties set"
	case 32: // patternProperties on the object
		pp, _ := site["patternProperties"].(obj)
		if len(pp) > 0 && m.pick(3) == 0 {
			delete(site, "patternProperties")
			return "patternProperties removed"
		}
		pp, _ = clone(pp).(obj)
		if pp == nil {
			pp = obj{}
		}
		pattern := m.anyOf(namePatternPool).(string)
		pp[pattern] = clone(m.anyOf(othersPool))
		site["patternProperties"] = pp
		return "patternProperties " + pattern + " set"
	case 25: // a pattern, set or removed
		return m.setOrRemove(p, name+": ", "pattern", func() any { return m.anyOf(patternPool) })
	case 26: // uniqueItems
		if p["uniqueItems"] == true {
			delete(p, "uniqueItems")
			return name + ": uniqueItems removed"
		}
		p["uniqueItems"] = true
		return name + ": uniqueItems set"
	case 27: // minProperties or maxProperties on the object
		kw := []string{"minProperties", "maxProperties"}[m.pick(2)]
		return m.setOrRemove(site, "", kw, func() any { return json.Number(fmt.Sprint(m.pick(4) + 4*m.pick(2))) })
	case 28: // a dependency between two members
		kw := "dependentRequired"
		if s, _ := doc["$schema"].(string); strings.Contains(s, "draft-07") {
			kw = "dependencies"
		}
		deps, _ := site[kw].(obj)
		if len(deps) > 0 && m.pick(2) == 0 {
			delete(site, kw)
			return kw + " removed"
		}
		if len(names) < 2 {
			return "nothing"
		}
		on, then := names[m.pick(len(names))], names[m.pick(len(names))]
		if on == then {
			return "nothing"
		}
		deps = clone(deps).(obj)
		if deps == nil {
			deps = obj{}
		}
		deps[on] = []any{then}
		site[kw] = deps
		return kw + ": " + on + " needs " + then
	case 29: // one of the other formats
		p["format"] = m.anyOf(formatPool)
		return name + ": format " + p["format"].(string)
	case 30: // wrapped in an allOf with a bound
		if strings.HasSuffix(name, "[]") || name == "added" {
			return "nothing"
		}
		extra := m.anyOf([]any{obj{"maxLength": json.Number("3")}, obj{"minimum": json.Number("0")}, obj{"minItems": json.Number("1")}, obj{"type": []any{"string", "integer", "object"}}})
		props[name] = obj{"allOf": []any{p, extra}}
		return name + ": in an allOf"
	case 0: // widen the type
		ts := types(p)
		t := typePool[m.pick(len(typePool))]
		if len(ts) > 0 && !slices.Contains(ts, t) {
			setTypes(p, append(ts, t))
		}
		return name + ": type + " + t
	case 1: // narrow or change the type
		ts := types(p)
		if len(ts) > 1 {
			setTypes(p, slices.Delete(ts, m.pick(len(ts)), m.pick(len(ts))+1))
		} else {
			setTypes(p, []string{typePool[m.pick(len(typePool))]})
		}
		return name + ": type narrowed or changed"
	case 2: // add or remove null
		ts := types(p)
		if i := slices.Index(ts, "null"); i >= 0 {
			setTypes(p, slices.Delete(ts, i, i+1))
			if e, ok := p["enum"].([]any); ok {
				p["enum"] = slices.DeleteFunc(slices.Clone(e), func(v any) bool { return v == nil })
			}
			return name + ": null removed"
		}
		if len(ts) > 0 {
			setTypes(p, append(ts, "null"))
		}
		if e, ok := p["enum"].([]any); ok && m.pick(2) == 0 && !slices.Contains(e, nil) {
			p["enum"] = append(slices.Clone(e), nil)
		}
		return name + ": null added"
	case 3: // add an enum value
		e, ok := p["enum"].([]any)
		if !ok {
			return name + ": nothing"
		}
		if v := m.anyOf(stringPool); !slices.Contains(e, v) {
			p["enum"] = append(slices.Clone(e), v)
		}
		return name + ": enum value added"
	case 4: // remove an enum value
		if e, ok := p["enum"].([]any); ok && len(e) > 1 {
			i := m.pick(len(e))
			p["enum"] = slices.Delete(slices.Clone(e), i, i+1)
		}
		return name + ": enum value removed"
	case 5: // add or remove an enum
		if _, ok := p["enum"]; ok {
			delete(p, "enum")
			return name + ": enum removed"
		}
		var e []any
		for range 1 + m.pick(3) {
			if v := m.anyOf(stringPool); !slices.Contains(e, v) {
				e = append(e, v)
			}
		}
		p["enum"] = e
		return name + ": enum added"
	case 6, 7: // move, add or remove a bound
		return m.setOrRemove(p, name+": ", []string{"minimum", "maximum"}[m.pick(2)], number)
	case 8: // minLength
		return m.setOrRemove(p, name+": ", "minLength", count(4))
	case 24: // move the member's schema into definitions, behind a $ref
		if p == nil || name == "added" || strings.HasSuffix(name, "[]") {
			return "nothing"
		}
		defs, _ := doc["definitions"].(obj)
		if defs == nil {
			defs = obj{}
			doc["definitions"] = defs
		}
		key := fmt.Sprintf("d%d", len(defs))
		defs[key] = p
		props[name] = obj{"$ref": "#/definitions/" + key}
		return name + ": behind a $ref"
	case 23: // close or open the object
		if _, ok := site["additionalProperties"]; ok {
			delete(site, "additionalProperties")
			return "object opened"
		}
		site["additionalProperties"] = false
		return "object closed"
	case 21, 22: // minItems or maxItems
		return m.setOrRemove(p, name+": ", []string{"minItems", "maxItems"}[m.pick(2)], count(4))
	case 17: // maxLength
		return m.setOrRemove(p, name+": ", "maxLength", count(5))
	case 18, 19: // move, add or remove an exclusive bound
		return m.setOrRemove(p, name+": ", []string{"exclusiveMinimum", "exclusiveMaximum"}[m.pick(2)], number)
	case 20: // const
		if _, ok := p["const"]; ok && m.pick(2) == 0 {
			delete(p, "const")
			return name + ": const removed"
		}
		// Strings, arrays and objects, not numbers: the oracle refuses
		// numeric consts, as it does numeric enums (its number
		// stand-ins).
		p["const"] = m.anyOf(append(slices.Clone(stringPool), []any{"a"}, []any{"a", "a"}, obj{"id": "x"}, obj{"id": uuidB, "name": "n"}))
		return name + ": const set"
	case 9, 10: // add or remove a required member
		req, _ := site["required"].([]any)
		if len(req) > 0 && m.pick(2) == 0 {
			i := m.pick(len(req))
			site["required"] = slices.Delete(slices.Clone(req), i, i+1)
			return "required - " + fmt.Sprint(req[i])
		}
		if len(names) > 0 && !slices.Contains(req, any(names[0])) {
			n := names[m.pick(len(names))]
			if !slices.Contains(req, any(n)) {
				site["required"] = append(slices.Clone(req), n)
			}
			return "required + " + n
		}
		return "required unchanged"
	case 11: // format
		switch m.pick(3) {
		case 0:
			delete(p, "format")
		case 1:
			p["format"] = "uuid"
		default:
			p["format"] = "date-time"
		}
		return name + ": format changed"
	case 12: // default
		switch m.pick(3) {
		case 0:
			delete(p, "default")
		case 1:
			p["default"] = m.anyOf(stringPool)
		default:
			p["default"] = m.anyOf(numberPool)
		}
		return name + ": default changed"
	case 13: // add an optional member
		props[fmt.Sprintf("new_%d", m.pick(3))] = obj{"type": typePool[m.pick(len(typePool))]}
		return "member added"
	case 14: // remove a member
		delete(props, name)
		return "member " + name + " removed"
	case 15: // items
		p["items"] = obj{"type": typePool[m.pick(len(typePool))]}
		return name + ": items changed"
	default: // description only: nothing changes
		p["description"] = "changed"
		return name + ": description changed"
	}
}

// setOrRemove removes the keyword kw of o, one time in three where o has
// it, and otherwise sets it to a value next makes; it says which, after
// the name of the place.
func (m *mutator) setOrRemove(o obj, place, kw string, next func() any) string {
	if _, ok := o[kw]; ok && m.pick(3) == 0 {
		delete(o, kw)
		return place + kw + " removed"
	}
	o[kw] = next()
	return place + kw + " set"
}

// othersPool and namePatternPool are the schemas and patterns of
// members an object does not declare: no integer or date-time, which
// the oracle cannot place there.
var (
	othersPool = []any{obj{"type": "string"}, obj{"type": "string", "maxLength": json.Number("2")}, obj{"type": "boolean"},
		obj{"type": []any{"string", "null"}}, obj{"type": "number", "minimum": json.Number("0")}, obj{"enum": []any{"a", "xy"}}, obj{}}
	conjunctPool = []any{obj{"not": obj{"enum": []any{"a", "x"}}}, obj{"if": obj{"type": "string"}, "then": obj{"maxLength": json.Number("3")}},
		obj{"contains": obj{"type": "string"}}, obj{"not": obj{"type": "null"}}}
	namesPool = []any{obj{"maxLength": json.Number("12")}, obj{"maxLength": json.Number("2")}, obj{"pattern": "^[a-z_]+$"}, obj{"pattern": "^[a-z]"},
		obj{"minLength": json.Number("2")}, obj{"pattern": "^[a-z_-]+$", "maxLength": json.Number("20")}}
	namePatternPool = []any{"^x-", "^x-[a-z]+$", "^[A-Z]+$", "^[A-C]", "x", "^y-", "^[a-z]{2}$"}
	// undeclaredNames are names a corpus sets as members no version
	// declares, one in each region namePatternPool cuts, or near.
	undeclaredNames = []string{"x-a", "x-", "X", "AB", "D", "y-1", "zz", "extra"}
)

// dropMultipleOf removes every multipleOf beside a type without
// "integer", which a mutation of a schema that holds it (an allOf's
// branch, a definition) may leave: the oracle judges multipleOf only on
// integers.
func dropMultipleOf(v any) {
	switch v := v.(type) {
	case obj:
		if _, ok := v["multipleOf"]; ok && !slices.Contains(types(v), "integer") {
			delete(v, "multipleOf")
		}
		for _, e := range v {
			dropMultipleOf(e)
		}
	case []any:
		for _, e := range v {
			dropMultipleOf(e)
		}
	}
}

// variant is a schema made from a family by a few mutations.
func (m *mutator) variant(f family) (obj, string) {
	doc := clone(f.doc).(obj)
	var what []string
	for range 1 + m.pick(3) {
		what = append(what, m.mutate(doc))
	}
	dropMultipleOf(doc)
	return doc, strings.Join(what, "; ")
}

// asSchema writes doc as the schema file of version v.
func asSchema(t testing.TB, name string, doc obj, v string) schemas.Schema {
	doc = clone(doc).(obj)
	doc["$id"] = schemas.ID(name, v)
	data, err := json.Marshal(doc)
	require.NoError(t, err)
	s, err := schemas.Parse(data)
	require.NoError(t, err)
	return s
}

// corpus returns messages that vary the bases at every member either
// version declares, with values taken from both versions' schemas and
// from a fixed pool.
func corpus(f family, a, b obj) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	add := func(v any) {
		data, _ := json.Marshal(v)
		if !seen[string(data)] {
			seen[string(data)] = true
			out = append(out, data)
		}
	}
	for _, base := range f.bases {
		add(base)
		varyObject(base, a, b, func(v obj) { add(v) })
	}
	return out
}

// varyObject calls emit with o varied at each member of the object schemas
// a and b: absent, or set to each value of the pool.
func varyObject(o obj, a, b obj, emit func(obj)) {
	names := map[string]bool{}
	for _, s := range []obj{a, b} {
		props, _ := s["properties"].(obj)
		for n := range props {
			names[n] = true
		}
		req, _ := s["required"].([]any)
		for _, n := range req {
			names[n.(string)] = true
		}
	}
	if judgesOthers(a) || judgesOthers(b) {
		values := []any{nil, true, json.Number("0"), json.Number("-1"), json.Number("1.5"), "", "a", "xy", "abc", []any{}, obj{}}
		for _, name := range undeclaredNames {
			if names[name] {
				continue
			}
			for _, v := range values {
				with := clone(o).(obj)
				with[name] = v
				emit(with)
			}
		}
	}
	for _, name := range slices.Sorted(keys(obj(toAny(names)))) {
		pa, pb := sub(a, name), sub(b, name)
		same := jsonEq(pa, pb) && inReq(a, name) == inReq(b, name)
		without := clone(o).(obj)
		delete(without, name)
		emit(without)
		if same {
			continue // a member both versions judge alike only needs to be present or not
		}
		for _, v := range pool(pa, pb) {
			with := clone(o).(obj)
			with[name] = v
			emit(with)
		}
		// Nested objects: vary their members too.
		if _, ok := pa["properties"]; ok || pb["properties"] != nil {
			inner, _ := o[name].(obj)
			if inner == nil {
				inner = obj{}
			}
			varyObject(inner, pa, pb, func(v obj) {
				with := clone(o).(obj)
				with[name] = v
				emit(with)
			})
		}
		// Arrays: one item of each value.
		if ia, ib := sub2(pa, "items"), sub2(pb, "items"); ia != nil || ib != nil {
			for _, v := range pool(ia, ib) {
				with := clone(o).(obj)
				with[name] = []any{v}
				emit(with)
			}
		}
	}
}

// judgesOthers reports whether the object schema s judges members it
// does not declare by a schema.
func judgesOthers(s obj) bool {
	_, addl := s["additionalProperties"].(obj)
	_, pp := s["patternProperties"].(obj)
	_, names := s["propertyNames"].(obj)
	return addl || pp || names
}

func toAny(m map[string]bool) obj {
	o := obj{}
	for k := range m {
		o[k] = true
	}
	return o
}

func sub(s obj, name string) obj {
	props, _ := s["properties"].(obj)
	p, _ := props[name].(obj)
	return p
}

func sub2(s obj, kw string) obj {
	p, _ := s[kw].(obj)
	return p
}

func inReq(s obj, name string) bool {
	req, _ := s["required"].([]any)
	return slices.Contains(req, any(name))
}

func jsonEq(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// pool returns values to try in a member judged by a and b: their
// enumerations, bounds and neighbours, defaults, and a fixed set of every
// type, format and length the schemas tell apart.
func pool(a, b obj) []any {
	vs := []any{nil, true, false, json.Number("0"), json.Number("-1"), json.Number("1.5"), json.Number("1e19"), json.Number("9223372036854775807"),
		"", "x", "xy", uuidA, strings.ToUpper(uuidA), "2019-01-01T00:00:00Z", "2019-01-01T00:00:00.5Z", "2019", "490154203237518", "490154203237519",
		"abc", "A1", "x9", "2019-01-01", "00:00:00Z", "P1D", "a@b", "1.2.3.4", "::1", "a:b",
		"\u00a0", "x\u2028", "\u0663\u0664", "x\n", "éxé", "\r",
		[]any{}, []any{"a"}, []any{json.Number("1")}, []any{"a", "a"}, []any{json.Number("1"), json.Number("1.0")},
		obj{}, obj{"id": uuidB, "name": "n"}, obj{"id": "x"}}
	for _, s := range []obj{a, b} {
		if e, ok := s["enum"].([]any); ok {
			vs = append(vs, e...)
			for _, v := range e {
				if str, ok := v.(string); ok {
					vs = append(vs, str+"x")
				}
			}
		}
		if c, ok := s["const"]; ok {
			vs = append(vs, c)
		}
		if n, ok := s["multipleOf"].(json.Number); ok {
			if f, err := n.Float64(); err == nil && f >= 1 {
				for _, k := range []float64{1, 2, 3, 6, 7} {
					vs = append(vs, json.Number(fmt.Sprint(f*k)))
				}
			}
		}
		for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if n, ok := s[kw].(json.Number); ok {
				f, _ := n.Float64()
				for _, d := range []float64{-1, -0.5, 0, 0.5, 1} {
					vs = append(vs, json.Number(fmt.Sprint(f+d)))
				}
			}
		}
		for _, kw := range []string{"minItems", "maxItems"} {
			if n, ok := s[kw].(json.Number); ok {
				l, _ := n.Int64()
				for _, d := range []int64{-1, 0, 1} {
					if l+d >= 0 {
						vs = append(vs, slices.Repeat([]any{"a"}, int(l+d)), slices.Repeat([]any{json.Number("1")}, int(l+d)))
					}
				}
			}
		}
		if n, ok := s["maxLength"].(json.Number); ok {
			l, _ := n.Int64()
			for _, d := range []int64{-1, 0, 1} {
				if l+d >= 0 {
					vs = append(vs, strings.Repeat("w", int(l+d)))
				}
			}
		}
		if n, ok := s["minLength"].(json.Number); ok {
			l, _ := n.Int64()
			for _, d := range []int64{-1, 0, 1} {
				if l+d >= 0 {
					vs = append(vs, strings.Repeat("z", int(l+d)))
				}
			}
		}
		if d, ok := s["default"]; ok {
			vs = append(vs, d)
		}
	}
	return vs
}

// foreign reports whether message m carries, at any object both versions
// describe, a member only dst declares: decision 13 assumes messages of
// src never do.
func foreign(m any, src, dst obj) bool {
	o, ok := m.(obj)
	if !ok {
		return false
	}
	for name, v := range o {
		if declares(dst, name) && !declares(src, name) {
			return true
		}
		if foreign(v, sub(src, name), sub(dst, name)) {
			return true
		}
	}
	return false
}

func declares(s obj, name string) bool {
	if s == nil {
		return false
	}
	return sub(s, name) != nil || inReq(s, name) || s["title"] == "core.device" && name == "imei"
}

func TestNoFalseCompatible(t *testing.T) {
	pairs := 2000
	if testing.Short() || raceEnabled {
		pairs = 300
	}
	m := &mutator{r: rand.New(rand.NewPCG(10, 13))}
	fams := families(t)
	var nPairs, nFindings, nWitnesses, nMessages, nHolds, nBreaks int
	for i := range pairs {
		f := fams[i%len(fams)]
		a, whatA := f.doc, "original"
		if i%3 == 2 {
			a, whatA = m.variant(f)
		}
		b, whatB := m.variant(f)
		if i%2 == 1 {
			a, b, whatA, whatB = b, a, whatB, whatA
		}
		old, new := asSchema(t, f.name, a, "1.0"), asSchema(t, f.name, b, "1.1")
		r, err := compat.Compare(old, new, compat.Options{})
		require.NoError(t, err, "%s: %s -> %s", f.name, whatA, whatB)
		j := newJudge(t, old, new)
		ok := t.Run(fmt.Sprintf("%d %s", i, f.name), func(t *testing.T) {
			nWitnesses += j.checkWitnesses(t, r)
			strict, err := compat.Compare(old, new, compat.Options{Strict: true})
			require.NoError(t, err)
			nWitnesses += j.checkWitnesses(t, strict)
			holds, strictHolds := holdsOf(r), holdsOf(strict)
			for _, data := range corpus(f, a, b) {
				nMessages++
				oldOK, _ := j.accepts(old, data)
				newOK, _ := j.accepts(new, data)
				msg := decodeAny(data)
				if holds[compat.Backward] && oldOK && !newOK && !foreign(msg, a, b) {
					t.Errorf("checker says backward holds, but 1.0 accepts and 1.1 rejects %s\nold: %s\nnew: %s\nfindings: %v", data, whatA, whatB, r.Findings)
				}
				if holds[compat.Forward] && newOK && !oldOK && !foreign(msg, b, a) {
					t.Errorf("checker says forward holds, but 1.1 accepts and 1.0 rejects %s\nold: %s\nnew: %s\nfindings: %v", data, whatA, whatB, r.Findings)
				}
				// Strict mode makes no assumption: no message may break it.
				if strictHolds[compat.Backward] && oldOK && !newOK || strictHolds[compat.Forward] && newOK && !oldOK {
					t.Errorf("checker says strictly compatible, but 1.0 %v and 1.1 %v on %s\nold: %s\nnew: %s\nfindings: %v", oldOK, newOK, data, whatA, whatB, strict.Findings)
				}
			}
			for _, h := range holds {
				if h {
					nHolds++
				} else {
					nBreaks++
				}
			}
		})
		if !ok {
			t.Logf("old %s: %s", f.name, mustJSON(a))
			t.Logf("new %s: %s", f.name, mustJSON(b))
			break
		}
		nPairs++
		nFindings += len(r.Findings)
	}
	t.Logf("judged %d pairs: %d findings (%d witnesses), %d directions held and %d broke, %d corpus messages", nPairs, nFindings, nWitnesses, nHolds, nBreaks, nMessages)
}

// holdsOf returns the directions r says hold.
func holdsOf(r *compat.Report) map[compat.Mode]bool {
	holds := map[compat.Mode]bool{compat.Backward: true, compat.Forward: true}
	for _, f := range r.Findings {
		if f.Breaks&compat.Backward != 0 {
			holds[compat.Backward] = false
		}
		if f.Breaks&compat.Forward != 0 {
			holds[compat.Forward] = false
		}
	}
	return holds
}

func decodeAny(data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	dec.Decode(&v)
	return v
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
