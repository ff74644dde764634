package main

import (
	"context"
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

// TestPackageDocListsEveryFlag pins that the usage lines of the command's
// doc, which go doc shows, name exactly the flags each subcommand
// defines, as its -h prints them.
func TestPackageDocListsEveryFlag(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	doc := f.Doc.Text()
	usage := regexp.MustCompile(`(?m)^\tmsgcheck (\S+)(.*?)(?:\s{2,}|$)`)
	flagInDoc := regexp.MustCompile(`(?:^|[\s\[])-([a-z][a-z-]*)`)
	flagInHelp := regexp.MustCompile(`(?m)^  -(\S+)`)

	inDoc := map[string][]string{}
	for _, m := range usage.FindAllStringSubmatch(doc, -1) {
		inDoc[m[1]] = append(inDoc[m[1]], "") // the command is listed, flags or not
		for _, fm := range flagInDoc.FindAllStringSubmatch(m[2], -1) {
			inDoc[m[1]] = append(inDoc[m[1]], fm[1])
		}
	}
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			c.run(context.Background(), []string{"-h"}, strings.NewReader(""), &stdout, &stderr)
			defined := []string{}
			for _, m := range flagInHelp.FindAllStringSubmatch(stdout.String()+stderr.String(), -1) {
				defined = append(defined, m[1])
			}
			documented, listed := inDoc[c.name]
			require.True(t, listed, "the doc has no usage line for %s", c.name)
			documented = slices.DeleteFunc(slices.Clone(documented), func(s string) bool { return s == "" })
			slices.Sort(defined)
			slices.Sort(documented)
			assert.Equal(t, defined, slices.Compact(documented), "flags of %s: defined (-h) and in the package doc", c.name)
		})
	}
}

// readme returns the text of README.md.
func readme(t *testing.T) string {
	t.Helper()
	text, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	return string(text)
}

// A readmeExample is a command the README shows with what it prints: a
// ```sh block followed by a ```text block.
type readmeExample struct {
	line    int      // of the command in README.md
	command []string // the lines of the sh block, comments left out
	output  []string // the lines of the text block
}

// readmeExamples returns every sh block of README.md that a text block
// follows, with nothing but blank lines between them.
func readmeExamples(t *testing.T) []readmeExample {
	t.Helper()
	lines := strings.Split(readme(t), "\n")
	block := func(i int) (body []string, next int) { // lines[i] opens a block
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		return body, i + 1
	}
	var examples []readmeExample
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```sh" {
			continue
		}
		at := i + 1
		command, next := block(i)
		command = slices.DeleteFunc(command, func(l string) bool { return strings.HasPrefix(l, "#") })
		for next < len(lines) && lines[next] == "" {
			next++
		}
		if next < len(lines) && lines[next] == "```text" {
			output, end := block(next)
			examples = append(examples, readmeExample{line: at, command: command, output: output})
			next = end
		}
		i = next - 1
	}
	return examples
}

// TestREADMECommandsPrintWhatTheREADMEShows runs every msgcheck command the
// README shows with its output, from the repository's root as the README
// runs them, and holds what it prints to the README's text, line for line:
// a README line "..." stands for lines left out, and the timing in check's
// summary is not compared. A command whose output goes to /dev/null is held
// to what it prints on stderr; any other to stdout, then stderr.
func TestREADMECommandsPrintWhatTheREADMEShows(t *testing.T) {
	// What a command needs that the repository does not hold: the two
	// files the README describes in a comment.
	setups := map[string]func(t *testing.T, dir string){
		"compat old.json new.json": func(t *testing.T, dir string) {
			for name, v := range map[string][2]string{"old.json": {"1.0", "^[A-Z]{3}$"}, "new.json": {"1.1", "^[A-M]{3}$"}} {
				schema := `{"$schema": "http://json-schema.org/draft-07/schema#", "$id": "` + schemas.ID("demo.code", v[0]) +
					`", "title": "demo.code", "type": "object", "required": ["code"], "properties": {"code": {"type": "string", "pattern": "` + v[1] + `"}}}`
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(schema), 0o644))
			}
		},
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	timing := regexp.MustCompile(` in [0-9.]+[µmn]?s \([^)]*\)$`)
	ran := 0
	for _, ex := range readmeExamples(t) {
		if len(ex.command) != 1 || !strings.HasPrefix(ex.command[0], "go run ./cmd/msgcheck ") {
			continue
		}
		args := strings.Fields(strings.TrimPrefix(ex.command[0], "go run ./cmd/msgcheck "))
		quiet := slices.Contains(args, ">/dev/null")
		args = slices.DeleteFunc(args, func(a string) bool { return a == ">/dev/null" })
		if args[0] == "serve" {
			continue // it serves until stopped: the curl examples are held below, and by package api
		}
		ran++
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := root
			if setup, ok := setups[strings.Join(args, " ")]; ok {
				dir = t.TempDir()
				setup(t, dir)
			}
			t.Chdir(dir)
			var stdout, stderr strings.Builder
			run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
			got := stdout.String() + stderr.String()
			if quiet {
				got = stderr.String()
			}
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			for i := range lines {
				lines[i] = timing.ReplaceAllString(lines[i], " in T")
			}
			want := slices.Clone(ex.output)
			for i := range want {
				want[i] = timing.ReplaceAllString(want[i], " in T")
			}
			assert.True(t, matchElided(want, lines), "README.md:%d: %s prints\n%s\nwhere the README shows\n%s",
				ex.line, ex.command[0], strings.Join(lines, "\n"), strings.Join(ex.output, "\n"))
		})
	}
	assert.GreaterOrEqual(t, ran, 7, "msgcheck commands found in README.md with their output")
}

// matchElided reports whether got is want, where each "..." line of want
// stands for any number of lines of got.
func matchElided(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for skip := 0; skip <= len(got); skip++ {
			if matchElided(want[1:], got[skip:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && want[0] == got[0] && matchElided(want[1:], got[1:])
}

// TestREADMECompatibilityRouteAnswersWhatTheREADMEShows posts to the
// compatibility route of msgcheck serve the proposed core.device 1.1 the
// README describes, one that adds vin and turns allowed on by default, and
// holds the answer to the README's.
func TestREADMECompatibilityRouteAnswersWhatTheREADMEShows(t *testing.T) {
	var shown []string
	for _, ex := range readmeExamples(t) {
		if len(ex.command) > 0 && strings.HasPrefix(ex.command[0], "curl -X POST --data-binary @testdata/proposed/core.device-1.1.json") {
			shown = ex.output
		}
	}
	require.Len(t, shown, 1, "the README's answer of the compatibility route, on one line")

	published, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	var proposed map[string]any
	require.NoError(t, json.Unmarshal(published.JSON(), &proposed))
	proposed["$id"] = schemas.ID("core.device", "1.1")
	members := proposed["properties"].(map[string]any)
	members["allowed"].(map[string]any)["default"] = true
	members["vin"] = map[string]any{"type": "string"}
	want, err := json.Marshal(proposed)
	require.NoError(t, err)
	body, err := os.ReadFile("../../testdata/proposed/core.device-1.1.json")
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(body), "the file the README posts is the proposal it describes")

	s := startServer(t, exec.Command(binary, "serve", "-addr", "127.0.0.1:0"))
	res, err := http.Post(s.base+"/api/schemas/core.device/versions/1.0/compatibility", "application/schema+json", strings.NewReader(string(body)))
	require.NoError(t, err)
	answer, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, shown[0], strings.TrimSuffix(string(answer), "\n"))
}
