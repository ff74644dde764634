// Package gatecmd is what the gate commands of every binding (nats/cmd/gate,
// kafka/cmd/gate) print the same way: the running totals drawn on a
// terminal while a gate works, and the summary of its counts once it
// stopped:
//
//	st, err := gatecmd.Run(os.Stderr, out, dead, &g.Progress, func() (gate.Stats, error) {
//		return g.Run(ctx)
//	})
//
// Its Size, how every command of the module writes a number of bytes, is
// msgcheck check's too.
package gatecmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/msg"
)

// Run runs a gate (run), drawing its running totals on w while it works
// if w is a terminal (it sets *progress, the gate's Progress function,
// for that), and then writes its summary on w, "gate: " and Summary, on
// a line of its own; unless it refused to start (gate.ErrRefused), which
// leaves nothing to sum up. It returns what run returns.
func Run(w io.Writer, output, deadLetters string, progress *func(gate.Stats), run func() (gate.Stats, error)) (gate.Stats, error) {
	start := time.Now()
	p := newProgress(w, output, deadLetters)
	if p != nil {
		*progress = p.update
	}
	st, err := run()
	p.clear()
	if !errors.Is(err, gate.ErrRefused) {
		fmt.Fprintf(w, "gate: %s\n", Summary(st, output, deadLetters, time.Since(start)))
	}
	return st, err
}

// Summary sums up what a gate did in elapsed, on one line: its messages
// (forwarded plus dead letters), where each went, its redeliveries and
// retries, and the bytes and messages a second. The names of the output
// and the dead letters are escaped (msg.Escape): no name can start a line
// of its own.
func Summary(s gate.Stats, output, deadLetters string, elapsed time.Duration) string {
	secs := max(elapsed.Seconds(), 1e-9)
	return fmt.Sprintf("%s, %d forwarded to %s, %s to %s; %s, %s; %s in %s (%s/s, %.0f messages/s)",
		Count(s.Messages, "message", "messages"), s.Forwarded, msg.Escape(output),
		Count(s.DeadLetters, "dead letter", "dead letters"), msg.Escape(deadLetters),
		Count(s.Redeliveries, "redelivery", "redeliveries"), Count(s.Retries, "retry", "retries"),
		Size(float64(s.Bytes)), elapsed.Round(time.Millisecond), Size(float64(s.Bytes)/secs), float64(s.Messages)/secs)
}

// Count returns n followed by one, if n is 1, or by many: "1 message",
// "2 messages", "0 messages".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Size writes a number of bytes in B, kB, MB or GB.
func Size(b float64) string {
	switch {
	case b < 1e3:
		return fmt.Sprintf("%.0f B", b)
	case b < 1e6:
		return fmt.Sprintf("%.1f kB", b/1e3)
	case b < 1e9:
		return fmt.Sprintf("%.1f MB", b/1e6)
	}
	return fmt.Sprintf("%.1f GB", b/1e9)
}

// A progress draws a gate's running totals, "gate: " and their Summary,
// on one line of a terminal that it redraws at most once a second.
type progress struct {
	w                   io.Writer
	output, deadLetters string
	start, next         time.Time
	shown               int // the longest line drawn
}

// newProgress returns a progress that draws on w, from now; nil if w is
// not a terminal, where nothing is drawn.
func newProgress(w io.Writer, output, deadLetters string) *progress {
	if !isTerminal(w) {
		return nil
	}
	now := time.Now()
	return &progress{w: w, output: output, deadLetters: deadLetters, start: now, next: now.Add(time.Second)}
}

// update draws s, unless it drew less than a second ago. It is the
// Progress function of a gate.
func (p *progress) update(s gate.Stats) {
	if now := time.Now(); now.After(p.next) {
		p.next = now.Add(time.Second)
		line := "gate: " + Summary(s, p.output, p.deadLetters, now.Sub(p.start)) + " ..."
		fmt.Fprintf(p.w, "\r%-*s", p.shown, line)
		p.shown = max(p.shown, len(line))
	}
}

// clear clears the line drawn, if any, for the summary to take its place.
// A nil progress does nothing.
func (p *progress) clear() {
	if p != nil && p.shown > 0 {
		fmt.Fprintf(p.w, "\r%*s\r", p.shown, "")
		p.shown = 0
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
