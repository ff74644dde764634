package format

import (
	"net/netip"
	"strings"
)

// The string formats beyond uuid and date-time, each a check that returns
// "" when s is of the format and otherwise says what is wrong. Each reads
// the format as RFC 3339, RFC 3986, RFC 5321 and RFC 4291 define it, and
// as the official JSON Schema test suite's optional/format files assert
// it: ASCII digits only, nothing before or after.

// CheckDate checks an RFC 3339 full-date: YYYY-MM-DD, a day that exists.
func CheckDate(s string) string {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return "want YYYY-MM-DD"
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return "want YYYY-MM-DD in ASCII digits"
	}
	if month < 1 || month > 12 {
		return "month out of range"
	}
	if day < 1 || day > int(daysIn[month]) && !(month == 2 && day == 29 && isLeap(year)) {
		return "day out of range for the month"
	}
	return ""
}

// digits reads a run of ASCII digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, len(s) > 0
}

// CheckTime checks an RFC 3339 full-time: HH:MM:SS, a fraction, and an
// offset (Z, in either case, or ±HH:MM); a leap second only where the
// time in UTC is 23:59:60.
func CheckTime(s string) string {
	// A date-time is a date, T and a time: the date-time parser judges the
	// time, leap seconds included, behind any valid date.
	if len(s) < 9 || strings.ContainsAny(s, "Tt") {
		return "want HH:MM:SS and an offset"
	}
	if _, why := ParseDateTime([]byte("2000-01-01T" + s)); why != "" {
		return why
	}
	return ""
}

// CheckDuration checks an ISO 8601 duration as RFC 3339's appendix A
// writes it: P, then years, months and days (each part only after the
// larger ones, none skipped in between), and T with hours, minutes and
// seconds likewise; or weeks alone.
func CheckDuration(s string) string {
	if len(s) < 3 || s[0] != 'P' {
		return "want P and at least one part"
	}
	rest := s[1:]
	if n, ok := cutNumber(rest); ok && n < len(rest) && rest[n] == 'W' {
		if n+1 != len(rest) {
			return "weeks stand alone"
		}
		return ""
	}
	date, tm, hasT := strings.Cut(rest, "T")
	if hasT && tm == "" {
		return "T without a time part"
	}
	if !units(date, "YMD") || !units(tm, "HMS") {
		return "want parts in order, each a number and its unit, none skipped between two"
	}
	return ""
}

// units reports whether s is a run of consecutive parts of order (such
// as D, or M then D, but not Y then D), each digits and its letter.
func units(s, order string) bool {
	start := -1
	last := -1
	for s != "" {
		n, ok := cutNumber(s)
		if !ok || n >= len(s) {
			return false
		}
		i := strings.IndexByte(order, s[n])
		if i < 0 || i <= last || start >= 0 && i != last+1 {
			return false
		}
		if start < 0 {
			start = i
		}
		last = i
		s = s[n+1:]
	}
	return true
}

// cutNumber returns how many ASCII digits s begins with, and whether any.
func cutNumber(s string) (int, bool) {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n, n > 0
}

// CheckIPv4 checks a dotted-quad IPv4 address: four decimal numbers of
// 0 to 255, without leading zeros (which some readers take as octal).
func CheckIPv4(s string) string {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return "want four numbers separated by dots"
	}
	for _, p := range parts {
		n, ok := digits(p)
		if !ok || len(p) > 3 || n > 255 || len(p) > 1 && p[0] == '0' {
			return "want each part a number from 0 to 255 without leading zeros"
		}
	}
	return ""
}

// CheckIPv6 checks an IPv6 address in RFC 4291's text forms, the last 32
// bits possibly as a dotted quad; a zone, brackets or a prefix length are
// not part of an address.
func CheckIPv6(s string) string {
	if !strings.Contains(s, ":") || strings.ContainsAny(s, "%[]/ ") {
		return "not an IPv6 address"
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ':' || c == '.') {
			return "not an IPv6 address"
		}
	}
	if i := strings.LastIndexByte(s, ':'); strings.Contains(s[i:], ".") && CheckIPv4(s[i+1:]) != "" {
		return "its last 32 bits are not a dotted quad"
	}
	if _, err := netip.ParseAddr(s); err != nil {
		return "not an IPv6 address"
	}
	return ""
}

// CheckHostnameASCII checks a host name of RFC 1123 written in ASCII:
// labels of letters, digits and hyphens, 1 to 63 of them, neither
// starting nor ending with a hyphen, 253 characters in all at most.
func CheckHostnameASCII(s string) string {
	if len(s) == 0 || len(s) > 253 {
		return "want 1 to 253 characters"
	}
	for rest, more := s, true; more; {
		var label string
		label, rest, more = strings.Cut(rest, ".")
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return "want labels of 1 to 63 characters, not starting or ending with a hyphen"
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return "want letters, digits and hyphens"
			}
		}
	}
	return ""
}

// CheckEmail checks an RFC 5321 mailbox: a local part (dot-atoms, or a
// quoted string) and a domain (a host name, or an address literal in
// brackets).
func CheckEmail(s string) string {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return "want a local part, @ and a domain"
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return "a local part longer than 64 characters"
	}
	if local[0] == '"' {
		if len(local) < 2 || local[len(local)-1] != '"' {
			return "an unterminated quoted local part"
		}
		q := local[1 : len(local)-1]
		for i := 0; i < len(q); i++ {
			c := q[i]
			switch {
			case c == '\\':
				i++
				if i >= len(q) || q[i] < 32 || q[i] > 126 {
					return "a bad escape in the quoted local part"
				}
			case c == '"' || c < 32 || c > 126:
				return "a character the quoted local part cannot hold"
			}
		}
	} else {
		for _, atom := range strings.Split(local, ".") {
			if atom == "" {
				return "an empty part of the local part (a dot at its start or end, or two together)"
			}
			for i := 0; i < len(atom); i++ {
				if !atext(atom[i]) {
					return "a character the local part cannot hold unquoted"
				}
			}
		}
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		lit := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			if CheckIPv6(v6) != "" {
				return "not an IPv6 address literal"
			}
			return ""
		}
		if CheckIPv4(lit) != "" {
			return "not an IPv4 address literal"
		}
		return ""
	}
	if why := CheckHostnameASCII(domain); why != "" {
		return "domain: " + why
	}
	return ""
}

// atext reports whether c may stand unquoted in a local part (RFC 5322).
func atext(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

// CheckURI checks an RFC 3986 URI: a scheme, then the rest of the
// grammar, every character one it allows and every % followed by two
// hex digits. A relative reference is not a URI.
func CheckURI(s string) string {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 {
		return "want a scheme"
	}
	scheme := s[:colon]
	for i := 0; i < len(scheme); i++ {
		c := scheme[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "a scheme is a letter, then letters, digits, +, - and ."
		}
	}
	rest := s[colon+1:]
	rest, fragment, _ := strings.Cut(rest, "#")
	rest, query, _ := strings.Cut(rest, "?")
	if !uriChars(fragment, "/?:@") || !uriChars(query, "/?:@") {
		return "a character a URI cannot hold in its query or fragment"
	}
	path := rest
	if auth, ok := strings.CutPrefix(rest, "//"); ok {
		authority := auth
		if i := strings.IndexByte(auth, '/'); i >= 0 {
			authority, path = auth[:i], auth[i:]
		} else {
			path = ""
		}
		if why := checkAuthority(authority); why != "" {
			return why
		}
	}
	if !uriChars(path, "/:@") {
		return "a character a URI cannot hold in its path"
	}
	return ""
}

func checkAuthority(a string) string {
	if at := strings.LastIndexByte(a, '@'); at >= 0 {
		if !uriChars(a[:at], ":") {
			return "a character a URI cannot hold in its userinfo"
		}
		a = a[at+1:]
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return "an unterminated IP literal"
		}
		if lit := a[1:end]; CheckIPv6(lit) != "" && !ipvFuture(lit) {
			return "not an IP literal"
		}
		host, port = "", a[end+1:]
		if port != "" && port[0] != ':' {
			return "want a port after the IP literal"
		}
		port = strings.TrimPrefix(port, ":")
	} else if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i+1:]
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return "a port of digits"
		}
	}
	if !uriChars(host, "") {
		return "a character a URI cannot hold in its host"
	}
	return ""
}

// ipvFuture reports whether s is an IPvFuture literal: v, hex digits, a
// dot, and unreserved, sub-delims or ':'.
func ipvFuture(s string) bool {
	if len(s) < 4 || s[0] != 'v' && s[0] != 'V' {
		return false
	}
	dot := strings.IndexByte(s, '.')
	if dot < 2 || dot == len(s)-1 {
		return false
	}
	for i := 1; i < dot; i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return uriChars(s[dot+1:], ":") && !strings.Contains(s, "%")
}

// uriChars reports whether s holds only unreserved characters, sub-
// delims, percent-encodings and the extra ones given.
func uriChars(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		case strings.IndexByte("-._~!$&'()*+,;=", c) >= 0:
		case strings.IndexByte(extra, c) >= 0:
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
