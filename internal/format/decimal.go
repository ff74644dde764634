package format

import (
	"math/big"
)

// A decimal is a JSON number literal read as its exact value: the sign,
// the significant digits (the first and last that are not zero) and the
// exponent of the first, so that the value is 0.d₁d₂…dₙ × 10^exp.
type decimal struct {
	b              []byte
	p              numberParts
	intLen, n      int // digits before the point; significant digits
	first          int // index of the first significant digit among all
	exp            int64
	neg, zero, bad bool
}

func readDecimal(b []byte) decimal {
	p, ok := scanNumber(b)
	d := decimal{b: b, p: p, bad: !ok}
	if !ok {
		return d
	}
	d.intLen = p.intEnd - p.intStart
	all := d.intLen
	if p.hasFrac {
		all += p.fracEnd - p.intEnd - 1
	}
	first, last := -1, -1
	for s := 0; s < all; s++ {
		if d.digit(s) != '0' {
			if first < 0 {
				first = s
			}
			last = s
		}
	}
	if first < 0 {
		d.zero = true
		return d
	}
	d.neg = p.neg
	d.first, d.n = first, last-first+1
	d.exp = int64(d.intLen-first) + p.exp
	return d
}

// digit returns the s-th digit of the mantissa, the point left out.
func (d *decimal) digit(s int) byte {
	if s < d.intLen {
		return d.b[d.p.intStart+s]
	}
	return d.b[d.p.intEnd+1+s-d.intLen]
}

// sig returns the i-th significant digit, '0' past the last.
func (d *decimal) sig(i int) byte {
	if i >= d.n {
		return '0'
	}
	return d.digit(d.first + i)
}

// CompareNumbers compares the values of two JSON number literals
// exactly, as -1, 0 or +1, whatever their spelling (1, 1.0 and 10e-1 are
// equal) and without floating point; it never allocates. A text that is
// not a number compares below every number.
func CompareNumbers(a, b []byte) int {
	x, y := readDecimal(a), readDecimal(b)
	switch {
	case x.bad || y.bad:
		return boolCmp(!x.bad, !y.bad)
	case x.zero && y.zero:
		return 0
	case x.zero:
		return -sign(!y.neg)
	case y.zero:
		return sign(!x.neg)
	case x.neg != y.neg:
		return sign(y.neg)
	}
	m := 0 // the comparison of magnitudes
	switch {
	case x.exp < y.exp:
		m = -1
	case x.exp > y.exp:
		m = 1
	default:
		for i := 0; i < max(x.n, y.n); i++ {
			if c, d := x.sig(i), y.sig(i); c != d {
				m = -1
				if c > d {
					m = 1
				}
				break
			}
		}
	}
	if x.neg {
		return -m
	}
	return m
}

func sign(pos bool) int {
	if pos {
		return 1
	}
	return -1
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// A Factor is the value of a multipleOf keyword, p/q in lowest terms,
// read once, for MultipleOf.
type Factor struct {
	p, q *big.Int
}

// NewFactor reads a multipleOf value, a positive JSON number literal; it
// panics on anything else, which the generator has refused before.
func NewFactor(s string) *Factor {
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() <= 0 {
		panic("format: multipleOf " + s + " is not a positive number")
	}
	return &Factor{p: new(big.Int).Set(r.Num()), q: new(big.Int).Set(r.Denom())}
}

// MaxMultipleDigits is how many significant digits a number may have
// for MultipleOf to decide it: beyond, the arithmetic would cost more
// than a small factor of the input, and the library refuses the number
// instead, a documented limit.
const MaxMultipleDigits = 10000

// MultipleOf reports whether the JSON number literal b is an integer
// multiple of f, exactly: x = X × 10^e is a multiple of p/q exactly when
// p × 10^-e divides X × q (e < 0), or p divides X × 10^e (e ≥ 0). ok is
// false, and the answer unknown, when b has more than MaxMultipleDigits
// significant digits. The cost grows with the digits of b and of f, not
// with b's exponent: 1e1000000000 costs what 1 does.
func (f *Factor) MultipleOf(b []byte) (multiple, ok bool) {
	d := readDecimal(b)
	if d.bad {
		return false, true
	}
	if d.zero {
		return true, true
	}
	if d.n > MaxMultipleDigits {
		return false, false
	}
	digits := make([]byte, d.n)
	for i := range digits {
		digits[i] = d.sig(i)
	}
	x, _ := new(big.Int).SetString(string(digits), 10)
	e := d.exp - int64(d.n) // b's value is X × 10^e
	if e >= 0 {
		// X × 10^e mod p, with 10^e taken mod p.
		t := new(big.Int).Exp(big.NewInt(10), big.NewInt(e), f.p)
		t.Mul(t, x)
		return t.Mod(t, f.p).Sign() == 0, true
	}
	// 10^-e alone exceeds X × q when -e is beyond their digits, and then
	// cannot divide it.
	if int64(len(digits)+len(f.q.String())) < -e {
		return false, true
	}
	num := new(big.Int).Mul(x, f.q)
	den := new(big.Int).Mul(f.p, new(big.Int).Exp(big.NewInt(10), big.NewInt(-e), nil))
	return num.Mod(num, den).Sign() == 0, true
}
