//go:build goexperiment.simd && amd64

package jsontext

import (
	"math/bits"
	"simd/archsimd"
)

// simdPlain reports whether plainEnd uses vector instructions: built
// with GOEXPERIMENT=simd, on a CPU with AVX2.
var simdPlain = archsimd.X86.AVX2()

// plainEnd returns p + Plain(b[p:]), or, if marking, p +
// plainMarking(b[p:]): where the plain bytes of a string whose content
// begins at p end. It goes 32 bytes at a time with AVX2, and through
// plainEndWords for the last 31 bytes of the input or without AVX2.
func plainEnd(b []byte, p int, marking bool) int {
	if simdPlain {
		// As signed bytes, the control characters and those outside
		// ASCII are the ones less than ' '.
		space := archsimd.BroadcastInt8x32(' ')
		quote := archsimd.BroadcastInt8x32('"')
		backslash := archsimd.BroadcastInt8x32('\\')
		for len(b)-p >= 32 {
			v := archsimd.LoadUint8x32Slice(b[p : p+32]).AsInt8x32()
			m := space.Greater(v).Or(v.Equal(quote)).Or(v.Equal(backslash))
			if marking {
				m = m.Or(v.Equal(archsimd.BroadcastInt8x32('<'))).
					Or(v.Equal(archsimd.BroadcastInt8x32('>'))).
					Or(v.Equal(archsimd.BroadcastInt8x32('&')))
			}
			if f := m.ToBits(); f != 0 {
				return p + bits.TrailingZeros32(f)
			}
			p += 32
		}
	}
	return plainEndWords(b, p, marking)
}
