package ndjson

import (
	"context"
	"errors"
	"io"
	"iter"

	"github.com/fleetkit/catalogue"
)

// A Decoded is one message of a stream as Messages hands it out: the
// verdict on it, exactly as Check gives it, and the message itself when it
// is valid.
type Decoded struct {
	Result
	// Message is the decoded message, of the type its schema's package
	// declares (*device.Device, ...), when it is valid; nil when Err is
	// not, as Parse returns no message with an error.
	Message catalogue.Message
}

// Messages returns an iterator over the messages of the newline-delimited
// stream r, decoded, for a consumer that wants typed messages rather than
// verdicts:
//
//	for d, err := range ndjson.Messages(ctx, r, ndjson.Options{}) {
//		if err != nil {
//			return err // reading r failed, or ctx is done: the stream ends
//		}
//		if d.Err != nil {
//			log.Printf("line %d: %v", d.Line, d.Err) // an invalid message: the stream goes on
//			continue
//		}
//		switch m := d.Message.(type) {
//		case *device.Device:
//			// ...
//		}
//	}
//
// It reads and judges the stream as Check does, the line limit
// (Options.MaxLine, by default DefaultMaxLine) and every option included,
// so that each message gets the verdict msgcheck check gives it: the same
// error, its text and byte offsets included. Unlike a bufio.Scanner, it
// takes lines of any length up to the limit, and skips a longer one as an
// invalid message, in bounded memory. Blank lines are counted but not
// yielded. Lines are decoded on every core (Options.Workers) a few
// hundred at a time, ahead of the loop, and yielded in input order from
// the goroutine that ranges over the iterator. The messages of the lines
// read ahead, a few batches for each worker, are held until they are
// yielded, besides the bytes Check holds: a decoded message can take
// several times the bytes of its line (see Options.MaxLine).
//
// The error is non-nil at most once, last, with a zero Decoded: the error
// reading r, ctx's error, or an error for an unknown Options.Schema,
// Options.Version or Options.Default, before any line is read. A
// last line without a line end is yielded only at the end of r; one cut
// off by a read error is not. Breaking out of the loop stops reading
// soon, even while a call to r.Read blocks, as Check does when emit
// fails; what was read ahead is dropped, so that the iterator is for
// ranging over once. On a live stream, such as a pipe, each message is
// yielded as soon as its line is in.
func Messages(ctx context.Context, r io.Reader, opts Options) iter.Seq2[Decoded, error] {
	return func(yield func(Decoded, error) bool) {
		_, err := check(ctx, r, opts, true, func(res Result, m catalogue.Message) error {
			if !yield(Decoded{Result: res, Message: m}, nil) {
				return errStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) {
			yield(Decoded{}, err)
		}
	}
}

// errStopped ends a check when the loop over Messages stops early.
var errStopped = errors.New("stopped")
