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
//
// A consumer that wants the messages themselves ranges over Messages,
// which reads the stream in the same way, and hands out each valid
// message decoded, typed by its schema, and the same verdict on each
// invalid one:
//
//	for d, err := range ndjson.Messages(ctx, os.Stdin, ndjson.Options{}) {
//		if err != nil {
//			return err // reading failed
//		}
//		if d.Err != nil {
//			log.Printf("line %d: %v", d.Line, d.Err)
//			continue
//		}
//		switch m := d.Message.(type) {
//		case *device.Device:
//			// ...
//		}
//	}
//
// A message is what lies between line ends: "\n", or "\r\n", as
// bufio.ScanLines splits lines. Its verdict, byte offsets included, is the
// one catalogue.Decode gives for the line without its line end.
package ndjson

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"slices"
	"strconv"
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
	// MaxLine is the length of the longest line judged, in bytes, line
	// end included; 0 means DefaultMaxLine. A longer line is an invalid
	// message, whose error wraps ErrLineTooLong: it is skipped without
	// being held, so that memory stays bounded even on an endless input
	// without a line end, and the stream goes on. It also bounds the
	// bytes held at once: lines of about MaxLine in all, and a few
	// batches of short ones, whatever the stream.
	MaxLine int
}

// DefaultMaxLine is the line limit when Options.MaxLine is 0: 4 MiB,
// thousands of times what a message of the catalogue needs, and small
// enough that decoding any line below it stays cheap. A decoded message
// can take ten times the bytes of its text (a list of empty strings takes
// a string header of 16 bytes for each 3 bytes of input, a map entry each
// undeclared member), and Messages may decode a few lines at once: with 4
// MiB it stays under 200 MB whatever its lines hold, where 64 MiB lines
// took up to 640 MB. Check, which judges lines without decoding them,
// holds about its lines' own bytes, and can take far longer lines:
// msgcheck check gives it 64 MiB.
const DefaultMaxLine = 4 << 20

// ErrLineTooLong is wrapped by the Err of a line longer than
// Options.MaxLine, an *msg.Error whose one violation, at the document's
// root, has rule msg.RuleLineLength: a limit of the stream, not of the
// schema.
var ErrLineTooLong = errors.New("line too long")

// lineTooLong is the error of a line longer than max bytes.
type lineTooLong struct{ max int }

func (e lineTooLong) Error() string {
	return "line longer than " + strconv.Itoa(e.max) + " bytes"
}

func (lineTooLong) Unwrap() error { return ErrLineTooLong }

// tooLong returns the error of a line longer than max bytes.
func tooLong(max int) error {
	err := lineTooLong{max}
	return &msg.Error{Violations: []*msg.Violation{{Rule: msg.RuleLineLength, Message: err.Error(), Err: err}}}
}

// Result is the verdict on one message.
type Result struct {
	// Line is the message's line number, counting from 1; blank lines,
	// holding nothing but JSON white space (space, tab, "\r"), are
	// counted but not judged.
	Line int
	// Schema is the name of the schema the message was judged by, or ""
	// if none could be chosen (an absent or unknown message_type).
	Schema string
	// Version is the version of Schema the message was judged by.
	Version string
	// Err is nil for a valid message. Otherwise it is an *msg.Error
	// listing the violations (at most msg.MaxViolations, and the count of
	// the rest). One whose schema could not be chosen has one violation,
	// at /message_type, of rule msg.RuleMessageType, and the error wraps
	// catalogue.ErrNoType or catalogue.ErrUnknownType; a line longer than
	// Options.MaxLine one, at the document's root, of rule
	// msg.RuleLineLength, and the error wraps ErrLineTooLong.
	Err error
}

// Valid reports whether the message is valid.
func (r Result) Valid() bool { return r.Err == nil }

// Verdict returns the verdict on the message, as msg.VerdictOf makes it:
// the form msgcheck check -json reports.
func (r Result) Verdict() msg.Verdict {
	v := msg.VerdictOf(nil, r.Err)
	v.Schema, v.Version = r.Schema, r.Version
	return v
}

// Violations returns the violations of an invalid message, the first
// msg.MaxViolations of them (Omitted counts the rest): those of Err.
func (r Result) Violations() []*msg.Violation { return r.Verdict().Violations }

// Omitted returns the number of violations found beyond those Violations
// lists (see msg.MaxViolations).
func (r Result) Omitted() int { return r.Verdict().Omitted }

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

// A batchLine is one line of a batch.
type batchLine struct {
	text    []byte // a sub-slice of the batch's buf; nil for a blank line
	tooLong bool   // longer than the limit, and not kept
}

// A batch is a run of consecutive lines, judged by one worker.
type batch struct {
	first   int // line number of lines[0]
	lines   []batchLine
	buf     []byte
	results []Result
	// messages[i] is the message of results[i] when it is valid, kept
	// only for Messages.
	messages []catalogue.Message
	cost     int64 // of the in-flight budget, taken when it was sent
	done     chan struct{}
}

// Check reads r to its end, judges every non-blank line, and calls emit
// with each result, in input order, from a single goroutine. A line is
// judged without being decoded (catalogue.Check), with the verdict
// decoding gives it: Check holds the lines' own bytes and little more,
// whatever they hold, so that Options.MaxLine may be far above what
// Messages, which decodes, can afford. Lines are
// judged a batch at a time, and a batch is sent as soon as the input has
// nothing more for now, so that on a live stream, such as a pipe, each
// result comes once its line is in. It stops at
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
	return check(ctx, r, opts, false, func(res Result, _ catalogue.Message) error { return emit(res) })
}

// check is Check, handing emit the message of each valid line too if keep
// is true, and nil for it otherwise.
func check(ctx context.Context, r io.Reader, opts Options, keep bool, emit func(Result, catalogue.Message) error) (Stats, error) {
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
	if opts.MaxLine <= 0 {
		opts.MaxLine = DefaultMaxLine
	}
	maxLine := opts.MaxLine
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The bytes read and not yet emitted, in the batch being read and
	// those in flight, are bounded as well as the batches, so that a
	// stream of long lines takes no more memory than one of short ones:
	// room for one batch with a line of the limit, or a few batches for
	// each worker, whichever is more. The reader takes its share as it
	// reads, so it waits, rather than reads ahead a second long line,
	// while one is judged.
	inFlight := newBudget(ctx, max(int64(maxLine)+batchBytes+readChunk, int64(3*workers*batchBytes)))
	big := newBigLines(ctx)

	work := make(chan *batch, workers)
	order := make(chan *batch, 2*workers) // bounds the batches in flight
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				judge(b, opts, keep)
				close(b.done)
			}
		}()
	}

	var stats Stats
	readErr := make(chan error, 1)
	go func() {
		defer close(order)
		defer close(work)
		readErr <- read(ctx, r, maxLine, inFlight, big, &stats.Bytes, func(b *batch) bool {
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
			for i, res := range b.results {
				stats.Messages++
				if res.Valid() {
					stats.Valid++
				}
				var m catalogue.Message
				if keep {
					m = b.messages[i]
				}
				if err = emit(res, m); err != nil {
					cancel()
					break
				}
			}
		}
		inFlight.release(b.cost)
		b.cost = 0
		recycle(b, big)
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
// reports false to stop. A line longer than maxLine bytes is not kept but
// marked, in its batch, as too long.
func read(ctx context.Context, r io.Reader, maxLine int, inFlight *budget, big *bigLines, n *int64, send func(*batch) bool) error {
	cr := newCancelReader(ctx, r, readChunk)
	br := bufio.NewReaderSize(cr, readChunk)
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
		var read int64
		b.buf, read, err = big.readLine(br, b.buf, maxLine, inFlight, &b.cost)
		*n += read
		switch {
		case err == nil, err == io.EOF && read > 0:
			line++
			l := batchLine{text: trimLineEnd(b.buf[start:]), tooLong: read > int64(maxLine)}
			if blank(l.text) {
				l.text = nil
			}
			b.lines = append(b.lines, l)
			// A batch is also sent when the input has nothing more for
			// now, so that on a live stream (a pipe, a socket) each
			// message is judged, and handed out, once its line is in,
			// not when enough others have followed it. A file is read
			// ahead, and fills batches.
			if len(b.lines) >= batchLines || len(b.buf) >= batchBytes || br.Buffered() == 0 && !cr.ready() {
				if !flush() {
					return ctx.Err()
				}
			}
		default:
			// Cut off by an error, not ended: the rest of the line is
			// unknown, so judging the fragment would report a message
			// that was never sent.
			inFlight.release(int64(len(b.buf) - start))
			b.cost -= int64(len(b.buf) - start)
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

// trimLineEnd returns line without its line end, "\n" or "\r\n", and
// without a "\r" that ends the last line, as bufio.ScanLines splits lines:
// a message is what lies between line ends, so that a line cut short is
// reported where its text ends, at the byte offset catalogue.Decode gives
// for the line a line reader returns, and not at its line end.
func trimLineEnd(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// blank reports whether line holds nothing but JSON white space: space,
// tab, carriage return, line feed. Other white space, such as a form
// feed or a no-break space, is not JSON, and makes an invalid message
// rather than a line skipped unseen.
func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// readChunk is the size of the reads from the input.
const readChunk = 64 << 10

// readLine appends the next line of br to buf, line end included, and
// returns the number of bytes it read. It takes what it appends from
// inFlight, adding it to *cost. A line longer than max bytes is read to
// its end, or to the end of br, but not appended: the bytes read say that
// it was too long.
//
// Once a line is longer than bigLine, buf is grown, once, to hold a line
// of max bytes, in the buffer of an earlier big line if one is free:
// appending as it comes would grow buf step by step, leaving a trail of
// copies that, for a line of tens of megabytes, takes three times its
// size before the collector catches up, and gathering it in pieces to
// copy it whole would take twice its size. The room beyond what a line
// fills costs address space, not memory: the pages of a fresh allocation
// are not touched until written.
func (big *bigLines) readLine(br *bufio.Reader, buf []byte, max int, inFlight *budget, cost *int64) ([]byte, int64, error) {
	start := len(buf)
	var read int64
	for {
		chunk, err := br.ReadSlice('\n')
		kept := read
		read += int64(len(chunk))
		switch {
		case read <= int64(max):
			if kept+int64(len(chunk)) > bigLine && kept <= bigLine {
				buf = big.grow(buf, start+max)
			}
			*cost += inFlight.acquire(int64(len(chunk)))
			buf = append(buf, chunk...)
		case len(buf) > start:
			// Too long: what was kept is dropped, and the rest
			// skipped in the memory of one chunk.
			dropped := int64(len(buf) - start)
			inFlight.release(dropped)
			*cost -= dropped
			buf = buf[:start]
		}
		if err != bufio.ErrBufferFull {
			return buf, read, err
		}
	}
}

// bigLine is the length beyond which readLine makes room for a line of
// the longest length allowed.
const bigLine = 1 << 20

// bigLines holds the buffer of a batch that held a line longer than
// bigLine, handed back once the batch is emitted, for the reader to read
// the next such line into: a stream of them makes no garbage of their
// size, and holds one line limit for them, as the reader waits for the
// buffer rather than make a second while the first is still in use.
type bigLines struct {
	ctx   context.Context
	bufs  chan []byte // a spare buffer, from the collector to the reader
	taken bool        // a buffer recycle hands back is made, for the reader to wait for
}

func newBigLines(ctx context.Context) *bigLines {
	return &bigLines{ctx: ctx, bufs: make(chan []byte, 1)}
}

// grow returns buf with room for n bytes in all, in the spare buffer if
// one is free and large enough. Once it has made a buffer that recycle
// hands back, it waits for that buffer rather than make another, unless
// ctx is done.
func (big *bigLines) grow(buf []byte, n int) []byte {
	if cap(buf) >= n {
		return buf
	}
	var spare []byte
	select {
	case spare = <-big.bufs:
	default:
		// Waiting is for a buffer of a batch sent before, which the
		// collector hands back; not for buf, the batch's own, which may
		// be big after a line too long to keep.
		if big.taken && cap(buf) <= handBackOver {
			select {
			case spare = <-big.bufs:
			case <-big.ctx.Done():
			}
		}
	}
	if cap(spare) >= n {
		return append(spare[:0], buf...)
	}
	grown := slices.Grow(buf, n-len(buf))
	big.taken = big.taken || cap(grown) > handBackOver
	return grown
}

// handBackOver is the capacity above which recycle hands a batch's
// buffer back to the reader, rather than keep it with the batch.
const handBackOver = 4 * batchBytes

// handBack offers buf, which no one uses any more, to the reader.
func (big *bigLines) handBack(buf []byte) {
	select {
	case big.bufs <- buf[:0]:
	default: // one is spare already
	}
}

// A budget bounds a quantity, such as the bytes in flight, shared by
// goroutines: acquire waits until there is enough left, or ctx is done.
type budget struct {
	ctx  context.Context
	mu   sync.Mutex
	cond *sync.Cond
	free int64
	max  int64
}

func newBudget(ctx context.Context, max int64) *budget {
	b := &budget{ctx: ctx, free: max, max: max}
	b.cond = sync.NewCond(&b.mu)
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.cond.Broadcast()
	})
	return b
}

// acquire takes n, or the whole budget if n is more, waiting until it is
// free or ctx is done, and returns what it took, for release.
func (b *budget) acquire(n int64) int64 {
	n = min(n, b.max)
	if n == 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.free < n && b.ctx.Err() == nil {
		b.cond.Wait()
	}
	b.free -= n
	return n
}

// release gives back what acquire took.
func (b *budget) release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free += n
	b.cond.Broadcast()
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

// ready reports whether Read would return at once: what it has not
// handed out yet, or a chunk already read, is there.
func (c *cancelReader) ready() bool {
	if len(c.rest) > 0 || c.err != nil {
		return true
	}
	if c.buf != nil {
		c.free <- c.buf // never blocks, as in Read
		c.buf = nil
	}
	select {
	case ch := <-c.chunks:
		c.buf, c.rest, c.err = ch.buf, ch.buf, ch.err
		return true
	default:
		return false
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

func recycle(b *batch, big *bigLines) {
	if cap(b.buf) > handBackOver {
		// A batch that held a huge line: its buffer is offered for the
		// next, and the batch keeps none.
		big.handBack(b.buf)
		b.buf = nil
	}
	clear(b.lines)
	clear(b.results)
	clear(b.messages)
	b.lines, b.buf, b.results, b.messages = b.lines[:0], b.buf[:0], b.results[:0], b.messages[:0]
	batches.Put(b)
}

// judge decides every line of a batch, keeping the message of each valid
// one if keep is true; otherwise the lines are judged without being
// decoded (catalogue.Check). The lines share the batch's buffer, which is
// kept only until the batch is emitted; a decoded message holds a copy of
// what it keeps, and so outlives it.
func judge(b *batch, opts Options, keep bool) {
	b.results = b.results[:0]
	b.messages = b.messages[:0]
	for i, l := range b.lines {
		res := Result{Line: b.first + i}
		text := l.text
		switch {
		case l.tooLong:
			res.Schema, res.Version, res.Err = opts.Schema, opts.Version, tooLong(opts.MaxLine) // "" unless Options.Schema chose it
			b.results = append(b.results, res)
			if keep {
				b.messages = append(b.messages, nil)
			}
			continue
		case text == nil:
			continue
		}
		if !keep {
			// Only the verdict is wanted: the line is judged without
			// being decoded, which keeps nothing of it.
			var k *msg.Kind
			if opts.Schema != "" {
				k, res.Err = catalogue.CheckAs(opts.Schema, opts.Version, text)
			} else {
				k, res.Err = catalogue.CheckOr(text, opts.Default)
			}
			if k != nil {
				res.Schema, res.Version = k.Name, k.Version
			}
			b.results = append(b.results, res)
			continue
		}
		var m catalogue.Message
		if opts.Schema != "" {
			m, res.Err = catalogue.DecodeAs(opts.Schema, opts.Version, text)
		} else {
			m, res.Err = catalogue.DecodeOr(text, opts.Default)
		}
		if m != nil {
			res.Schema, res.Version = m.SchemaName(), m.SchemaVersion()
		}
		b.results = append(b.results, res)
		if res.Err != nil {
			m = nil // only a valid message is handed out, as Parse does
		}
		b.messages = append(b.messages, m)
	}
}
