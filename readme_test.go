package catalogue_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/schemas"
)

// TestREADMEPackagesTableMatchesTheCode holds the README's table of
// packages to the code: every package of the module, and every module
// beside it, is named in the table's first column (a name ending in /...
// names a folder and all below it), and every name there is a package or
// a module.
func TestREADMEPackagesTableMatchesTheCode(t *testing.T) {
	named := readmePackages(t)
	if len(named) == 0 {
		t.Fatal("no table of packages under ## Packages in README.md")
	}
	packages, modules := layout(t)
	covered := func(dir string) bool {
		for _, n := range named {
			base, tree := strings.CutSuffix(n, "/...")
			if dir == base || tree && strings.HasPrefix(dir, base+"/") {
				return true
			}
		}
		return false
	}
	for _, dir := range append(slices.Clone(packages), modules...) {
		if !covered(dir) {
			t.Errorf("README.md's table of packages does not name %s", dir)
		}
	}
	for _, n := range named {
		base := strings.TrimSuffix(n, "/...")
		if !slices.Contains(packages, base) && !slices.Contains(modules, base) && !slices.ContainsFunc(packages, func(p string) bool { return strings.HasPrefix(p, base+"/") }) {
			t.Errorf("README.md's table of packages names %s, which is neither a package nor a module", n)
		}
	}
}

// readmePackages returns the names in the first column of the table under
// "## Packages": each `name` in backquotes, "catalogue" for the root.
func readmePackages(t *testing.T) []string {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := bytes.Cut(readme, []byte("\n## Packages\n"))
	if !ok {
		return nil
	}
	section, _, _ = bytes.Cut(section, []byte("\n## "))
	quoted := regexp.MustCompile("`([^`]+)`")
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(section))
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 3 || strings.Trim(cells[1], " -") == "" || strings.TrimSpace(cells[1]) == "package" {
			continue
		}
		for _, m := range quoted.FindAllStringSubmatch(cells[1], -1) {
			name := m[1]
			if name == "catalogue" {
				name = "."
			}
			names = append(names, name)
		}
	}
	return names
}

// layout returns the folders of the module's packages ("." for the root)
// and those of the modules inside it, slash-separated.
func layout(t *testing.T) (packages, modules []string) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
			modules = append(modules, filepath.ToSlash(path))
			return filepath.SkipDir
		}
		files, err := filepath.Glob(filepath.Join(path, "*.go"))
		if err != nil {
			return err
		}
		if slices.ContainsFunc(files, func(f string) bool { return !strings.HasSuffix(f, "_test.go") }) {
			packages = append(packages, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return packages, modules
}

// TestREADMELinksResolve holds every link of README.md that stays in the
// repository to something there: a relative link to a file or folder that
// exists, and a #fragment to a heading of the README, named as GitHub
// names headings' anchors.
func TestREADMELinksResolve(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	fence := false
	punctuation := regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
	for line := range strings.Lines(string(readme)) {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && !fence && strings.HasPrefix(line, "#") {
			anchor := strings.ReplaceAll(punctuation.ReplaceAllString(strings.ToLower(strings.TrimSpace(heading)), ""), " ", "-")
			anchors[anchor] = true
		}
	}
	links := regexp.MustCompile(`\]\(([^)\s]+)\)`).FindAllStringSubmatch(string(readme), -1)
	if len(links) == 0 {
		t.Fatal("no links found in README.md")
	}
	for _, m := range links {
		target := m[1]
		switch {
		case strings.Contains(target, "://"):
		case strings.HasPrefix(target, "#"):
			if !anchors[target[1:]] {
				t.Errorf("README.md links to %s, which no heading names", target)
			}
		default:
			if _, err := os.Stat(strings.SplitN(target, "#", 2)[0]); err != nil {
				t.Errorf("README.md links to %s: %v", target, err)
			}
		}
	}
}

// TestREADMECatalogueTableMatchesTheSchemas holds the README's table of
// the catalogue to the published schemas: a row per schema version, in
// the order schemas.All gives them, with its $id, its required members
// and the Go type that decodes it.
func TestREADMECatalogueTableMatchesTheSchemas(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := bytes.Cut(readme, []byte("\n## The catalogue\n"))
	if !ok {
		t.Fatal("no section ## The catalogue in README.md")
	}
	section, _, _ = bytes.Cut(section, []byte("\n## "))
	var rows []string
	for line := range strings.Lines(string(section)) {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| name ") {
			rows = append(rows, strings.TrimSpace(line))
		}
	}
	var want []string
	for _, s := range schemas.All() {
		m, err := catalogue.New(s.Name, s.Version)
		if err != nil {
			t.Fatal(err)
		}
		required := slices.Sorted(slices.Values(s.Required))
		want = append(want, fmt.Sprintf("| %s | %s | `%s` | %s | `%s` |", s.Name, s.Version, s.ID, strings.Join(required, ", "), strings.TrimPrefix(fmt.Sprintf("%T", m), "*")))
	}
	if !slices.Equal(rows, want) {
		t.Errorf("README.md's table of the catalogue:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}
