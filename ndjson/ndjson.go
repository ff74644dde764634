// Package ndjson judges streams of newline-delimited JSON messages, one
// message a line, by exactly the rules of the typed message packages. It
// is what msgcheck check runs, as a library: lines are judged on every
// core, results come back in input order, and memory stays bounded
// however long the stream.
//
//	stats, err := ndjson.Check(ctx, os.Stdin, ndjson.Options{}, func(r ndjson.Result) error {
//		if !r.Valid() {
//			fmt.Printf("%d: %v\n", r.Line, r.Err)
//		}
//		return nil
//	})
package ndjson

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/msg"
)

// Options says how to judge a stream.
type Options struct {
	// Schema is the name of the schema every message is judged by, at
	// Version. If empty, each message is judged by the schema its
	// message_type names, at that schema's latest version.
	Schema string
	// Version is the version of Schema every message is judged by, with
	// exactly that version's schema file (decision 13). If empty, it is
	// the latest version: the latest minor of the latest major.
	Version string
	// Default is the name of the schema, at its latest version, of the
	// messages without a message_type member, such as example.event's,
	// when Schema is empty; if Default is empty too, such a message is
	// invalid, its error wrapping catalogue.ErrNoType.
	Default string
	// Workers is how many messages are judged at once; 0 means one per
	// CPU (GOMAXPROCS).
	Workers int
}

// Result is the verdict on one message.
type Result struct {
	// Line is the message's line number, counting from 1; blank lines are
	// counted but not judged.
	Line int
	// Schema is the name of the schema the message was judged by, or ""
	// if none could be chosen (an absent or unknown message_type).
	Schema string
	// Err is nil for a valid message. Otherwise it is an *msg.Error
	// listing the violations, or an error wrapping catalogue.ErrNoType or
	// catalogue.ErrUnknownType.
	Err error
}

// Valid reports whether the message is valid.
func (r Result) Valid() bool { return r.Err == nil }

// Violations returns the violations of an invalid message. A message
// whose schema could not be chosen has a single violation at the
// document's root, with rule "message_type".
func (r Result) Violations() []*msg.Violation {
	var e *msg.Error
	switch {
	case r.Err == nil:
		return nil
	case errors.As(r.Err, &e):
		return e.Violations
	}
	return []*msg.Violation{{Path: "/message_type", Rule: RuleMessageType, Message: r.Err.Error()}}
}

// RuleMessageType is the rule of the violation of a message whose schema
// cannot be chosen: its message_type is absent or names no schema of the
// catalogue.
const RuleMessageType msg.Rule = "message_type"

// Stats counts what a stream held.
type Stats struct {
	Messages int   // lines judged (blank lines are not messages)
	Valid    int   // messages found valid
	Bytes    int64 // bytes read, line ends included
}

// Invalid returns the number of invalid messages.
func (s Stats) Invalid() int { return s.Messages - s.Valid }

// batchLines and batchBytes bound a batch: large enough that handing work
// between goroutines costs little, small enough to keep memory flat.
const (
	batchLines = 256
	batchBytes = 1 << 20
)

// A batch is a run of consecutive lines, judged by one worker.
type batch struct {
	first   int      // line number of lines[0]
	lines   [][]byte // sub-slices of buf; nil for a blank line
	buf     []byte
	results []Result
	done    chan struct{}
}

// Check reads r to its end, judges every non-blank line, and calls emit
// with each result, in input order, from a single goroutine. It stops at
// the first error from reading or from emit, or when ctx is done, and
// returns it; a line that is not JSON, or not a valid message, is not an
// error but a result. A last line without a line end is judged only at
// the end of r: one cut off by a read error is not. An unknown
// Options.Schema, Options.Version or Options.Default is an error, before
// any line is read.
//
// When ctx is done, or emit fails, Check returns soon even if a call to
// r.Read blocks, as it does on a quiet pipe or terminal: that call is left
// to finish on a goroutine of its own, which then drops what it read and
// reads no more. The caller owns r, and may close it to end such a call.
func Check(ctx context.Context, r io.Reader, opts Options, emit func(Result) error) (Stats, error) {
	if opts.Schema != "" || opts.Version != "" {
		if _, err := catalogue.New(opts.Schema, opts.Version); err != nil {
			return Stats{}, err
		}
	}
	if opts.Default != "" {
		if _, err := catalogue.New(opts.Default, ""); err != nil {
			return Stats{}, err
		}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	work := make(chan *batch, workers)
	order := make(chan *batch, 2*workers) // bounds the batches in flight
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				judge(b, opts)
				close(b.done)
			}
		}()
	}

	var stats Stats
	readErr := make(chan error, 1)
	go func() {
		defer close(order)
		defer close(work)
		readErr <- read(ctx, r, &stats.Bytes, func(b *batch) bool {
			select {
			case order <- b:
			case <-ctx.Done():
				return false
			}
			select {
			case work <- b:
				return true
			case <-ctx.Done():
				close(b.done) // unjudged: the collector is only draining now
				return false
			}
		})
	}()

	var err error
	for b := range order {
		<-b.done
		if err == nil { // else drain, so the reader and workers can finish
			for _, res := range b.results {
				stats.Messages++
				if res.Valid() {
					stats.Valid++
				}
				if err = emit(res); err != nil {
					cancel()
					break
				}
			}
		}
		recycle(b)
	}
	wg.Wait()
	if rerr := <-readErr; err == nil {
		err = rerr
	}
	if err == nil {
		err = ctx.Err()
	}
	return stats, err
}

// read splits r into batches of lines and hands each to send, which
// reports false to stop. Lines may be of any length.
func read(ctx context.Context, r io.Reader, n *int64, send func(*batch) bool) error {
	br := bufio.NewReaderSize(newCancelReader(ctx, r, 64<<10), 64<<10)
	line := 0
	b := newBatch(1)
	flush := func() bool {
		if len(b.lines) == 0 {
			return true
		}
		ok := send(b)
		b = newBatch(line + 1)
		return ok
	}
	for {
		start := len(b.buf)
		var err error
		b.buf, err = readLine(br, b.buf)
		*n += int64(len(b.buf) - start)
		switch {
		case err == nil, err == io.EOF && len(b.buf) > start:
			line++
			text := b.buf[start:]
			if len(bytes.TrimSpace(text)) == 0 {
				text = nil
			}
			b.lines = append(b.lines, text)
			if len(b.lines) >= batchLines || len(b.buf) >= batchBytes {
				if !flush() {
					return ctx.Err()
				}
			}
		default:
			// Cut off by an error, not ended: the rest of the line is
			// unknown, so judging the fragment would report a message
			// that was never sent.
			b.buf = b.buf[:start]
		}
		if err == io.EOF {
			flush()
			return nil
		}
		if err != nil {
			flush()
			return err
		}
	}
}

// readLine appends the next line of br to buf, line end included.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

// A cancelReader reads r on a goroutine of its own, so that its Read
// returns ctx's error once ctx is done even while r.Read blocks. Two
// buffers take turns: the goroutine fills one while Read hands out the
// other, and each is passed over a channel, so that a call to r.Read that
// outlives the reader writes only into a buffer no one else holds.
type cancelReader struct {
	ctx    context.Context
	chunks chan chunk  // filled buffers, in order
	free   chan []byte // buffers handed back to be filled again
	buf    []byte      // the buffer Read is handing out, nil if none
	rest   []byte      // what is left of buf to hand out
	err    error       // to return once rest is empty
}

// A chunk is what one call to r.Read returned.
type chunk struct {
	buf []byte
	err error
}

func newCancelReader(ctx context.Context, r io.Reader, size int) *cancelReader {
	c := &cancelReader{ctx: ctx, chunks: make(chan chunk), free: make(chan []byte, 2)}
	c.free <- make([]byte, size)
	c.free <- make([]byte, size)
	go c.fill(r)
	return c
}

// fill reads r until an error or until ctx is done.
func (c *cancelReader) fill(r io.Reader) {
	done := c.ctx.Done()
	for {
		var buf []byte
		select {
		case buf = <-c.free:
		case <-done:
			return
		}
		n, err := r.Read(buf[:cap(buf)])
		select {
		case c.chunks <- chunk{buf[:n], err}:
		case <-done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (c *cancelReader) Read(p []byte) (int, error) {
	if len(c.rest) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		if c.buf != nil {
			c.free <- c.buf // never blocks: it has room for both buffers
			c.buf = nil
		}
		select {
		case ch := <-c.chunks:
			c.buf, c.rest, c.err = ch.buf, ch.buf, ch.err
		case <-c.ctx.Done():
			c.err = c.ctx.Err()
			return 0, c.err
		}
	}
	n := copy(p, c.rest)
	c.rest = c.rest[n:]
	if len(c.rest) == 0 {
		return n, c.err
	}
	return n, nil
}

// batches recycles batches once emitted, so that a long stream reuses a
// few buffers rather than allocating each anew.
var batches = sync.Pool{New: func() any { return new(batch) }}

func newBatch(first int) *batch {
	b := batches.Get().(*batch)
	b.first = first
	b.done = make(chan struct{})
	return b
}

func recycle(b *batch) {
	if cap(b.buf) > 4*batchBytes {
		return // a batch that held a huge line: let it go
	}
	clear(b.lines)
	clear(b.results)
	b.lines, b.buf, b.results = b.lines[:0], b.buf[:0], b.results[:0]
	batches.Put(b)
}

// judge decides every line of a batch. The lines share the batch's
// buffer, which is kept only until the batch is emitted.
func judge(b *batch, opts Options) {
	b.results = b.results[:0]
	for i, text := range b.lines {
		if text == nil {
			continue
		}
		res := Result{Line: b.first + i}
		var m catalogue.Message
		if opts.Schema != "" {
			m, res.Err = catalogue.DecodeAs(opts.Schema, opts.Version, text)
		} else {
			m, res.Err = catalogue.DecodeOr(text, opts.Default)
		}
		if m != nil {
			res.Schema = m.SchemaName()
		}
		b.results = append(b.results, res)
	}
}
