// Command gen turns the catalogue's embedded schemas into the Go message
// types of packages device, vehicle, association and event: one file,
// <package>/<package>_gen.go, per schema. Run it with go generate from the
// module's root:
//
//	go generate ./...
//
// It uses go-jsonschema's schema model to read the schemas and writes the
// structs, decoders, validators and encoders itself, so that decoding is a
// single exact pass. It reads nothing but the embedded files, never the
// network, and its output depends on nothing else: no time stamps, no map
// order.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fleetkit/catalogue/schemas"
)

func main() {
	out := flag.String("out", ".", "the module's root, under which each package's directory is written")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	files, err := generate()
	if err != nil {
		return err
	}
	for name, src := range files {
		path := filepath.Join(out, name)
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

// generate returns the generated source of every package, by file path
// relative to the module's root.
func generate() (map[string][]byte, error) {
	files := make(map[string][]byte)
	for _, s := range schemas.All() {
		sf, err := build(inputOf(s))
		if err != nil {
			return nil, err
		}
		src, err := emit(sf)
		if err != nil {
			return nil, err
		}
		name := filepath.Join(sf.Package, sf.Package+"_gen.go")
		if _, dup := files[name]; dup {
			return nil, fmt.Errorf("two schemas generate %s: give each version a package of its own", name)
		}
		files[name] = src
	}
	return files, nil
}
