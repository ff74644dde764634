package ndjson_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/ndjson"
	"github.com/fleetkit/catalogue/schemas"
)

const validEvent = `{"id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","type":"created","occurred_at":"2026-11-23T08:00:00Z"}`

const validAssociation = `{"message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","message_type":"core.association","source_id":"s","tenant_id":"acme","time":"2026-11-23T08:00:00Z","association_id":"5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a","device_id":"9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4"}`

func collect(t *testing.T, input string, opts ndjson.Options) ([]ndjson.Result, ndjson.Stats) {
	t.Helper()
	var got []ndjson.Result
	stats, err := ndjson.Check(context.Background(), strings.NewReader(input), opts, func(r ndjson.Result) error {
		got = append(got, r)
		return nil
	})
	require.NoError(t, err)
	return got, stats
}

func TestVerdictsLinesAndSchemas(t *testing.T) {
	input := strings.Join([]string{
		validAssociation,
		"",
		"   ",
		`{"message_type":"core.association"}`,
		`{not json`,
		`{"message_type":"core.unknown"}`,
		validEvent,
		strings.Replace(validAssociation, `"acme"`, `null`, 1) + "\r",
	}, "\n")
	got, stats := collect(t, input, ndjson.Options{})
	require.Len(t, got, 6)
	assert.Equal(t, []int{1, 4, 5, 6, 7, 8}, lines(got))
	assert.True(t, got[0].Valid())
	assert.Equal(t, "core.association", got[0].Schema)
	assert.False(t, got[1].Valid())
	assert.Len(t, got[1].Violations(), 6, "every missing required member")
	assert.Equal(t, "syntax", string(got[2].Violations()[0].Rule))
	assert.ErrorIs(t, got[3].Err, catalogue.ErrUnknownType)
	assert.Equal(t, msg.RuleMessageType, got[3].Violations()[0].Rule)
	assert.ErrorIs(t, got[4].Err, catalogue.ErrNoType, "an event has no message_type")
	assert.NotErrorIs(t, got[4].Err, catalogue.ErrUnknownType)
	assert.Equal(t, msg.RuleMessageType, got[4].Violations()[0].Rule)
	assert.Equal(t, "/tenant_id", got[5].Violations()[0].Path)
	assert.Equal(t, ndjson.Stats{Messages: 6, Valid: 1, Bytes: int64(len(input))}, stats)
	assert.Equal(t, 5, stats.Invalid())
}

func TestDefaultOptionJudgesOnlyMessagesWithoutAType(t *testing.T) {
	got, _ := collect(t, validEvent+"\n"+validAssociation+"\n"+`{"message_type":"core.driver"}`+"\n", ndjson.Options{Default: "example.event"})
	require.Len(t, got, 3)
	assert.True(t, got[0].Valid())
	assert.Equal(t, "example.event", got[0].Schema)
	assert.True(t, got[1].Valid())
	assert.Equal(t, "core.association", got[1].Schema)
	assert.ErrorIs(t, got[2].Err, catalogue.ErrUnknownType)

	_, err := ndjson.Check(t.Context(), strings.NewReader(""), ndjson.Options{Default: "core.driver"}, func(ndjson.Result) error { return nil })
	assert.Error(t, err)
}

func TestSchemaOption(t *testing.T) {
	got, _ := collect(t, validEvent+"\n"+validAssociation+"\n", ndjson.Options{Schema: "example.event"})
	require.Len(t, got, 2)
	assert.True(t, got[0].Valid())
	assert.False(t, got[1].Valid(), "an association is not an event")
	assert.Equal(t, "example.event", got[1].Schema)

	_, err := ndjson.Check(context.Background(), strings.NewReader(validEvent), ndjson.Options{Schema: "nope"}, func(ndjson.Result) error { return nil })
	assert.ErrorIs(t, err, schemas.ErrUnknown)
}

// TestVersionOption pins that Options.Version names the version judged
// by, and that a version the catalogue lacks is refused before any line
// is read.
func TestVersionOption(t *testing.T) {
	got, _ := collect(t, validEvent+"\n", ndjson.Options{Schema: "example.event", Version: "1.0"})
	require.Len(t, got, 1)
	assert.True(t, got[0].Valid())

	for _, opts := range []ndjson.Options{{Schema: "example.event", Version: "1.1"}, {Version: "1.0"}} {
		read := false
		_, err := ndjson.Check(context.Background(), readerFunc(func([]byte) (int, error) { read = true; return 0, io.EOF }), opts, func(ndjson.Result) error { return nil })
		assert.ErrorIs(t, err, schemas.ErrUnknown, "%+v", opts)
		assert.False(t, read, "%+v", opts)
	}
}

// readerFunc is an io.Reader made of a function.
type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// TestOrderUnderConcurrency pins that results come back in input order
// whatever the number of workers and however uneven the lines' cost.
func TestOrderUnderConcurrency(t *testing.T) {
	var b strings.Builder
	const n = 5000
	for i := range n {
		switch i % 7 {
		case 0:
			// An expensive line: a large extra member.
			fmt.Fprintf(&b, `{"id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","type":"created","occurred_at":"2026-11-23T08:00:00Z","x":"%s"}`+"\n", strings.Repeat("a", 20000))
		case 3:
			b.WriteString("{\n")
		default:
			b.WriteString(validEvent + "\n")
		}
	}
	for _, workers := range []int{1, 2, 8} {
		got, stats := collect(t, b.String(), ndjson.Options{Schema: "example.event", Workers: workers})
		require.Len(t, got, n)
		for i, r := range got {
			require.Equal(t, i+1, r.Line)
			require.Equal(t, i%7 != 3, r.Valid(), "line %d", r.Line)
		}
		assert.Equal(t, n-(n+3)/7, stats.Valid)
	}
}

func TestLongLine(t *testing.T) {
	long := `{"id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","type":"created","occurred_at":"2026-11-23T08:00:00Z","tags":["` +
		strings.Repeat("t", 17<<20) + `"]}`
	got, _ := collect(t, validEvent+"\n"+long+"\n"+validEvent, ndjson.Options{Schema: "example.event", MaxLine: 32 << 20})
	require.Len(t, got, 3)
	for _, r := range got {
		assert.True(t, r.Valid(), "line %d: %v", r.Line, r.Err)
	}
}

func TestEmitErrorStops(t *testing.T) {
	stop := errors.New("stop")
	input := strings.Repeat(validEvent+"\n", 10000)
	seen := 0
	_, err := ndjson.Check(context.Background(), strings.NewReader(input), ndjson.Options{Schema: "example.event"}, func(ndjson.Result) error {
		seen++
		if seen == 10 {
			return stop
		}
		return nil
	})
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 10, seen)
}

func TestReadErrorIsReturned(t *testing.T) {
	broken := io.MultiReader(strings.NewReader(validEvent+"\n"), errReader{})
	var got []ndjson.Result
	_, err := ndjson.Check(context.Background(), broken, ndjson.Options{Schema: "example.event"}, func(r ndjson.Result) error {
		got = append(got, r)
		return nil
	})
	assert.ErrorContains(t, err, "disk on fire")
	assert.Len(t, got, 1, "what was read before the error is still judged")
}

// TestReadErrorMidLineJudgesNoFragment pins that a line cut off by a read
// error is not judged: only the end of the input ends a last line without
// a line end.
func TestReadErrorMidLineJudgesNoFragment(t *testing.T) {
	input := validEvent + "\n" + validEvent[:40]
	broken := io.MultiReader(strings.NewReader(input), errReader{})
	var got []ndjson.Result
	stats, err := ndjson.Check(context.Background(), broken, ndjson.Options{Schema: "example.event"}, func(r ndjson.Result) error {
		got = append(got, r)
		return nil
	})
	assert.ErrorContains(t, err, "disk on fire")
	assert.Equal(t, []int{1}, lines(got), "the fragment of line 2 is not a message")
	assert.Equal(t, ndjson.Stats{Messages: 1, Valid: 1, Bytes: int64(len(input))}, stats, "the fragment's bytes were read all the same")
}

// TestCancelReturnsWhileTheReaderBlocks pins that Check returns soon after
// ctx is done, or emit fails, even though r.Read never returns, and that
// nothing is emitted after it returns.
func TestCancelReturnsWhileTheReaderBlocks(t *testing.T) {
	stop := errors.New("stop")
	tests := []struct {
		name    string
		input   string // read before the reader blocks
		cancel  time.Duration
		emitErr error
		want    error
	}{
		{"cancelled before", "", 0, nil, context.Canceled},
		{"cancelled before, after some lines", validEvent + "\n" + validEvent + "\n", 0, nil, context.Canceled},
		{"cancelled while blocked", validEvent + "\n" + validEvent[:40], 50 * time.Millisecond, nil, context.Canceled},
		{"emit fails while blocked", strings.Repeat(validEvent+"\n", 1000), -1, stop, stop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unblock := make(chan struct{})
			defer close(unblock) // lets the Read left behind end with the test
			r := io.MultiReader(strings.NewReader(tt.input), blockingReader(unblock))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			switch {
			case tt.cancel == 0:
				cancel()
			case tt.cancel > 0:
				time.AfterFunc(tt.cancel, cancel)
			}

			var mu sync.Mutex
			var got []ndjson.Result
			returned := false
			done := make(chan error, 1)
			go func() {
				_, err := ndjson.Check(ctx, r, ndjson.Options{Schema: "example.event", Workers: 2}, func(res ndjson.Result) error {
					mu.Lock()
					defer mu.Unlock()
					assert.False(t, returned, "emit after Check returned")
					got = append(got, res)
					return tt.emitErr
				})
				mu.Lock()
				returned = true
				mu.Unlock()
				done <- err
			}()
			select {
			case err := <-done:
				assert.ErrorIs(t, err, tt.want)
			case <-time.After(time.Second):
				require.FailNow(t, "Check did not return while the reader blocked")
			}
			mu.Lock()
			defer mu.Unlock()
			for i, res := range got {
				assert.Equal(t, i+1, res.Line, "results in input order, none skipped")
				assert.True(t, res.Valid(), "line %d: %v", res.Line, res.Err)
			}
			if tt.emitErr != nil {
				assert.Len(t, got, 1)
			}
		})
	}
}

// blockingReader is a reader whose Read blocks until unblock is closed, as
// a terminal or a pipe does while no one writes to it.
type blockingReader chan struct{}

func (b blockingReader) Read([]byte) (int, error) {
	<-b
	return 0, io.EOF
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func lines(rs []ndjson.Result) []int {
	var l []int
	for _, r := range rs {
		l = append(l, r.Line)
	}
	return l
}
