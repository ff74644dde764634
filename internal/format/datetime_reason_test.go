package format

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendDateTimeReasonIsDateTimeReason holds AppendDateTimeReason,
// which tells DateTimeReason's verdict from the checks that choose how
// to write a time, to DateTimeReason and AppendDateTime, at the edges of
// the years and offsets a date-time can have and at random.
func TestAppendDateTimeReasonIsDateTimeReason(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("", 0), time.FixedZone("", 59), time.FixedZone("", -60),
		time.FixedZone("", 23*3600+59*60), time.FixedZone("", -(23*3600 + 59*60)), time.FixedZone("", 24*3600),
		time.FixedZone("", -24*3600), time.FixedZone("", 5*3600+30*60+1)}
	var times []time.Time
	for _, loc := range zones {
		for _, year := range []int{-1, 0, 1, 1970, 9999, 10000} {
			times = append(times,
				time.Date(year, 1, 1, 0, 0, 0, 0, loc), time.Date(year, 12, 31, 23, 59, 59, 999999999, loc),
				time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).In(loc), time.Date(year, 12, 31, 23, 59, 59, 0, time.UTC).In(loc))
		}
	}
	r := rand.New(rand.NewPCG(13, 14))
	for range 20000 {
		loc := zones[r.IntN(len(zones))]
		times = append(times, time.Unix(r.Int64N(2*maxUnix)-maxUnix, r.Int64N(1e9)).In(loc))
	}
	for _, tm := range times {
		got, reason := AppendDateTimeReason([]byte("x"), tm)
		if want := DateTimeReason(tm); reason != want {
			t.Errorf("AppendDateTimeReason(%v) says %q, DateTimeReason %q", tm, reason, want)
		}
		if want := AppendDateTime([]byte("x"), tm); string(got) != string(want) {
			t.Errorf("AppendDateTimeReason(%v) writes %q, AppendDateTime %q", tm, got, want)
		}
	}
}
