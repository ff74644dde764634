package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// maxSchemaBytes bounds a schema file compat reads: the published ones are
// a few kilobytes.
const maxSchemaBytes = 4 << 20

// compatCmd checks that a new version of a schema is compatible with an
// old one (two files), or every minor version of a catalogue folder with
// every earlier minor of its major, with package compat.
func compatCmd(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	flags := newFlagSet("compat", "usage: msgcheck compat [-mode full|backward|forward] [-strict] [-json] OLD NEW\n"+
		"       msgcheck compat [-mode ...] [-strict] [-json] -catalogue DIR\n\n"+
		"Check that the schema file NEW is compatible with OLD, or every version of\n"+
		"a catalogue folder with the earlier minors of its major (decision 13).\n"+
		"One line per finding, each with a message that proves it. Exit status:\n"+
		"0 if compatible, 1 if any break, 2 for a usage error or an unreadable schema.\n")
	modeName := flags.String("mode", "full", "the `direction` to check: full, backward or forward")
	strict := flags.Bool("strict", false, "count members added or removed (open content) as breaks, not warnings")
	asJSON := flags.Bool("json", false, "print one JSON object per pair of versions")
	dir := flags.String("catalogue", "", "check every schema of the catalogue `folder`, each minor against every earlier minor of its major")
	files, code, ok := flags.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	mode, err := compat.ParseMode(*modeName)
	if err != nil {
		fmt.Fprintf(stderr, "msgcheck compat: -mode: %v\n", err)
		return 2
	}
	opt := compat.Options{Mode: mode, Strict: *strict}

	var reports []*compat.Report
	var labels []string // the file of each report's new version
	switch {
	case *dir != "" && len(files) == 0:
		if fi, err := os.Stat(*dir); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "msgcheck compat: -catalogue %s: not a folder\n", *dir)
			return 2
		}
		c, err := schemas.Load(os.DirFS(*dir))
		if err != nil {
			fmt.Fprintf(stderr, "msgcheck compat: %s: %v\n", *dir, err)
			return 2
		}
		if reports, err = compat.CheckCatalogue(c, opt); err != nil {
			fmt.Fprintf(stderr, "msgcheck compat: %s: %v\n", *dir, err)
			return 2
		}
		for _, r := range reports {
			// Each version is checked against several: say which.
			labels = append(labels, filepath.Join(*dir, r.New.File())+" against "+r.Old.Version)
		}
	case *dir == "" && len(files) == 2:
		old, err := readSchemaFile(files[0])
		if err != nil {
			fmt.Fprintf(stderr, "msgcheck compat: %v\n", err)
			return 2
		}
		new, err := readSchemaFile(files[1])
		if err != nil {
			fmt.Fprintf(stderr, "msgcheck compat: %v\n", err)
			return 2
		}
		// Any two files: an $id outside the catalogue is a warning.
		r, err := compat.CompareFiles(old, new, opt)
		if fe := (*compat.FileError)(nil); errors.As(err, &fe) {
			file := files[0]
			if fe.New {
				file = files[1]
			}
			fmt.Fprintf(stderr, "msgcheck compat: %s: %s\n", file, msg.Escape(fe.Err.Error()))
			return 2
		} else if err != nil {
			fmt.Fprintf(stderr, "msgcheck compat: %s\n", msg.Escape(err.Error()))
			return 2
		}
		reports, labels = []*compat.Report{r}, []string{files[1]}
	default:
		fmt.Fprintln(stderr, "msgcheck compat: want two schema files, OLD and NEW, or -catalogue DIR alone")
		flags.printUsage(stderr)
		return 2
	}

	code = 0
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false) // a report shows '<' as '<'
	for i, r := range reports {
		if !r.Compatible() {
			code = 1
		}
		if *asJSON {
			if err := enc.Encode(r); err != nil {
				fmt.Fprintf(stderr, "msgcheck compat: %v\n", err)
				return 2
			}
			continue
		}
		for _, line := range r.Lines(labels[i]) {
			fmt.Fprintln(stdout, line)
		}
	}
	for _, r := range reports {
		for _, w := range r.Warnings {
			fmt.Fprintln(stderr, "msgcheck compat: warning: "+msg.Escape(w))
		}
		fmt.Fprintln(stderr, "msgcheck compat: "+msg.Escape(r.Summary())) // names come from the files
	}
	if len(reports) == 0 {
		fmt.Fprintln(stderr, "msgcheck compat: no two minor versions of one major to compare")
	}
	return code
}

// readSchemaFile reads a schema file, within maxSchemaBytes.
func readSchemaFile(path string) ([]byte, error) {
	return readFileAtMost(path, maxSchemaBytes)
}

// readFileAtMost reads the file at path, refusing one larger than limit
// bytes without reading more than one byte past it, so that a file such
// as /dev/zero costs no more memory than a large one.
func readFileAtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}
