package format

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCompareNumbers pins exact comparison against big.Rat, which reads
// the same literals exactly, over spellings of equal and near values.
func TestCompareNumbers(t *testing.T) {
	nums := []string{"0", "-0", "0.0", "1", "1.0", "10e-1", "1e0", "0.1e1", "-1", "-1.5", "1.5",
		"1.50", "15e-1", "2", "100", "1e2", "99.99999999999999999999", "1e-400", "-1e-400", "1e400",
		"-1e400", "123456789012345678901234567890", "1.00000000000000001", "1.00000000000000002", "0.015", "1.5e-2"}
	for _, a := range nums {
		for _, b := range nums {
			ra, _ := new(big.Rat).SetString(a)
			rb, _ := new(big.Rat).SetString(b)
			assert.Equal(t, ra.Cmp(rb), CompareNumbers([]byte(a), []byte(b)), "%s vs %s", a, b)
		}
	}
}

// TestMultipleOf pins multipleOf in exact decimal arithmetic: 0.3 is a
// multiple of 0.1, which floating point denies, and huge exponents cost
// no more than their digits.
func TestMultipleOf(t *testing.T) {
	for _, tc := range []struct {
		x, factor string
		want      bool
	}{
		{"0.3", "0.1", true},
		{"0.31", "0.1", false},
		{"4.5", "1.5", true},
		{"35", "1.5", false},
		{"0.0075", "0.0001", true},
		{"0.00751", "0.0001", false},
		{"1e308", "0.123456789", false},
		{"1e1000000000", "2", true},
		{"3e1000000000", "3", true},
		{"1e1000000000", "3", false},
		{"1e-1000000000", "1e-8", false},
		{"-7", "7", true},
		{"0", "0.7", true},
		{"19.99", "0.01", true},
		{"12391239123", "1e-8", true},
	} {
		got, ok := NewFactor(tc.factor).MultipleOf([]byte(tc.x))
		assert.True(t, ok)
		assert.Equal(t, tc.want, got, "%s multipleOf %s", tc.x, tc.factor)
	}
	long := "1" + strings.Repeat("3", MaxMultipleDigits)
	_, ok := NewFactor("2").MultipleOf([]byte(long))
	assert.False(t, ok, "a number of more than MaxMultipleDigits digits is beyond the limit")
	got, ok := NewFactor("3").MultipleOf([]byte(long[:MaxMultipleDigits]))
	assert.True(t, ok)
	assert.False(t, got)
}
