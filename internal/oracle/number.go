package oracle

import (
	"math/big"
	"strings"
)

// decimal is the exact value of a JSON number literal, in lowest terms:
// (-1)^neg × digits × 10^exp, where digits has neither leading nor trailing
// zeros. Zero is the empty digits. Reading it needs no big arithmetic, so it
// is safe on any literal, 1e999999999 included.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExp bounds the magnitude of exponents while a literal is read: beyond
// it every exponent has the same meaning to the oracle (far out of range),
// and keeping them there keeps the arithmetic inside int64.
const maxExp = 1 << 60

// parseDecimal reads a JSON number literal, which the caller has already
// checked against the JSON grammar.
func parseDecimal(lit string) (d decimal, writtenExp int64) {
	s := lit
	if strings.HasPrefix(s, "-") {
		d.neg = true
		s = s[1:]
	}
	mant, expText, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	if expText != "" {
		sign := int64(1)
		switch expText[0] {
		case '-':
			sign = -1
			expText = expText[1:]
		case '+':
			expText = expText[1:]
		}
		for _, c := range strings.TrimLeft(expText, "0") {
			writtenExp = writtenExp*10 + int64(c-'0')
			if writtenExp > maxExp {
				writtenExp = maxExp
				break
			}
		}
		writtenExp *= sign
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return decimal{}, writtenExp
	}
	trimmed := strings.TrimRight(digits, "0")
	d.digits = trimmed
	d.exp = writtenExp - int64(len(frac)) + int64(len(digits)-len(trimmed))
	return d, writtenExp
}

func (d decimal) isZero() bool { return d.digits == "" }

// isInt reports whether d is a mathematical integer.
func (d decimal) isInt() bool { return d.isZero() || d.exp >= 0 }

// intDigits is the number of digits of the integer part of |d|, or zero or
// less if |d| < 1.
func (d decimal) intDigits() int64 { return int64(len(d.digits)) + d.exp }

// fitsInt64 reports whether d is an integer in [math.MinInt64, math.MaxInt64].
func (d decimal) fitsInt64() bool {
	if d.isZero() {
		return true
	}
	if d.exp < 0 || d.intDigits() > 19 {
		return false // not an integer, or |d| >= 10^19 > 2^63
	}
	n, _ := new(big.Int).SetString(d.digits+strings.Repeat("0", int(d.exp)), 10)
	if d.neg {
		n.Neg(n)
	}
	return n.IsInt64()
}

// standInLimit is where the oracle stops trusting math/big with a literal:
// a written exponent larger than this in magnitude, or a literal longer than
// this many bytes.
const standInLimit = 1000

// standInDigits is how many integer digits a stand-in keeps exactly.
const standInDigits = 400

// needsStandIn reports whether the literal would cost the validator too
// much to read exactly.
func needsStandIn(lit string, writtenExp int64) bool {
	return len(lit) > standInLimit || writtenExp > standInLimit || writtenExp < -standInLimit
}

// standIn returns a short literal that agrees with d in sign, zero-ness,
// integrality and order relative to every integer of magnitude below
// 10^standInDigits: the exact value when d is an integer of at most
// standInDigits digits; otherwise ±1e400 for a larger integer, and for a
// non-integer its integer part (capped the same way) followed by ".5".
func standIn(d decimal) string {
	if d.isZero() {
		return "0"
	}
	sign := ""
	if d.neg {
		sign = "-"
	}
	k := d.intDigits()
	if k > standInDigits {
		if d.isInt() {
			return sign + "1e400"
		}
		return sign + "1" + strings.Repeat("0", standInDigits) + ".5"
	}
	if d.isInt() {
		return sign + d.digits + strings.Repeat("0", int(d.exp))
	}
	intPart := "0"
	if k > 0 {
		intPart = d.digits[:k]
	}
	return sign + intPart + ".5"
}
