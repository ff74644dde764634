// Command plaingen writes the struct a Go programmer would write by hand for
// a JSON Schema's messages, with no methods: the encoding/json baseline of the
// benchmarks.
//
//	go run ./internal/plaingen -package device -type Device -o peers/plain/device/device_gen.go ../schemas/core.device-1.0.json
//
// The shape is the usual hand-written one: a required, non-nullable member is
// a value; an optional or nullable one is a pointer (maps and slices are left
// nil instead); a date-time is a time.Time, so the baseline parses times as
// every validating decoder must; a uuid is a string; an integer is an int64;
// an enum is its base type; an object with no properties is a map[string]any.
// Fields keep the schema's order and carry its descriptions.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	pkg := flag.String("package", "", "package `name` of the generated file")
	typ := flag.String("type", "", "Go `name` of the message type")
	out := flag.String("o", "", "`file` to write; standard output if empty")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: plaingen -package name -type name [-o file] schema.json\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *pkg == "" || *typ == "" || flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *pkg, *typ, *out); err != nil {
		fmt.Fprintln(os.Stderr, "plaingen:", err)
		os.Exit(1)
	}
}

func run(schemaFile, pkg, typ, out string) error {
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		return err
	}
	src, err := Generate(data, filepath.Base(schemaFile), pkg, typ)
	if err != nil {
		return fmt.Errorf("%s: %v", schemaFile, err)
	}
	if out == "" {
		_, err = os.Stdout.Write(src)
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}
