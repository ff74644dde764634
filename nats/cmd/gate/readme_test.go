package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEDemoPrintsWhatTheREADMEShows runs gate demo as nats/README.md
// shows it and holds what it prints, standard error then standard output
// as a terminal shows them, to the README's block, the server's port,
// the store's folder and the timing aside. Found by a new user: the
// README showed none of the three lines the demo logs first, and said
// line 17's byte offset is one less than msgcheck's, where the two print
// the same.
func TestREADMEDemoPrintsWhatTheREADMEShows(t *testing.T) {
	text, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(text), "```sh\ngo run ./cmd/gate demo\n```\n\n```text\n")
	require.True(t, ok, "nats/README.md shows go run ./cmd/gate demo and what it prints")
	shown, _, ok := strings.Cut(after, "\n```\n")
	require.True(t, ok)

	var stdout, stderr bytes.Buffer
	status := run(context.Background(), []string{"demo"}, &stdout, &stderr)
	assert.Equal(t, 1, status, "the README: the exit status is 1 when any message was dead-lettered")
	assert.Equal(t, demoMask(shown), demoMask(strings.TrimSuffix(stderr.String()+stdout.String(), "\n")),
		"nats/README.md: go run ./cmd/gate demo prints\n%s%s", stderr.String(), stdout.String())
}

// What changes from one run of gate demo to the next.
var (
	demoPort   = regexp.MustCompile(`nats://127\.0\.0\.1:\d+`)
	demoStore  = regexp.MustCompile(`store in \S+`)
	demoTiming = regexp.MustCompile(`(?m) in [0-9.]+[µmn]?s \([^)]*\)$`)
)

// demoMask returns text with what changes from run to run left out.
func demoMask(text string) string {
	text = demoPort.ReplaceAllString(text, "nats://127.0.0.1:PORT")
	text = demoStore.ReplaceAllString(text, "store in DIR")
	return demoTiming.ReplaceAllString(text, " in T")
}
