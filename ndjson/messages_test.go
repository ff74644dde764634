package ndjson_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/ndjson"
)

// A verdict is what a path says of one line, in a form the three paths
// can be compared in.
type verdict struct {
	Line   int
	Schema string
	Err    string // the error's text, byte offsets included; "" if valid
}

func verdictOf(line int, schema string, err error) verdict {
	v := verdict{Line: line, Schema: schema}
	if err != nil {
		v.Err = err.Error()
	}
	return v
}

// TestMessagesCheckAndDecodeAgree runs three paths over the same streams
// and holds them to one verdict per line, error texts and byte offsets
// included: ndjson.Check, which msgcheck check runs; ndjson.Messages; and
// catalogue.Decode (DecodeOr with Options.Default) on each line as a
// line reader returns it, without its line end ("\n" or "\r\n", or a "\r"
// ending the last line, as bufio.ScanLines splits). Check used to judge
// a line with its line end, so that a line cut short was reported one or
// two bytes further on than Decode reports it, and a string cut short
// by the line end as holding a control character.
func TestMessagesCheckAndDecodeAgree(t *testing.T) {
	truncated := validAssociation[:len(validAssociation)-20]
	inString := validAssociation[:strings.Index(validAssociation, `"acme"`)+3]
	tests := []struct {
		name  string
		input string
		opts  ndjson.Options
	}{
		{"valid lines", validAssociation + "\n" + validAssociation + "\n", ndjson.Options{}},
		{"a truncated last line without a line end", validAssociation + "\n" + truncated, ndjson.Options{}},
		{"a truncated line with a line end", truncated + "\n" + validAssociation + "\n", ndjson.Options{}},
		{"a truncated line with \\r\\n", truncated + "\r\n" + validAssociation + "\r\n", ndjson.Options{}},
		{"a last line ending with \\r", validAssociation + "\n" + truncated + "\r", ndjson.Options{}},
		{"a string cut short by the line end", inString + "\n" + inString + "\r\n" + inString, ndjson.Options{}},
		{"a valid line with a trailing \\r", validAssociation + "\r\n" + validAssociation + "\r", ndjson.Options{}},
		{"blank lines", "\n" + validAssociation + "\n  \n\r\n\t\r\n" + truncated + "\n\n", ndjson.Options{}},
		{"white space JSON does not allow", "\f\n\v\r\n\u00a0\n \u0085\n" + validAssociation, ndjson.Options{}},
		{"invalid UTF-8", strings.Replace(validAssociation, `"acme"`, "\"ac\xffme\"", 1) + "\n" + "{\"message_type\":\"core.\xfe\"}\r\n", ndjson.Options{}},
		{"not JSON", "{not json\n[]\r\n\"x\"\n{\"message_type\":\"core.association\"} x\r\n", ndjson.Options{}},
		{"types absent, null and unknown", `{"message_type":null}` + "\n" + `{"message_type":"core.driver"}` + "\n" + validEvent + "\n", ndjson.Options{}},
		{"Default", validEvent + "\n" + validEvent[:30] + "\r\n" + validAssociation, ndjson.Options{Default: "example.event"}},
		{"Schema", validEvent + "\r\n" + validEvent[:30] + "\n" + validAssociation, ndjson.Options{Schema: "example.event"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fromCheck := checkVerdicts(t, tt.input, tt.opts)
			fromMessages, messages := messagesVerdicts(t, tt.input, tt.opts)
			fromDecode, decoded := decodeVerdicts(t, tt.input, tt.opts)
			require.NotEmpty(t, fromCheck)
			assert.Equal(t, fromCheck, fromMessages, "Check and Messages")
			assert.Equal(t, fromCheck, fromDecode, "Check and Decode on each line")
			assert.Equal(t, decoded, messages, "the messages Messages yields are those Decode returns")
		})
	}
}

// TestTruncatedLineIsReportedWhereItsTextEnds pins the byte offset itself,
// which the comparison above only holds the paths to agree on.
func TestTruncatedLineIsReportedWhereItsTextEnds(t *testing.T) {
	truncated := `{"message_type":"core.device","external_id":`
	for _, end := range []string{"", "\n", "\r\n", "\r"} {
		got := checkVerdicts(t, truncated+end, ndjson.Options{})
		require.Len(t, got, 1)
		assert.Equal(t, fmt.Sprintf("/external_id: unexpected end of input, want a value at byte offset %d", len(truncated)), got[0].Err, "line end %q", end)
	}
}

// TestLineLongerThanTheLimitGetsTheSameVerdictFromMessages: Check and
// Messages judge a line over Options.MaxLine alike, and go on; Decode,
// which has no limit, has nothing to say about it.
func TestLineLongerThanTheLimitGetsTheSameVerdictFromMessages(t *testing.T) {
	opts := ndjson.Options{MaxLine: len(validAssociation) + 1} // the line end included
	long := strings.Replace(validAssociation, `"acme"`, `"acme2"`, 1)
	input := validAssociation + "\n" + long + "\n" + validAssociation + "\r\n" + validAssociation
	fromCheck := checkVerdicts(t, input, opts)
	fromMessages, _ := messagesVerdicts(t, input, opts)
	want := []verdict{
		{Line: 1, Schema: "core.association"},
		{Line: 2, Err: fmt.Sprintf("(root): line longer than %d bytes", opts.MaxLine)},
		{Line: 3, Err: fmt.Sprintf("(root): line longer than %d bytes", opts.MaxLine)},
		{Line: 4, Schema: "core.association"},
	}
	assert.Equal(t, want, fromCheck)
	assert.Equal(t, want, fromMessages)
}

func checkVerdicts(t *testing.T, input string, opts ndjson.Options) []verdict {
	t.Helper()
	var got []verdict
	_, err := ndjson.Check(context.Background(), strings.NewReader(input), opts, func(r ndjson.Result) error {
		got = append(got, verdictOf(r.Line, r.Schema, r.Err))
		return nil
	})
	require.NoError(t, err)
	return got
}

func messagesVerdicts(t *testing.T, input string, opts ndjson.Options) ([]verdict, []catalogue.Message) {
	t.Helper()
	var got []verdict
	var messages []catalogue.Message
	for d, err := range ndjson.Messages(context.Background(), strings.NewReader(input), opts) {
		require.NoError(t, err)
		got = append(got, verdictOf(d.Line, d.Schema, d.Err))
		if d.Valid() {
			require.NotNil(t, d.Message, "line %d is valid", d.Line)
			assert.Equal(t, d.Schema, d.Message.SchemaName())
			messages = append(messages, d.Message)
		} else {
			assert.Nil(t, d.Message, "line %d is invalid", d.Line)
		}
	}
	return got, messages
}

// decodeVerdicts splits input as bufio.ScanLines does, with no limit, and
// decodes each non-blank line as a consumer's own loop would.
func decodeVerdicts(t *testing.T, input string, opts ndjson.Options) ([]verdict, []catalogue.Message) {
	t.Helper()
	var got []verdict
	var messages []catalogue.Message
	lines := strings.SplitAfter(input, "\n")
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\r")
		if strings.Trim(line, " \t\r\n") == "" { // blank: JSON white space only
			continue
		}
		var m catalogue.Message
		var err error
		if opts.Schema != "" {
			m, err = catalogue.DecodeAs(opts.Schema, opts.Version, []byte(line))
		} else {
			m, err = catalogue.DecodeOr([]byte(line), opts.Default)
		}
		schema := ""
		if m != nil {
			schema = m.SchemaName()
		}
		got = append(got, verdictOf(i+1, schema, err))
		if err == nil {
			messages = append(messages, m)
		}
	}
	return got, messages
}

// TestMessagesTakesLinesAScannerCannot: a bufio.Scanner stops the stream
// at a line over 64 KiB with bufio.ErrTooLong; Messages takes every line
// up to its limit, and reports one beyond it, 10 MB by default's 4 MiB,
// as an invalid message and goes on.
func TestMessagesTakesLinesAScannerCannot(t *testing.T) {
	tags := `"` + strings.Repeat("t", 100) + `"`
	big := strings.Replace(validAssociation, `}`, `,"tags":[`+tags+strings.Repeat(","+tags, 10<<20/len(tags))+`]}`, 1)
	input := big + "\n" + validAssociation + "\n"

	var got []verdict
	for d, err := range ndjson.Messages(context.Background(), strings.NewReader(input), ndjson.Options{}) {
		require.NoError(t, err)
		got = append(got, verdictOf(d.Line, d.Schema, d.Err))
	}
	assert.Equal(t, []verdict{
		{Line: 1, Err: fmt.Sprintf("(root): line longer than %d bytes", ndjson.DefaultMaxLine)},
		{Line: 2, Schema: "core.association"},
	}, got)

	var tagged []int
	for d, err := range ndjson.Messages(context.Background(), strings.NewReader(input), ndjson.Options{MaxLine: 16 << 20}) {
		require.NoError(t, err)
		require.NoError(t, d.Err)
		tagged = append(tagged, len(d.Message.(*association.Association).Tags))
	}
	assert.Equal(t, []int{1 + 10<<20/len(tags), 0}, tagged)
}

// TestMessagesEndsWithTheReadError: the error reading the stream comes
// last, once, with a zero Decoded, after every line read before it; the
// line it cut off is not a message.
func TestMessagesEndsWithTheReadError(t *testing.T) {
	broken := io.MultiReader(strings.NewReader(validAssociation+"\n"+validAssociation[:40]), errReader{})
	var lines []int
	var errs []error
	for d, err := range ndjson.Messages(context.Background(), broken, ndjson.Options{}) {
		if err != nil {
			assert.Equal(t, ndjson.Decoded{}, d)
			errs = append(errs, err)
			continue
		}
		lines = append(lines, d.Line)
	}
	assert.Equal(t, []int{1}, lines)
	require.Len(t, errs, 1)
	assert.ErrorContains(t, errs[0], "disk on fire")
}

// TestMessagesRefusesAnUnknownSchema: an option naming no schema is the
// one error, before anything is read.
func TestMessagesRefusesAnUnknownSchema(t *testing.T) {
	var errs []error
	for d, err := range ndjson.Messages(context.Background(), strings.NewReader(validEvent+"\n"), ndjson.Options{Schema: "core.driver"}) {
		assert.Equal(t, ndjson.Decoded{}, d)
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.ErrorContains(t, errs[0], "core.driver")
}

// TestBreakingOutOfMessagesStopsReading: a loop that breaks ends the
// iteration at once, even though the stream has no end and its next
// Read blocks, and nothing is yielded after it.
func TestBreakingOutOfMessagesStopsReading(t *testing.T) {
	r, w := io.Pipe()
	defer r.Close()
	go func() {
		// Many lines, then a read that blocks until the test ends.
		_, _ = io.Copy(w, strings.NewReader(strings.Repeat(validAssociation+"\n", 1000)))
	}()
	done := make(chan int)
	go func() {
		seen := 0
		for d, err := range ndjson.Messages(context.Background(), r, ndjson.Options{}) {
			if err != nil || d.Err != nil {
				break
			}
			seen++
			if seen == 3 {
				break
			}
		}
		done <- seen
	}()
	select {
	case seen := <-done:
		assert.Equal(t, 3, seen)
	case <-time.After(time.Minute):
		t.Fatal("the loop did not end after break")
	}
}

// TestMessagesEndsWhenCtxIsDone: ctx's error ends the stream, even while
// r.Read blocks.
func TestMessagesEndsWhenCtxIsDone(t *testing.T) {
	r, w := io.Pipe()
	defer r.Close()
	go func() { _, _ = w.Write([]byte(validAssociation + "\n")) }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []error
	for d, err := range ndjson.Messages(ctx, r, ndjson.Options{}) {
		if err != nil {
			got = append(got, err)
			continue
		}
		assert.Equal(t, 1, d.Line)
		cancel() // the next read blocks for ever
	}
	require.Len(t, got, 1)
	assert.True(t, errors.Is(got[0], context.Canceled), "got %v", got[0])
}

// The messages of a valid line are independent of the buffer the line was
// read into: held past later batches, they still hold what they were
// decoded from.
func TestMessagesOutliveTheirBatch(t *testing.T) {
	var input bytes.Buffer
	const n = 3000 // more than one batch
	for i := range n {
		fmt.Fprintf(&input, `{"message_type":"core.association","message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","source_id":"s%d","tenant_id":"acme","time":"2026-11-23T08:00:00Z","association_id":"5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a","device_id":"9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4"}`+"\n", i)
	}
	var kept []*association.Association
	for d, err := range ndjson.Messages(context.Background(), &input, ndjson.Options{}) {
		require.NoError(t, err)
		require.NoError(t, d.Err)
		kept = append(kept, d.Message.(*association.Association))
	}
	require.Len(t, kept, n)
	for i, a := range kept {
		require.Equal(t, fmt.Sprintf("s%d", i), a.SourceID)
	}
}

// TestEachMessageIsYieldedOnceItsLineIsIn: on a live stream, such as a
// pipe whose writer waits for an answer, a message is yielded as soon as
// its line has arrived, not once a batch of others has followed it.
func TestEachMessageIsYieldedOnceItsLineIsIn(t *testing.T) {
	r, w := io.Pipe()
	next := make(chan struct{})
	go func() {
		defer w.Close()
		for range 3 {
			if _, err := w.Write([]byte(validAssociation + "\n")); err != nil {
				return
			}
			select {
			case <-next: // the line was yielded: write the next
			case <-time.After(time.Minute):
				w.CloseWithError(errors.New("the line written was not yielded"))
				return
			}
		}
	}()
	var lines []int
	for d, err := range ndjson.Messages(context.Background(), r, ndjson.Options{}) {
		require.NoError(t, err)
		lines = append(lines, d.Line)
		next <- struct{}{}
	}
	assert.Equal(t, []int{1, 2, 3}, lines)
}

// FuzzMessagesAgreeWithDecode holds Check, Messages and Decode on each line
// to one verdict on any stream.
func FuzzMessagesAgreeWithDecode(f *testing.F) {
	for _, seed := range []string{
		validAssociation + "\n" + validAssociation[:50],
		validEvent + "\r\n\n \t\r\n" + validAssociation + "\r",
		"{\"message_type\":\"core.device\",\"imei\":\"\xff\"}\n\f\n{",
		`{"message_type":"core.vehicle","meta":{"a":[1,2,{"b":null}]}}` + "\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		opts := ndjson.Options{Workers: 2}
		fromCheck := checkVerdicts(t, input, opts)
		fromMessages, messages := messagesVerdicts(t, input, opts)
		fromDecode, decoded := decodeVerdicts(t, input, opts)
		if !assert.Equal(t, fromCheck, fromMessages, "Check and Messages") ||
			!assert.Equal(t, fromCheck, fromDecode, "Check and Decode on each line") ||
			!assert.Equal(t, decoded, messages) {
			t.FailNow()
		}
	})
}
