package main

import (
	"bytes"
	"context"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/gate"
)

// TestREADMEGateFlagsTableMatchesTheFlags holds the README's table of
// the command's flags to the flags gate -h lists: the same flags, each
// with the default the command has, and the range of -max-record-bytes
// and the codecs of -compression the command takes. A new user checked
// the table against gate -h and the code by hand, flag by flag.
func TestREADMEGateFlagsTableMatchesTheFlags(t *testing.T) {
	section := gateSection(t)

	// The table: a row per flag, or per pair of flags.
	type row struct{ defaults, meaning string }
	table := map[string]row{}
	name := regexp.MustCompile("`(-[a-z-]+)`")
	for line := range strings.Lines(section) {
		cells := strings.Split(strings.TrimSpace(line), " | ")
		if len(cells) != 3 || !strings.HasPrefix(cells[0], "| `-") {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[0], -1) {
			table[m[1]] = row{cells[1], strings.TrimSuffix(cells[2], " |")}
		}
	}
	require.Greater(t, len(table), 10, "the README's table of flags")

	// What gate -h lists: each flag, whether it takes a value, its default.
	var help bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"-h"}, &help))
	type flagHelp struct {
		boolean  bool
		def, doc string
	}
	flags := map[string]*flagHelp{}
	var last *flagHelp
	defaultOf := regexp.MustCompile(` \(default ("[^"]*"|[^)]*)\)$`)
	for line := range strings.Lines(help.String()) {
		line = strings.TrimRight(line, "\n")
		if f, ok := strings.CutPrefix(line, "  -"); ok {
			fields := strings.Fields(f)
			last = &flagHelp{boolean: len(fields) == 1}
			flags["-"+fields[0]] = last
		} else if doc, ok := strings.CutPrefix(line, "    \t"); ok && last != nil {
			last.doc = doc
			if m := defaultOf.FindStringSubmatch(doc); m != nil {
				last.def = strings.Trim(m[1], `"`)
			}
		}
	}
	require.Greater(t, len(flags), 10, "gate -h lists its flags:\n%s", help.String())
	assert.Equal(t, slices.Sorted(maps.Keys(flags)), slices.Sorted(maps.Keys(table)), "the README's table lists the flags gate -h lists")

	for name, r := range table {
		f, ok := flags[name]
		if !ok {
			continue
		}
		shown := strings.Trim(r.defaults, "`")
		switch {
		case r.defaults == "off":
			assert.True(t, f.boolean && f.def == "", "README.md: %s is off by default, and gate -h says %+v", name, *f)
		case r.defaults == "(required)" || r.defaults == "(none)" || r.defaults == "(the host)":
			assert.Equal(t, "", f.def, "README.md: %s has no default (%s), and gate -h says %+v", name, r.defaults, *f)
		case shown == "catalogue-gate-HOST-PID":
			assert.Contains(t, f.doc, "(default "+shown+")", "README.md: %s", name)
		default:
			assert.Equal(t, shown, f.def, "README.md: the default of %s", name)
		}
	}
	assert.Contains(t, table["-max-record-bytes"].meaning, "At least "+strconv.Itoa(gate.MinLimit)+", at most "+strconv.Itoa(maxRecordBytes),
		"README.md: the range of -max-record-bytes")
	for codec := range compressions {
		assert.Contains(t, table["-compression"].meaning, "`"+codec+"`", "README.md: the codecs of -compression")
	}
}
