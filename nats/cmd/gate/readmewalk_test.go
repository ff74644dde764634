package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A new user's demonstration on a file of one message said "published 1
// messages" and "1 messages" a stream: counts of one are in the singular,
// as in the gate's summary and msgcheck's.
func TestDemoCountsOneMessageInTheSingular(t *testing.T) {
	file := filepath.Join(t.TempDir(), "one.ndjson")
	require.NoError(t, os.WriteFile(file, []byte(`{"message_type":"core.driver"}`+"\n"), 0o644))
	var stdout, stderr bytes.Buffer
	status := run(context.Background(), []string{"demo", "-publish", file}, &stdout, &stderr)
	require.Equal(t, 1, status, "stderr: %s", stderr.String())
	assert.Contains(t, stderr.String(), "gate: published 1 message of "+file+" to ")
	assert.Contains(t, stderr.String(), "gate: 1 message, 0 forwarded to fleet.valid, 1 dead letter to fleet.dead; ")
	assert.Contains(t, stdout.String(), "stream IN (fleet.in.>): 1 message\n")
	assert.Contains(t, stdout.String(), "stream VALID (fleet.valid): 0 messages\n")
	assert.Contains(t, stdout.String(), "stream DEAD (fleet.dead): 1 message\n")
}
