package ndjson_test

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/ndjson"
)

// hugeLine produces, lazily, a line of n bytes (one JSON string, so that
// it would be a message if it were short) and then rest: a stream of any
// length costs it nothing.
type hugeLine struct {
	n, sent int64
	rest    io.Reader
}

func (h *hugeLine) Read(p []byte) (int, error) {
	if h.sent >= h.n {
		return h.rest.Read(p)
	}
	k := min(int64(len(p)), h.n-h.sent)
	for i := range p[:k] {
		p[i] = 'x'
	}
	if h.sent == 0 {
		p[0] = '"'
	}
	h.sent += k
	return int(k), nil
}

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLineLongerThanTheLimitIsSkippedInConstantMemory: a line of 256 MiB
// over a limit of 1 MiB is one invalid message, read without being held,
// and the stream goes on.
func TestLineLongerThanTheLimitIsSkippedInConstantMemory(t *testing.T) {
	const limit, size = 1 << 20, 256 << 20
	input := &hugeLine{n: size, rest: strings.NewReader("\n" + validEvent + "\n")}
	var got []ndjson.Result
	var stats ndjson.Stats
	alloc := allocated(func() {
		var err error
		stats, err = ndjson.Check(context.Background(), input, ndjson.Options{Schema: "example.event", MaxLine: limit}, func(r ndjson.Result) error {
			got = append(got, r)
			return nil
		})
		require.NoError(t, err)
	})
	assert.Less(t, alloc, uint64(16<<20), "allocated while reading 256 MiB")
	require.Len(t, got, 2)
	assert.Equal(t, 1, got[0].Line)
	assert.ErrorIs(t, got[0].Err, ndjson.ErrLineTooLong)
	assert.EqualError(t, got[0].Err, "(root): line longer than 1048576 bytes")
	_, isMsgError := errors.AsType[*msg.Error](got[0].Err)
	assert.True(t, isMsgError, "every error of a line is an *msg.Error")
	require.Len(t, got[0].Violations(), 1)
	assert.Equal(t, msg.RuleLineLength, got[0].Violations()[0].Rule)
	assert.Equal(t, "", got[0].Violations()[0].Path)
	assert.Equal(t, "example.event", got[0].Schema, "the schema it would have been judged by")
	assert.Equal(t, 2, got[1].Line)
	assert.True(t, got[1].Valid(), "the stream goes on")
	assert.Equal(t, ndjson.Stats{Messages: 2, Valid: 1, Bytes: size + 1 + int64(len(validEvent)) + 1}, stats)
}

// TestEndlessLineWithoutALineEnd: an input that never sends a line end
// does not make memory grow; what it sent is one line, too long, when it
// ends.
func TestEndlessLineWithoutALineEnd(t *testing.T) {
	input := &hugeLine{n: 256 << 20, rest: strings.NewReader("")}
	var got []ndjson.Result
	alloc := allocated(func() {
		_, err := ndjson.Check(context.Background(), input, ndjson.Options{MaxLine: 4096}, func(r ndjson.Result) error {
			got = append(got, r)
			return nil
		})
		require.NoError(t, err)
	})
	assert.Less(t, alloc, uint64(16<<20))
	require.Len(t, got, 1)
	assert.ErrorIs(t, got[0].Err, ndjson.ErrLineTooLong)
}

func TestLineOfExactlyTheLimitIsJudged(t *testing.T) {
	line := validEvent + "\n"
	got, _ := collect(t, line+line, ndjson.Options{Schema: "example.event", MaxLine: len(line)})
	require.Len(t, got, 2)
	assert.True(t, got[0].Valid())
	got, _ = collect(t, line+line, ndjson.Options{Schema: "example.event", MaxLine: len(line) - 1})
	require.Len(t, got, 2)
	assert.ErrorIs(t, got[0].Err, ndjson.ErrLineTooLong)
	assert.ErrorIs(t, got[1].Err, ndjson.ErrLineTooLong)
}

// TestBigLinesOfEverySize: lines of megabytes, longer and shorter than
// the one before, among short ones, are judged as they are, whichever
// buffer the reader reuses for them, when MaxLine allows them.
func TestBigLinesOfEverySize(t *testing.T) {
	bigValid := func(n int) string {
		return strings.Replace(validAssociation, `}`, `,"tags":["`+strings.Repeat("t", n)+`"]}`, 1)
	}
	bigInvalid := func(n int) string {
		return strings.Replace(validAssociation, `}`, `,"tags":[1`+strings.Repeat(",1", n/2)+`]}`, 1)
	}
	lines := []string{validEvent, bigInvalid(3 << 20), validEvent, bigValid(2 << 20), bigValid(5 << 20), validEvent, bigInvalid(4 << 20), bigValid(1<<20 + 1), validEvent}
	for _, workers := range []int{1, 4} {
		got, _ := collect(t, strings.Join(lines, "\n")+"\n", ndjson.Options{Workers: workers, Schema: "core.association", MaxLine: 8 << 20})
		require.Len(t, got, len(lines))
		for i, r := range got {
			assert.Equal(t, i+1, r.Line)
			switch {
			case strings.HasPrefix(lines[i], validEvent):
				assert.False(t, r.Valid(), "an event is not an association") // required members missing
			case strings.Contains(lines[i], `"tags":[1`):
				assert.Equal(t, (len(lines[i])-len(validAssociation)-11)/2+1, len(r.Violations())+r.Omitted(), "line %d", i+1)
			default:
				assert.True(t, r.Valid(), "line %d: %v", i+1, r.Err)
			}
		}
	}
}
