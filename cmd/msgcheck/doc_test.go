package main

import (
	"context"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
