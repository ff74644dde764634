package format

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// dateTimeCases pin every edge class of ParseDateTime. want is the reason,
// "" for valid input. Cases marked (suite) come from the JSON-Schema-Test-
// Suite (optional/format/date-time.json, date.json and time.json, the
// latter two under a date or time prefix).
var dateTimeCases = []struct {
	in   string
	want string
}{
	// Valid (suite).
	{"1963-06-19T08:30:06.283185Z", ""},
	{"1963-06-19T08:30:06Z", ""},
	{"1937-01-01T12:00:27.87+00:20", ""},
	{"1990-12-31T15:59:59-08:00", ""},
	{"1998-12-31T23:59:60Z", ""},
	{"1998-12-31T15:59:60.123-08:00", ""},
	{"1963-06-19t08:30:06.283185z", ""},
	{"1998-12-31T23:59:60+00:00", ""},
	{"1998-12-31T01:29:60+01:30", ""},
	{"1998-12-31T23:29:60+23:30", ""},
	{"1998-12-31T15:59:60-08:00", ""},
	{"1998-12-31T00:29:60-23:30", ""},
	{"2020-01-31T00:00:00Z", ""},
	{"2021-02-28T00:00:00Z", ""},
	{"2020-02-29T00:00:00Z", ""},
	{"2020-03-31T00:00:00Z", ""},
	{"2020-04-30T00:00:00Z", ""},
	{"2020-05-31T00:00:00Z", ""},
	{"2020-06-30T00:00:00Z", ""},
	{"2020-07-31T00:00:00Z", ""},
	{"2020-08-31T00:00:00Z", ""},
	{"2020-09-30T00:00:00Z", ""},
	{"2020-10-31T00:00:00Z", ""},
	{"2020-11-30T00:00:00Z", ""},
	{"2020-12-31T00:00:00Z", ""},
	{"2000-02-29T00:00:00Z", ""},
	{"1998-12-31T08:30:06.283185Z", ""},
	{"1998-12-31T08:30:06+00:20", ""},
	{"1998-12-31T08:30:06-08:00", ""},
	{"1998-12-31T08:30:06z", ""},
	// Valid, further edges.
	{"0000-01-01T00:00:00Z", ""},
	{"9999-12-31T23:59:59.999999999Z", ""},
	{"0000-02-29T00:00:00Z", ""}, // year 0 is a leap year (divisible by 400)
	{"2024-02-29T12:00:00+23:59", ""},
	{"2024-02-29T12:00:00-23:59", ""},
	{"2024-02-29T12:00:00-00:00", ""},
	{"2024-02-29T12:00:00+00:00", ""},
	{"2024-01-01T00:00:00.0Z", ""},
	{"2024-01-01T00:00:00.1234567891234567890123Z", ""}, // truncated to ns
	{"2024-01-01T00:00:00.000000000000000000001Z", ""},
	{"1998-12-31T23:59:60.999999999Z", ""},
	{"2024-06-30T23:59:60Z", ""},        // any date may carry a leap second
	{"2024-07-01T00:59:60+01:00", ""},   // UTC 23:59:60 of the day before
	{"2024-06-30T22:59:60-01:00", ""},   // local 22:59, UTC 23:59
	{"2024-07-01T00:00:60+00:01", ""},   // UTC 23:59 of the day before
	{"2024-06-30T23:58:60-00:01", ""},   // UTC 23:59
	{"2024-06-30T23:59:60-00:00", ""},   // unknown offset, time is UTC
	{"2024-12-31T23:59:60.5+00:00", ""}, // fraction kept
	{"2023-02-28T23:59:60z", ""},

	// Invalid (suite).
	{"1998-12-31T23:59:61Z", reasonDTSecondRange},
	{"1998-12-31T23:58:60Z", reasonDTLeap},
	{"1998-12-31T22:59:60Z", reasonDTLeap},
	{"1990-02-31T15:59:59.123-08:00", reasonDTDayRange},
	{"1990-12-31T15:59:59-24:00", reasonDTOffHRange},
	{"1963-06-19T08:30:06.28123+01:00Z", reasonDTTrailing},
	{"06/19/1963 08:30:06 PST", reasonDTYear},
	{"2013-350T01:01:01", reasonDTDash2},
	{"1963-6-19T08:30:06.283185Z", reasonDTMonth},
	{"1963-06-1T08:30:06.283185Z", reasonDTDay},
	{"1963-06-1৪T00:00:00Z", reasonDTDay},
	{"1963-06-11T0৪:00:00Z", reasonDTHour},
	{"1998-12-31T22:59:60+00:00", reasonDTLeap},
	{"1998-12-31T23:59:60+01:00", reasonDTLeap},
	{"1998-12-31T23:59:60+00:30", reasonDTLeap},
	{"1998-12-31T23:59:60-01:00", reasonDTLeap},
	{"1998-12-31T23:59:60-00:30", reasonDTLeap},
	{"1998-12-31T24:00:00Z", reasonDTHourRange},
	{"1998-12-31T00:60:00Z", reasonDTMinuteRange},
	{"1998-12-31T00:00:61Z", reasonDTSecondRange},
	{"1998-12-31T01:02:03+24:00", reasonDTOffHRange},
	{"1998-12-31T01:02:03+00:60", reasonDTOffMRange},
	{"1998-12-31T01:02:03Z+00:30", reasonDTTrailing},
	{"1998-12-31T08:30:06 PST", reasonDTZone},
	{"1998-12-31T01:01:01,1111Z", reasonDTComma},
	{"1998-12-31T12:00:00", reasonDTZone},
	{"1998-12-31T12:00:00.52", reasonDTZone},
	{"1998-12-31T1২:00:00Z", reasonDTHour},
	{"1998-12-31T08:30:06#00:30", reasonDTZone},
	{"1998-12-31Tab:cd:efZ", reasonDTHour},
	{"2020-01-32T00:00:00Z", reasonDTDayRange},
	{"2021-02-29T00:00:00Z", reasonDTDayRange},
	{"2020-02-30T00:00:00Z", reasonDTDayRange},
	{"2020-03-32T00:00:00Z", reasonDTDayRange},
	{"2020-04-31T00:00:00Z", reasonDTDayRange},
	{"2020-05-32T00:00:00Z", reasonDTDayRange},
	{"2020-06-31T00:00:00Z", reasonDTDayRange},
	{"2020-07-32T00:00:00Z", reasonDTDayRange},
	{"2020-08-32T00:00:00Z", reasonDTDayRange},
	{"2020-09-31T00:00:00Z", reasonDTDayRange},
	{"2020-10-32T00:00:00Z", reasonDTDayRange},
	{"2020-11-31T00:00:00Z", reasonDTDayRange},
	{"2020-12-32T00:00:00Z", reasonDTDayRange},
	{"2020-13-01T00:00:00Z", reasonDTMonthRange},
	{"1998-1-20T00:00:00Z", reasonDTMonth},
	{"1998-01-1T00:00:00Z", reasonDTDay},
	{"1900-02-29T00:00:00Z", reasonDTDayRange},
	{"20230328T00:00:00Z", reasonDTDash1},
	{"2023-W01T00:00:00Z", reasonDTMonth},
	{"2023-W13-2T00:00:00Z", reasonDTMonth},
	{"2022W527T00:00:00Z", reasonDTDash1},

	// Invalid, further edges.
	{"", reasonDTShort},
	{"2024-01-01T00:00:00", reasonDTZone},
	{"2024-01-01T00:00:0", reasonDTShort},
	{"2024-01-01T00:00", reasonDTShort},
	{"2024-01-01", reasonDTShort},
	{" 2024-01-01T00:00:00Z", reasonDTYear},
	{"2024-01-01T00:00:00Z ", reasonDTTrailing},
	{"2024-01-01T00:00:00Z\n", reasonDTTrailing},
	{"+2024-01-01T00:00:00Z", reasonDTYear},
	{"-2024-01-01T00:00:00Z", reasonDTYear},
	{"+024-01-01T00:00:00Z", reasonDTYear},
	{"-024-01-01T00:00:00Z", reasonDTYear},
	{"12024-01-01T00:00:00Z", reasonDTDash1},
	{"2024/01/01T00:00:00Z", reasonDTDash1},
	{"2024-01/01T00:00:00Z", reasonDTDash2},
	{"2024-+1-01T00:00:00Z", reasonDTMonth},
	{"2024-01-+1T00:00:00Z", reasonDTDay},
	{"2024-00-01T00:00:00Z", reasonDTMonthRange},
	{"2024-01-00T00:00:00Z", reasonDTDayRange},
	{"2024-01-01 00:00:00Z", reasonDTT},
	{"2024-01-01_00:00:00Z", reasonDTT},
	{"2024-01-01x00:00:00Z", reasonDTT},
	{"2024-01-01T+1:00:00Z", reasonDTHour}, // the oracle accepts this
	{"2024-01-01T-0:00:00Z", reasonDTHour}, // the oracle accepts this
	{"2024-01-01T01:+1:00Z", reasonDTMinute},
	{"2024-01-01T01:01:+1Z", reasonDTSecond},
	{"2024-01-01T 1:00:00Z", reasonDTHour},
	{"2024-01-01T01-00:00Z", reasonDTColon1},
	{"2024-01-01T01:00-00Z", reasonDTColon2},
	{"2024-01-01T01:00:00.Z", reasonDTFrac},
	{"2024-01-01T01:00:00.", reasonDTFrac},
	{"2024-01-01T01:00:00.+01:00", reasonDTFrac},
	{"2024-01-01T01:00:00.1.2Z", reasonDTZone},
	{"2024-01-01T01:00:00.1x2Z", reasonDTZone},
	{"2024-01-01T01:00:00.٣Z", reasonDTFrac},
	{"2024-01-01T01:00:00,5Z", reasonDTComma},
	{"2024-01-01T01:00:00+01", reasonDTOffColon},
	{"2024-01-01T01:00:00+0100", reasonDTOffColon},
	{"2024-01-01T01:00:00+1:00", reasonDTOffHour},
	{"2024-01-01T01:00:00+01:0", reasonDTOffMinute},
	{"2024-01-01T01:00:00+", reasonDTOffHour},
	{"2024-01-01T01:00:00+01:", reasonDTOffMinute},
	{"2024-01-01T01:00:00++1:00", reasonDTOffHour}, // the oracle accepts this
	{"2024-01-01T01:00:00+-0:00", reasonDTOffHour}, // the oracle accepts this
	{"2024-01-01T01:00:00+01:+1", reasonDTOffMinute},
	{"2024-01-01T01:00:00+01:00:00", reasonDTTrailing},
	{"2024-01-01T01:00:00+24:00", reasonDTOffHRange},
	{"2024-01-01T01:00:00-24:00", reasonDTOffHRange},
	{"2024-01-01T01:00:00+99:99", reasonDTOffHRange},
	{"2024-01-01T01:00:00+00:60", reasonDTOffMRange},
	{"2024-01-01T01:00:00UTC", reasonDTZone},
	{"2024-01-01T01:00:00z0", reasonDTTrailing},
	{"2024-01-01T01:00:00\x00", reasonDTZone},
	{"2024-01-01T01:00:00Z\x00", reasonDTTrailing},
	{"2024-01-01T99:00:00Z", reasonDTHourRange},
	{"2024-01-01T00:99:00Z", reasonDTMinuteRange},
	{"2024-01-01T00:00:99Z", reasonDTSecondRange},
	{"2024-99-99T00:00:00Z", reasonDTMonthRange},
	{"2023-02-29T00:00:00Z", reasonDTDayRange},
	{"2100-02-29T00:00:00Z", reasonDTDayRange},
	{"2024-06-30T23:59:60+00:01", reasonDTLeap},
	{"2024-06-30T00:59:60+02:00", reasonDTLeap},
	{"2024-06-30T23:59:60+23:59", reasonDTLeap},
	{"2024-06-30T23:59:60-23:59", reasonDTLeap},
	{"2024-06-30T12:00:60Z", reasonDTLeap},
	{"２０２４-01-01T00:00:00Z", reasonDTYear},
}

func TestParseDateTimeTable(t *testing.T) {
	for _, c := range dateTimeCases {
		_, reason := ParseDateTime([]byte(c.in))
		if reason != c.want {
			t.Errorf("ParseDateTime(%q) reason = %q, want %q", c.in, reason, c.want)
		}
	}
}

func TestParseDateTimeTableAgreesWithOracle(t *testing.T) {
	for _, c := range dateTimeCases {
		checkDateTimeOracle(t, c.in)
	}
}

// TestOracleSignQuirkIsReal pins the oracle bug the exception set covers, so
// that the exception is dropped once the oracle is fixed.
func TestOracleSignQuirkIsReal(t *testing.T) {
	for _, s := range []string{
		"2024-01-01T+1:00:00Z",
		"2024-01-01T-0:00:00Z",
		"2024-01-01T01:+1:00Z",
		"2024-01-01T01:00:+1Z",
		"2024-01-01T01:00:00++1:00",
		"2024-01-01T01:00:00+01:+1",
		"2024-01-01T01:00:00.5+-0:00",
	} {
		if !oracleDateTime(t, s) {
			t.Errorf("oracle rejects %q: the sign quirk is gone, drop oracleSignQuirk", s)
		}
		if !oracleSignQuirk(s) {
			t.Errorf("oracleSignQuirk(%q) = false", s)
		}
		if _, reason := ParseDateTime([]byte(s)); reason == "" {
			t.Errorf("ParseDateTime(%q) accepts a signed number field", s)
		}
	}
	// The exception must not swallow other disagreements.
	for _, s := range []string{
		"2024-01-01T+1:00:60Z",      // still a bad leap second once unsigned
		"2024-01-01T01:00:00+24:00", // no sign to forgive
		"2024-01-01T01:00:00++4:00X",
	} {
		if oracleSignQuirk(s) {
			t.Errorf("oracleSignQuirk(%q) = true, want false", s)
		}
	}
}

// refDateTime computes the expected value of a string ParseDateTime accepts,
// by a different road: strconv on fixed positions and time.Date.
func refDateTime(t *testing.T, s string) time.Time {
	t.Helper()
	num := func(from, to int) int {
		n, err := strconv.Atoi(s[from:to])
		if err != nil {
			t.Fatalf("refDateTime(%q): %v", s, err)
		}
		return n
	}
	year, month, day := num(0, 4), num(5, 7), num(8, 10)
	hour, minute, sec := num(11, 13), num(14, 16), num(17, 19)
	if sec == 60 {
		sec = 59
	}
	i, nsec := 19, 0
	if s[i] == '.' {
		frac := s[20:]
		frac = frac[:strings.IndexAny(frac, "Zz+-")]
		i += 1 + len(frac)
		frac = (frac + "000000000")[:9]
		n, err := strconv.Atoi(frac)
		if err != nil {
			t.Fatalf("refDateTime(%q): %v", s, err)
		}
		nsec = n
	}
	loc := time.UTC
	if s[i] == '+' || s[i] == '-' {
		off := (num(i+1, i+3)*60 + num(i+4, i+6)) * 60
		if s[i] == '-' {
			off = -off
		}
		if s[i:] != "-00:00" {
			loc = time.FixedZone("", off)
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc)
}

// checkSameTime fails unless got and want are the same instant with the same
// offset.
func checkSameTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	_, gotOff := got.Zone()
	_, wantOff := want.Zone()
	if !got.Equal(want) || gotOff != wantOff {
		t.Errorf("%s = %v (offset %d), want %v (offset %d)", what, got, gotOff, want, wantOff)
	}
	if (got.Location() == time.UTC) != (want.Location() == time.UTC) {
		t.Errorf("%s location %v, want %v", what, got.Location(), want.Location())
	}
}

func TestParseDateTimeValue(t *testing.T) {
	for _, c := range dateTimeCases {
		if c.want != "" {
			continue
		}
		got, _ := ParseDateTime([]byte(c.in))
		checkSameTime(t, "ParseDateTime("+strconv.Quote(c.in)+")", got, refDateTime(t, c.in))
	}
}

func TestParseDateTimeZones(t *testing.T) {
	cases := []struct {
		in     string
		utc    bool
		offset int
	}{
		{"2024-01-01T00:00:00Z", true, 0},
		{"2024-01-01T00:00:00z", true, 0},
		{"2024-01-01T00:00:00-00:00", true, 0}, // offset unknown: UTC
		{"2024-01-01T00:00:00+00:00", false, 0},
		{"2024-01-01T00:00:00+05:30", false, 5*3600 + 30*60},
		{"2024-01-01T00:00:00-23:59", false, -(23*3600 + 59*60)},
	}
	for _, c := range cases {
		got, reason := ParseDateTime([]byte(c.in))
		name, off := got.Zone()
		if reason != "" || (got.Location() == time.UTC) != c.utc || off != c.offset {
			t.Errorf("ParseDateTime(%q) = %v zone %q offset %d reason %q; want UTC=%v offset %d",
				c.in, got, name, off, reason, c.utc, c.offset)
		}
	}
	// One shared *time.Location per offset.
	a, _ := ParseDateTime([]byte("2024-01-01T00:00:00+05:45"))
	b, _ := ParseDateTime([]byte("1999-07-01T10:00:00+05:45"))
	if a.Location() != b.Location() {
		t.Errorf("two +05:45 times have different locations %p and %p", a.Location(), b.Location())
	}
}

// TestParseDateTimeConcurrentZones races first uses of many offsets, for the
// race detector and for the promise of one *time.Location per offset.
func TestParseDateTimeConcurrentZones(t *testing.T) {
	const workers = 8
	locs := make([][]*time.Location, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for m := -maxOffsetMinutes; m <= maxOffsetMinutes; m += 7 {
				in := AppendDateTime(nil, time.Date(2024, 1, 1, 0, 0, 0, 0, time.FixedZone("", m*60)))
				ts, reason := ParseDateTime(in)
				if reason != "" {
					t.Errorf("ParseDateTime(%q): %s", in, reason)
					return
				}
				locs[w] = append(locs[w], ts.Location())
			}
		})
	}
	wg.Wait()
	for w := 1; w < workers; w++ {
		for i := range locs[0] {
			if locs[w][i] != locs[0][i] {
				t.Fatalf("worker %d got a different *time.Location for offset #%d", w, i)
			}
		}
	}
}

func TestParseDateTimeLeapSecondIsSecond59(t *testing.T) {
	got, reason := ParseDateTime([]byte("1998-12-31T15:59:60.123-08:00"))
	want := time.Date(1998, 12, 31, 15, 59, 59, 123e6, time.FixedZone("", -8*3600))
	if reason != "" || !got.Equal(want) {
		t.Errorf("got %v %q, want %v", got, reason, want)
	}
}

func TestParseDateTimeFractionTruncates(t *testing.T) {
	for in, ns := range map[string]int{
		"2024-01-01T00:00:00.1Z":                      100000000,
		"2024-01-01T00:00:00.123456789Z":              123456789,
		"2024-01-01T00:00:00.1234567899Z":             123456789,
		"2024-01-01T00:00:00.9999999999999999999999Z": 999999999,
		"2024-01-01T00:00:00.000000001Z":              1,
		"2024-01-01T00:00:00.0000000009Z":             0,
	} {
		got, reason := ParseDateTime([]byte(in))
		if reason != "" || got.Nanosecond() != ns || got.Second() != 0 {
			t.Errorf("ParseDateTime(%q) = %v %q, want nanosecond %d", in, got, reason, ns)
		}
	}
}

// dateTimeSeeds are valid date-times that the mutation test alters.
var dateTimeSeeds = []string{
	"1998-12-31T23:59:60Z",
	"1998-12-31T15:59:60.123-08:00",
	"2024-02-29T12:34:56.789+05:30",
	"2000-02-29t00:00:00z",
	"1937-01-01T12:00:27.87+00:20",
	"0000-01-01T00:00:00-00:00",
}

// mutations returns every string obtained from s by replacing one byte with
// one of alphabet, deleting one byte, duplicating one byte, or inserting one
// of alphabet.
func mutations(s string, alphabet []string) []string {
	var out []string
	for i := range len(s) {
		for _, r := range alphabet {
			out = append(out, s[:i]+r+s[i+1:], s[:i]+r+s[i:])
		}
		out = append(out, s[:i]+s[i+1:], s[:i]+s[i:i+1]+s[i:])
	}
	for _, r := range alphabet {
		out = append(out, s+r)
	}
	return out
}

var dateTimeAlphabet = []string{
	"0", "1", "2", "3", "5", "6", "9", "+", "-", ":", ".", ",", "T", "t", "Z", "z",
	" ", "\t", "a", "x", "\x00", "\xff", "৪", "٣", "０",
}

func TestParseDateTimeMutationsAgreeWithOracle(t *testing.T) {
	n := 0
	for _, seed := range dateTimeSeeds {
		for _, m := range mutations(seed, dateTimeAlphabet) {
			checkDateTimeOracle(t, m)
			n++
		}
		// Two mutations in a row reach pairs such as a sign and a digit.
		for _, m := range mutations(seed, []string{"+", "-", "6", "0", "9"}) {
			for _, mm := range mutations(m, []string{"+", "-", "0"}) {
				checkDateTimeOracle(t, mm)
				n++
			}
		}
	}
	t.Logf("%d mutations checked", n)
}

// randomDateTimeText builds date-time-shaped strings whose fields are random
// digits biased to the edges of their ranges.
func randomDateTimeText(r *rand.Rand) string {
	// pick mostly returns a valid value near the edges of a field's range,
	// sometimes an invalid edge, sometimes any two digits.
	pick := func(valid []int, invalid ...int) int {
		switch n := r.IntN(20); {
		case n == 0:
			return r.IntN(100)
		case n == 1:
			return invalid[r.IntN(len(invalid))]
		default:
			return valid[r.IntN(len(valid))]
		}
	}
	two := func(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }
	var sb strings.Builder
	year := r.IntN(10000)
	if r.IntN(4) == 0 {
		year = []int{0, 1900, 2000, 2100, 2024, 2023, 400, 9999}[r.IntN(8)]
	}
	sb.WriteString(two(year / 100))
	sb.WriteString(two(year % 100))
	sb.WriteString("-" + two(pick([]int{1, 2, 2, 4, 9, 11, 12}, 0, 13)))
	sb.WriteString("-" + two(pick([]int{1, 9, 28, 29, 29, 30, 31}, 0, 32)))
	sb.WriteString([]string{"T", "t"}[r.IntN(2)])
	sb.WriteString(two(pick([]int{0, 1, 12, 22, 23, 23}, 24)) + ":")
	sb.WriteString(two(pick([]int{0, 1, 29, 30, 58, 59, 59}, 60)) + ":")
	sb.WriteString(two(pick([]int{0, 30, 59, 60, 60}, 61)))
	if r.IntN(2) == 0 {
		sb.WriteByte('.')
		for range 1 + r.IntN(12) {
			sb.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	switch r.IntN(4) {
	case 0:
		sb.WriteString([]string{"Z", "z"}[r.IntN(2)])
	default:
		sb.WriteString([]string{"+", "-"}[r.IntN(2)])
		sb.WriteString(two(pick([]int{0, 0, 1, 8, 12, 14, 23}, 24)) + ":")
		sb.WriteString(two(pick([]int{0, 0, 1, 29, 30, 31, 59}, 60)))
	}
	return sb.String()
}

func TestParseDateTimeRandomAgreesWithOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := randomRounds()
	valid := 0
	for range n {
		s := randomDateTimeText(r)
		checkDateTimeOracle(t, s)
		if got, reason := ParseDateTime([]byte(s)); reason == "" {
			valid++
			checkSameTime(t, "ParseDateTime("+strconv.Quote(s)+")", got, refDateTime(t, s))
		}
		if t.Failed() {
			break
		}
	}
	t.Logf("%d of %d random strings valid", valid, n)
	if valid < n/10 || valid > n*9/10 {
		t.Errorf("generator unbalanced: %d of %d valid", valid, n)
	}
}

// TestDateTimeCanonicalRoundTrip pins AppendDateTime's exact output.
func TestDateTimeCanonicalRoundTrip(t *testing.T) {
	for in, want := range map[string]string{
		"1963-06-19T08:30:06.283185Z":         "1963-06-19T08:30:06.283185Z",
		"1963-06-19t08:30:06.283185z":         "1963-06-19T08:30:06.283185Z",
		"1937-01-01T12:00:27.87+00:20":        "1937-01-01T12:00:27.87+00:20",
		"1990-12-31T15:59:59-08:00":           "1990-12-31T15:59:59-08:00",
		"2024-01-01T00:00:00.000Z":            "2024-01-01T00:00:00Z",
		"2024-01-01T00:00:00.100Z":            "2024-01-01T00:00:00.1Z",
		"2024-01-01T00:00:00.1234567891Z":     "2024-01-01T00:00:00.123456789Z",
		"2024-01-01T00:00:00+00:00":           "2024-01-01T00:00:00+00:00",
		"2024-01-01T00:00:00-00:00":           "2024-01-01T00:00:00Z",
		"1998-12-31T23:59:60.5Z":              "1998-12-31T23:59:59.5Z",
		"0000-01-01T00:00:00+23:59":           "0000-01-01T00:00:00+23:59",
		"9999-12-31T23:59:59.999999999-23:59": "9999-12-31T23:59:59.999999999-23:59",
	} {
		ts, reason := ParseDateTime([]byte(in))
		if reason != "" {
			t.Fatalf("ParseDateTime(%q): %s", in, reason)
		}
		if got := string(AppendDateTime(nil, ts)); got != want {
			t.Errorf("AppendDateTime(ParseDateTime(%q)) = %q, want %q", in, got, want)
		}
		if got := DateTimeReason(ts); got != "" {
			t.Errorf("DateTimeReason(ParseDateTime(%q)) = %q", in, got)
		}
	}
}

func TestAppendDateTimeAppends(t *testing.T) {
	ts := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	got := AppendDateTime([]byte("at "), ts)
	if string(got) != "at 2024-05-06T07:08:09Z" {
		t.Errorf("got %q", got)
	}
}

func TestAppendDateTimeInvalidValues(t *testing.T) {
	lmt := time.FixedZone("LMT", -(4*3600 + 56*60 + 2))
	cases := []struct {
		t      time.Time
		out    string
		reason string
	}{
		{time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC), "-0001-12-31T00:00:00Z", reasonDTYearValue},
		{time.Date(10000, 1, 1, 0, 0, 0, 5e8, time.UTC), "10000-01-01T00:00:00.5Z", reasonDTYearValue},
		{time.Date(10000, 12, 31, 23, 59, 59, 1, time.UTC), "10000-12-31T23:59:59.000000001Z", reasonDTYearValue},
		{time.Date(-10, 2, 3, 4, 5, 6, 123456789, time.UTC), "-0010-02-03T04:05:06.123456789Z", reasonDTYearValue},
		{time.Date(1880, 1, 1, 0, 0, 0, 0, lmt), "1880-01-01T00:00:00-04:56:02", reasonDTOffSeconds},
		{time.Date(2024, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)), "2024-01-01T00:00:00+24:00", reasonDTOffTooLarge},
		{time.Date(2024, 1, 1, 0, 0, 0, 0, time.FixedZone("", -100*3600)), "2024-01-01T00:00:00-100:00", reasonDTOffTooLarge},
		// Year 0000 in its own zone but -0001 in UTC, and the reverse.
		{time.Date(0, 1, 1, 0, 30, 0, 0, time.FixedZone("", 3600)), "0000-01-01T00:30:00+01:00", ""},
		{time.Date(9999, 12, 31, 23, 30, 0, 0, time.FixedZone("", -3600)), "9999-12-31T23:30:00-01:00", ""},
		{time.Date(-1, 12, 31, 23, 30, 0, 0, time.FixedZone("", -3600)), "-0001-12-31T23:30:00-01:00", reasonDTYearValue},
		{time.Time{}, "0001-01-01T00:00:00Z", ""},
	}
	for _, c := range cases {
		if got := string(AppendDateTime(nil, c.t)); got != c.out {
			t.Errorf("AppendDateTime(%v) = %q, want %q", c.t, got, c.out)
		}
		if got := DateTimeReason(c.t); got != c.reason {
			t.Errorf("DateTimeReason(%v) = %q, want %q", c.t, got, c.reason)
		}
	}
}

// randomTime returns a time whose year in its own location is 0000-9999,
// with a random offset of whole minutes (or UTC) and random nanoseconds.
func randomTime(r *rand.Rand) time.Time {
	var loc *time.Location
	off := 0
	switch r.IntN(4) {
	case 0:
		loc = time.UTC
	case 1:
		off = (r.IntN(27) - 12) * 3600
		loc = time.FixedZone("", off)
	default:
		off = (r.IntN(2*maxOffsetMinutes+1) - maxOffsetMinutes) * 60
		loc = time.FixedZone("zone", off)
	}
	local := minUnix + r.Int64N(maxUnix-minUnix+1)
	return time.Unix(local-int64(off), r.Int64N(1e9)).In(loc)
}

func TestDateTimeRandomRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := randomRounds()
	for range n {
		ts := randomTime(r)
		if reason := DateTimeReason(ts); reason != "" {
			t.Fatalf("DateTimeReason(%v) = %q", ts, reason)
		}
		text := AppendDateTime(nil, ts)
		// time's own formatter writes 'Z' for any zero offset.
		want := ts.Format(time.RFC3339Nano)
		if ts.Location() != time.UTC && strings.HasSuffix(want, "Z") {
			want = want[:len(want)-1] + "+00:00"
		}
		if string(text) != want {
			t.Fatalf("AppendDateTime(%v) = %q, want %q", ts, text, want)
		}
		back, reason := ParseDateTime(text)
		if reason != "" {
			t.Fatalf("ParseDateTime(%q): %s", text, reason)
		}
		checkSameTime(t, "ParseDateTime(AppendDateTime("+ts.String()+"))", back, ts)
		if r.IntN(50) == 0 {
			checkDateTimeOracle(t, string(text))
		}
		if t.Failed() {
			break
		}
	}
}

// TestDateTimeReasonRealZones covers locations whose offset changes and may
// have seconds (local mean time), when the system has a time zone database.
func TestDateTimeReasonRealZones(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Amsterdam")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	for _, ts := range []time.Time{
		time.Date(1900, 1, 1, 0, 0, 0, 0, loc), // +00:19:32 local mean time
		time.Date(1935, 6, 1, 0, 0, 0, 0, loc), // +01:19:32 summer time
		time.Date(2024, 7, 1, 12, 0, 0, 0, loc),
		time.Date(2024, 1, 1, 12, 0, 0, 0, loc),
	} {
		_, off := ts.Zone()
		reason := DateTimeReason(ts)
		if (off%60 == 0) != (reason == "") {
			t.Errorf("DateTimeReason(%v) = %q with offset %ds", ts, reason, off)
		}
		if reason != "" {
			continue
		}
		back, reason := ParseDateTime(AppendDateTime(nil, ts))
		if reason != "" {
			t.Fatalf("ParseDateTime(AppendDateTime(%v)): %s", ts, reason)
		}
		if _, o := back.Zone(); !back.Equal(ts) || o != off {
			t.Errorf("round trip of %v gave %v", ts, back)
		}
	}
}

func TestCivilDaysMatchTime(t *testing.T) {
	for y := 0; y <= 9999; y++ {
		for _, md := range [][2]int{{1, 1}, {2, 28}, {3, 1}, {12, 31}} {
			want := time.Date(y, time.Month(md[0]), md[1], 0, 0, 0, 0, time.UTC).Unix() / secondsPerDay
			if got := daysFromCivil(y, md[0], md[1]); got != want {
				t.Fatalf("daysFromCivil(%d, %d, %d) = %d, want %d", y, md[0], md[1], got, want)
			}
			gy, gm, gd := civilFromDays(want)
			if gy != y || gm != md[0] || gd != md[1] {
				t.Fatalf("civilFromDays(%d) = %d-%d-%d, want %d-%d-%d", want, gy, gm, gd, y, md[0], md[1])
			}
		}
	}
}

func FuzzParseDateTime(f *testing.F) {
	for _, c := range dateTimeCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, reason := ParseDateTime([]byte(s))
		checkDateTimeOracle(t, s)
		if reason != "" {
			if !ts.IsZero() {
				t.Errorf("ParseDateTime(%q) failed with %q but returned %v", s, reason, ts)
			}
			return
		}
		checkSameTime(t, "ParseDateTime("+strconv.Quote(s)+")", ts, refDateTime(t, s))
		if r := DateTimeReason(ts); r != "" {
			t.Fatalf("DateTimeReason(ParseDateTime(%q)) = %q", s, r)
		}
		back, reason := ParseDateTime(AppendDateTime(nil, ts))
		if reason != "" {
			t.Fatalf("ParseDateTime(AppendDateTime(ParseDateTime(%q))): %s", s, reason)
		}
		checkSameTime(t, "round trip of "+strconv.Quote(s), back, ts)
	})
}

var (
	benchDateTimeZ      = []byte("2024-02-29T12:34:56.789Z")
	benchDateTimeOffset = []byte("2024-02-29T12:34:56.789123+05:30")
)

func BenchmarkParseDateTime(b *testing.B) {
	for _, bc := range []struct {
		name string
		in   []byte
	}{
		{"Z", benchDateTimeZ},
		{"Offset", benchDateTimeOffset},
		{"Invalid", []byte("2024-02-30T12:34:56Z")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkTime, sinkReason = ParseDateTime(bc.in)
			}
		})
	}
}

func BenchmarkAppendDateTime(b *testing.B) {
	buf := make([]byte, 0, 64)
	for _, bc := range []struct {
		name string
		t    time.Time
	}{
		{"UTC", time.Date(2024, 2, 29, 12, 34, 56, 789e6, time.UTC)},
		{"Offset", time.Date(2024, 2, 29, 12, 34, 56, 789123e3, time.FixedZone("", 19800))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBytes = AppendDateTime(buf[:0], bc.t)
			}
		})
	}
}
