package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEServeLogsWhatTheREADMEShows starts msgcheck serve as the
// README's first serve example does, on a free port rather than 8080,
// and holds what it logs as it starts to the README's lines, the address
// aside. Found by a new user: the README showed one line, as a comment,
// where serve logs two, the registry's URL first.
func TestREADMEServeLogsWhatTheREADMEShows(t *testing.T) {
	var ex readmeExample
	for _, e := range readmeExamples(t) {
		if len(e.command) == 1 && strings.HasPrefix(e.command[0], "go run ./cmd/msgcheck serve ") {
			ex = e
			break
		}
	}
	require.NotEmpty(t, ex.output, "README.md shows what msgcheck serve logs as it starts")
	require.NotEmpty(t, ex.command, "README.md shows msgcheck serve")
	args, _, _ := strings.Cut(strings.TrimPrefix(ex.command[0], "go run ./cmd/msgcheck "), "#")
	require.Equal(t, []string{"serve"}, strings.Fields(args), "README.md:%d: the example runs serve with its defaults", ex.line)

	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	cmd := exec.Command(binary, "serve", "-addr", "127.0.0.1:0")
	cmd.Stderr = w
	start(t, cmd)
	w.Close()
	base, before := servingLines(t, lines(r))
	got := append(before, "msgcheck: serving the catalogue on "+base)
	for i := range got {
		got[i] = strings.ReplaceAll(got[i], strings.TrimPrefix(base, "http://"), "127.0.0.1:8080")
	}
	assert.Equal(t, ex.output, got, "README.md:%d: msgcheck serve logs", ex.line)
}
