package main

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	natsgo "github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/ndjson"
)

// The README's one command: the sample stream, published, gated, and
// split into valid messages and dead letters, each dead letter printed as
// msgcheck check prints the message.
func TestDemoSplitsTheSampleStream(t *testing.T) {
	const file = "../../../testdata/messages.ndjson"
	var stdout, stderr bytes.Buffer
	status := run(context.Background(), []string{"demo", "-publish", file}, &stdout, &stderr)
	require.Equal(t, 1, status, "stderr: %s", stderr.String())

	// What msgcheck says of each line, as published (without its newline).
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var want []string
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		_, err := ndjson.Check(context.Background(), bytes.NewReader(line), ndjson.Options{}, func(r ndjson.Result) error {
			if !r.Valid() {
				schema := r.Schema
				if schema == "" {
					schema = "?"
				}
				want = append(want, file+":"+strconv.Itoa(i+1)+": "+schema+": "+(&msg.Error{Violations: r.Violations()}).Error())
			}
			return nil
		})
		require.NoError(t, err)
	}
	want = append(want,
		"stream IN (fleet.in.>): 37 messages",
		"stream VALID (fleet.valid): 23 messages",
		"stream DEAD (fleet.dead): 14 messages")
	assert.Equal(t, strings.Join(want, "\n")+"\n", stdout.String())
	assert.Contains(t, stderr.String(), "gate: 37 messages, 23 forwarded to fleet.valid, 14 dead letters to fleet.dead; 0 redeliveries, 0 retries")
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-batch", "0"},
		{"-creds", "x.creds"},
		{"-server", "nats://127.0.0.1:1", "-publish", "x"},
		{"extra"},
		{"-nope"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), args, &stdout, &stderr), "%q", args)
		assert.Contains(t, stderr.String(), "usage: gate", "%q", args)
	}
}

// Nothing from a message, nor its headers, starts a line of its own.
func TestDeadLetterLinesCannotBeForged(t *testing.T) {
	var out bytes.Buffer
	h := natsgo.Header{}
	h.Set("Catalogue-Verdict", `{"subject":"s","stream":"IN","sequence":3,"schema":"core.device","valid":false,"violations":[{"path":"/a\nb","rule":"type","message":"x\r\ny"}]}`)
	h.Set("Catalogue-Original-Nats-Msg-Id", "id\x1b[2J")
	writeDeadLetter(&out, h)
	assert.Equal(t, 1, strings.Count(out.String(), "\n"), out.String())
	assert.NotContains(t, out.String(), "\x1b")
}
