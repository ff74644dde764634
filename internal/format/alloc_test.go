package format

import (
	"testing"
	"time"
)

// Sinks keep benchmark and allocation-test results alive.
var (
	sinkUUID   [16]byte
	sinkTime   time.Time
	sinkInt    int64
	sinkReason string
	sinkBool   bool
	sinkBytes  []byte
)

// TestNoAllocations pins the package's promise: the hot paths allocate
// nothing, on success and on failure.
func TestNoAllocations(t *testing.T) {
	buf := make([]byte, 0, 128)
	ts := time.Date(2024, 2, 29, 12, 34, 56, 789e6, time.FixedZone("", 19800))
	cases := []struct {
		name string
		f    func()
	}{
		{"ParseUUID", func() { sinkUUID, sinkReason = ParseUUID(benchUUID) }},
		{"ParseUUID/invalid", func() { sinkUUID, sinkReason = ParseUUID([]byte("2eb8aa08-aa98-11ea-b4aa-73b441d1638g")) }},
		{"ParseUUID/short", func() { sinkUUID, sinkReason = ParseUUID([]byte("2eb8aa08")) }},
		{"AppendUUID", func() { sinkBytes = AppendUUID(buf[:0], sinkUUID) }},
		{"ParseDateTime/Z", func() { sinkTime, sinkReason = ParseDateTime(benchDateTimeZ) }},
		{"ParseDateTime/offset", func() { sinkTime, sinkReason = ParseDateTime(benchDateTimeOffset) }},
		{"ParseDateTime/odd offset", func() { sinkTime, sinkReason = ParseDateTime([]byte("2024-02-29T12:34:56-03:17")) }},
		{"ParseDateTime/leap second", func() { sinkTime, sinkReason = ParseDateTime([]byte("1998-12-31T15:59:60.123-08:00")) }},
		{"ParseDateTime/invalid", func() { sinkTime, sinkReason = ParseDateTime([]byte("2024-02-30T12:34:56Z")) }},
		{"ParseDateTime/bad offset", func() { sinkTime, sinkReason = ParseDateTime([]byte("2024-02-28T12:34:56+24:00")) }},
		{"AppendDateTime/UTC", func() { sinkBytes = AppendDateTime(buf[:0], ts.UTC()) }},
		{"AppendDateTime/offset", func() { sinkBytes = AppendDateTime(buf[:0], ts) }},
		{"AppendDateTime/invalid", func() { sinkBytes = AppendDateTime(buf[:0], ts.AddDate(9000, 0, 0)) }},
		{"DateTimeReason", func() { sinkReason = DateTimeReason(ts) }},
		{"ParseInt", func() { sinkInt, sinkReason, sinkBool = ParseInt([]byte("9223372036854775807")) }},
		{"ParseInt/small", func() { sinkInt, sinkReason, sinkBool = ParseInt([]byte("42")) }},
		{"ParseInt/exponent", func() { sinkInt, sinkReason, sinkBool = ParseInt([]byte("12.300e1")) }},
		{"ParseInt/not int", func() { sinkInt, sinkReason, sinkBool = ParseInt([]byte("1e-999999999999")) }},
		{"ParseInt/range", func() { sinkInt, sinkReason, sinkBool = ParseInt([]byte("1e999999999999")) }},
		{"ParseInt/not number", func() { sinkInt, sinkReason, sinkBool = ParseInt([]byte("01")) }},
		{"ValidNumber", func() { sinkBool = ValidNumber([]byte("-1.5e+3")) }},
	}
	for _, c := range cases {
		// AllocsPerRun's warm-up call fills the zone cache for new offsets.
		if n := testing.AllocsPerRun(100, c.f); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", c.name, n)
		}
	}
}
