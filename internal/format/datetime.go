package format

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
)

// Reasons reported by ParseDateTime and DateTimeReason.
const (
	reasonDTShort       = "want at least 20 characters in yyyy-mm-ddThh:mm:ssZ form"
	reasonDTYear        = "want 4-digit year"
	reasonDTDash1       = "want '-' after year"
	reasonDTMonth       = "want 2-digit month"
	reasonDTDash2       = "want '-' after month"
	reasonDTDay         = "want 2-digit day"
	reasonDTT           = "want 'T' between date and time"
	reasonDTHour        = "want 2-digit hour"
	reasonDTColon1      = "want ':' after hour"
	reasonDTMinute      = "want 2-digit minute"
	reasonDTColon2      = "want ':' after minute"
	reasonDTSecond      = "want 2-digit second"
	reasonDTComma       = "want '.' before the fraction of a second, not ','"
	reasonDTFrac        = "want digits after '.'"
	reasonDTZone        = "want 'Z' or an offset +hh:mm or -hh:mm after the time"
	reasonDTOffHour     = "want 2-digit offset hour"
	reasonDTOffColon    = "want ':' in offset"
	reasonDTOffMinute   = "want 2-digit offset minute"
	reasonDTTrailing    = "unexpected characters after the offset"
	reasonDTMonthRange  = "month out of range 01-12"
	reasonDTDayRange    = "day out of range for the month"
	reasonDTHourRange   = "hour out of range 00-23"
	reasonDTMinuteRange = "minute out of range 00-59"
	reasonDTSecondRange = "second out of range 00-59 (60 for a leap second)"
	reasonDTOffHRange   = "offset hour out of range 00-23"
	reasonDTOffMRange   = "offset minute out of range 00-59"
	reasonDTLeap        = "leap second not at 23:59:60 UTC"

	reasonDTYearValue   = "year out of range 0000-9999"
	reasonDTOffSeconds  = "offset not a whole number of minutes"
	reasonDTOffTooLarge = "offset of 24 hours or more"
)

const (
	secondsPerDay = 86400
	// unixEpochDays is the number of days from 0000-03-01 to 1970-01-01 in
	// the proleptic Gregorian calendar (the origin of the calendar's
	// arithmetic, in daysFromCivil and civilFromDays).
	unixEpochDays = 719468
	// minUnix and maxUnix bound the wall-clock seconds (Unix time plus the
	// offset) of the years 0000-9999.
	minUnix = -62167219200 // 0000-01-01T00:00:00Z
	maxUnix = 253402300799 // 9999-12-31T23:59:59Z
	// maxOffsetMinutes is the largest RFC 3339 offset, 23:59.
	maxOffsetMinutes = 23*60 + 59
)

// zones caches one *time.Location per RFC 3339 offset, from -23:59 to +23:59
// in minutes, filled lazily: time.FixedZone allocates (except for whole hours
// from -12 to +14, which it caches itself), and a decoder sees few distinct
// offsets, so each costs one allocation the first time and none afterwards.
// The array itself is 23 KiB of pointers; filling all of it at start-up
// would cost 8,600 allocations and 450 KiB (measured), which is why it is not
// done eagerly, and caching only whole, half and quarter hours would leave
// rarer offsets allocating on every call.
var zones [2*maxOffsetMinutes + 1]atomic.Pointer[time.Location]

// fixedZone returns the shared unnamed *time.Location for an offset of
// minutes, which must be within ±maxOffsetMinutes.
func fixedZone(minutes int) *time.Location {
	slot := &zones[minutes+maxOffsetMinutes]
	if loc := slot.Load(); loc != nil {
		return loc
	}
	slot.CompareAndSwap(nil, time.FixedZone("", minutes*60))
	// Whoever won the race, every caller now returns the same pointer.
	return slot.Load()
}

// daysIn is the number of days in each month of a common year.
var daysIn = [13]uint8{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func isLeap(year int) bool {
	return year%4 == 0 && (year%100 != 0 || year%400 == 0)
}

// pow10 holds the factors that scale a fraction of n digits to nanoseconds.
var pow10 = [10]int64{1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1}

// ParseDateTime parses an RFC 3339 date-time as JSON Schema's "date-time"
// format defines it:
//
//	yyyy-mm-ddThh:mm:ss[.f...](Z|+hh:mm|-hh:mm)
//
// with every number field exactly its count of ASCII digits, 'T' and 'Z' in
// either case, a fraction of one or more digits after '.', and a mandatory
// offset of at most 23:59. The date must exist in the proleptic Gregorian
// calendar (years 0000-9999). Nothing may precede or follow it.
//
// The result keeps the offset of the text: time.UTC for 'Z', and for a
// numeric offset an unnamed fixed zone (see time.FixedZone) shared by all
// results with that offset, so parsing allocates nothing once an offset has
// been seen. "-00:00", which RFC 3339 uses for "offset unknown", gives
// time.UTC. Fractions are exact to the nanosecond; further digits must still
// be digits but are truncated.
//
// A leap second, ss = 60, is accepted only where it can occur, when the time
// converted to UTC is 23:59:60; no table of leap seconds is consulted, so any
// date qualifies. Because time.Time cannot hold second 60, a leap second is
// returned as second 59 of the same minute with the same fraction, as
// java.time does: "1998-12-31T23:59:60.5Z" gives 1998-12-31T23:59:59.5Z.
//
// reason is empty on success and otherwise says what is wrong.
func ParseDateTime(b []byte) (t time.Time, reason string) {
	if len(b) < 20 {
		return t, dateTimeLayoutReason(b)
	}
	// Each field is -1 unless both its characters are digits.
	century, yy := twoDigits(b[0:]), twoDigits(b[2:])
	month, day := twoDigits(b[5:]), twoDigits(b[8:])
	hour, minute, sec := twoDigits(b[11:]), twoDigits(b[14:]), twoDigits(b[17:])
	if century|yy|month|day|hour|minute|sec < 0 ||
		b[4] != '-' || b[7] != '-' || b[10] != 'T' && b[10] != 't' || b[13] != ':' || b[16] != ':' {
		return t, dateTimeLayoutReason(b)
	}
	year := century*100 + yy

	// Fraction: keep nine digits, check and drop the rest.
	i := 19
	var nsec int64
	if b[i] == '.' {
		i++
		start := i
		for i < len(b) {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			if i-start < 9 {
				nsec = nsec*10 + int64(c)
			}
			i++
		}
		n := i - start
		if n == 0 {
			return time.Time{}, reasonDTFrac
		}
		if n < 9 {
			nsec *= pow10[n]
		}
	}

	// Offset.
	if i >= len(b) {
		return time.Time{}, reasonDTZone
	}
	var offMinutes int
	var loc *time.Location
	switch b[i] {
	case 'Z', 'z':
		loc = time.UTC
		i++
	case '+', '-':
		if len(b)-i < 6 {
			return time.Time{}, offsetReason(b[i+1:])
		}
		oh, om := twoDigits(b[i+1:]), twoDigits(b[i+4:])
		if oh < 0 || om < 0 || b[i+3] != ':' {
			return time.Time{}, offsetReason(b[i+1:])
		}
		if oh > 23 {
			return time.Time{}, reasonDTOffHRange
		}
		if om > 59 {
			return time.Time{}, reasonDTOffMRange
		}
		offMinutes = oh*60 + om
		if b[i] == '-' {
			offMinutes = -offMinutes
		}
		if offMinutes == 0 && b[i] == '-' {
			loc = time.UTC // "-00:00": offset unknown, time is in UTC
		}
		i += 6
	case ',':
		return time.Time{}, reasonDTComma
	default:
		return time.Time{}, reasonDTZone
	}
	if i != len(b) {
		return time.Time{}, reasonDTTrailing
	}

	// Ranges.
	if month < 1 || month > 12 {
		return time.Time{}, reasonDTMonthRange
	}
	if day < 1 || day > int(daysIn[month]) && !(month == 2 && day == 29 && isLeap(year)) {
		return time.Time{}, reasonDTDayRange
	}
	if hour > 23 {
		return time.Time{}, reasonDTHourRange
	}
	if minute > 59 {
		return time.Time{}, reasonDTMinuteRange
	}
	if sec > 59 {
		if sec > 60 {
			return time.Time{}, reasonDTSecondRange
		}
		// UTC minute of the day must be 23:59; local+1440 keeps it positive.
		if (hour*60+minute-offMinutes+24*60)%(24*60) != 23*60+59 {
			return time.Time{}, reasonDTLeap
		}
		sec = 59
	}

	if loc == nil {
		loc = fixedZone(offMinutes)
	}
	unix := daysFromCivil(year, month, day)*secondsPerDay +
		int64(hour*3600+minute*60+sec-offMinutes*60)
	return time.Unix(unix, nsec).In(loc), ""
}

// dateTimeLayout is the fixed part of a date-time: 'd' stands for a digit,
// 'T' for 'T' or 't'. dateTimeLayoutReasons holds the reason for a mismatch
// at each position.
const dateTimeLayout = "dddd-dd-ddTdd:dd:dd"

var dateTimeLayoutReasons = [len(dateTimeLayout)]string{
	reasonDTYear, reasonDTYear, reasonDTYear, reasonDTYear, reasonDTDash1,
	reasonDTMonth, reasonDTMonth, reasonDTDash2,
	reasonDTDay, reasonDTDay, reasonDTT,
	reasonDTHour, reasonDTHour, reasonDTColon1,
	reasonDTMinute, reasonDTMinute, reasonDTColon2,
	reasonDTSecond, reasonDTSecond,
}

// twoDigits returns the number b[0] and b[1] write in decimal, or -1
// unless both are ASCII digits.
func twoDigits(b []byte) int {
	// Each digit minus '0' is above 9 unless it is an ASCII digit.
	d0, d1 := b[0]-'0', b[1]-'0'
	if d0 > 9 || d1 > 9 {
		return -1
	}
	return int(d0)*10 + int(d1)
}

// dateTimeLayoutReason explains why b is not a date-time: the first
// character that breaks the layout, or, when b is too short for one,
// what is missing.
func dateTimeLayoutReason(b []byte) string {
	for i, c := range b {
		if i >= len(dateTimeLayout) {
			break
		}
		var ok bool
		switch l := dateTimeLayout[i]; l {
		case 'd':
			ok = c-'0' <= 9
		case 'T':
			ok = c == 'T' || c == 't'
		default:
			ok = c == l
		}
		if !ok {
			return dateTimeLayoutReasons[i]
		}
	}
	if len(b) == len(dateTimeLayout) {
		return reasonDTZone
	}
	return reasonDTShort
}

// offsetReason explains an offset that is not hh:mm, cut short or not;
// rest follows the sign.
func offsetReason(rest []byte) string {
	switch {
	case len(rest) < 2 || rest[0]-'0' > 9 || rest[1]-'0' > 9:
		return reasonDTOffHour
	case len(rest) < 3 || rest[2] != ':':
		return reasonDTOffColon
	default:
		return reasonDTOffMinute
	}
}

// daysFromCivil returns the number of days from 1970-01-01 to the given
// proleptic Gregorian date, for years 0 to 9999: Neri and Schneider's
// to_rata_die ("Euclidean affine functions and their application to
// calendar algorithms", 2022), in which every division is by a constant,
// a multiplication and a shift, on numbers kept unsigned by counting
// from 82 cycles of 400 years back.
func daysFromCivil(year, month, day int) int64 {
	const cycles = 82
	j := uint32(0)
	if month <= 2 {
		j = 1 // January and February end the year before, which begins in March
	}
	y := uint32(year) + 400*cycles - j
	m := uint32(month) + 12*j
	c := y / 100
	n := 1461*y/4 - c + c/4 + (979*m-2919)/32 + uint32(day) - 1
	return int64(n) - (unixEpochDays + 146097*cycles)
}

// civilFromDays is the inverse of daysFromCivil, for days in the range of
// years 0 to 9999: Neri and Schneider's to_date (see daysFromCivil).
func civilFromDays(days int64) (year, month, day int) {
	const cycles = 82
	n := uint32(days + unixEpochDays + 146097*cycles)
	n1 := 4*n + 3
	c := n1 / 146097      // the century, from the cycles' start
	nc := n1 % 146097 / 4 // the day of the century
	p2 := 2939745 * uint64(4*nc+3)
	ny := uint32(p2) / 2939745 / 4 // the day of the year, from March 1
	n3 := 2141*ny + 197913
	month, day = int(n3>>16), int(n3&0xffff/2141+1)
	year = int(100*c+uint32(p2>>32)) - 400*cycles
	if ny >= 306 { // January or February, of the next year
		year, month = year+1, month-12
	}
	return year, month, day
}

// DateTimeReason reports whether AppendDateTime writes t as a valid RFC 3339
// date-time that ParseDateTime reads back as t: it returns "" when the year
// in t's location is within 0000-9999 and t's offset is a whole number of
// minutes less than 24 hours in magnitude, and a reason otherwise. Validate
// methods call it on Go values before they are encoded.
func DateTimeReason(t time.Time) string {
	off := 0 // in UTC, as most times are, without looking the zone up
	if t.Location() != time.UTC {
		_, off = t.Zone()
	}
	if off%60 != 0 {
		return reasonDTOffSeconds
	}
	if off <= -secondsPerDay || off >= secondsPerDay {
		return reasonDTOffTooLarge
	}
	if u := t.Unix() + int64(off); u < minUnix || u > maxUnix {
		return reasonDTYearValue
	}
	return ""
}

// AppendDateTime appends t to dst in RFC 3339 form, as time.RFC3339Nano
// does: 'T' between date and time, the fraction of a second with trailing
// zeros trimmed (none when it is zero), then 'Z' when t's location is
// time.UTC and the numeric offset +hh:mm or -hh:mm otherwise (so a time
// parsed from "+00:00" is written back as "+00:00"). It does not allocate
// when dst has room for 35 more bytes.
//
// The output is a valid date-time only when DateTimeReason(t) is ""; when it
// is not, AppendDateTime still writes every field faithfully rather than a
// different instant: a year outside 0000-9999 with a sign or more digits, as
// time.Time.Format does, and an offset with seconds as +hh:mm:ss.
func AppendDateTime(dst []byte, t time.Time) []byte {
	dst, _ = AppendDateTimeReason(dst, t)
	return dst
}

// AppendDateTimeReason is AppendDateTime, also returning DateTimeReason(t):
// the checks of the one are those the other makes to choose how to write
// t, for a writer that must fail on a time it cannot write as a valid
// date-time and writes it all the same.
func AppendDateTimeReason(dst []byte, t time.Time) ([]byte, string) {
	off := 0 // in UTC, as most times are, without looking the zone up
	if t.Location() != time.UTC {
		_, off = t.Zone()
	}
	u := t.Unix() + int64(off)
	if u < minUnix || u > maxUnix || off%60 != 0 || off <= -secondsPerDay || off >= secondsPerDay {
		return appendDateTimeSlow(dst, t, off), DateTimeReason(t)
	}
	// Counted from minUnix, u is not negative: unsigned division is cheaper.
	su := uint64(u - minUnix)
	days := int64(su/secondsPerDay) + minUnix/secondsPerDay
	secs := uint32(su % secondsPerDay)
	year, month, day := civilFromDays(days)

	const maxLen = len("2006-01-02T15:04:05.999999999-07:00")
	n := len(dst)
	dst = slices.Grow(dst, maxLen)
	out := dst[n : n+maxLen : n+maxLen]
	put2(out[0:2], year/100)
	put2(out[2:4], year%100)
	out[4] = '-'
	i := 5 + putMonthOn((*[24]byte)(out[5:29]), month, day, secs, uint32(t.Nanosecond()))
	i = putOffset(out, i, t, off)
	return dst[:n+i], ""
}

// putMonthOn writes a date-time from its month to its fraction of a
// second, "01-02T15:04:05.999999999" without the fraction's trailing
// zeros, nor its dot when ns is 0, in b, and returns its length. secs
// is the second of the day, ns the nanosecond of the second: unsigned,
// since dividing them then takes a multiplication.
func putMonthOn(b *[24]byte, month, day int, secs, ns uint32) int {
	put2(b[0:2], month)
	b[2] = '-'
	put2(b[3:5], day)
	b[5] = 'T'
	put2(b[6:8], int(secs/3600))
	b[8] = ':'
	put2(b[9:11], int(secs/60%60))
	b[11] = ':'
	put2(b[12:14], int(secs%60))
	if ns == 0 {
		return 14
	}
	b[14] = '.'
	b[15] = byte('0' + ns/1e8)
	put2(b[16:18], int(ns/1e6%100))
	put2(b[18:20], int(ns/1e4%100))
	put2(b[20:22], int(ns/1e2%100))
	put2(b[22:24], int(ns%100))
	// The trailing zeros of the last eight digits, counted at once: in
	// little-endian order the last digit is the highest byte. The first
	// digit is not 0 when all eight are, since ns is not.
	zeros := binary.LittleEndian.Uint64(b[16:24]) ^ 0x3030303030303030
	return 24 - bits.LeadingZeros64(zeros)/8
}

// putOffset writes 'Z' or ±hh:mm at out[i:] and returns the new end.
func putOffset(out []byte, i int, t time.Time, off int) int {
	if t.Location() == time.UTC {
		out[i] = 'Z'
		return i + 1
	}
	out[i] = '+'
	if off < 0 {
		out[i] = '-'
		off = -off
	}
	put2(out[i+1:i+3], off/3600)
	out[i+3] = ':'
	put2(out[i+4:i+6], off/60%60)
	return i + 6
}

// digitPairs holds "00" to "99".
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// put2 writes v, which must be within 0-99, as two digits.
func put2(b []byte, v int) {
	i := uint(v) % 100 * 2
	b[0], b[1] = digitPairs[i], digitPairs[i+1]
}

// appendDateTimeSlow writes the times that DateTimeReason rejects. It is
// off the hot path, but still does not allocate given room in dst.
func appendDateTimeSlow(dst []byte, t time.Time, off int) []byte {
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	if year < 0 {
		dst = append(dst, '-')
		year = -year
	}
	for p := 1000; p > 1 && year < p; p /= 10 {
		dst = append(dst, '0')
	}
	dst = strconv.AppendInt(dst, int64(year), 10)
	var buf [24]byte
	secs := uint32(hour*3600 + minute*60 + sec)
	n := putMonthOn(&buf, int(month), day, secs, uint32(t.Nanosecond()))
	dst = append(append(dst, '-'), buf[:n]...)
	if t.Location() == time.UTC {
		return append(dst, 'Z')
	}
	if off < 0 {
		dst = append(dst, '-')
		off = -off
	} else {
		dst = append(dst, '+')
	}
	if off/3600 < 10 {
		dst = append(dst, '0')
	}
	dst = strconv.AppendInt(dst, int64(off/3600), 10)
	put2(buf[1:3], off/60%60)
	buf[0] = ':'
	dst = append(dst, buf[:3]...)
	if off%60 != 0 {
		put2(buf[1:3], off%60)
		dst = append(dst, buf[:3]...)
	}
	return dst
}
