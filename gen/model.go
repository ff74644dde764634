package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/token"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fleetkit/catalogue/internal/goname"
	"github.com/fleetkit/catalogue/internal/jsonobject"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// A repr is how a member is held in its Go struct.
type repr int

const (
	// reprValue holds the value itself: for members that are required, or
	// that take a default when absent, and cannot be null.
	reprValue repr = iota
	// reprPointer holds a pointer, a slice or a map, nil when absent, or
	// when null where null is the default (absent and null mean the same).
	reprPointer
	// reprNullable holds a msg.Nullable: for optional, nullable members
	// without a default, where absent and null differ.
	reprNullable
)

// reprOf returns the repr of a member: required or not, nullable or not,
// with a default or not (a null default included).
func reprOf(required, nullable, hasDefault bool) repr {
	switch {
	case required && nullable, !required && nullable && hasDefault:
		return reprPointer
	case required, hasDefault:
		return reprValue
	case nullable:
		return reprNullable
	}
	return reprPointer
}

// A message is one generated struct: a schema's root object, or an object
// member with declared members.
type message struct {
	GoName      string
	Path        string // JSON Pointer of the object in the root message, for comments
	Description string
	Fields      []*field
	Nested      []*message
	// Closed says the schema allows no member it does not declare
	// (additionalProperties false).
	Closed bool
	// MinProps and MaxProps are the schema's minProperties and
	// maxProperties.
	MinProps, MaxProps *int
	// Dependents are the schema's dependentRequired (or draft 7's array
	// dependencies), by the keyword DependentRule.
	Dependents    []dependent
	DependentRule string
	// Names is the schema's propertyNames, nil without one.
	Names *names
	// Extras are the schemas of the members its patternProperties name,
	// and Additional that of the others, when additionalProperties is a
	// schema (patternprops.go).
	Extras     []*extraSchema
	Additional *extraSchema
}

// names is what propertyNames asks of every member name: lengths in
// code points, a pattern, a format, as wire.Names checks them.
type names struct {
	MinLength int
	MaxLength int // -1 for none
	Pattern   string
	RE2       string
	Check     string // the wire function of the format, if any
	Schema    string // the schema's text, for messages
}

// A dependent says that when the member If is present, the member Then
// must be too.
type dependent struct{ If, Then *field }

// A field is one declared member of a message.
type field struct {
	JSON        string // the member name
	GoName      string
	Description string
	Kind        kind
	Repr        repr
	Required    bool
	Nullable    bool
	Default     json.RawMessage // nil when the schema gives none
	Enum        []string        // for kindEnum, the allowed strings
	EnumNull    bool            // for kindEnum, whether null is allowed
	EnumType    string          // for kindEnum, the Go type of the values
	EnumConsts  []string        // for kindEnum, the Go constant of each value
	Min, Max    *int64
	// Above and Below are an integer's exclusive bounds, as integers: a
	// value must be more than Above and less than Below.
	Above, Below *int64
	// MultipleOf is p of the schema's multipleOf p/q in lowest terms: an
	// integer is a multiple of p/q exactly when p divides it. Factor is
	// the schema's text, for messages.
	MultipleOf *int64
	Factor     string
	// NumMin, NumMax, NumAbove and NumBelow are a number's bounds, as
	// the schema's text, compared exactly; FactorVar names the package
	// variable holding its multipleOf, Factor.
	NumMin, NumMax, NumAbove, NumBelow string
	FactorVar                          string
	MinLength                          int
	MaxLength                          *int
	// Pattern is the schema's pattern, an ECMA-262 regular expression;
	// RE2 the Go expression that matches the same strings, compiled once
	// into the package variable PatternVar.
	Pattern, RE2, PatternVar string
	// Values is "enum" or "const" when the schema lists the member's
	// values, by the keyword whose rule a value outside them breaks;
	// Allowed are those values, as Go literals, for the kinds other than
	// kindEnum (whose values are Enum).
	Values  string
	Allowed []string
	// MinItems, MaxItems and Unique are an array's minItems, maxItems and
	// uniqueItems.
	MinItems, MaxItems *int
	Unique             bool
	IMEI               bool     // the catalogue's IMEI rule applies (decision 6)
	Object             *message // for kindObject
	Item               *field   // for kindArray, what each item is
	// Branches are, for kindUnion, the branches of its oneOf or anyOf
	// (Union, the keyword), one per JSON type, in the schema's order.
	Branches []*field
	Union    string
	// Cases are, for a member whose schema gives a type beside a oneOf
	// or an anyOf, the schemas of each, judging a value of the member's
	// own kind (see cases.go).
	Cases []*caseSet
	// Contains is an array's contains, the schema of which MinContains
	// to MaxContains (-1 for no bound) of its items must pass.
	Contains                 *extraSchema
	MinContains, MaxContains int
	// RawValues are the values an enum or const allows a number, an
	// array, an object or a member of any value, as JSON compared by
	// JSON equality at run time, through the package variable ValuesVar.
	RawValues []string
	ValuesVar string
	// Never is, for kindNever, the rule any value breaks: false (a false
	// schema), enum, const or type (an allOf of types that share none).
	Never string
}

// walkFields calls fn on every field of m and of the messages within it,
// the items of arrays included, depth first.
func (m *message) walkFields(fn func(f *field)) {
	for _, f := range m.Fields {
		f.walk(fn)
	}
	for _, x := range m.allExtras() {
		x.Value.walk(fn)
	}
}

// walk calls fn on f and on every field within it: its items, its
// branches, and their objects' fields.
func (f *field) walk(fn func(f *field)) {
	fn(f)
	if f.Object != nil {
		f.Object.walkFields(fn)
	}
	if f.Item != nil {
		f.Item.walk(fn)
	}
	for _, b := range f.Branches {
		b.walk(fn)
	}
	for _, cs := range f.Cases {
		for _, c := range cs.Cases {
			if c != nil {
				c.walk(fn)
			}
		}
	}
	if f.Contains != nil {
		f.Contains.Value.walk(fn)
	}
}

// An input is one schema of the catalogue, as the generator reads it.
type input struct {
	Name, Version, ID string
	RegistryID        int32  // the version's registry id, 0 if the catalogue folder records none
	Major             int    // the version's major number
	File              string // its file name in the catalogue
	Source            string // its path from the module's root, for the generated header
	Data              []byte
	// Others are the schemas of the catalogue by $id, the scheme left
	// out (decision 9), for a $ref to another schema.
	Others map[string][]byte
}

// A schemaFile is one schema turned into the model of its package.
type schemaFile struct {
	Schema  input
	Package string
	Root    *message
	// Suffix is "" for the latest minor of a major, whose types the
	// package exports; for an earlier minor it ends the names of its own
	// types, unexported, such as sensorV1_0 for demo.sensor 1.0.
	Suffix string
	Latest *schemaFile // for an earlier minor, the latest of its major
	// Identity names the members that identify a message on a broker.
	Identity *identity
	Older    []*schemaFile // for the latest minor, the earlier ones, oldest first
}

// olderMinor renames the types of sf, an earlier minor of its major, so
// that they live unexported beside the latest minor's in one package.
func (sf *schemaFile) olderMinor() {
	sf.Suffix = "V" + strings.ReplaceAll(sf.Schema.Version, ".", "_")
	renamed := make(map[*message]bool)
	sf.Root.walkFields(func(f *field) {
		if f.Kind == kindEnum {
			f.EnumType = unexport(f.EnumType) + sf.Suffix
			f.nameEnum()
		}
		if f.Pattern != "" {
			f.PatternVar += sf.Suffix
		}
		if f.FactorVar != "" {
			f.FactorVar += sf.Suffix
		}
		if f.ValuesVar != "" {
			f.ValuesVar += sf.Suffix
		}
		if f.Object != nil && !renamed[f.Object] {
			renamed[f.Object] = true
			f.Object.GoName = unexport(f.Object.GoName) + sf.Suffix
		}
	})
	sf.Root.GoName = unexport(sf.Root.GoName) + sf.Suffix
}

// unexport lower-cases the first letter of an exported Go name.
func unexport(name string) string {
	return strings.ToLower(name[:1]) + name[1:]
}

// reserved are the names of the methods of every generated message type
// (msg.Message's, and String), which no member's field can take.
var reserved = map[string]bool{
	"Validate": true, "Unset": true, "SchemaName": true, "SchemaVersion": true,
	"SchemaKind": true, "Identity": true, "MarshalJSON": true, "AppendJSON": true,
	"UnmarshalJSON": true, "String": true, "Extra": true,
}

// keywords are the JSON Schema keywords the generator implements. A schema
// using any other is refused rather than half-implemented.
var keywords = map[string]bool{
	"$schema": true, "$id": true, "title": true, "description": true,
	"type": true, "required": true, "properties": true, "items": true,
	"format": true, "default": true, "enum": true, "const": true,
	"$comment": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"minimum": true, "maximum": true, "minLength": true, "maxLength": true,
	"minItems": true, "maxItems": true, "uniqueItems": true, "pattern": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"$defs": true, "definitions": true, "allOf": true, "$ref": true, "oneOf": true, "anyOf": true, "not": true, "if": true, "then": true, "else": true, "contains": true, "minContains": true, "maxContains": true, "dependentSchemas": true,
	never:                  true,
	"additionalProperties": true, "patternProperties": true, "minProperties": true, "maxProperties": true, "propertyNames": true,
	"dependentRequired": true, "dependencies": true,
}

// build turns a catalogue schema into the model of its package, reading
// the schema keyword by keyword (see node).
func build(s input) (*schemaFile, error) {
	pkg := s.Name[strings.LastIndexByte(s.Name, '.')+1:]
	b, err := newBuilder(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", s.File, err)
	}
	root, err := b.buildMessage(goname.Exported(pkg), "", s.Data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", s.File, err)
	}
	for _, f := range root.Fields {
		if reserved[f.GoName] {
			return nil, fmt.Errorf("%s: /%s: the member's Go name %s is a method of every message", s.File, f.JSON, f.GoName)
		}
	}
	sf := &schemaFile{Schema: s, Package: pkg, Root: root}
	sf.namePatterns()
	if sf.Identity, err = identityOf(sf); err != nil {
		return nil, fmt.Errorf("%s: %v", s.File, err)
	}
	return sf, nil
}

func (b *builder) buildMessage(goName, path string, raw json.RawMessage) (*message, error) {
	node, err := b.parseNode(path, raw)
	if err != nil {
		return nil, err
	}
	types, err := node.types(path)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(types, []string{"object"}) {
		return nil, fmt.Errorf("%s: a message must be an object, not %v", orRoot(path), types)
	}
	if u := unionKeyword(node); u != "" {
		return nil, fmt.Errorf("%s: %s on an object with members is not supported by the generator", orRoot(path), u)
	}
	if err := supported(path, node); err != nil {
		return nil, err
	}
	description, err := node.text(path, "description")
	if err != nil {
		return nil, err
	}
	m := &message{GoName: goName, Path: path, Description: description}
	order, err := memberOrder(node["properties"])
	if err != nil {
		return nil, fmt.Errorf("%s: properties is not an object", orRoot(path))
	}
	var props map[string]json.RawMessage
	if err := json.Unmarshal(node["properties"], &props); err != nil && node["properties"] != nil {
		return nil, err
	}
	required, err := node.names(path, "required")
	if err != nil {
		return nil, err
	}
	// A member the object names in required or dependentRequired
	// without declaring it may hold any value: it is declared here as
	// one of kindAny, after the others.
	deps, depRule, err := node.dependents(path)
	if err != nil {
		return nil, err
	}
	implied := slices.Clone(required)
	for _, d := range deps {
		implied = append(append(implied, d[0]), d[1:]...)
	}
	if props == nil {
		props = make(map[string]json.RawMessage)
	}
	for _, name := range implied {
		if props[name] == nil {
			props[name] = json.RawMessage("true")
			order = append(order, name)
		}
	}
	if err := m.closed(path, node); err != nil {
		return nil, err
	}
	if err := b.extraSchemas(m, path, node, props); err != nil {
		return nil, err
	}
	if m.MinProps, err = node.count(path, "minProperties"); err != nil {
		return nil, err
	}
	if m.MaxProps, err = node.count(path, "maxProperties"); err != nil {
		return nil, err
	}
	if raw, ok := node["propertyNames"]; ok {
		if m.Names, err = b.propertyNames(path+"/propertyNames", raw); err != nil {
			return nil, err
		}
	}
	for _, name := range order {
		f, err := b.buildField(path, name, props[name], slices.Contains(required, name))
		if err != nil {
			return nil, err
		}
		if m.Names != nil && !m.Names.accepts(name) {
			// A member whose name propertyNames refuses may only be
			// absent, whatever its own schema.
			f = &field{JSON: f.JSON, GoName: f.GoName, Description: f.Description, Required: f.Required,
				Kind: kindNever, Never: "propertyNames", Repr: reprPointer}
			if f.Required {
				f.Repr = reprValue
			}
		}
		if f.Object != nil {
			m.Nested = append(m.Nested, f.Object)
		}
		for it := f.Item; it != nil; it = it.Item {
			if it.Object != nil {
				m.Nested = append(m.Nested, it.Object)
			}
		}
		for _, b := range f.Branches {
			if b.Object != nil {
				m.Nested = append(m.Nested, b.Object)
			}
		}
		m.Nested = append(m.Nested, f.caseObjects()...)
		m.Fields = append(m.Fields, f)
	}
	if len(m.Fields) > 64 {
		return nil, fmt.Errorf("%s: more than 64 members", orRoot(path))
	}
	byName := make(map[string]*field)
	for _, f := range m.Fields {
		byName[f.JSON] = f
	}
	m.DependentRule = depRule
	for _, d := range deps {
		for _, then := range d[1:] {
			m.Dependents = append(m.Dependents, dependent{byName[d[0]], byName[then]})
		}
	}
	// A member that decoding fills in with its default when absent, and
	// encoding writes, would make a valid message encode as one these
	// keywords refuse.
	for _, f := range m.Fields {
		if f.Default != nil && !f.Required {
			if m.MaxProps != nil {
				return nil, fmt.Errorf("%s: maxProperties with a member that has a default (%s)", orRoot(path), f.JSON)
			}
			for _, d := range m.Dependents {
				if d.If == f {
					return nil, fmt.Errorf("%s: %s on a member that has a default (%s)", orRoot(path), depRule, f.JSON)
				}
			}
		}
	}
	return m, nil
}

// closed reads additionalProperties, which the generator implements when
// it allows anything (true, {}) or nothing but the declared members
// (false).
func (m *message) closed(path string, node node) error {
	switch raw := string(node["additionalProperties"]); raw {
	case "", "true", "{}":
	case "false":
		m.Closed = true
	}
	return nil
}

func (b *builder) buildField(base, name string, raw json.RawMessage, required bool) (*field, error) {
	path := base + "/" + name
	if q := strconv.Quote(name); q[1:len(q)-1] != name {
		// The decoder matches declared names byte for byte.
		return nil, fmt.Errorf("%s: a member name JSON must escape is not supported", path)
	}
	if goName := goname.Exported(name); !token.IsIdentifier(goName) || !unicode.IsUpper([]rune(goName)[0]) {
		return nil, fmt.Errorf("%s: the member name makes no exported Go name", path)
	}
	return b.buildValue(path, name, raw, required)
}

// buildValue makes the field of member name, at path, whose schema is
// raw.
func (b *builder) buildValue(path, name string, raw json.RawMessage, required bool) (*field, error) {
	node, err := b.parseNode(path, raw)
	if err != nil {
		return nil, err
	}
	all, err := node.types(path)
	if err != nil {
		return nil, err
	}
	// The keywords that apply to none of the member's types assert
	// nothing of its values.
	if node["$id"] != nil {
		return nil, fmt.Errorf("%s: $id in a member's schema, which changes what its $refs name, is not supported by the generator", path)
	}
	if len(all) > 0 {
		node = node.without(all)
	}
	if err := supported(path, node); err != nil {
		return nil, err
	}
	description, err := node.text(path, "description")
	if err != nil {
		return nil, err
	}
	format, err := node.text(path, "format")
	if err != nil {
		return nil, err
	}
	enum, valuesRule, err := node.values(path)
	if err != nil {
		return nil, err
	}
	f := &field{
		JSON:        name,
		GoName:      goname.Exported(name),
		Description: description,
		Required:    required,
		Default:     node["default"],
	}
	if raw, ok := node[never]; ok {
		json.Unmarshal(raw, &f.Never)
		f.Kind, f.Repr = kindNever, reprPointer
		if required {
			f.Repr = reprValue
		}
		return f, nil
	}
	if len(all) > 0 && casesKeyword(node) != "" {
		return b.buildCases(path, name, node, required)
	}
	if u := unionKeyword(node); u != "" {
		if err := b.buildUnion(f, path, u, node); err != nil {
			return nil, err
		}
		return f, nil
	}
	types := slices.Clone(all)
	if i := slices.Index(types, "null"); i >= 0 {
		f.Nullable = true
		types = slices.Delete(types, i, i+1)
	}
	if len(all) == 0 && onlyAnnotations(without(node, "enum", "const")) {
		// A schema that asserts nothing: any value.
		types = []string{"any"}
	}
	if len(types) == 0 && f.Nullable {
		// A member whose only value is null.
		types, f.Nullable = []string{"null"}, false
		if string(f.Default) == "null" {
			f.Default = nil
		}
	}
	if len(all) == 0 && len(types) == 0 {
		// A schema that gives no type judges the values of each type by
		// the keywords that apply to it: a union of every type.
		types = allTypes
		all = allTypes
	}
	if len(types) > 1 {
		if err := b.buildTypeList(f, path, node, all); err != nil {
			return nil, err
		}
		return f, nil
	}
	if len(types) != 1 {
		return nil, fmt.Errorf("%s: want one type besides null, got %v", path, all)
	}
	if enum != nil && slices.Contains([]string{"number", "array", "object", "any"}, types[0]) {
		// Values compared as JSON at run time: those of the member's
		// type (any value's, for a member of any type).
		raws := slices.DeleteFunc(slices.Clone(enum), func(v string) bool { return types[0] != "any" && !ofType(v, types[0]) })
		null := slices.Contains(enum, "null")
		switch {
		case types[0] == "any":
		case len(raws) == 0 && !(null && f.Nullable):
			f.Kind, f.Never, f.Nullable, f.Default = kindNever, valuesRule, false, nil
			f.Repr = reprPointer
			if required {
				f.Repr = reprValue
			}
			return f, nil
		case f.Nullable != null:
			return nil, fmt.Errorf("%s: the %s of a nullable member must list null, and only a nullable one's", path, valuesRule)
		}
		f.RawValues, f.Values, enum = raws, valuesRule, nil
	}
	if enum != nil {
		// Only the values of the member's types can be its values.
		all := enum
		var null bool
		enum, null = enumOf(types[0], enum)
		if len(enum) == 0 && slices.ContainsFunc(all, func(v string) bool { return ofType(v, types[0]) }) {
			return nil, fmt.Errorf("%s: %s on a member of type %s is not supported by the generator", path, valuesRule, types[0])
		}
		if types[0] == "null" && null {
			// Null is the member's only value, and one the enum allows.
			enum, null = []string{"null"}, f.Nullable
		}
		if len(enum) == 0 && !null {
			// No value of the member's type is one of the values.
			f.Kind, f.Never, f.Nullable, f.Default = kindNever, valuesRule, false, nil
			f.Repr = reprPointer
			if required {
				f.Repr = reprValue
			}
			return f, nil
		}
		if len(enum) == 0 {
			return nil, fmt.Errorf("%s: %s allows null alone", path, valuesRule)
		}
		if f.Nullable != null {
			return nil, fmt.Errorf("%s: the %s of a nullable member must list null, and only a nullable one's", path, valuesRule)
		}
		f.EnumNull = null
		f.Values = valuesRule
	}
	switch typ := types[0]; {
	case typ == "string" && enum != nil:
		f.Kind = kindEnum
		f.EnumType = f.GoName
		for _, v := range enum {
			s, _ := strconv.Unquote(v)
			f.Enum = append(f.Enum, s)
		}
		f.nameEnum()
	case typ == "null":
		f.Kind = kindNull
	case typ == "any":
		f.Kind = kindAny
	case enum != nil && typ != "integer" && typ != "boolean":
		return nil, fmt.Errorf("%s: %s on a member of type %s is not supported by the generator", path, valuesRule, typ)
	case typ != "array" && typ != "object":
		k, ok := kindOf(typ, format)
		if !ok {
			return nil, fmt.Errorf("%s: unsupported type %q (format %q)", path, typ, format)
		}
		f.Kind = k
	case typ == "array" && (node["items"] == nil || string(node["items"]) == "true" || string(node["items"]) == "{}"):
		f.Kind = kindRawArray
	case typ == "array":
		if bytes.HasPrefix(bytes.TrimSpace(node["items"]), []byte("[")) {
			return nil, fmt.Errorf("%s: items as a list of schemas (a tuple, prefixItems in 2020-12) is not supported by the generator", path)
		}
		items, err := b.parseNode(path+"/items", node["items"])
		if err != nil {
			return nil, err
		}
		plain := true
		for k := range items {
			// Strings with no more than their type are []string.
			plain = plain && (k == "type" || k == "title" || k == "description")
		}
		if it, err := items.types(path + "/items"); err == nil && slices.Equal(it, []string{"string"}) && plain {
			f.Kind = kindStrings
			break
		}
		item, err := b.buildField(path, "items", node["items"], false)
		if err != nil {
			return nil, err
		}
		switch {
		case item.Nullable || item.Default != nil:
			return nil, fmt.Errorf("%s/items: nullable items, or items with a default, are not supported by the generator", path)
		case item.Kind != kindObject && item.Kind != kindArray && item.Kind != kindStrings && item.Kind != kindNever && (item.row().Reader == "" || item.Kind == kindEnum):
			return nil, fmt.Errorf("%s/items: items of kind %s are not supported by the generator", path, item.row().What)
		}
		item.JSON = "*"
		// The items of arrays within, to any depth, are named after f.
		at, goName := path+"/*", f.GoName+"Item"
		for it := item; it != nil; it, at, goName = it.Item, at+"/*", goName+"Item" {
			it.GoName = goName
			if it.Object != nil {
				it.Object.GoName, it.Object.Path = goName, at
			}
		}
		f.Kind, f.Item = kindArray, item
	case typ == "object" && node["properties"] == nil && !slices.ContainsFunc(objectKeywords, func(k string) bool { return node[k] != nil }):
		f.Kind = kindRawObject
	case typ == "object":
		f.Kind = kindObject
		obj, err := b.buildMessage(f.GoName, path, raw)
		if err != nil {
			return nil, err
		}
		f.Object = obj
	default:
		return nil, fmt.Errorf("%s: unsupported type %q (format %q)", path, typ, format)
	}
	if enum != nil && f.Kind != kindEnum && f.Kind != kindNull {
		f.Allowed = enum
	}
	if format != f.row().Format {
		return nil, fmt.Errorf("%s: unsupported format %q", path, format)
	}
	nums, err := node.numbers(path, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
	if err != nil {
		return nil, err
	}
	min, max, above, below, factor := nums[0], nums[1], nums[2], nums[3], nums[4]
	if f.row().NumberBounds {
		text := func(k string) string {
			if node[k] == nil {
				return ""
			}
			r, _ := new(big.Rat).SetString(string(node[k]))
			return numberText(r)
		}
		f.NumMin, f.NumMax = text("minimum"), text("maximum")
		f.NumAbove, f.NumBelow = text("exclusiveMinimum"), text("exclusiveMaximum")
		if factor != nil {
			if factor.Sign() <= 0 {
				return nil, fmt.Errorf("%s: multipleOf %s is not positive", path, node["multipleOf"])
			}
			f.Factor = string(node["multipleOf"])
		}
		above, below, factor, min, max = nil, nil, nil, nil, nil
	}
	if above != nil || below != nil || factor != nil {
		if !f.row().Bounds {
			return nil, fmt.Errorf("%s: exclusive bounds or multipleOf on a non-integer member", path)
		}
		// x > 2.5 is x > 2 for an integer, and x < 2.5 is x < 3.
		if f.Above, err = bound(path, above, false); err != nil {
			return nil, err
		}
		if f.Below, err = bound(path, below, true); err != nil {
			return nil, err
		}
	}
	if factor != nil {
		if factor.Sign() <= 0 {
			return nil, fmt.Errorf("%s: multipleOf %s is not positive", path, node["multipleOf"])
		}
		if !factor.Num().IsInt64() {
			return nil, fmt.Errorf("%s: multipleOf %s: its numerator in lowest terms is beyond an int64", path, node["multipleOf"])
		}
		if p := factor.Num().Int64(); p != 1 {
			f.MultipleOf, f.Factor = &p, string(node["multipleOf"])
		}
	}
	if min != nil || max != nil {
		if !f.row().Bounds {
			return nil, fmt.Errorf("%s: bounds on a non-integer member", path)
		}
		if f.Min, err = bound(path, min, true); err != nil {
			return nil, err
		}
		if f.Max, err = bound(path, max, false); err != nil {
			return nil, err
		}
	}
	minLength, err := node.count(path, "minLength")
	if err != nil {
		return nil, err
	}
	if minLength != nil {
		f.MinLength = *minLength
	}
	if f.MaxLength, err = node.count(path, "maxLength"); err != nil {
		return nil, err
	}
	if f.Pattern, err = node.text(path, "pattern"); err != nil {
		return nil, err
	}
	if f.Pattern != "" {
		if f.RE2, err = ecmaToRE2(f.Pattern); err != nil {
			return nil, fmt.Errorf("%s: pattern %s: %v", path, strconv.Quote(f.Pattern), err)
		}
	}
	if (minLength != nil || f.MaxLength != nil || f.Pattern != "") && !f.row().Lengths {
		return nil, fmt.Errorf("%s: minLength, maxLength or pattern on a member that is not a plain string", path)
	}
	if f.MinItems, err = node.count(path, "minItems"); err != nil {
		return nil, err
	}
	if f.MaxItems, err = node.count(path, "maxItems"); err != nil {
		return nil, err
	}
	if raw, ok := node["uniqueItems"]; ok {
		if err := json.Unmarshal(raw, &f.Unique); err != nil {
			return nil, fmt.Errorf("%s: uniqueItems %s is not a boolean", path, raw)
		}
	}
	if err := b.contains(f, path, node); err != nil {
		return nil, err
	}
	if f.Unique && f.Kind == kindArray {
		return nil, fmt.Errorf("%s: uniqueItems on an array of %s is not supported by the generator", path, f.Item.row().What)
	}
	if (f.MinItems != nil || f.MaxItems != nil || f.Unique) && !f.row().Items {
		return nil, fmt.Errorf("%s: minItems, maxItems or uniqueItems on a member that is not an array", path)
	}
	for _, r := range schemas.ExtraRules(b.schema) { // the catalogue's rules JSON Schema cannot express
		if r.Pointer() != path {
			continue
		}
		if r.Rule != msg.RuleIMEI || f.Kind != kindString || f.Nullable {
			return nil, fmt.Errorf("%s: rule %q does not fit the member", path, r.Rule)
		}
		f.IMEI = true
	}
	f.Repr = reprOf(required, f.Nullable, f.Default != nil)
	if f.Default != nil && string(f.Default) != "null" {
		if f.row().Default == nil {
			return nil, fmt.Errorf("%s: defaults are not supported on this kind of member", path)
		}
		if _, err := f.row().Default(f.Default); err != nil {
			return nil, fmt.Errorf("%s: default %s: %v", path, f.Default, err)
		}
		// Decoding fills an absent member with its default, and encoding
		// writes it: a default the member's own schema refuses would turn
		// a valid message into one that is not.
		if err := f.checkDefault(); err != nil {
			return nil, fmt.Errorf("%s: default %s breaks the member's own schema: %v", path, f.Default, err)
		}
	}
	if f.Kind == kindEnum && f.Repr == reprPointer && f.Nullable {
		return nil, fmt.Errorf("%s: a nullable enum must be required, or have a default, or none", path)
	}
	if f.Kind == kindObject && f.Repr != reprPointer {
		return nil, fmt.Errorf("%s: objects with declared members must be optional and not nullable", path)
	}
	return f, nil
}

// bound returns the bound of an integer member given by a minimum (or a
// maximum): the least (or greatest) integer it allows, exactly, so that
// a minimum of 0.5 is 1.
func bound(path string, r *big.Rat, min bool) (*int64, error) {
	if r == nil {
		return nil, nil
	}
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	// QuoRem truncates toward zero: move to the ceiling or the floor.
	if m.Sign() != 0 && (m.Sign() > 0) == min {
		if min {
			q.Add(q, big.NewInt(1))
		} else {
			q.Sub(q, big.NewInt(1))
		}
	}
	if !q.IsInt64() {
		return nil, fmt.Errorf("%s: bound %s is beyond an int64", path, r.RatString())
	}
	n := q.Int64()
	return &n, nil
}

// supported refuses the first keyword of node, in sorted order so that
// the refusal is the same from run to run, that the generator does not
// implement.
func supported(path string, node map[string]json.RawMessage) error {
	for _, k := range slices.Sorted(maps.Keys(node)) {
		if !keywords[k] {
			return fmt.Errorf("%s: keyword %q is not supported by the generator", orRoot(path), k)
		}
	}
	return nil
}

func orRoot(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}

// memberOrder returns the member names of a properties object in the
// order the schema lists them.
func memberOrder(raw json.RawMessage) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	members, err := jsonobject.Members(raw)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range members {
		names = append(names, m.Name)
	}
	return names, nil
}

// checkDefault returns what of f's schema its default breaks, if
// anything; the default is already known to be of f's kind.
func (f *field) checkDefault() error {
	switch f.Kind {
	case kindInt:
		var n int64
		if err := json.Unmarshal(f.Default, &n); err != nil {
			// An integer written as 1.0 or 1e2.
			r, _ := new(big.Rat).SetString(string(f.Default))
			n = r.Num().Int64()
		}
		if f.Min != nil && n < *f.Min || f.Max != nil && n > *f.Max ||
			f.Above != nil && n <= *f.Above || f.Below != nil && n >= *f.Below {
			return fmt.Errorf("out of bounds")
		}
		if f.MultipleOf != nil && n%*f.MultipleOf != 0 {
			return fmt.Errorf("not a multiple of %s", f.Factor)
		}
		if f.Allowed != nil && !slices.Contains(f.Allowed, strconv.FormatInt(n, 10)) {
			return fmt.Errorf("not one of the %s's values", f.Values)
		}
	case kindNumber:
		n, _ := new(big.Rat).SetString(string(f.Default))
		for _, b := range []struct {
			limit string
			ok    func(c int) bool
		}{
			{f.NumMin, func(c int) bool { return c >= 0 }}, {f.NumMax, func(c int) bool { return c <= 0 }},
			{f.NumAbove, func(c int) bool { return c > 0 }}, {f.NumBelow, func(c int) bool { return c < 0 }},
		} {
			if l, ok := new(big.Rat).SetString(b.limit); ok && !b.ok(n.Cmp(l)) {
				return fmt.Errorf("out of bounds")
			}
		}
		if f.Factor != "" {
			m, _ := new(big.Rat).SetString(f.Factor)
			if !new(big.Rat).Quo(n, m).IsInt() {
				return fmt.Errorf("not a multiple of %s", f.Factor)
			}
		}
	case kindBool:
		if f.Allowed != nil && !slices.Contains(f.Allowed, string(f.Default)) {
			return fmt.Errorf("not one of the %s's values", f.Values)
		}
	case kindString, kindEnum:
		var s string
		if err := json.Unmarshal(f.Default, &s); err != nil {
			return err
		}
		if utf8.RuneCountInString(s) < f.MinLength {
			return fmt.Errorf("shorter than minLength %d", f.MinLength)
		}
		if f.MaxLength != nil && utf8.RuneCountInString(s) > *f.MaxLength {
			return fmt.Errorf("longer than maxLength %d", *f.MaxLength)
		}
		if f.Pattern != "" && !regexp.MustCompile(f.RE2).MatchString(s) {
			return fmt.Errorf("no match of its pattern")
		}
		if f.Kind == kindEnum && !slices.Contains(f.Enum, s) {
			return fmt.Errorf("not one of the %s's values", f.Values)
		}
		if f.IMEI && s != "" {
			return fmt.Errorf("not an IMEI")
		}
	}
	return nil
}

// nameEnum names the Go constant of each value of an enum: the type's
// name and the value's, as exportName writes it, or for every value, if
// one makes no name of its own (an empty string, a space, a control
// character), the type's name and the value's place, from 1.
func (f *field) nameEnum() {
	f.EnumConsts = make([]string, len(f.Enum))
	// EnumType+"Values" is the function that lists them.
	seen := map[string]bool{f.EnumType + "Values": true}
	for i, v := range f.Enum {
		c := f.EnumType + goname.Exported(v)
		if v == "" || !token.IsIdentifier(c) || seen[c] {
			for i := range f.Enum {
				f.EnumConsts[i] = f.EnumType + "Value" + strconv.Itoa(i+1)
			}
			return
		}
		seen[c] = true
		f.EnumConsts[i] = c
	}
}

// namePatterns names the package variable of each pattern of sf's
// messages by its place among them.
func (sf *schemaFile) namePatterns() {
	n, k, v := 0, 0, 0
	sf.Root.walkFields(func(f *field) {
		if f.Pattern != "" {
			n++
			f.PatternVar = "pattern" + strconv.Itoa(n)
		}
		if f.Kind == kindNumber && f.Factor != "" {
			k++
			f.FactorVar = "factor" + strconv.Itoa(k)
		}
		if f.RawValues != nil {
			v++
			f.ValuesVar = "values" + strconv.Itoa(v)
		}
	})
}

// objectKeywords are those that make an object without properties one
// with a type of its own (kindObject) rather than a free one.
var objectKeywords = []string{"required", "additionalProperties", "patternProperties", "minProperties", "maxProperties", "dependentRequired", "dependencies", "propertyNames"}

// onlyAnnotations reports whether a schema asserts nothing: it has no
// keyword but those that only describe.
func onlyAnnotations(n node) bool {
	for k := range n {
		switch k {
		case "title", "description", "$comment", "examples", "deprecated", "readOnly", "writeOnly", "default":
		default:
			return false
		}
	}
	return true
}

// numberText writes an exact number as a JSON number literal: an integer
// in decimal, anything else as the decimal it is when it has one of at
// most 40 digits after the point, which every literal of a schema has.
func numberText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	if s, exact := r.FloatPrec(); exact {
		return r.FloatString(s)
	}
	return r.FloatString(40)
}

// unionKeyword returns oneOf or anyOf when node is one, "" otherwise.
func unionKeyword(n node) string {
	for _, k := range []string{"oneOf", "anyOf"} {
		if n[k] != nil {
			return k
		}
	}
	return ""
}

// buildUnion makes f, whose schema is a oneOf or an anyOf (keyword u),
// a union: each branch declares one JSON type, no two the same (integer
// and number overlap), so that a value's type picks the one branch that
// can accept it, and oneOf and anyOf agree. A branch of type null makes
// the member nullable.
func (b *builder) buildUnion(f *field, path, u string, node node) error {
	for _, k := range slices.Sorted(maps.Keys(node)) {
		if k != u && !annotation[k] {
			return fmt.Errorf("%s: keyword %q beside %s is not supported by the generator", path, k, u)
		}
	}
	var list []json.RawMessage
	if err := json.Unmarshal(node[u], &list); err != nil || len(list) == 0 {
		return fmt.Errorf("%s: %s is not a list of schemas", path, u)
	}
	seen := map[string]bool{}
	for i, raw := range list {
		bn, err := b.parseNode(fmt.Sprintf("%s/%s/%d", path, u, i), raw)
		if err != nil {
			return err
		}
		types, err := bn.types(path)
		if err != nil {
			return err
		}
		if len(types) != 1 {
			return fmt.Errorf("%s/%s/%d: each branch of a %s must declare exactly one type", path, u, i, u)
		}
		t := types[0]
		if seen[t] || t == "integer" && seen["number"] || t == "number" && seen["integer"] {
			return fmt.Errorf("%s: two branches of the %s accept values of type %s", path, u, t)
		}
		seen[t] = true
		if t == "null" {
			f.Nullable = true
			continue
		}
		br, err := b.buildField(path, t, raw, false)
		if err != nil {
			return err
		}
		if br.Default != nil || br.Nullable || br.Kind != kindObject && (br.row().Reader == "" || br.Kind == kindEnum) {
			return fmt.Errorf("%s/%s/%d: a branch of kind %s, or with a default, is not supported by the generator", path, u, i, br.row().What)
		}
		br.GoName = goname.Exported(t)
		if br.Object != nil {
			br.Object.GoName = f.GoName + goname.Exported(t)
		}
		f.Branches = append(f.Branches, br)
	}
	if len(f.Branches) == 0 {
		return fmt.Errorf("%s: a %s of null alone", path, u)
	}
	f.Kind, f.Union, f.EnumType = kindUnion, u, f.GoName
	f.Repr = reprOf(f.Required, f.Nullable, f.Default != nil)
	if f.Default != nil && string(f.Default) != "null" {
		return fmt.Errorf("%s: a default on a %s is not supported by the generator", path, u)
	}
	return nil
}

// typeWords names a JSON type for messages: "a string", "an integer".
func typeWords(t string) string {
	switch t {
	case "integer", "object", "array":
		return "an " + t
	}
	return "a " + t
}

// ofType reports whether the canonical JSON value v is of the JSON
// Schema type typ.
func ofType(v, typ string) bool {
	switch c := v[0]; typ {
	case "string":
		return c == '"'
	case "boolean":
		return c == 't' || c == 'f'
	case "array":
		return c == '['
	case "object":
		return c == '{'
	case "null":
		return c == 'n'
	case "number":
		return c == '-' || c >= '0' && c <= '9'
	case "integer":
		r, ok := new(big.Rat).SetString(v)
		return ok && r.IsInt()
	}
	return false
}

// without returns n without the keywords given.
func without(n node, keywords ...string) node {
	out := maps.Clone(n)
	for _, k := range keywords {
		delete(out, k)
	}
	return out
}

// propertyNames reads an object's propertyNames: a schema of strings
// whose lengths, pattern and format the generator checks; anything else
// it asks of a name is refused.
func (b *builder) propertyNames(path string, raw json.RawMessage) (*names, error) {
	n, err := b.parseNode(path, raw)
	if err != nil {
		return nil, err
	}
	types, err := n.types(path)
	if err != nil {
		return nil, err
	}
	if len(types) > 0 && !slices.Contains(types, "string") || n[never] != nil {
		return nil, fmt.Errorf("%s: a propertyNames no name passes is not supported by the generator", path)
	}
	ns := &names{MaxLength: -1, Schema: string(raw)}
	for _, k := range slices.Sorted(maps.Keys(n.without([]string{"string"}))) {
		switch k {
		case "type", "title", "description", "$comment":
		case "minLength", "maxLength":
			c, err := n.count(path, k)
			if err != nil {
				return nil, err
			}
			if k == "minLength" {
				ns.MinLength = *c
			} else {
				ns.MaxLength = *c
			}
		case "pattern":
			ns.Pattern, _ = n.text(path, k)
			if ns.RE2, err = ecmaToRE2(ns.Pattern); err != nil {
				return nil, fmt.Errorf("%s: pattern %s: %v", path, strconv.Quote(ns.Pattern), err)
			}
		case "format":
			format, _ := n.text(path, k)
			kd, ok := kindOf("string", format)
			if !ok || fieldKinds[kd].Check == "" {
				return nil, fmt.Errorf("%s: the format %q of names is not supported by the generator", path, format)
			}
			ns.Check = fieldKinds[kd].Check
		default:
			return nil, fmt.Errorf("%s: keyword %q of propertyNames is not supported by the generator", path, k)
		}
	}
	return ns, nil
}

// accepts reports whether a member name passes ns, as wire.Names would.
func (ns *names) accepts(name string) bool {
	n := utf8.RuneCountInString(name)
	if n < ns.MinLength || ns.MaxLength >= 0 && n > ns.MaxLength {
		return false
	}
	if ns.RE2 != "" && !regexp.MustCompile(ns.RE2).MatchString(name) {
		return false
	}
	return ns.Check == "" || formatChecks[ns.Check](name) == ""
}
