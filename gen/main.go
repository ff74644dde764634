// Command gen turns a catalogue of JSON Schema files into Go message types:
// one package per schema and major version, generated from the latest
// minor of that major, plus a table of every version for package
// catalogue. Run it with go generate from the module's root:
//
//	go generate ./...
//
// With no flags it generates the published catalogue, embedded in package
// schemas, into the module's root: packages device, vehicle, association
// and event, and catalogue's kinds_gen.go, which makes a message of each
// schema by name: newLatest for dispatch, kinds at every version. Pointed at another catalogue
// folder it generates that, as the module does for its test fixture:
//
//	go run ./gen -catalogue testdata/fixture -out internal/fixture \
//		-import github.com/fleetkit/catalogue/internal/fixture -export
//
// A schema's major 1 (or 0) goes in a package named after the last part of
// the schema's name (core.device: device), and each later major N in the
// same package's vN folder (device/v2, package device), as Go modules
// version their import paths, so that both majors can be used side by
// side. Before generating anything, it checks that every minor version is
// fully compatible with every earlier minor of its major (package compat),
// and refuses, printing each breaking finding with its witness, if one is
// not: a break takes a new major. It prints the warnings of the check too.
// The package's type follows the latest minor of its major and
// decodes the messages of all its minors (decision 13 keeps minors
// compatible). Each earlier minor of the major also gets an unexported
// type of its own, judged by exactly that minor's schema file, reached
// through the package's NewVersion and DecodeVersion (generated only for
// a major of several minors) and through the table: judging a message by
// a named version applies exactly that version's file.
//
// It reads the schemas keyword by keyword (node.go), refusing any keyword
// it does not implement, and writes the structs, decoders, validators and
// encoders itself, so that decoding is a single exact pass. It reads nothing but the catalogue, never the
// network, and its output depends on nothing else: no time stamps, no map
// order.
//
// # Files
//
// The generator is split by concern, around one table of field kinds:
//
//	main.go       flags, majors and the files written
//	node.go       a schema object read keyword by keyword, its $ref
//	              resolved
//	allof.go      allOf merged into one schema when its branches agree
//	pattern.go    ECMA-262 patterns rewritten for Go's regexp, or refused
//	model.go      the model of a schema: messages, fields, reprs
//	typelist.go   a list of types as a union, a branch per type
//	cases.go      oneOf, anyOf, not, if/then/else and dependentSchemas
//	              beside a type
//	contains.go   contains, minContains and maxContains
//	patternprops.go  patternProperties and additionalProperties as a
//	              schema, judging the members kept in Extra
//	fieldkind.go  the table of field kinds: a row per kind saying how a
//	              schema declares it and how it is decoded, validated,
//	              encoded and documented
//	emit.go       a package's file: types, doc comments, New, Parse,
//	              NewVersion and DecodeVersion
//	decode.go     UnmarshalJSON and the decoders
//	validate.go   Validate and Unset
//	encode.go     MarshalJSON, AppendJSON and String
//	entry.go      ParseBorrowed and Check, the ways in besides Parse
//	identity.go   the members that identify a message on a broker:
//	              SchemaKind and Identity
//	table.go      kinds_gen.go, the table of every schema and version
//	registry.go   the registry ids kinds_gen.go records, checked against
//	              registry-ids.txt
//	enforce.go    the compatibility check that runs before generating
//	suite.go      -suite: the official JSON-Schema-Test-Suite as a test
//
// # Adding a schema, a major version, a format
//
// A schema: add its file, <name>-<version>.json, to the catalogue folder
// (schemas/ for the published catalogue) and run go generate ./... from
// the module's root. Its package (named after the last part of the name),
// its row of the kinds table and its identity all follow from the file;
// nothing else is edited, but the README's package list and, for a
// published schema, the tests that pin the published ids. A message on a
// broker names itself by members the generator finds by name (see
// msg.Kind): a schema without an id member (message_id, or id) and a time
// member (time, or occurred_at) is refused, saying why, and so is one
// whose record key, <package>_id when declared, is not a required string
// or uuid.
//
// A major version: add the file of version N.0 beside the others and run
// go generate ./...: it goes to the package's vN folder. A minor version
// is the same, and must be compatible with the earlier minors of its major
// (decision 13), or generation refuses it.
//
// A keyword: read it in model.go's buildField (or buildMessage, for an
// object's own), into a field of the model; write its check in
// validate.go's checks, which decoding and Validate share, over a method
// of internal/wire's Errors; name its rule in package msg's list and
// doc/rules.md; say it in the member's doc comment (emit.go's doc); add
// it to the keywords the generator implements (model.go), and to the
// README's table of the vocabulary. The suite (go test ./internal/suite)
// then measures it, and the vocabulary fixture (testdata/fixture-
// vocabulary) holds it to the oracle once it uses it. A keyword that
// applies to one JSON type only is listed in node.go's appliesTo.
//
// A format (a new string format, say): a row in fieldkind.go, whose
// JSONType and Format say how a schema declares it and whose Reader and
// Writer name the methods of internal/wire's Decoder and Encoder that read
// and write it; those methods, over a parser and an appender of the
// format's text in internal/format; the format's values in compat's
// model (compat/schema.go and compat/values.go), so that the
// compatibility checker can reason about it; and, if the oracle
// (internal/oracle) does not assert the format already, its assertion
// there. Then go generate ./....
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/fleetkit/catalogue/schemas"
)

func main() {
	dir := flag.String("catalogue", "", "the `folder` of schema files to generate from; by default the published catalogue embedded in package schemas")
	out := flag.String("out", ".", "the `folder` under which each package's directory and the table are written")
	imp := flag.String("import", "github.com/fleetkit/catalogue", "the import `path` of the -out folder")
	export := flag.Bool("export", false, "export the names of kinds_gen.go, written in the -out folder's package: NewLatest and Kinds rather than newLatest and kinds")
	suite := flag.String("suite", "", "the `folder` of the official JSON-Schema-Test-Suite: generate a package for each of its groups the generator accepts, and the table of all of them, for the suite's test (see suite.go), instead of a catalogue")
	flag.Parse()
	var err error
	if *suite != "" {
		err = runSuite(*suite, *out, *imp)
	} else {
		err = run(*dir, *out, *imp, *export)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir, out, imp string, export bool) error {
	cfg := published()
	if dir != "" {
		c, err := schemas.Load(os.DirFS(dir))
		if err != nil {
			return err
		}
		cfg = config{Catalogue: c, Dir: filepath.ToSlash(dir)}
	}
	cfg.Import, cfg.Export = imp, export
	if err := checkRegistryIDs(cfg.Catalogue, filepath.Join(out, "kinds_gen.go")); err != nil {
		return err
	}
	warnings, err := checkCompatible(cfg)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "gen:", w)
	}
	files, err := generate(cfg)
	if err != nil {
		return err
	}
	return writeFiles(out, files)
}

// writeFiles writes each file, by its slash-separated path under out,
// leaving alone those whose content is already the same.
func writeFiles(out string, files map[string][]byte) error {
	for name, src := range files {
		path := filepath.Join(out, filepath.FromSlash(name))
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, src) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// A config says what to generate and where it goes.
type config struct {
	Catalogue *schemas.Catalogue
	Dir       string // the catalogue's folder, as the generated headers name it
	Import    string // the import path of the output folder
	Export    bool   // whether the names of kinds_gen.go are exported
}

// published is the configuration of the module's own generation: the
// embedded catalogue into the module's root.
func published() config {
	return config{
		Catalogue: schemas.Published(),
		Dir:       "schemas",
		Import:    "github.com/fleetkit/catalogue",
	}
}

// A major is one major version of a schema: the package generated for it.
type major struct {
	Latest *schemaFile   // the latest minor, which the package's type follows
	Older  []*schemaFile // the earlier minors, oldest first
	Dir    string        // the package's folder, relative to the output folder
}

// generate returns the generated source of every package, by file path
// (slash-separated) relative to the output folder.
func generate(cfg config) (map[string][]byte, error) {
	files := make(map[string][]byte)
	var majors []*major
	// The catalogue lists each schema's versions together, in numeric
	// order, so a major's minors are a run of it.
	all := cfg.Catalogue.All()
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].Name == all[i].Name && all[j].Major == all[i].Major {
			j++
		}
		m, err := buildMajor(cfg, all[i:j])
		if err != nil {
			return nil, err
		}
		i = j
		for _, sf := range append([]*schemaFile{m.Latest}, m.Older...) {
			src, err := emit(sf)
			if err != nil {
				return nil, err
			}
			file := path.Join(m.Dir, sf.fileName())
			if _, dup := files[file]; dup {
				return nil, fmt.Errorf("two schemas generate %s: give each a name of its own, and majors 0 and 1 cannot both exist", file)
			}
			files[file] = src
		}
		majors = append(majors, m)
	}
	src, err := emitTable(cfg, majors)
	if err != nil {
		return nil, err
	}
	files["kinds_gen.go"] = src
	return files, nil
}

// buildMajor models the package of one major: versions are its minors,
// oldest first.
func buildMajor(cfg config, versions []schemas.Schema) (*major, error) {
	m := &major{}
	for i, s := range versions {
		sf, err := build(cfg.inputOf(s))
		if err != nil {
			return nil, err
		}
		if i < len(versions)-1 {
			sf.olderMinor()
			m.Older = append(m.Older, sf)
		} else {
			m.Latest = sf
		}
	}
	for _, sf := range m.Older {
		sf.Latest = m.Latest
	}
	m.Latest.Older = m.Older
	m.Dir = m.Latest.Package
	if n := m.Latest.Schema.Major; n > 1 {
		m.Dir = path.Join(m.Dir, fmt.Sprintf("v%d", n))
	}
	return m, nil
}

// inputOf returns the generator's view of a schema of cfg's catalogue.
func (cfg config) inputOf(s schemas.Schema) input {
	others := make(map[string][]byte)
	for _, o := range cfg.Catalogue.All() {
		others[withoutScheme(o.ID)] = o.JSON()
	}
	return input{Name: s.Name, Version: s.Version, RegistryID: s.RegistryID, Major: s.Major, ID: s.ID, File: s.File(), Source: cfg.Dir + "/" + s.File(), Data: s.JSON(), Others: others}
}

// fileName returns the name of the file generated for sf in its package:
// <package>_gen.go for the latest minor, <package>_<major>_<minor>_gen.go
// for an earlier one.
func (sf *schemaFile) fileName() string {
	if sf.Suffix == "" {
		return sf.Package + "_gen.go"
	}
	return sf.Package + "_" + strings.ReplaceAll(sf.Schema.Version, ".", "_") + "_gen.go"
}
