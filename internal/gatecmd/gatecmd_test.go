package gatecmd

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fleetkit/catalogue/gate"
)

func TestSummary(t *testing.T) {
	s := gate.Stats{Messages: 37, Forwarded: 23, DeadLetters: 14, Bytes: 11_100, Redeliveries: 2, Retries: 5}
	assert.Equal(t, "37 messages, 23 forwarded to out, 14 dead letters to dead; 2 redeliveries, 5 retries; 11.1 kB in 2s (5.5 kB/s, 18 messages/s)",
		Summary(s, "out", "dead", 2*time.Second))
	one := gate.Stats{Messages: 1, Forwarded: 0, DeadLetters: 1, Bytes: 271, Redeliveries: 1, Retries: 1}
	assert.Equal(t, "1 message, 0 forwarded to out, 1 dead letter to dead; 1 redelivery, 1 retry; 271 B in 1s (271 B/s, 1 messages/s)",
		Summary(one, "out", "dead", time.Second), "a count of one in the singular, as msgcheck's summary and compat's report")
}

// No name given to a gate starts a line of its own in its summary.
func TestSummaryCannotBeForged(t *testing.T) {
	line := Summary(gate.Stats{}, "out\ngate: 99 messages", "dead\r\x1b[2J", time.Second)
	assert.NotContains(t, line, "\n")
	assert.NotContains(t, line, "\r")
	assert.NotContains(t, line, "\x1b")
}

func TestSize(t *testing.T) {
	for b, want := range map[float64]string{0: "0 B", 999: "999 B", 1500: "1.5 kB", 2.5e6: "2.5 MB", 3e9: "3.0 GB"} {
		assert.Equal(t, want, Size(b))
	}
}

// Run sums up what a gate did, unless it refused to start, and returns
// what it returned.
func TestRun(t *testing.T) {
	var buf bytes.Buffer
	var progress func(gate.Stats)
	failed := errors.New("failed")
	st, err := Run(&buf, "out", "dead", &progress, func() (gate.Stats, error) {
		return gate.Stats{Messages: 3, Forwarded: 2, DeadLetters: 1}, failed
	})
	assert.Equal(t, gate.Stats{Messages: 3, Forwarded: 2, DeadLetters: 1}, st)
	assert.Equal(t, failed, err)
	assert.Nil(t, progress, "not a terminal: no progress drawn")
	assert.True(t, strings.HasPrefix(buf.String(), "gate: 3 messages, 2 forwarded to out, 1 dead letter to dead; "), buf.String())
	assert.Equal(t, 1, strings.Count(buf.String(), "\n"))

	buf.Reset()
	refused := fmt.Errorf("%w: no output", gate.ErrRefused)
	_, err = Run(&buf, "out", "dead", &progress, func() (gate.Stats, error) { return gate.Stats{}, refused })
	assert.Equal(t, refused, err)
	assert.Empty(t, buf.String(), "nothing to sum up")
}

// progress draws on a terminal only, at most once a second, and clears
// what it drew.
func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	assert.Nil(t, newProgress(&buf, "out", "dead"), "not a terminal")
	newProgress(&buf, "out", "dead").clear() // a nil progress clears nothing

	p := &progress{w: &buf, output: "out", deadLetters: "dead", start: time.Now()}
	p.update(gate.Stats{Messages: 1, Forwarded: 1})
	p.update(gate.Stats{Messages: 2, Forwarded: 2}) // within the second: not drawn
	assert.Equal(t, 1, strings.Count(buf.String(), "\r"))
	assert.Contains(t, buf.String(), "\rgate: 1 message, 1 forwarded to out")
	assert.True(t, strings.HasSuffix(buf.String(), " ..."))
	shown := len(strings.TrimPrefix(buf.String(), "\r"))
	buf.Reset()
	p.clear()
	assert.Equal(t, "\r"+strings.Repeat(" ", shown)+"\r", buf.String())
}
