package gate

import "fmt"

// MinLimit is the smallest limit on a message's size that a gate starts
// with: a broker that stores less is refused at start (ErrRefused), as
// no dead letter could be sure of holding its verdict and some of the
// body. Above it, FitDeadLetter always fits a dead letter whose
// binding's own overhead (its id, its header names) takes a few hundred
// bytes.
const MinLimit = 4 << 10

// A DeadLetterSize is what a binding measures of a dead letter, in its
// broker's encoding, for FitDeadLetter: every size an upper bound of
// what the broker counts against its limit.
type DeadLetterSize struct {
	// Limit is the most bytes the broker stores in one message, its
	// headers included.
	Limit int
	// Overhead is the size of the dead letter with none of the
	// original's headers, an empty verdict and no body: the binding's
	// own headers (its deduplication id), the name of its verdict
	// header, and the framing of a message.
	Overhead int
	// Headers is what the original's headers add to Overhead when the
	// dead letter keeps them (on Kafka, the original's key too).
	Headers int
}

// A DeadLetter is a dead letter's content, cut to fit its broker's
// limit by FitDeadLetter.
type DeadLetter struct {
	// Verdict is the verdict's JSON, for the binding's verdict header.
	Verdict []byte
	// Body is the original's body, whole or its start.
	Body []byte
	// KeepHeaders says whether the dead letter carries the original's
	// headers; if not, the verdict says so (HeadersDropped).
	KeepHeaders bool
}

// FitDeadLetter fits the dead letter of a message, with verdict v and the
// message's body, in size.Limit bytes, by the one rule every binding
// follows, so that one input gives one dead letter on every broker:
//
//   - If the original's headers, the verdict with every violation it
//     lists (as Verdict.Encode lists them, within msg.MaxVerdictBytes)
//     and the whole body fit, the dead letter holds them all.
//   - Else the original's headers are kept if they take at most half of
//     the room the binding's overhead leaves, and dropped if not
//     (HeadersDropped): headers that large, which only a producer makes,
//     would crowd out what the dead letter is about. The original is
//     still in its input, at the verdict's Place.
//   - The verdict and the body share the rest: the whole body if it fits
//     beside the verdict; else the start of it, as much as fits, marked
//     Truncated with the whole body's BodySize, the verdict's violations
//     cut if need be (counted in Omitted) to leave the body at least
//     half. The verdict is never given up for the body: at the least it
//     lists no violation, and holds no body.
//
// It returns an error wrapping ErrTooLarge if not even the verdict with
// no violation listed, the original's headers dropped, fits: a limit
// below MinLimit, which a gate refuses at start, or an overhead of
// nearly the whole limit. A gate leaves such a message to come again.
func FitDeadLetter(v Verdict, body []byte, size DeadLetterSize) (DeadLetter, error) {
	room := size.Limit - size.Overhead
	if size.Headers > room/2 {
		// Kept only if all fits with them: then with this verdict. A
		// body that leaves no room for one beside them never does.
		if size.Headers+len(body) < room {
			if j, err := v.Encode(room); err == nil && size.Headers+len(j)+len(body) <= room {
				return DeadLetter{Verdict: j, Body: body, KeepHeaders: true}, nil
			}
		}
	} else if j, cut, err := fit(v, body, room-size.Headers); err == nil {
		return DeadLetter{Verdict: j, Body: cut, KeepHeaders: true}, nil
	}
	v.HeadersDropped = true
	j, cut, err := fit(v, body, room)
	if err != nil {
		return DeadLetter{}, fmt.Errorf("a dead letter within %d bytes, %d of them the broker's: %w", size.Limit, size.Overhead, err)
	}
	return DeadLetter{Verdict: j, Body: cut}, nil
}

// fit returns the verdict's JSON and the body of a dead letter with room
// bytes for the two together. The verdict has at least half the room, if
// it needs it, and all the room the whole body leaves: the body is whole
// if it fits beside the verdict listing as many violations as fit in the
// more of the two. Else the body is cut to what is left beside the
// verdict listing as many as fit in half the room, marked Truncated. It
// returns an error wrapping ErrTooLarge if not even a verdict with no
// violation listed fits.
func fit(v Verdict, body []byte, room int) (verdict, cut []byte, err error) {
	// A body that takes the whole room is cut whatever the verdict: it
	// is encoded once, flagged.
	if len(body) < room {
		j, err := v.Encode(max(room-len(body), room/2))
		if err == nil && len(j)+len(body) <= room {
			return j, body, nil
		}
	}
	v.Truncated, v.BodySize = true, len(body)
	j, err := v.Encode(room / 2)
	if err != nil {
		if j, err = v.Encode(room); err != nil {
			return nil, nil, err
		}
	}
	if n := room - len(j); n < len(body) {
		return j, body[:max(0, n)], nil
	}
	// The flags made the verdict list fewer violations, and shorter: the
	// whole body fits beside it after all, which then lists at least as
	// many.
	v.Truncated, v.BodySize = false, 0
	j, err = v.Encode(room - len(body))
	return j, body, err
}
