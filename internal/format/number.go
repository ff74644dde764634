package format

// Reasons reported by ParseInt.
const (
	reasonNotNumber = "not a JSON number"
	reasonNotInt    = "not an integer"
	reasonIntRange  = "out of int64 range"
)

// expCap bounds the exponent that ParseInt accumulates. Beyond it the
// exponent saturates: no input can be long enough (its length is far below
// expCap) for the count of digits to bring a saturated exponent back into
// the range where the answer would differ.
const expCap = 1 << 50

// numberParts is a JSON number literal split by scanNumber: the mantissa's
// digits are b[intStart:intEnd] and, when hasFrac, b[intEnd+1:fracEnd];
// exp is the exponent, saturated at ±expCap.
type numberParts struct {
	neg      bool
	hasFrac  bool
	intStart int
	intEnd   int
	fracEnd  int
	exp      int64
}

// scanNumber splits b according to the JSON number grammar of RFC 8259,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and reports whether all of
// b matched it.
func scanNumber(b []byte) (p numberParts, ok bool) {
	i := 0
	if i < len(b) && b[i] == '-' {
		p.neg = true
		i++
	}
	p.intStart = i
	switch {
	case i >= len(b):
		return p, false
	case b[i] == '0':
		i++
	case b[i]-'1' < 9:
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
	default:
		return p, false
	}
	p.intEnd, p.fracEnd = i, i
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && b[i]-'0' <= 9 {
			i++
		}
		if i == start {
			return p, false
		}
		p.hasFrac, p.fracEnd = true, i
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		negExp := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			negExp = b[i] == '-'
			i++
		}
		start := i
		for i < len(b) && b[i]-'0' <= 9 {
			if p.exp < expCap {
				p.exp = p.exp*10 + int64(b[i]-'0')
			}
			i++
		}
		if i == start {
			return p, false
		}
		if negExp {
			p.exp = -p.exp
		}
	}
	return p, i == len(b)
}

// ValidNumber reports whether b is exactly a JSON number literal as RFC 8259
// defines it: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func ValidNumber(b []byte) bool {
	_, ok := scanNumber(b)
	return ok
}

// ParseInt reads the JSON number literal b as JSON Schema's "integer": a
// number whose mathematical value is an integer, whatever its spelling, so
// "1.0", "1e2", "1500e-2" and "-0" are integers and "1.5" and "1e-1" are not.
//
// isInt reports whether b's value is an integer. reason is empty when it is
// one and fits in an int64, which n then holds (0 for "-0"). Otherwise n is
// 0 and reason says why: "not an integer", "out of int64 range" (with isInt
// true: the library's documented limit), or "not a JSON number" when b does
// not match the JSON number grammar.
//
// The arithmetic is exact decimal arithmetic on the digits, never floating
// point; time is linear in len(b) whatever the exponent, and ParseInt never
// allocates.
func ParseInt(b []byte) (n int64, reason string, isInt bool) {
	// Fast path: an optional '-' and up to 19 plain digits, without a
	// leading zero unless "0" is all there is. 19 digits are below 10^19,
	// which fits in a uint64; the range check comes after.
	digits := b
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 0 && len(digits) <= 19 && (digits[0]-'1' < 9 || len(digits) == 1) {
		var v uint64
		i := 0
		for ; i < len(digits); i++ {
			c := digits[i] - '0'
			if c > 9 {
				break
			}
			v = v*10 + uint64(c)
		}
		if i == len(digits) {
			switch {
			case len(digits) == len(b) && v <= 1<<63-1:
				return int64(v), "", true
			case len(digits) < len(b) && v <= 1<<63:
				return int64(-v), "", true
			default:
				return 0, reasonIntRange, true
			}
		}
	}
	return parseIntSlow(b)
}

func parseIntSlow(b []byte) (n int64, reason string, isInt bool) {
	p, ok := scanNumber(b)
	if !ok {
		return 0, reasonNotNumber, false
	}
	// The value is D × 10^(exp-fracLen), D the mantissa's digits. Drop D's
	// leading and trailing zeros: D = D' × 10^tz, so the value is
	// D' × 10^e with e = exp-fracLen+tz. As D' ends in a non-zero digit, the
	// value is an integer exactly when D' is 0 or e >= 0.
	mEnd := p.fracEnd
	dot := -1 // index of '.', or -1
	if p.hasFrac {
		dot = p.intEnd
	}
	first := p.intStart
	for first < mEnd && (b[first] == '0' || first == dot) {
		first++
	}
	if first == mEnd {
		return 0, "", true // all zeros, whatever the sign and exponent
	}
	last := mEnd - 1
	for b[last] == '0' || last == dot {
		last--
	}
	tz := int64(mEnd - 1 - last)
	if dot > last {
		tz--
	}
	fracLen := int64(0)
	if p.hasFrac {
		fracLen = int64(p.fracEnd - p.intEnd - 1)
	}
	e := p.exp - fracLen + tz
	if e < 0 {
		return 0, reasonNotInt, false
	}
	k := int64(last - first + 1) // digits of D'
	if first < dot && dot < last {
		k--
	}
	// int64 holds at most 19 digits; below that D' × 10^e < 10^19 < 2^64.
	if e > 19 || k+e > 19 {
		return 0, reasonIntRange, true
	}
	var v uint64
	for i := first; i <= last; i++ {
		if i != dot {
			v = v*10 + uint64(b[i]-'0')
		}
	}
	for ; e > 0; e-- {
		v *= 10
	}
	if p.neg {
		if v > 1<<63 {
			return 0, reasonIntRange, true
		}
		return int64(-v), "", true
	}
	if v > 1<<63-1 {
		return 0, reasonIntRange, true
	}
	return int64(v), "", true
}
