package format

import "testing"

// daysFromCivilHinnant and civilFromDaysHinnant are daysFromCivil and
// civilFromDays as they were, by Howard Hinnant's algorithms: the
// reference Neri and Schneider's are held to.
func daysFromCivilHinnant(year, month, day int) int64 {
	y := year + 400
	if month <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := month + 9
	if month > 2 {
		mp = month - 3
	}
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era*146097+doe) - unixEpochDays - 146097
}

func civilFromDaysHinnant(days int64) (year, month, day int) {
	z := uint32(days + unixEpochDays + 146097)
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = int(doy - (153*mp+2)/5 + 1)
	month = int(mp + 3)
	if mp >= 10 {
		month = int(mp - 9)
	}
	year = int(yoe+era*400) - 400
	if month <= 2 {
		year++
	}
	return year, month, day
}

// TestCivilDaysEveryDay holds daysFromCivil and civilFromDays to the
// algorithms they replaced on every day of the years 0 to 9999, and to
// each other.
func TestCivilDaysEveryDay(t *testing.T) {
	first, last := daysFromCivilHinnant(0, 1, 1), daysFromCivilHinnant(9999, 12, 31)
	if first != minUnix/secondsPerDay || last != maxUnix/secondsPerDay {
		t.Fatalf("the years 0 to 9999 are days %d to %d, want %d to %d", first, last, minUnix/secondsPerDay, maxUnix/secondsPerDay)
	}
	for days := first; days <= last; days++ {
		y, m, d := civilFromDays(days)
		wy, wm, wd := civilFromDaysHinnant(days)
		if y != wy || m != wm || d != wd {
			t.Fatalf("civilFromDays(%d) = %d-%d-%d, want %d-%d-%d", days, y, m, d, wy, wm, wd)
		}
		if got := daysFromCivil(y, m, d); got != days {
			t.Fatalf("daysFromCivil(%d, %d, %d) = %d, want %d", y, m, d, got, days)
		}
		if got := daysFromCivilHinnant(y, m, d); got != days {
			t.Fatalf("the reference's daysFromCivil(%d, %d, %d) = %d, want %d", y, m, d, got, days)
		}
	}
}
