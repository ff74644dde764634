package catalogue_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAPIPackageDocNamesTheRegistry holds go doc ./api to what the
// README's table of packages says of api: it serves the schema-registry
// protocol too. A new user found the package doc listing the catalogue's
// routes alone, the registry only under a constant.
func TestAPIPackageDocNamesTheRegistry(t *testing.T) {
	text := packageDoc(t, "api")
	for _, word := range []string{"schema-registry protocol", "RegistryPath"} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), word) {
			t.Errorf("the package doc of ./api does not mention %s:\n%s", word, text)
		}
	}
}

// TestREADMEsGoGetOnlyOncePublished holds every go get of one of the
// project's modules in a README to the caveat of the root README's
// Install: before the module is published, the proxy answers 403. A new
// user found nats/README.md's go get github.com/fleetkit/catalogue/nats
// without it, and got the 403.
func TestREADMEsGoGetOnlyOncePublished(t *testing.T) {
	found := 0
	for _, name := range []string{"README.md", "nats/README.md"} {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			if !strings.HasPrefix(line, "go get github.com/fleetkit/") {
				continue
			}
			found++
			if !strings.Contains(line, "# once the module is published") {
				t.Errorf("%s:%d: %s: the proxy answers 403 until the module is published, and the line does not say so", name, i+1, line)
			}
		}
	}
	if found < 2 {
		t.Fatalf("found %d go get lines in the READMEs, want the library's and the NATS binding's", found)
	}
}

// TestREADMEsNameTestsThatExist holds every test, benchmark, fuzz target
// and example the READMEs name (a name followed by * stands for several)
// to a function of that name in a test file of the repository: a
// reader told that a test pins a claim, or how to reproduce a figure,
// finds it.
func TestREADMEsNameTestsThatExist(t *testing.T) {
	declared := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?((?:Test|Benchmark|Fuzz|Example)\w*)\(`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		text, err := os.ReadFile(path)
		for _, m := range decl.FindAllSubmatch(text, -1) {
			declared[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`\b((?:Test|Benchmark|Fuzz|Example)[A-Z]\w*)(\*?)`)
	checked := 0
	for _, name := range []string{"README.md", "nats/README.md", "bench/README.md"} {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(text), -1) {
			if m[2] == "*" {
				continue
			}
			checked++
			if !declared[m[1]] {
				t.Errorf("%s names %s, which no test file declares", name, m[1])
			}
		}
	}
	if checked < 20 {
		t.Fatalf("found %d names of tests in the READMEs: the pattern has stopped matching them", checked)
	}
}

// TestREADMETestingNamesWhatCIInstalls holds the README's Testing
// section to .ci/run: every Debian package CI installs for the tests is
// named there, so that a contributor running them knows what to install
// (the Kafka module's tests skip without kcat and Debian's Python client,
// which the section did not name).
func TestREADMETestingNamesWhatCIInstalls(t *testing.T) {
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Testing\n")
	if !ok {
		t.Fatal("README.md has no section ## Testing")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var packages []string
	for line := range strings.Lines(string(ci)) {
		_, args, ok := strings.Cut(line, "apt-get install ")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(args) {
			if f == ")" || strings.HasPrefix(f, ">") || strings.HasPrefix(f, "#") {
				break
			}
			if !strings.HasPrefix(f, "-") {
				packages = append(packages, strings.TrimSuffix(f, ")"))
			}
		}
	}
	if len(packages) < 2 {
		t.Fatalf(".ci/run installs %q: the pattern has stopped matching its apt-get lines", packages)
	}
	for _, p := range packages {
		if !strings.Contains(section, "`"+p+"`") {
			t.Errorf("CI installs %s, which README.md's Testing section does not name", p)
		}
	}
}

// TestREADMEsNameDeclaredIdentifiers holds every `pkg.Name` (and
// `pkg.Name.Method`) the READMEs write of the project's own packages to a
// declaration: an exported name of that package, or a method or field
// of one of its types (ce.NATS.Write is a method of ce.NATS's type). A
// new user checked the 70 the READMEs name with go doc, and all held;
// this keeps a rename from leaving the README behind.
func TestREADMEsNameDeclaredIdentifiers(t *testing.T) {
	dirs := map[string]string{
		"msg": "msg", "ce": "ce", "gate": "gate", "gatetest": "gate/gatetest", "kafka": "kafka",
		"catalogue": ".", "schemas": "schemas", "api": "api", "compat": "compat", "ndjson": "ndjson",
		"imei": "imei", "object": "object", "pages": "pages", "device": "device", "vehicle": "vehicle",
		"association": "association", "event": "event", "catnats": "nats",
	}
	ident := regexp.MustCompile("`([a-z]+)\\.([A-Z]\\w*)(?:\\.([A-Z]\\w*))?")
	checked := 0
	for _, name := range []string{"README.md", "nats/README.md"} {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ident.FindAllStringSubmatch(string(text), -1) {
			dir, ok := dirs[m[1]]
			if !ok {
				continue // another module's, or a variable's
			}
			checked++
			names := declaredNames(t, dir)
			if !names[m[2]] || m[3] != "" && !names["."+m[3]] {
				t.Errorf("%s names %s, which package %s (./%s) does not declare", name, strings.Trim(m[0], "`"), m[1], dir)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("found %d names of the project's packages in the READMEs: the pattern has stopped matching them", checked)
	}
}

// declared caches declaredNames.
var declared = map[string]map[string]bool{}

// declaredNames returns the exported names the package in dir declares
// at the top level, and, each after a ".", the exported methods and
// struct fields of its types.
func declaredNames(t *testing.T, dir string) map[string]bool {
	if names, ok := declared[dir]; ok {
		return names
	}
	names := map[string]bool{}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					names["."+d.Name.Name] = true
				} else {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, field := range st.Fields.List {
								for _, n := range field.Names {
									names["."+n.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	declared[dir] = names
	return names
}
