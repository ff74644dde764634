package catalogue_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestMessagePackageDocsSayParseAppendJSONAndUnset holds the package doc
// of every generated message package (a folder whose generated files
// declare a Parse function, fixtures included) to what the README says:
// decode with Parse, encode with AppendJSON, and call Unset before
// publishing, rather than json.Unmarshal and json.Marshal, which `go doc`
// used to recommend.
func TestMessagePackageDocsSayParseAppendJSONAndUnset(t *testing.T) {
	packages, _ := layout(t)
	var dirs []string
	for _, dir := range packages {
		if declaresParse(t, filepath.FromSlash(dir)) {
			dirs = append(dirs, dir)
		}
	}
	// The published four and the fixture's two majors at least: a walk
	// that finds none would pass vacuously.
	if len(dirs) < 6 {
		t.Fatalf("found the message packages %v, want device, vehicle, association, event and the fixture's", dirs)
	}
	for _, dir := range dirs {
		text := packageDoc(t, dir)
		for _, word := range []string{"Parse", "AppendJSON", "Unset"} {
			if !strings.Contains(text, word) {
				t.Errorf("the package doc of ./%s does not mention %s:\n%s", dir, word, text)
			}
		}
	}
}

// declaresParse reports whether a generated file in dir declares a
// top-level func Parse.
func declaresParse(t *testing.T, dir string) bool {
	files, err := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "Parse" {
				return true
			}
		}
	}
	return false
}

// packageDoc returns the package doc of the package in dir, as go doc
// shows it.
func packageDoc(t *testing.T, dir string) string {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "example.com/"+filepath.ToSlash(dir))
	if err != nil {
		t.Fatal(err)
	}
	return p.Doc
}
