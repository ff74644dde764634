package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/internal/gatecmd"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/ndjson"
	"github.com/fleetkit/catalogue/schemas"
)

// progressInterval is how often the progress line is redrawn at most. Tests
// shorten it.
var progressInterval = 250 * time.Millisecond

// isTerminal reports whether w is a terminal: progress is drawn only on one,
// never into a pipe or a file a CI job collects. Tests replace it to force
// either answer.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// defaultMaxLine is check's -max-line when none is given: 64 MiB, sixteen
// times ndjson.DefaultMaxLine, since check only judges its lines
// (ndjson.Check), which keeps nothing of them, where a decoded message
// can take ten times its size: a line costs its own bytes, held once,
// and what judging it allocates stays below them, so that check stays
// under 200 MB whatever its lines hold (bar one shape, which the README
// names).
const defaultMaxLine = 64 << 20

// check judges streams of newline-delimited messages with package ndjson and
// reports the invalid ones (or, with -json, every one) on stdout, in input
// order, and a summary on stderr.
func check(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := newFlagSet("check", "usage: msgcheck check [-schema name[@version]] [-default name] [-json] [-max-line bytes] [file ...]\n\n"+
		"Judge newline-delimited JSON messages, from the files or, when there are\n"+
		"none or a file is -, from standard input. Flags may follow the files.\n"+
		"Each message is judged by the schema its message_type names, at that\n"+
		"schema's latest version (the latest minor of its latest major), unless\n"+
		"-schema names one. Exit status: 0 if every message is valid, 1 if any\n"+
		"is invalid, 2 for a usage or I/O error.\n")
	schema := flags.String("schema", "", "judge every message by the schema `name[@version]`, not by its message_type: by exactly that version's file, or by the latest version (latest minor of the latest major) if none is given")
	def := flags.String("default", "", "judge the messages that have no message_type, such as example.event's, by the schema `name` (at its latest version)")
	asJSON := flags.Bool("json", false, "print one JSON object per message, valid ones included")
	maxLine := flags.Int("max-line", defaultMaxLine, "judge a line longer than `bytes` as an invalid message (rule line_length), without holding it")
	files, code, ok := flags.parse(args, stdout, stderr)
	if !ok {
		return code
	}
	// Checked before any file is opened, so that a typo costs nothing.
	name, version, versioned := strings.Cut(*schema, "@")
	for _, f := range []struct {
		flag, name, version string
		versioned           bool
	}{{"-schema", name, version, versioned}, {"-default", *def, "", false}} {
		if f.name == "" && !f.versioned {
			continue
		}
		if _, err := catalogue.New(f.name, f.version); err != nil || f.versioned && f.version == "" {
			if err == nil {
				err = fmt.Errorf("no version after @ in %q", *schema)
			}
			known := "known schemas: " + strings.Join(catalogue.Types(), ", ")
			if versions, err := schemas.Versions(f.name); err == nil && f.versioned {
				known = "versions of " + f.name + ": " + strings.Join(versions, ", ")
			}
			fmt.Fprintf(stderr, "msgcheck check: %s: %v; %s\n", f.flag, err, known)
			return 2
		}
	}
	if *maxLine <= 0 {
		fmt.Fprintf(stderr, "msgcheck check: -max-line: want a number of bytes above 0, got %d\n", *maxLine)
		return 2
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	// A check keeps little alive (the batches in flight) but makes garbage
	// fast: at the default GOGC the collector runs hundreds of times a
	// second and costs more than a second core gains. Collecting at four
	// times the live heap keeps memory flat, at about 30 MB, and lets the
	// check scale with cores. GOGC, when set, still rules.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	// That headroom must not become gigabytes when the live heap is large,
	// as it is while lines of many megabytes are judged (up to about two
	// line limits, see ndjson.Options.MaxLine): above a soft limit of one
	// line limit and some the collector runs as often as it must.
	// GOMEMLIMIT, when set, still rules.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(*maxLine) + 32<<20)
	}

	c := &checker{
		opts:   ndjson.Options{Schema: name, Version: version, Default: *def, MaxLine: *maxLine},
		json:   *asJSON,
		stderr: stderr,
		start:  time.Now(),
	}
	out := stdout
	if isTerminal(stderr) {
		c.progress = &progress{w: stderr, start: c.start, next: c.start.Add(progressInterval)}
		if isTerminal(stdout) {
			// Both on the screen: wipe the progress line before output
			// lands on it.
			out = clearFirst{stdout, c.progress}
		}
	}
	c.out = bufio.NewWriterSize(out, 64<<10)
	c.enc = json.NewEncoder(c.out)
	c.enc.SetEscapeHTML(false)

	for _, name := range files {
		if !c.file(ctx, name, stdin) {
			break
		}
	}
	if err := c.out.Flush(); err != nil && c.writeErr == nil {
		c.writeErr = err
	}
	if c.writeErr != nil {
		c.fail(fmt.Errorf("writing the report: %w", c.writeErr))
	}
	c.progress.clear()
	fmt.Fprintf(stderr, "msgcheck: %s\n", c.summary(time.Since(c.start)))
	switch {
	case c.failed:
		return 2
	case c.total.Invalid() > 0:
		return 1
	}
	return 0
}

// checker is one run of check over its files.
type checker struct {
	opts     ndjson.Options
	json     bool
	out      *bufio.Writer
	enc      *json.Encoder // onto out, for -json
	stderr   io.Writer
	progress *progress // nil unless stderr is a terminal
	start    time.Time
	total    ndjson.Stats // of the files done
	failed   bool         // an I/O error or an interruption: exit 2
	writeErr error        // writing the report failed: stop
}

// file judges the stream of one file (- for stdin) and reports false if
// the run must stop: the report cannot be written or ctx is done. A file
// that cannot be opened or read is reported, and the run goes on.
func (c *checker) file(ctx context.Context, name string, stdin io.Reader) bool {
	r := stdin
	if name != "-" {
		f, err := open(ctx, name)
		if ctx.Err() != nil {
			if f != nil {
				f.Close()
			}
			c.fail(errors.New("interrupted"))
			return false
		}
		if err != nil {
			c.fail(err)
			return true
		}
		defer f.Close()
		r = f
	}
	counted := &countingReader{r: r}
	c.progress.reading(counted, c.total)
	stats, err := ndjson.Check(ctx, counted, c.opts, func(res ndjson.Result) error {
		return c.report(name, res)
	})
	c.total.Messages += stats.Messages
	c.total.Valid += stats.Valid
	c.total.Bytes += stats.Bytes
	switch {
	case c.writeErr != nil:
		return false
	case ctx.Err() != nil:
		c.fail(errors.New("interrupted"))
		return false
	case err != nil:
		if _, named := errors.AsType[*fs.PathError](err); !named {
			err = fmt.Errorf("reading %s: %w", name, err)
		}
		c.fail(err)
	}
	return true
}

// open opens the file name for reading, or returns ctx's error as soon as
// ctx is done. Opening a FIFO blocks until a writer opens it too, and a
// goroutine blocked in open(2) cannot be woken: it is left to finish on
// its own, and closes what it opened, while check stops at once.
func open(ctx context.Context, name string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(name)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// report writes the verdict on one message: a line for an invalid one, or
// with -json an object for every one.
func (c *checker) report(file string, res ndjson.Result) error {
	var err error
	switch {
	case c.json:
		err = c.enc.Encode(jsonResultOf(file, res))
	case !res.Valid():
		err = c.writeLine(file, res)
	}
	if err != nil {
		c.writeErr = err
		return err
	}
	c.progress.result(res, c.out)
	return nil
}

// writeLine writes "FILE:LINE: SCHEMA: violation; violation; ...", and
// "; ... and N more violations" when some were omitted. The file name and
// each violation are escaped (see msg.Violation.Error), so that the line
// is one line, whatever the input.
func (c *checker) writeLine(file string, res ndjson.Result) error {
	schema := res.Schema
	if schema == "" {
		schema = "?"
	}
	fmt.Fprintf(c.out, "%s:%d: %s: ", msg.Escape(file), res.Line, msg.Escape(schema))
	c.out.WriteString(res.Verdict().Err().Error())
	return c.out.WriteByte('\n')
}

// fail reports an error on stderr, after the output so far, and marks the
// run failed.
func (c *checker) fail(err error) {
	c.failed = true
	if c.writeErr == nil {
		if ferr := c.out.Flush(); ferr != nil {
			c.writeErr = ferr
		}
	}
	c.progress.clear()
	fmt.Fprintf(c.stderr, "msgcheck: %s\n", msg.Escape(err.Error())) // it may name a file
}

// summary is the line printed at the end: counts and throughput.
func (c *checker) summary(elapsed time.Duration) string {
	s := c.total
	secs := max(elapsed.Seconds(), 1e-9)
	return fmt.Sprintf("%s, %d valid, %d invalid, %s in %s (%s/s, %.0f messages/s)",
		gatecmd.Count(s.Messages, "message", "messages"), s.Valid, s.Invalid(), gatecmd.Size(float64(s.Bytes)), seconds(elapsed),
		gatecmd.Size(float64(s.Bytes)/secs), float64(s.Messages)/secs)
}

// seconds formats a duration to a hundredth, in milliseconds if shorter
// than that.
func seconds(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.2fms", d.Seconds()*1e3)
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// jsonResult is the -json form of a verdict: the library's, msg.Verdict,
// after where the message was.
type jsonResult struct {
	File string `json:"file"`
	Line int    `json:"line"`
	msg.Verdict
}

func jsonResultOf(file string, res ndjson.Result) jsonResult {
	return jsonResult{File: file, Line: res.Line, Verdict: res.Verdict()}
}

// countingReader counts the bytes read through it, for the progress line,
// which reads the count from another goroutine than the reader's.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// progress draws a line on a terminal, rewritten in place, while a long run
// goes on. All its methods are called from the goroutine that reports
// results; a nil *progress draws nothing.
type progress struct {
	w     io.Writer
	start time.Time
	next  time.Time // when the line may be drawn next
	shown int       // the width of the line on the screen, 0 if none

	done    ndjson.Stats    // of the files before the current one
	current *countingReader // the current file
	stats   ndjson.Stats    // messages and valid of the current file so far
}

// reading starts the count of a new file.
func (p *progress) reading(r *countingReader, done ndjson.Stats) {
	if p == nil {
		return
	}
	p.done, p.current, p.stats = done, r, ndjson.Stats{}
}

// result counts one verdict and, if it is time, flushes out, so that what
// was found so far is on the screen, and redraws the line.
func (p *progress) result(res ndjson.Result, out *bufio.Writer) {
	if p == nil {
		return
	}
	p.stats.Messages++
	if res.Valid() {
		p.stats.Valid++
	}
	now := time.Now()
	if now.Before(p.next) {
		return
	}
	p.next = now.Add(progressInterval)
	if out.Flush() != nil {
		return // report notices on its next write
	}
	n, valid := p.done.Messages+p.stats.Messages, p.done.Valid+p.stats.Valid
	bytes := float64(p.done.Bytes + p.current.n.Load())
	line := fmt.Sprintf("msgcheck: %s, %d valid, %d invalid, %s (%s/s) ...",
		gatecmd.Count(n, "message", "messages"), valid, n-valid, gatecmd.Size(bytes), gatecmd.Size(bytes/now.Sub(p.start).Seconds()))
	// Pad with spaces over what a longer previous line left.
	fmt.Fprintf(p.w, "\r%-*s", p.shown, line)
	p.shown = max(p.shown, len(line))
}

// clear wipes the line, if drawn, and leaves the cursor at its start.
func (p *progress) clear() {
	if p == nil || p.shown == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%*s\r", p.shown, "")
	p.shown = 0
}

// clearFirst is stdout when stdout and stderr are the same screen: it wipes
// the progress line before writing.
type clearFirst struct {
	w io.Writer
	p *progress
}

func (c clearFirst) Write(b []byte) (int, error) {
	c.p.clear()
	return c.w.Write(b)
}
