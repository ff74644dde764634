package oracle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fleetkit/catalogue/imei"
	"github.com/fleetkit/catalogue/schemas"
)

// version is the version of every schema the oracle judges against.
const version = "1.0"

// compiled is one schema, compiled by the validator, with the places in a
// message where the oracle's own rules apply.
type compiled struct {
	schema    *jsonschema.Schema
	integers  [][]string // paths of members typed "integer"; "*" is any array item
	dateTimes [][]string // paths of members of format "date-time"
	doc       any        // the schema file, which its $refs point into
	depth     int        // how many $refs walk is inside
}

var (
	loadOnce sync.Once
	byName   map[string]*compiled
)

// loaded compiles the catalogue's schemas the first time it is called. A
// schema that does not compile, or that uses a keyword the oracle has not
// reasoned about, is a broken build or a broken oracle: either way no test
// can be trusted, so it panics.
func loaded() map[string]*compiled {
	loadOnce.Do(func() {
		m, err := compileAll()
		if err != nil {
			panic("oracle: " + err.Error())
		}
		byName = m
	})
	return byName
}

// refuseLoader is the compiler's only loader: the schemas are added as
// resources and the meta-schemas are built into the validator, so any
// attempt to load a URL (from the network or from a file) is an error.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the oracle loads nothing, asked for %s", url)
}

// NewCompiler returns a compiler of the validator set as the oracle's:
// formats asserted, patterns read as ECMA-262 with the u flag (see
// regexp.go), and every URL refused, so that a test that compiles schemas
// of its own holds them to the same rules, offline.
func NewCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.UseRegexpEngine(CompileECMA)
	c.UseLoader(refuseLoader{})
	return c
}

func compileAll() (map[string]*compiled, error) {
	var at1 []schemas.Schema
	for _, s := range schemas.All() {
		if s.Version == version {
			at1 = append(at1, s)
		}
	}
	byID, err := compileSchemas(at1)
	if err != nil {
		return nil, err
	}
	m := map[string]*compiled{}
	for _, s := range at1 {
		m[s.Name] = byID[s.ID]
	}
	return m, nil
}

// compileSchemas compiles the given schema files, by $id.
func compileSchemas(all []schemas.Schema) (map[string]*compiled, error) {
	c := NewCompiler()
	docs := map[string]any{}
	for _, s := range all {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.JSON()))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", s.File(), err)
		}
		if err := c.AddResource(s.ID, doc); err != nil {
			return nil, fmt.Errorf("%s: %v", s.File(), err)
		}
		docs[s.ID] = doc
	}
	m := map[string]*compiled{}
	for _, s := range all {
		sch, err := c.Compile(s.ID)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", s.File(), err)
		}
		cs := &compiled{schema: sch, doc: docs[s.ID]}
		if err := cs.walk(docs[s.ID], nil); err != nil {
			return nil, fmt.Errorf("%s: %v", s.File(), err)
		}
		m[s.ID] = cs
	}
	return m, nil
}

// An Oracle judges messages by every version of the schemas of one
// catalogue, such as a test fixture, with the same rules as Verdict.
type Oracle struct {
	byID map[string]*compiled
}

// New compiles every schema of c, at every version. It fails if a schema
// does not compile or uses a keyword the oracle has not reasoned about.
func New(c *schemas.Catalogue) (*Oracle, error) {
	byID, err := compileSchemas(c.All())
	if err != nil {
		return nil, err
	}
	return &Oracle{byID: byID}, nil
}

// Verdict judges data against exactly the named schema's file at version,
// as the package's Verdict does at 1.0.
func (o *Oracle) Verdict(name, version string, data []byte) (ok bool, why []string) {
	cs := o.byID[schemas.ID(name, version)]
	if cs == nil {
		return false, []string{fmt.Sprintf("no schema %q at version %s in the catalogue", name, version)}
	}
	return cs.verdict(name, data)
}

// walk records where the oracle's rules apply in the (sub)schema sch found
// at path. It refuses keywords it has not reasoned about, because the
// oracle's rules and its number stand-ins are correct only for these.
func (cs *compiled) walk(sch any, path []string) error {
	obj, ok := sch.(map[string]any)
	if !ok {
		if _, ok := sch.(bool); ok {
			return nil
		}
		return fmt.Errorf("%s: schema is neither an object nor a boolean", pointer(path))
	}
	for _, kw := range slices.Sorted(mapKeys(obj)) {
		v := obj[kw]
		switch kw {
		case "$schema", "$id", "title", "description", "default", "required", "minLength", "maxLength", "minimum", "maximum",
			"exclusiveMinimum", "exclusiveMaximum", "pattern", "minItems", "maxItems", "uniqueItems",
			"minProperties", "maxProperties", "dependentRequired", "$comment", "$defs", "definitions", "propertyNames",
			"minContains", "maxContains":
			// $defs are walked where a $ref names them.
		case "multipleOf":
			// The stand-ins of huge numbers keep integrality and order
			// among integers, not divisibility: the member must be an
			// integer, whose int64 rule rejects them before.
			if !slices.Contains(typeNames(obj["type"]), "integer") {
				return fmt.Errorf("%s: multipleOf on a member not typed integer, which the oracle's number stand-ins do not preserve", pointer(path))
			}
		case "dependencies":
			// The array form only: draft 7's dependentRequired.
			for _, d := range v.(map[string]any) {
				if _, ok := d.([]any); !ok {
					return fmt.Errorf("%s: dependencies on a schema, which the oracle has not reasoned about", pointer(path))
				}
			}
		case "additionalProperties":
			if err := cs.walkUnplaced(v, append(slices.Clip(path), kw)); err != nil {
				return err
			}
		case "patternProperties":
			props := v.(map[string]any)
			for _, p := range slices.Sorted(mapKeys(props)) {
				if err := cs.walkUnplaced(props[p], append(slices.Clip(path), kw, p)); err != nil {
					return err
				}
			}
		case "dependentSchemas":
			deps := v.(map[string]any)
			for _, d := range slices.Sorted(mapKeys(deps)) {
				if err := cs.walkUnplaced(deps[d], path); err != nil {
					return err
				}
			}
		case "not", "if", "then", "else", "contains":
			// An integer or a date-time there is one the member may not be.
			n, d := len(cs.integers), len(cs.dateTimes)
			if err := cs.walk(v, path); err != nil {
				return err
			}
			if len(cs.integers) != n || len(cs.dateTimes) != d {
				return fmt.Errorf("%s: an integer or a date-time under %s, where the oracle's rules would apply to what the member may not be", pointer(path), kw)
			}
		case "allOf", "oneOf", "anyOf":
			for _, branch := range v.([]any) {
				if err := cs.walk(branch, path); err != nil {
					return err
				}
			}
		case "$ref":
			ref, _ := v.(string)
			target, ok := pointInto(cs.doc, ref)
			if !ok || cs.depth > 32 {
				return fmt.Errorf("%s: $ref %q, which the oracle cannot follow", pointer(path), ref)
			}
			cs.depth++
			err := cs.walk(target, path)
			cs.depth--
			if err != nil {
				return err
			}
		case "type":
			if slices.Contains(typeNames(v), "integer") {
				cs.integers = append(cs.integers, path)
			}
		case "format":
			if v == "date-time" {
				cs.dateTimes = append(cs.dateTimes, path)
			}
		case "const":
			if n, ok := v.(json.Number); ok && !isIntegerLiteral(string(n)) {
				return fmt.Errorf("%s: numeric const %v, which the oracle's number stand-ins do not preserve", pointer(path), v)
			}
		case "enum":
			for _, e := range v.([]any) {
				// A stand-in is never an integer unless its number is one.
				if n, ok := e.(json.Number); ok && !isIntegerLiteral(string(n)) {
					return fmt.Errorf("%s: numeric enum value %v, which the oracle's number stand-ins do not preserve", pointer(path), e)
				}
			}
		case "properties":
			props := v.(map[string]any)
			for _, name := range slices.Sorted(mapKeys(props)) {
				if err := cs.walk(props[name], append(slices.Clip(path), name)); err != nil {
					return err
				}
			}
		case "items":
			if err := cs.walk(v, append(slices.Clip(path), "*")); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: keyword %q is not one the oracle has reasoned about; extend oracle.walk", pointer(path), kw)
		}
	}
	return nil
}

// walkUnplaced walks the schema of members whose names the schema does
// not list (additionalProperties, patternProperties), which the oracle's
// rules, placed by path, cannot reach: it refuses one that asks for an
// integer or a date-time there.
func (cs *compiled) walkUnplaced(sch any, path []string) error {
	n, d := len(cs.integers), len(cs.dateTimes)
	if err := cs.walk(sch, path); err != nil {
		return err
	}
	if len(cs.integers) != n || len(cs.dateTimes) != d {
		return fmt.Errorf("%s: an integer or a date-time in the schema of members the schema does not name, where the oracle's rules cannot be placed", pointer(path))
	}
	return nil
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func typeNames(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var names []string
		for _, n := range v {
			if s, ok := n.(string); ok {
				names = append(names, s)
			}
		}
		return names
	}
	return nil
}

// Schema returns the validator's compiled schema of the named message type at
// version 1.0, for callers who want the raw oracle, or nil if the catalogue
// has no such schema. Format assertion is on.
func Schema(name string) *jsonschema.Schema {
	if cs := loaded()[name]; cs != nil {
		return cs.schema
	}
	return nil
}

// Verdict judges data, the bytes of one message, against the named schema
// at version 1.0. The message is valid exactly when all of these hold:
//
//   - data is valid UTF-8 and escapes no lone surrogate (decision 11);
//   - data is exactly one JSON document, followed by whitespace at most;
//   - no object in it repeats a member name, compared after unescaping
//     (decision 12);
//   - the schema validator accepts it, with format assertion on;
//   - for core.device, imei, when a string, is "" or a valid IMEI
//     (decision 6);
//   - every member the schema types "integer" whose value is a mathematical
//     integer fits in an int64 (decision 2);
//   - every string in a member of format "date-time" matches the strict
//     RFC 3339 grammar (decision 1; see the package doc).
//
// When data is not one well-formed, unambiguous document (the first three
// rules) the verdict stops there; otherwise why lists every reason the
// message is invalid. why is nil when ok.
func Verdict(name string, data []byte) (ok bool, why []string) {
	cs := loaded()[name]
	if cs == nil {
		return false, []string{fmt.Sprintf("no schema %q at version %s in the catalogue", name, version)}
	}
	return cs.verdict(name, data)
}

// verdict judges data against cs, the named schema at some version.
func (cs *compiled) verdict(name string, data []byte) (ok bool, why []string) {
	why = append(why, checkEncoding(data)...)
	why = append(why, checkSyntax(data)...)
	if len(why) > 0 {
		return false, why
	}
	doc, dups := parse(data)
	if len(dups) > 0 {
		return false, dups
	}

	if err := cs.schema.Validate(forValidator(doc)); err != nil {
		why = append(why, validatorReasons(err)...)
	}
	if name == "core.device" {
		if obj, ok := doc.(map[string]any); ok {
			if s, ok := obj["imei"].(string); ok && s != "" && !imei.Valid(s) {
				why = append(why, fmt.Sprintf("/imei: %q is neither empty nor 15 digits with a valid check digit (decision 6)", s))
			}
		}
	}
	for _, path := range cs.integers {
		at(doc, path, "", func(ptr string, v any) {
			n, isNum := v.(json.Number)
			if !isNum {
				return
			}
			d, _ := parseDecimal(string(n))
			if d.isInt() && !d.fitsInt64() {
				why = append(why, fmt.Sprintf("%s: integer %s does not fit in an int64 (decision 2)", ptr, abbreviate(string(n))))
			}
		})
	}
	for _, path := range cs.dateTimes {
		at(doc, path, "", func(ptr string, v any) {
			if s, isStr := v.(string); isStr && !dateTime.MatchString(s) {
				why = append(why, fmt.Sprintf("%s: %q is not an RFC 3339 date-time: wrong shape (decision 1)", ptr, s))
			}
		})
	}
	return len(why) == 0, why
}

// dateTime is RFC 3339's date-time, ASCII digits with exact counts. It
// checks shape only: the validator checks ranges, the calendar and leap
// seconds. It exists because the validator reads the time's fields with
// strconv.Atoi, which accepts "+1" and "-0" (see the package doc).
var dateTime = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$`)

// checkEncoding reports invalid UTF-8 and escaped lone surrogates, each of
// which encoding/json would silently replace with U+FFFD.
func checkEncoding(data []byte) []string {
	var why []string
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			why = append(why, fmt.Sprintf("invalid UTF-8 at byte offset %d (decision 11)", i))
			break
		}
		i += size
	}
	// A backslash is only valid inside a string, so scanning escapes without
	// tracking strings is exact for every document that is otherwise valid;
	// the rest fail the syntax check anyway.
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' || i+1 >= len(data) {
			continue
		}
		if data[i+1] != 'u' {
			i++ // skip the escaped character, which may be a backslash
			continue
		}
		r, ok := hex4(data[i+2:])
		if !ok {
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
				if lo, ok := hex4(data[i+8:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 11
					continue
				}
			}
			why = append(why, fmt.Sprintf("escaped high surrogate %s at byte offset %d is not followed by an escaped low surrogate (decision 11)", data[i:i+6], i))
		case r >= 0xDC00 && r <= 0xDFFF:
			why = append(why, fmt.Sprintf("escaped low surrogate %s at byte offset %d does not follow an escaped high surrogate (decision 11)", data[i:i+6], i))
		}
		i += 5
	}
	return why
}

// hex4 reads four hexadecimal digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}

// checkSyntax reports data that is not exactly one JSON document followed
// by whitespace at most.
func checkSyntax(data []byte) []string {
	var raw json.RawMessage
	err := json.Unmarshal(data, &raw)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return []string{fmt.Sprintf("not one JSON document: %v at byte offset %d", err, syn.Offset)}
	}
	return []string{fmt.Sprintf("not one JSON document: %v", err)}
}

// parse reads the document, already known to be well-formed, into maps,
// slices, strings, booleans, nil and json.Number, and reports every object
// that repeats a member name.
func parse(data []byte) (any, []string) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var dups []string
	var value func(ptr string) any
	value = func(ptr string) any {
		tok, err := dec.Token()
		if err != nil {
			panic("oracle: token walk of a valid document: " + err.Error())
		}
		switch tok {
		case json.Delim('{'):
			obj := map[string]any{}
			for dec.More() {
				tok, _ := dec.Token()
				key := tok.(string)
				if _, seen := obj[key]; seen {
					dups = append(dups, fmt.Sprintf("%s: member name %q repeated (decision 12)", orRoot(ptr), key))
				}
				obj[key] = value(ptr + "/" + escape(key))
			}
			dec.Token() // '}'
			return obj
		case json.Delim('['):
			arr := []any{}
			for i := 0; dec.More(); i++ {
				arr = append(arr, value(ptr+"/"+strconv.Itoa(i)))
			}
			dec.Token() // ']'
			return arr
		}
		return tok
	}
	doc := value("")
	if _, err := dec.Token(); err != io.EOF {
		panic("oracle: token walk found more than the one document checked")
	}
	return doc, dups
}

// forValidator returns a copy of doc in which every number that could take
// the validator's math/big too long is replaced by its stand-in.
func forValidator(doc any) any {
	switch v := doc.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = forValidator(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = forValidator(e)
		}
		return a
	case json.Number:
		if d, exp := parseDecimal(string(v)); needsStandIn(string(v), exp) {
			return json.Number(standIn(d))
		}
	}
	return doc
}

// validatorReasons flattens the validator's error tree into one reason per
// leaf, such as "schema: at '/priority': maximum: got 10, want 9".
func validatorReasons(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{"schema: " + err.Error()}
	}
	var why []string
	var leaves func(*jsonschema.ValidationError)
	leaves = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			why = append(why, "schema: "+e.Error())
			return
		}
		for _, c := range e.Causes {
			leaves(c)
		}
	}
	leaves(ve)
	return why
}

// at calls fn with every value found at path in v, and its JSON Pointer.
func at(v any, path []string, ptr string, fn func(ptr string, v any)) {
	if len(path) == 0 {
		fn(orRoot(ptr), v)
		return
	}
	if path[0] == "*" {
		if arr, ok := v.([]any); ok {
			for i, e := range arr {
				at(e, path[1:], ptr+"/"+strconv.Itoa(i), fn)
			}
		}
		return
	}
	if obj, ok := v.(map[string]any); ok {
		if e, ok := obj[path[0]]; ok {
			at(e, path[1:], ptr+"/"+escape(path[0]), fn)
		}
	}
}

func pointer(path []string) string {
	var sb strings.Builder
	for _, p := range path {
		sb.WriteString("/" + escape(p))
	}
	return orRoot(sb.String())
}

func escape(name string) string {
	return pointerEscaper.Replace(name)
}

// pointerEscaper is built once: a Replacer builds its tables on first use,
// which cost more than the escaping itself on every member of a message.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func orRoot(ptr string) string {
	if ptr == "" {
		return "(root)"
	}
	return ptr
}

// abbreviate shortens a long number literal for a message.
func abbreviate(lit string) string {
	if len(lit) <= 40 {
		return lit
	}
	return lit[:20] + "..." + lit[len(lit)-17:]
}

// HugeExponent reports whether data has a number with an exponent of more
// than four digits, which the oracle cannot judge in reasonable time, so
// that tests feeding it arbitrary input, fuzz targets among them, can
// skip such messages.
func HugeExponent(data []byte) bool {
	for i := 0; i < len(data); i++ {
		if data[i] != 'e' && data[i] != 'E' {
			continue
		}
		j := i + 1
		if j < len(data) && (data[j] == '+' || data[j] == '-') {
			j++
		}
		k := j
		for k < len(data) && data[k] >= '0' && data[k] <= '9' {
			k++
		}
		if k-j > 4 {
			return true
		}
	}
	return false
}

// pointInto returns the schema a $ref of the form "#/a/b" names in doc.
func pointInto(doc any, ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	at := doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := at.(map[string]any)
		if !ok {
			return nil, false
		}
		if at, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return at, true
}

// isIntegerLiteral reports whether a short JSON number literal is an
// integer.
func isIntegerLiteral(lit string) bool {
	d, _ := parseDecimal(lit)
	return d.isInt()
}
