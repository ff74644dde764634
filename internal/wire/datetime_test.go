package wire

import (
	"fmt"
	"testing"
	"time"
)

// TestDateTimeInPlaceAsString holds DateTime, which parses a date-time
// where it lies, to dateTimeString, which reads the string first, as
// DateTime did before, over date-times and near misses:
// escaped, with fractions and offsets of every length, followed by
// other bytes, and cut at every point.
func TestDateTimeInPlaceAsString(t *testing.T) {
	values := []string{
		`"2026-03-01T08:00:00Z"`, `"2026-03-01t08:00:00z"`, `"2026-03-01T08:00:00.5Z"`,
		`"2026-03-01T08:00:00.123456789123+01:00"`, `"2026-03-01T08:00:00-00:00"`,
		`"2026-03-01T08:00:00+23:59"`, `"2026-03-01T08:00:00+24:00"`, `"2026-03-01T08:00:00"`,
		`"2026-03-01T08:00:00.Z"`, `"2026-03-01T08:00:00Z "`, `"2026-03-01T08:00:00+01:0"`,
		`"2026-03-01T08:00:00+01:000"`, `"2026-02-30T08:00:00Z"`, `"1998-12-31T23:59:60Z"`,
		`"2026-03-01T08:00:00\u005a"`, `"\u0032026-03-01T08:00:00Z"`, `"2026-03-01T08:00:00Z\"`,
		`"2026-03-01T08:00:00Z\""`, `"2026-03-01T08:00:00+01:00\n"`, `"2026-03-01T08:00:00,5Z"`,
		`"2026-03-01T08:00:00.5é"`, `""`, `"x"`, `2026`, `null`, `{}`, ` "2026-03-01T08:00:00Z"`,
	}
	read := func(data string, dateTime func(d *Decoder) (time.Time, bool)) string {
		var d Decoder
		d.ResetMode([]byte(data), Judge)
		tm, ok := dateTime(&d)
		return fmt.Sprintf("%v %v at %d, last %d, fatal %v, string at %d escaped %v, error %v", tm, ok, d.Pos, d.last, d.Fatal, d.StrStart, d.Escaped, d.Err())
	}
	for _, v := range values {
		for _, after := range []string{"", "}", `,"x":1}`, `"`} {
			data := v + after
			for end := range len(data) + 1 {
				got := read(data[:end], func(d *Decoder) (time.Time, bool) { return d.DateTime("", "/t") })
				want := read(data[:end], func(d *Decoder) (time.Time, bool) { return d.dateTimeString("", "/t") })
				if got != want {
					t.Fatalf("%q:\nin place  %s\nas string %s", data[:end], got, want)
				}
			}
		}
	}
}
