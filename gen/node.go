package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A node is one schema object, keyword by keyword, each as its JSON
// text. The generator reads schemas this way rather than through a
// schema model so that it sees every keyword exactly as written (a
// count written 2.0, a bound beyond a float64's precision, a default
// given as null) and can refuse what it does not implement.
type node map[string]json.RawMessage

// A builder reads the schema objects of one schema file, resolving each
// $ref to the schema it names.
type builder struct {
	schema string          // the schema's name, for the catalogue's own rules
	root   json.RawMessage // the schema file, which "#..." refers into
	draft7 bool            // the file's dialect is draft 7, where $ref hides its siblings
	others map[string][]byte
	// objectCases counts the object schemas of oneOf and anyOf cases,
	// which name their types (cases.go).
	objectCases int
	// containsSchemas counts the schemas of contains, which name their
	// check functions (contains.go).
	containsSchemas int
}

func newBuilder(s input) (*builder, error) {
	b := &builder{schema: s.Name, root: s.Data, others: s.Others}
	var head struct {
		Schema string `json:"$schema"`
	}
	if err := json.Unmarshal(s.Data, &head); err != nil {
		return nil, err
	}
	switch strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(head.Schema, "http://"), "https://"), "#") {
	case "", "json-schema.org/draft-07/schema", "json-schema.org/draft/2020-12/schema":
	default:
		// A metaschema of its own may leave out vocabularies (validation,
		// format), which changes what every keyword means.
		return nil, fmt.Errorf("$schema %q: a dialect other than draft-07 and 2020-12 is not supported by the generator", head.Schema)
	}
	b.draft7 = strings.Contains(head.Schema, "draft-07")
	return b, nil
}

// maxDepth is how deeply the members of a message may nest: deep enough
// for any message, and a bound on a $ref that refers to itself.
const maxDepth = 32

// parseNode reads the schema at path, the one its $ref names if it has
// one.
func (b *builder) parseNode(path string, raw json.RawMessage) (node, error) {
	return b.parseNodeDepth(path, raw, 0)
}

func (b *builder) parseNodeDepth(path string, raw json.RawMessage, depth int) (node, error) {
	n, err := parseNode(path, raw)
	if err != nil || n["$ref"] == nil && n["allOf"] == nil {
		return n, err
	}
	if depth > maxDepth || strings.Count(path, "/") > maxDepth {
		return nil, fmt.Errorf("%s: members nest more than %d deep, or a $ref refers to a schema that holds it", orRoot(path), maxDepth)
	}
	var branches []node
	if raw, ok := n["$ref"]; ok {
		var ref string
		if err := json.Unmarshal(raw, &ref); err != nil {
			return nil, fmt.Errorf("%s: $ref %s is not a string", orRoot(path), raw)
		}
		target, err := b.resolve(ref)
		if err != nil {
			return nil, fmt.Errorf("%s: $ref %q: %v", orRoot(path), ref, err)
		}
		t, err := b.parseNodeDepth(path, target, depth+1)
		if err != nil {
			return nil, err
		}
		if b.draft7 {
			// Draft 7 ignores what stands beside a $ref.
			return t, nil
		}
		// 2020-12 applies both, as allOf does.
		branches = append(branches, t)
		n = maps.Clone(n)
		delete(n, "$ref")
	}
	if raw, ok := n["allOf"]; ok {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
			return nil, fmt.Errorf("%s: allOf %s is not a list of schemas", orRoot(path), raw)
		}
		for i, raw := range list {
			t, err := b.parseNodeDepth(path+"/allOf/"+strconv.Itoa(i), raw, depth+1)
			if err != nil {
				return nil, err
			}
			branches = append(branches, t)
		}
		n = maps.Clone(n)
		delete(n, "allOf")
	}
	// What stands beside them is one more branch, first, so that its
	// members keep their place.
	return b.merge(path, append([]node{n}, branches...))
}

// annotation are the keywords that only describe.
var annotation = map[string]bool{
	"title": true, "description": true, "$comment": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
}

// resolve returns the schema a $ref names: a JSON Pointer into the same
// file ("#/$defs/point"), or another schema of the catalogue by its $id,
// whole or with a pointer, which may hold no $ref of its own.
func (b *builder) resolve(ref string) (json.RawMessage, error) {
	uri, fragment, _ := strings.Cut(ref, "#")
	doc := b.root
	if uri != "" {
		other, ok := b.others[withoutScheme(uri)]
		if !ok {
			return nil, fmt.Errorf("names no schema of the catalogue")
		}
		if strings.Contains(string(other), `"$ref"`) {
			return nil, fmt.Errorf("the schema it names holds a $ref of its own, which is not supported by the generator")
		}
		doc = other
	}
	if fragment != "" && !strings.HasPrefix(fragment, "/") {
		return nil, fmt.Errorf("an anchor, which is not supported by the generator")
	}
	fragment, err := url.PathUnescape(fragment)
	if err != nil {
		return nil, err
	}
	at := json.RawMessage(doc)
	if fragment == "" {
		if uri == "" {
			return nil, fmt.Errorf("the whole schema, which holds it: a recursive schema is not supported by the generator")
		}
		return at, nil
	}
	for _, tok := range strings.Split(fragment[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		var obj map[string]json.RawMessage
		if json.Unmarshal(at, &obj) == nil {
			next, ok := obj[tok]
			if !ok {
				return nil, fmt.Errorf("nothing at %s", fragment)
			}
			at = next
			continue
		}
		var list []json.RawMessage
		i, err := strconv.Atoi(tok)
		if json.Unmarshal(at, &list) != nil || err != nil || i < 0 || i >= len(list) {
			return nil, fmt.Errorf("nothing at %s", fragment)
		}
		at = list[i]
	}
	return at, nil
}

// withoutScheme returns a URI without its scheme, so that http and https
// name the same schema (decision 9).
func withoutScheme(uri string) string {
	if _, rest, ok := strings.Cut(uri, "://"); ok {
		return rest
	}
	return uri
}

// never is the key of the node that allows no value, with why: what a
// schema cannot spell, so that no schema can mean it by mistake.
const never = "\x00never"

// parseNode reads the schema at path.
func parseNode(path string, raw json.RawMessage) (node, error) {
	switch string(raw) {
	case "true":
		// The schema that allows everything, as {} does.
		return node{}, nil
	case "false":
		return node{never: json.RawMessage(`"false"`)}, nil
	}
	var n node
	if err := json.Unmarshal(raw, &n); err != nil || n == nil {
		var b bool
		if json.Unmarshal(raw, &b) == nil {
			return nil, fmt.Errorf("%s: a boolean schema (%t) is not supported by the generator", orRoot(path), b)
		}
		return nil, fmt.Errorf("%s: a schema must be an object", orRoot(path))
	}
	return n, nil
}

// types returns the schema's types: its type keyword, a string or a
// list of them; nil when it has none.
func (n node) types(path string) ([]string, error) {
	raw, ok := n["type"]
	if !ok {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%s: type %s is neither a type nor a list of them", orRoot(path), raw)
	}
	return list, nil
}

// text returns the value of a keyword whose value is a string, such as
// format or description; "" when absent.
func (n node) text(path, keyword string) (string, error) {
	raw, ok := n[keyword]
	if !ok {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: %s %s is not a string", orRoot(path), keyword, raw)
	}
	return s, nil
}

// names returns the value of a keyword whose value is a list of
// strings, such as required.
func (n node) names(path, keyword string) ([]string, error) {
	raw, ok := n[keyword]
	if !ok {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%s: %s %s is not a list of strings", orRoot(path), keyword, raw)
	}
	return list, nil
}

// number returns the value of a keyword whose value is a number, such as
// minimum, exactly; nil when absent.
func (n node) number(path, keyword string) (*big.Rat, error) {
	raw, ok := n[keyword]
	if !ok {
		return nil, nil
	}
	if m := exponent.FindSubmatch(raw); m != nil && len(m[1]) > 3 {
		// 1e1000000000 would take gigabytes as an exact rational.
		return nil, fmt.Errorf("%s: %s %s: an exponent beyond ±999 is not supported by the generator", orRoot(path), keyword, raw)
	}
	r, ok := new(big.Rat).SetString(string(raw))
	if !ok || len(raw) == 0 || raw[0] == '+' || raw[0] == '.' {
		return nil, fmt.Errorf("%s: %s %s is not a number", orRoot(path), keyword, raw)
	}
	return r, nil
}

// exponent finds the digits of a number's exponent, leading zeros left
// out.
var exponent = regexp.MustCompile(`[eE][+-]?0*([0-9]+)`)

// numbers returns the values of keywords whose values are numbers, in
// the order asked, nil for those absent.
func (n node) numbers(path string, keywords ...string) ([]*big.Rat, error) {
	list := make([]*big.Rat, len(keywords))
	for i, k := range keywords {
		r, err := n.number(path, k)
		if err != nil {
			return nil, err
		}
		list[i] = r
	}
	return list, nil
}

// count returns the value of a keyword that counts (maxLength, maxItems
// and the like): a non-negative integer, which JSON Schema lets a schema
// write 2.0; nil when the keyword is absent.
func (n node) count(path, keyword string) (*int, error) {
	r, err := n.number(path, keyword)
	if r == nil || err != nil {
		return nil, err
	}
	if !r.IsInt() || r.Sign() < 0 || r.Num().Cmp(big.NewInt(math.MaxInt32)) > 0 {
		return nil, fmt.Errorf("%s: %s %s is not a count (a non-negative integer below 2^31)", orRoot(path), keyword, n[keyword])
	}
	c := int(r.Num().Int64())
	return &c, nil
}

// list returns the values of a keyword whose value is a list, such as
// enum, each as its JSON text.
func (n node) list(path, keyword string) ([]json.RawMessage, error) {
	raw, ok := n[keyword]
	if !ok {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%s: %s %s is not a list", orRoot(path), keyword, raw)
	}
	return list, nil
}

// appliesTo lists, for the keywords that assert something of one kind of
// value only, the JSON types they apply to: on a value of any other type
// JSON Schema ignores them. A member whose type rules them out can
// ignore them too, and stay exact: {"type": "integer", "minLength": 2}
// accepts every integer.
var appliesTo = map[string][]string{
	"minLength": {"string"}, "maxLength": {"string"}, "pattern": {"string"},
	"format": {"string"}, "contentEncoding": {"string"}, "contentMediaType": {"string"}, "contentSchema": {"string"},
	"minimum": {"number"}, "maximum": {"number"}, "exclusiveMinimum": {"number"},
	"exclusiveMaximum": {"number"}, "multipleOf": {"number"},
	"items": {"array"}, "additionalItems": {"array"}, "prefixItems": {"array"},
	"contains": {"array"}, "minContains": {"array"}, "maxContains": {"array"},
	"minItems": {"array"}, "maxItems": {"array"}, "uniqueItems": {"array"},
	"unevaluatedItems": {"array"},
	"properties":       {"object"}, "required": {"object"}, "additionalProperties": {"object"},
	"patternProperties": {"object"}, "propertyNames": {"object"},
	"minProperties": {"object"}, "maxProperties": {"object"},
	"dependentRequired": {"object"}, "dependentSchemas": {"object"},
	"dependencies": {"object"}, "unevaluatedProperties": {"object"},
}

// without returns n without the keywords that apply to none of types
// (integer counting as a number).
func (n node) without(types []string) node {
	out := make(node, len(n))
	for k, v := range n {
		if on, ok := appliesTo[k]; ok && !slices.ContainsFunc(types, func(t string) bool {
			return slices.Contains(on, t) || t == "integer" && slices.Contains(on, "number")
		}) {
			continue
		}
		out[k] = v
	}
	return out
}

// values returns the values a schema allows by enum and const, each as
// the canonical JSON text of jsonCanonical, and the keyword whose rule a
// value outside them breaks: const when the schema gives one (enum then
// keeps it or allows nothing). It returns nil when the schema gives
// neither.
func (n node) values(path string) ([]string, string, error) {
	enum, err := n.list(path, "enum")
	if err != nil {
		return nil, "", err
	}
	list := []string{}
	for _, raw := range enum {
		c, err := jsonCanonical(raw)
		if err != nil {
			return nil, "", fmt.Errorf("%s: enum: %v", orRoot(path), err)
		}
		if !slices.Contains(list, c) {
			list = append(list, c)
		}
	}
	raw, ok := n["const"]
	if !ok {
		if n["enum"] == nil {
			return nil, "", nil
		}
		return list, "enum", nil
	}
	c, err := jsonCanonical(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%s: const: %v", orRoot(path), err)
	}
	if n["enum"] != nil && !slices.Contains(list, c) {
		return []string{}, "const", nil
	}
	return []string{c}, "const", nil
}

// enumOf returns, of values in canonical JSON, those a member of type typ
// can hold, as Go literals (a string quoted, an integer in decimal, a
// boolean), and whether null is one of values.
func enumOf(typ string, values []string) (list []string, null bool) {
	for _, v := range values {
		switch {
		case v == "null":
			null = true
		case typ == "string" && v[0] == '"',
			typ == "boolean" && (v == "true" || v == "false"):
			list = append(list, v)
		case typ == "integer" && (v[0] == '-' || v[0] >= '0' && v[0] <= '9'):
			r, _ := new(big.Rat).SetString(v)
			if r.IsInt() && r.Num().IsInt64() {
				list = append(list, r.Num().String())
			}
		}
	}
	return list, null
}

// jsonCanonical returns the canonical text of a JSON value, the same for
// two values exactly when JSON Schema calls them equal: numbers by their
// value (1, 1.0 and 1e0 alike), objects whatever the order of their
// members, strings with the escapes of strconv.Quote.
func jsonCanonical(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	var b strings.Builder
	var write func(v any)
	write = func(v any) {
		switch v := v.(type) {
		case nil:
			b.WriteString("null")
		case bool:
			b.WriteString(strconv.FormatBool(v))
		case string:
			b.WriteString(strconv.Quote(v))
		case json.Number:
			r, _ := new(big.Rat).SetString(string(v))
			if r.IsInt() {
				b.WriteString(r.Num().String())
			} else {
				b.WriteString(numberText(r))
			}
		case []any:
			b.WriteByte('[')
			for i, x := range v {
				if i > 0 {
					b.WriteByte(',')
				}
				write(x)
			}
			b.WriteByte(']')
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Quote(k))
				b.WriteByte(':')
				write(v[k])
			}
			b.WriteByte('}')
		}
	}
	write(v)
	return b.String(), nil
}

// dependents returns a schema's dependentRequired, or the array form of
// draft 7's dependencies, each as the member and those it requires,
// sorted by member so that the generated code is the same from run to
// run; and the keyword giving them. A dependency on a schema is refused.
func (n node) dependents(path string) ([][]string, string, error) {
	keyword := "dependentRequired"
	raw, ok := n[keyword]
	if !ok {
		keyword = "dependencies"
		if raw, ok = n[keyword]; !ok {
			return nil, "", nil
		}
	}
	if n["dependentRequired"] != nil && n["dependencies"] != nil {
		return nil, "", fmt.Errorf("%s: both dependentRequired and dependencies", orRoot(path))
	}
	var deps map[string]json.RawMessage
	if err := json.Unmarshal(raw, &deps); err != nil {
		return nil, "", fmt.Errorf("%s: %s is not an object", orRoot(path), keyword)
	}
	var list [][]string
	for _, name := range slices.Sorted(maps.Keys(deps)) {
		var then []string
		if err := json.Unmarshal(deps[name], &then); err != nil {
			return nil, "", fmt.Errorf("%s: %s of %q: only lists of member names are supported by the generator", orRoot(path), keyword, name)
		}
		list = append(list, append([]string{name}, then...))
	}
	return list, keyword, nil
}
