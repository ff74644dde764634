// Package goname turns the member names of a JSON Schema into exported Go
// names, for the generator (gen) and the benchmarks' baseline generator
// (bench/internal/plaingen), so that both name a member's field alike.
package goname

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// initialisms are written in capitals in Go names, as Go writes ID and URL.
var initialisms = map[string]bool{
	"id": true, "imei": true, "iccid": true, "vin": true, "uuid": true,
	"url": true, "uri": true, "json": true, "http": true, "api": true,
}

// Exported turns a snake_case member name into an exported Go name: each
// part between '_', '-' or '.' begins with a capital, and an initialism is
// all capitals ("message_id" is MessageID).
func Exported(name string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if initialisms[part] {
			b.WriteString(strings.ToUpper(part))
			continue
		}
		r, n := utf8.DecodeRuneInString(part)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(part[n:])
	}
	return b.String()
}
