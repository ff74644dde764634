package wire

import "testing"

// BenchmarkString measures how the encoder writes a string: one that it
// copies as it is, and ones that need a closer look (characters past
// ASCII, escapes). Run:
//
//	go test -run '^$' -bench '^BenchmarkString$' ./internal/wire
func BenchmarkString(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"plain", "depot 17, Rotterdam, loading bay 4"},
		{"accented", "dépôt 17, Rotterdam-Süd, quai de chargement n° 4"},
		{"escaped", "line one\nline two\t\"quoted\" \\ end"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var e Encoder
			for b.Loop() {
				e.B = e.B[:0]
				e.String(c.s)
			}
		})
	}
}
