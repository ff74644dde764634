package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math/big"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The official JSON-Schema-Test-Suite as the generator's test (issue 19).
// With -suite, gen reads the suite's draft7 and draft2020-12 groups and,
// for each, generates a message type or records why it refuses to; the
// test of internal/suite decodes every instance of every generated group
// and compares the verdict with the suite's. Nothing here is part of the
// published catalogue's generation.
//
// The generator makes messages, which are objects carrying the members a
// broker needs (decision 14), so a group's schema S becomes a member of a
// wrapper object beside an id and a time:
//
//   - when S declares a type, it is the member value, and an instance d
//     is decoded as {"id": …, "time": …, "value": d};
//   - when S declares none (most groups: {"minLength": 2} judges strings
//     and passes everything else), there is one member per JSON type an
//     instance of the group has, as_string, as_integer and so on, whose
//     schema is S with that type added, and d is decoded in the member of
//     its own type. For an instance d of type T, S accepts d exactly when
//     S with type T does, so the verdicts are S's own; what the generator
//     refuses of the typed copies is refused of the group. A number whose
//     value is an integer (1.0 as 1) is of type integer, as JSON Schema
//     says.
//
// A group whose schema is not an object (true, false) is the member
// value as it is.

// suiteDrafts are the suite's folders the generator is tested on, with
// the prefix of their packages' names and the dialect of their wrappers.
var suiteDrafts = []struct{ Dir, Prefix, Schema string }{
	{"draft7", "d7", "http://json-schema.org/draft-07/schema#"},
	{"draft2020-12", "d2020", "https://json-schema.org/draft/2020-12/schema"},
}

// suiteDeviations are the suite's files whose groups the generator
// would generate but judges by a rule of the catalogue that the file
// does not follow, by path and with the reason; they are refused here,
// and the table says why.
var suiteDeviations = map[string]string{
	"draft2020-12/format.json": "formats are asserted (decision 1), while this file expects 2020-12's default of format as an annotation only; optional/format holds the assertions",
}

// A suiteGroup is one group of the suite: a schema and its tests.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// runSuite generates, under out/testdata, a package for every group of the suite
// in dir that the generator accepts, and the table of every group,
// groups_gen.go, in out's own package: its tests, and the package's New
// or the reason the group is refused. It removes the packages of groups
// no longer generated.
func runSuite(dir, out, imp string) error {
	files := make(map[string][]byte)
	var table bytes.Buffer
	pkgs := make(map[string]bool)
	counts := make(map[string]int)
	var passed, total int
	var imports []string
	var rows bytes.Buffer
	for _, draft := range suiteDrafts {
		names, err := suiteFiles(filepath.Join(dir, draft.Dir))
		if err != nil {
			return err
		}
		for _, name := range names {
			data, err := os.ReadFile(filepath.Join(dir, draft.Dir, filepath.FromSlash(name)))
			if err != nil {
				return err
			}
			var groups []suiteGroup
			if err := json.Unmarshal(data, &groups); err != nil {
				return fmt.Errorf("%s/%s: %v", draft.Dir, name, err)
			}
			for i, grp := range groups {
				total++
				pkg := fmt.Sprintf("%s%s%d", draft.Prefix, suiteWord(name), i)
				if pkgs[pkg] {
					return fmt.Errorf("two groups would be package %s", pkg)
				}
				pkgs[pkg] = true
				source := fmt.Sprintf("%s/%s/%s, group %d", filepath.ToSlash(dir), draft.Dir, name, i)
				schema, members, err := suiteWrapper(draft.Schema, grp)
				if err != nil {
					return fmt.Errorf("%s: %v", source, err)
				}
				src, refused := suitePackage(pkg, source, schema)
				if why, ok := suiteDeviations[draft.Dir+"/"+name]; ok && refused == "" {
					src, refused = nil, why
				}
				fmt.Fprintf(&rows, "{Draft: %q, File: %q, Index: %d, Description: %q,\n", draft.Dir, name, i, grp.Description)
				if refused != "" {
					counts[refused]++
					fmt.Fprintf(&rows, "Refused: %q,\n", refused)
				} else {
					passed++
					files[path.Join("testdata", pkg, pkg+"_gen.go")] = src
					imports = append(imports, imp+"/testdata/"+pkg)
					fmt.Fprintf(&rows, "New: func() msg.Message { return %s.New() },\n", pkg)
				}
				rows.WriteString("Tests: []Test{\n")
				for j, t := range grp.Tests {
					var compact bytes.Buffer
					if err := json.Compact(&compact, t.Data); err != nil {
						return err
					}
					fmt.Fprintf(&rows, "{%q, %q, %q, %t},\n", t.Description, compact.String(), members[j], t.Valid)
				}
				rows.WriteString("}},\n")
			}
		}
	}
	fmt.Fprintf(&table, "// Code generated by github.com/fleetkit/catalogue/gen from %s. DO NOT EDIT.\n\n", filepath.ToSlash(dir))
	table.WriteString("package suite\n\nimport (\n")
	sort.Strings(imports)
	table.WriteString("\"github.com/fleetkit/catalogue/msg\"\n")
	for _, p := range imports {
		fmt.Fprintf(&table, "%q\n", p)
	}
	table.WriteString(")\n\n")
	fmt.Fprintf(&table, "// Groups are the suite's %d groups, %d of them generated, in the order of its files.\n", total, passed)
	table.WriteString("var Groups = []Group{\n")
	table.Write(rows.Bytes())
	table.WriteString("}\n")
	src, err := formatSource("groups_gen.go", table.Bytes())
	if err != nil {
		return err
	}
	files["groups_gen.go"] = src
	files["COUNTS.md"] = suiteCounts(dir, total, passed, counts)
	if err := removeStale(filepath.Join(out, "testdata"), files); err != nil {
		return err
	}
	return writeFiles(out, files)
}

// suiteFiles lists the files of a draft's folder the generator is tested
// on: every file of the folder itself, and those of optional/format for
// the formats the generator asserts or is to assert (issue 19).
func suiteFiles(dir string) ([]string, error) {
	var names []string
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") && (!strings.Contains(p, "/") || strings.HasPrefix(p, "optional/format/")) {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	return names, err
}

// suiteWord turns a suite file's path into letters and digits for a
// package name: optional/format/date-time.json is formatdatetime.
func suiteWord(name string) string {
	name = strings.TrimSuffix(strings.TrimPrefix(name, "optional/"), ".json")
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// suiteWrapper returns the wrapper schema of a group (see the top of
// this file) and, for each test, the member its instance goes in.
func suiteWrapper(dialect string, grp suiteGroup) (_ []byte, _ []string, err error) {
	var s map[string]json.RawMessage
	typed := true
	// The schema's definitions go to the wrapper's root, where the
	// pointers of its $refs ("#/$defs/a") find them; its $id and $schema
	// go with them, since a member's schema may not change either.
	defs := make(map[string]json.RawMessage)
	if json.Unmarshal(grp.Schema, &s) == nil {
		for _, k := range []string{"$defs", "definitions", "$id", "$schema"} {
			if v, ok := s[k]; ok {
				defs[k] = v
				delete(s, k)
			}
		}
		if defs["$id"] != nil && bytes.Contains(grp.Schema, []byte(`"$ref"`)) {
			// Its $refs are relative to an $id the wrapper does not have.
			s["$id"] = defs["$id"]
		}
		delete(defs, "$id")
		if raw := defs["$schema"]; raw != nil {
			// The group's dialect is the wrapper's, which the generator
			// refuses if it is not one it knows.
			if err := json.Unmarshal(raw, &dialect); err != nil {
				return nil, nil, err
			}
		}
		delete(defs, "$schema")
		_, typed = s["type"]
		if grp.Schema, err = json.Marshal(s); err != nil {
			return nil, nil, err
		}
	}
	members := make([]string, len(grp.Tests))
	props := [][2]string{
		{"id", `{"type":"string","format":"uuid"}`},
		{"time", `{"type":"string","format":"date-time"}`},
	}
	required := []string{"id", "time"}
	if typed {
		props = append(props, [2]string{"value", string(grp.Schema)})
		required = append(required, "value")
		for i := range members {
			members[i] = "value"
		}
	} else {
		var types []string
		for i, t := range grp.Tests {
			typ, err := jsonTypeOf(t.Data)
			if err != nil {
				return nil, nil, err
			}
			members[i] = "as_" + typ
			if !slices.Contains(types, typ) {
				types = append(types, typ)
			}
		}
		slices.Sort(types)
		for _, typ := range types {
			s["type"] = json.RawMessage(strconv.Quote(typ))
			typed, err := json.Marshal(s)
			if err != nil {
				return nil, nil, err
			}
			props = append(props, [2]string{"as_" + typ, string(typed)})
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"$schema":%q,"type":"object","required":`, dialect)
	req, _ := json.Marshal(required)
	b.Write(req)
	b.WriteString(`,"properties":{`)
	for i, p := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", p[0], p[1])
	}
	b.WriteString("}")
	for _, k := range slices.Sorted(maps.Keys(defs)) {
		fmt.Fprintf(&b, ",%q:%s", k, defs[k])
	}
	b.WriteString("}")
	return b.Bytes(), members, nil
}

// jsonTypeOf returns the JSON Schema type of a JSON value: integer for a
// number whose value is an integer, number for any other.
func jsonTypeOf(data json.RawMessage) (string, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "", fmt.Errorf("an empty instance")
	}
	switch data[0] {
	case 'n':
		return "null", nil
	case 't', 'f':
		return "boolean", nil
	case '"':
		return "string", nil
	case '[':
		return "array", nil
	case '{':
		return "object", nil
	}
	r, ok := new(big.Rat).SetString(string(data))
	if !ok {
		return "", fmt.Errorf("instance %s is not JSON", data)
	}
	if r.IsInt() {
		return "integer", nil
	}
	return "number", nil
}

// suitePackage generates the package of one group's wrapper schema, or
// returns why the generator refuses it.
func suitePackage(pkg, source string, schema []byte) (src []byte, refused string) {
	defer func() {
		if r := recover(); r != nil {
			src, refused = nil, fmt.Sprintf("the generator panics: %v", r)
		}
	}()
	in := input{
		Name: "suite." + pkg, Version: "1.0", Major: 1,
		ID:   "https://suite.invalid/api/schemas/suite." + pkg + "/versions/1.0",
		File: pkg + ".json", Source: source, Data: schema,
	}
	sf, err := build(in)
	if err != nil {
		return nil, strings.TrimPrefix(err.Error(), in.File+": ")
	}
	src, err = emit(sf)
	if err != nil {
		first, _, _ := strings.Cut(err.Error(), "\n")
		return nil, "the generated code does not compile: " + first
	}
	return src, ""
}

// suiteCounts writes COUNTS.md: how many groups pass, and how many are
// refused for each reason, the paths left out.
func suiteCounts(dir string, total, passed int, counts map[string]int) []byte {
	byReason := make(map[string]int)
	for reason, n := range counts {
		byReason[reasonOf(reason)] += n
	}
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if byReason[reasons[i]] != byReason[reasons[j]] {
			return byReason[reasons[i]] > byReason[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!-- Code generated by github.com/fleetkit/catalogue/gen from %s. DO NOT EDIT. -->\n\n", filepath.ToSlash(dir))
	b.WriteString("# The official test suite, group by group\n\n")
	fmt.Fprintf(&b, "Of the suite's %d groups (draft7 and draft2020-12, with optional/format for the formats issue 19 names), the generator generates %d, each of which decodes every instance of its group with the suite's verdict (`go test ./internal/suite`), and refuses %d, for these reasons (paths left out; groups_gen.go gives each group's own):\n\n", total, passed, total-passed)
	b.WriteString("| groups | refused because |\n|---:|---|\n")
	for _, r := range reasons {
		fmt.Fprintf(&b, "| %d | %s |\n", byReason[r], strings.ReplaceAll(r, "|", `\|`))
	}
	return b.Bytes()
}

// reasonOf returns a refusal without the path it begins with, and
// without what differs from group to group in the common ones.
func reasonOf(refused string) string {
	if i := strings.Index(refused, ": "); i > 0 && (strings.HasPrefix(refused, "/") || strings.HasPrefix(refused, "(root)")) {
		refused = refused[i+2:]
	}
	if i := strings.Index(refused, ", got "); i > 0 {
		refused = refused[:i]
	}
	return refused
}

// removeStale removes the packages under dir that a group no longer
// generates: folders holding a generated file of the suite. They live in
// a testdata folder so that go generate, go vet and staticcheck, which
// skip those, never list them: only the suite's test builds them.
func removeStale(out string, files map[string][]byte) error {
	entries, err := os.ReadDir(out)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		gen := path.Join(e.Name(), e.Name()+"_gen.go")
		if _, ok := files[path.Join("testdata", gen)]; ok {
			continue
		}
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(gen))); err == nil {
			if err := os.RemoveAll(filepath.Join(out, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
