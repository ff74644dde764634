package gate_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/msg"
)

// fitted returns the dead letter FitDeadLetter makes of v and body within
// size, with its verdict read back, checking what holds of every dead
// letter: it keeps within the limit, its body is the start of the
// original's, cut only if it says so, and its verdict lists or counts
// every violation and says whether the headers were dropped.
func fitted(t *testing.T, v gate.Verdict, body []byte, size gate.DeadLetterSize) (gate.DeadLetter, gate.Verdict) {
	t.Helper()
	d, err := gate.FitDeadLetter(v, body, size)
	require.NoError(t, err)
	total := size.Overhead + len(d.Verdict) + len(d.Body)
	if d.KeepHeaders {
		total += size.Headers
	}
	assert.LessOrEqual(t, total, size.Limit, "%+v", size)
	assert.True(t, bytes.HasPrefix(body, d.Body), "the start of the body")
	got, err := gate.ParseVerdict(d.Verdict)
	require.NoError(t, err)
	assert.Equal(t, !d.KeepHeaders, got.HeadersDropped)
	assert.Equal(t, len(d.Body) < len(body), got.Truncated)
	if got.Truncated {
		assert.Equal(t, len(body), got.BodySize)
	} else {
		assert.Zero(t, got.BodySize)
	}
	assert.Equal(t, len(v.Violations), len(got.Violations)+got.Omitted, "every violation listed or counted")
	assert.Equal(t, v.Stream, got.Stream, "where it was")
	assert.Equal(t, v.Sequence, got.Sequence, "where it was")
	return d, got
}

func TestFitDeadLetterKeepsAllThatFits(t *testing.T) {
	body := []byte(`{"a":1}`)
	d, v := fitted(t, verdict(2), body, gate.DeadLetterSize{Limit: 1000, Overhead: 100, Headers: 400})
	assert.True(t, d.KeepHeaders)
	assert.Equal(t, body, d.Body)
	assert.False(t, v.Truncated)
	assert.Len(t, v.Violations, 2)
}

// Headers of more than half the room are kept all the same when the
// whole dead letter fits with them: nothing is dropped that need not be.
func TestFitDeadLetterKeepsLargeHeadersWhenAllFits(t *testing.T) {
	body := []byte(`{"a":1}`)
	d, v := fitted(t, verdict(1), body, gate.DeadLetterSize{Limit: 1000, Overhead: 100, Headers: 600})
	assert.True(t, d.KeepHeaders)
	assert.Equal(t, body, d.Body)
	assert.Len(t, v.Violations, 1)
}

// The original's headers are kept when they take at most half the room
// the binding's overhead leaves, the verdict and body sharing the rest;
// past half, they are dropped, and the verdict says so.
func TestFitDeadLetterKeepsHeadersUpToHalfTheRoom(t *testing.T) {
	body := bytes.Repeat([]byte("b"), 5000)
	const limit, overhead = 4000, 200
	room := limit - overhead
	for _, c := range []struct {
		headers int
		keep    bool
	}{{0, true}, {300, true}, {room / 2, true}, {room/2 + 1, false}, {room, false}, {10 * limit, false}} {
		d, v := fitted(t, verdict(50), body, gate.DeadLetterSize{Limit: limit, Overhead: overhead, Headers: c.headers})
		assert.Equal(t, c.keep, d.KeepHeaders, "headers of %d bytes", c.headers)
		assert.True(t, v.Truncated, "headers of %d bytes", c.headers)
		left := room
		if c.keep {
			left -= c.headers
		}
		assert.GreaterOrEqual(t, len(d.Body), left/2, "the body has half of what the headers leave")
	}
}

// Headers that would crowd out the verdict are dropped, rather than the
// verdict's violations or the body cut for them.
func TestFitDeadLetterDropsHeadersThatCrowdOut(t *testing.T) {
	body := bytes.Repeat([]byte("b"), 1000)
	d, v := fitted(t, verdict(3), body, gate.DeadLetterSize{Limit: 4096, Overhead: 100, Headers: 3500})
	assert.False(t, d.KeepHeaders)
	assert.True(t, v.HeadersDropped)
	assert.Equal(t, body, d.Body, "the whole body, once the headers are dropped")
	assert.Len(t, v.Violations, 3)
}

// A dead letter that cannot hold its verdict and its whole body holds the
// start of the body, as much as fits, and says so; its verdict gives up
// violations, counted, to leave the body at least half the room.
func TestFitDeadLetterCutsTheBodyAndSaysSo(t *testing.T) {
	body := bytes.Repeat([]byte("b"), 5000)
	for _, limit := range []int{1000, 3000, 5000} {
		d, v := fitted(t, verdict(50), body, gate.DeadLetterSize{Limit: limit})
		assert.GreaterOrEqual(t, len(d.Body), limit/2, "limit %d", limit)
		assert.Greater(t, len(d.Verdict)+len(d.Body), limit-100, "as much of the body as fits, limit %d", limit)
		assert.True(t, v.Truncated)
		assert.Less(t, len(v.Violations), 50, "limit %d", limit)
	}
}

// A body that takes at most half the room is kept whole, the verdict
// listing the violations that fit beside it and counting the rest.
func TestFitDeadLetterKeepsASmallBodyWhole(t *testing.T) {
	body := bytes.Repeat([]byte("b"), 900)
	for _, limit := range []int{1800, 2500, 4000} {
		d, v := fitted(t, verdict(60), body, gate.DeadLetterSize{Limit: limit})
		assert.Equal(t, body, d.Body, "limit %d", limit)
		assert.NotZero(t, v.Omitted, "limit %d", limit)
		assert.Greater(t, len(d.Verdict), limit-len(body)-200, "as many violations as fit, limit %d", limit)
	}
}

// A verdict that lists a violation in half the room, but not with the
// flags of a cut body, lists none: the body then fits whole beside it,
// and is not said to be cut.
func TestFitDeadLetterDoesNotFlagAWholeBody(t *testing.T) {
	const limit = 1000
	body := bytes.Repeat([]byte("b"), 600)
	v := verdict(1)
	v.Violations[0].Message = ""
	j, err := v.Encode(limit)
	require.NoError(t, err)
	// Unflagged, the verdict takes 490 bytes, within half the limit but
	// too many beside the body; flagged, more than half.
	v.Violations[0].Message = strings.Repeat("m", 490-len(j))
	d, got := fitted(t, v, body, gate.DeadLetterSize{Limit: limit})
	assert.Equal(t, body, d.Body)
	assert.Equal(t, 1, got.Omitted)
}

// When not even a verdict with no violation listed fits, headers dropped,
// there is no dead letter: an error says so.
func TestFitDeadLetterRefusesWhenNotEvenTheVerdictFits(t *testing.T) {
	for _, size := range []gate.DeadLetterSize{
		{Limit: 50},
		{Limit: 1000, Overhead: 950},
		{Limit: 1000, Overhead: 2000},
		{Limit: 140, Overhead: 10, Headers: 10},
	} {
		_, err := gate.FitDeadLetter(verdict(3), []byte("{}"), size)
		assert.ErrorIs(t, err, gate.ErrTooLarge, "%+v", size)
	}
}

// Within MinLimit, the limit below which a gate does not start, every
// dead letter fits, whatever its headers, body and verdict, beside a
// binding's overhead of a few hundred bytes.
func TestFitDeadLetterFitsWithinMinLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		v := verdict(r.IntN(3000))
		v.Subject = "in." + strings.Repeat("s", r.IntN(2*gate.MinLimit))
		v.Stream = strings.Repeat("S", r.IntN(256))
		v.Error = strings.Repeat("e", r.IntN(2*gate.MinLimit))
		body := bytes.Repeat([]byte("b"), r.IntN(3*gate.MinLimit))
		size := gate.DeadLetterSize{Limit: gate.MinLimit + r.IntN(gate.MinLimit), Overhead: r.IntN(600), Headers: r.IntN(3 * gate.MinLimit)}
		fitted(t, v, body, size)
	}
}

func ExampleFitDeadLetter() {
	v := gate.VerdictOf(device.New(), &msg.Error{Violations: []*msg.Violation{{Path: "/imei", Rule: msg.RuleIMEI, Message: "not an IMEI"}}})
	v.Place = gate.Place{Subject: "fleet.in.x", Stream: "IN", Sequence: 6}
	body := []byte(`{"message_type":"core.device","imei":"` + strings.Repeat("1", 800) + `"}`)
	// What the binding measures of its dead letter: a limit of 1,000
	// bytes, 100 of them its own, and 500 the original's headers.
	d, _ := gate.FitDeadLetter(v, body, gate.DeadLetterSize{Limit: 1000, Overhead: 100, Headers: 500})
	fmt.Println(string(d.Verdict))
	fmt.Println(len(d.Body), "of", len(body), "bytes; the original's headers kept:", d.KeepHeaders)
	// Output:
	// {"subject":"fleet.in.x","stream":"IN","sequence":6,"schema":"core.device","version":"1.0","valid":false,"violations":[{"path":"/imei","rule":"imei","message":"not an IMEI"}],"deliveries":0,"truncated":true,"body_size":840,"headers_dropped":true}
	// 655 of 840 bytes; the original's headers kept: false
}

// BenchmarkFitDeadLetterTooLarge fits the dead letter of a message whose
// body alone is larger than the broker stores, as a copy too large is
// dead-lettered, with headers that take more than half the room: its
// verdict is encoded once, flagged, for the cut body, not before that
// for a whole body that could never fit, with or without the headers.
// Under callgrind, as the README counts BenchmarkRecord: 7,512
// instructions a dead letter before, 2,738 after.
func BenchmarkFitDeadLetterTooLarge(b *testing.B) {
	v := verdict(1)
	body := bytes.Repeat([]byte("b"), 2*gate.MinLimit)
	size := gate.DeadLetterSize{Limit: gate.MinLimit, Overhead: 100, Headers: gate.MinLimit / 2}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gate.FitDeadLetter(v, body, size); err != nil {
			b.Fatal(err)
		}
	}
}
