package jsontext

import "testing"

// TestPlainShortEveryByte holds the byte-at-a-time loop of Plain, which
// reads a string shorter than a word through the table looks, to the
// bytewise answer for every byte value at every place of such strings.
func TestPlainShortEveryByte(t *testing.T) {
	for n := 1; n < 8; n++ {
		for i := range n {
			for c := range 256 {
				b := []byte("abcdefg"[:n])
				b[i] = byte(c)
				if got, want := Plain(b), plainBytewise(b); got != want {
					t.Fatalf("Plain(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}
