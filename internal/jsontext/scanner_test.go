package jsontext

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// plainBytewise is Plain's specification: the length of the prefix of b
// with no quote, backslash, control character or non-ASCII byte.
func plainBytewise(b []byte) int {
	for i, c := range b {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return len(b)
}

// TestPlainAgreesWithBytewise puts every byte that needs a look, and its
// plain neighbours, at every position of strings of every length around
// the word size, alone and with a second one after it, so that the word
// loop, the overlapping last word and the short-string loop are each
// held to the bytewise answer.
func TestPlainAgreesWithBytewise(t *testing.T) {
	var special []byte
	for c := range 256 {
		if plainBytewise([]byte{byte(c)}) == 0 || c == ' ' || c == '!' || c == '#' || c == '[' || c == ']' || c == 0x7f {
			special = append(special, byte(c))
		}
	}
	for n := range 33 {
		base := bytes.Repeat([]byte{'a'}, n)
		if got := Plain(base); got != n {
			t.Fatalf("Plain(%q) = %d, want %d", base, got, n)
		}
		for i := range n {
			for _, c := range special {
				b := bytes.Clone(base)
				b[i] = c
				if got, want := Plain(b), plainBytewise(b); got != want {
					t.Fatalf("Plain(%q) = %d, want %d", b, got, want)
				}
				for j := i + 1; j < n; j += 3 {
					b2 := bytes.Clone(b)
					b2[j] = '"'
					if got, want := Plain(b2), plainBytewise(b2); got != want {
						t.Fatalf("Plain(%q) = %d, want %d", b2, got, want)
					}
				}
			}
		}
	}
}

func FuzzPlain(f *testing.F) {
	f.Add([]byte(`depot:0001`))
	f.Add([]byte("a\"b\\c\x00d\xe9"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Plain(b), plainBytewise(b); got != want {
			t.Fatalf("Plain(%q) = %d, want %d", b, got, want)
		}
	})
}
