package catalogue_test

import (
	"os/exec"
	"strings"
	"testing"
)

// deps returns what go list -deps says of the package pattern: each
// package it depends on, itself included, with its Go files.
func deps(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .GoFiles " "}}`, pattern).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pattern, err)
	}
	list := make(map[string][]string)
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		list[fields[0]] = fields[1:]
	}
	if len(list) < 2 {
		t.Fatalf("go list -deps %s lists %v: too few to mean anything", pattern, list)
	}
	return list
}

// TestMsgImportsNothingInternal pins that msg, the vocabulary every
// message type and binding shares, is a package of plain Go, with no
// import from this module's internal packages, and that its own module
// package is there to check (a test that found no msg would pass).
func TestMsgImportsNothingInternal(t *testing.T) {
	list := deps(t, "./msg")
	if _, ok := list["github.com/fleetkit/catalogue/msg"]; !ok {
		t.Fatalf("go list -deps ./msg does not list msg: %v", list)
	}
	for path := range list {
		if strings.HasPrefix(path, "github.com/fleetkit/catalogue/internal/") {
			t.Errorf("msg depends on %s", path)
		}
	}
}

// TestCEImportsNoMessagePackage pins that ce learns the message types
// from the kinds it is given, not by importing them: none of its
// dependencies holds generated code (a message package, or the
// catalogue's table of them), nor the decoder they call.
func TestCEImportsNoMessagePackage(t *testing.T) {
	for path, files := range deps(t, "./ce") {
		if path == "github.com/fleetkit/catalogue/internal/wire" {
			t.Errorf("ce depends on the decoder, %s", path)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_gen.go") {
				t.Errorf("ce depends on %s, which holds the generated %s", path, f)
			}
		}
	}
}
