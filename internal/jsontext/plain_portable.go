//go:build !(goexperiment.simd && amd64)

package jsontext

// plainEnd returns p + Plain(b[p:]), or, if marking, p +
// plainMarking(b[p:]): where the plain bytes of a string whose content
// begins at p end. Built with GOEXPERIMENT=simd on amd64, it goes 32
// bytes at a time instead (see plain_simd.go).
func plainEnd(b []byte, p int, marking bool) int {
	return plainEndWords(b, p, marking)
}

// simdPlain reports whether plainEnd uses vector instructions.
const simdPlain = false
