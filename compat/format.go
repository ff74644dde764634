package compat

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/internal/format"
)

// formats are the formats the checker knows, each judged as the generated
// decoders judge it (internal/format).
var formats = map[string]func(string) bool{
	"uuid":      func(s string) bool { _, why := format.ParseUUID([]byte(s)); return why == "" },
	"date-time": func(s string) bool { _, why := format.ParseDateTime([]byte(s)); return why == "" },
	"date":      func(s string) bool { return format.CheckDate(s) == "" },
	"time":      func(s string) bool { return format.CheckTime(s) == "" },
	"duration":  func(s string) bool { return format.CheckDuration(s) == "" },
	"email":     func(s string) bool { return format.CheckEmail(s) == "" },
	"hostname":  func(s string) bool { return format.CheckHostnameASCII(s) == "" },
	"ipv4":      func(s string) bool { return format.CheckIPv4(s) == "" },
	"ipv6":      func(s string) bool { return format.CheckIPv6(s) == "" },
	"uri":       func(s string) bool { return format.CheckURI(s) == "" },
}

// formatNames lists the formats for messages, as the package doc does.
const formatNames = "uuid, date-time, date, time, duration, email, hostname, ipv4, ipv6 and uri"

// The candidates of a format: for the verdict of two nodes on a string,
// what counts is the formats it has and the cell of lengths it falls in.
// One string of each format in each cell is enough where the formats are
// nested or apart, as they are: a date, a short duration, an IPv4
// address and a uuid are host names, and nothing else is in two of them
// but some IPv6 addresses that are URIs. So each format's strings are
// written in a shape no other format has, where one exists (a host name
// of letters; an IPv6 address starting "::", never a URI), and the
// lengths where a format stops being another (a label of 64 characters,
// a name of 254) start cells of their own.

// formatCuts returns the lengths at which what the formats of a and b
// accept changes beyond their own shapes.
func formatCuts(a, b *node) []int {
	for _, n := range []*node{a, b} {
		if n != nil && n.format != "" && n.format != "uuid" && n.format != "date-time" {
			return []int{64, 254}
		}
	}
	return nil
}

// ofLength returns the i-th string of format f of length l, false if
// there is none.
func ofLength(f string, i, l int) (string, bool) {
	letter := func(k int) string { return string(rune('a' + (i+k)%26)) }
	switch f {
	case "date":
		if l != 10 {
			return "", false
		}
		return fmt.Sprintf("%04d-%02d-%02d", 2019+i/336%7000, 1+i/28%12, 1+i%28), true
	case "time":
		switch {
		case l == 9:
			return fmt.Sprintf("%02d:%02d:%02dZ", i/3600%24, i/60%60, i%60), true
		case l >= 11:
			return "00:00:00." + number(i, l-10) + "Z", true
		}
	case "duration":
		if l >= 3 {
			return "P" + number(i, l-2) + "D", true
		}
	case "email":
		if l >= 3 && l <= 2+64 {
			return strings.Repeat(letter(0), l-2) + "@" + letter(1), true
		}
		if l > 2+64 && l <= 1+64+253 {
			host, _ := ofLength("hostname", i+1, l-65)
			return strings.Repeat(letter(0), 64) + "@" + host, true
		}
	case "hostname":
		if l < 1 || l > 253 {
			return "", false
		}
		var b strings.Builder
		for rest := l; rest > 0; {
			n := min(rest, 63)
			if rest-n == 1 {
				n-- // no empty label after the dot
			}
			b.WriteString(strings.Repeat(letter(b.Len()), n))
			if rest -= n; rest > 0 {
				b.WriteByte('.')
				rest--
			}
		}
		return b.String(), true
	case "ipv4":
		if l < 7 || l > 15 {
			return "", false
		}
		var parts [4]string
		extra := l - 7
		for k := range parts {
			d := min(extra, 2)
			extra -= d
			parts[k] = [3]string{strconv.Itoa(1 + (i+k)%9), strconv.Itoa(10 + (i+k)%90), strconv.Itoa(100 + (i+k)%156)}[d]
		}
		return strings.Join(parts[:], "."), true
	case "ipv6":
		if l == 2 {
			return "::", true
		}
		// "::" and k groups of one to four hex digits.
		for k := 1; k <= 7; k++ {
			lo, hi := 2+k+k-1, 2+4*k+k-1
			if l < lo || l > hi {
				continue
			}
			digits := l - 2 - (k - 1)
			groups := make([]string, k)
			for g := range groups {
				n := min(4, digits-(k-1-g)) // leave one for each group after
				digits -= n
				groups[g] = strings.Repeat(string("123456789abcdef"[(i+g)%15]), n)
			}
			return "::" + strings.Join(groups, ":"), true
		}
	case "uri":
		if l >= 2 {
			return letter(0) + ":" + strings.Repeat(letter(1), l-2), true
		}
	}
	return "", false
}

// number returns a decimal number of n digits, the i-th of them.
func number(i, n int) string {
	s := strconv.Itoa(i)
	if len(s) >= n {
		return s[len(s)-n:]
	}
	return "1" + strings.Repeat("0", n-1-len(s)) + s
}
