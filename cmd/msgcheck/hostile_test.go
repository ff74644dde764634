package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileTexts returns, as JSON string content, every character that could
// end a line or command a terminal if printed as it is: each C0 control
// (escaped, as JSON requires), DEL, each C1 control, the line and
// paragraph separators and a bidirectional override (raw, as JSON
// allows), and bytes that are not UTF-8.
func hostileTexts() map[string]string {
	texts := map[string]string{}
	for c := range 0x20 {
		texts[fmt.Sprintf("C0 %#02x", c)] = fmt.Sprintf(`\u%04x`, c)
	}
	texts["DEL"] = "\x7f"
	for r := rune(0x80); r <= 0x9f; r++ {
		texts[fmt.Sprintf("C1 %U", r)] = string(r)
	}
	texts["LS"], texts["PS"], texts["RLO"] = "\u2028", "\u2029", "\u202e"
	texts["invalid UTF-8 0xff"], texts["invalid UTF-8 0x9b"], texts["invalid UTF-8 0xc3"] = "\xff", "\x9b", "\xc3"
	return texts
}

// forgedLine is what a hostile name or value tries to print: a line of
// its own, in colour, after a carriage return.
const forgedLine = `\r\n\u001b[31mfake.ndjson:1: core.device: forged line`

// TestCheckOutputCannotBeForged: whatever a member name, a value or a file
// name holds, each invalid message is one line of output, with no control
// character in it (issue 12: a name holding "\n" printed a second, forged
// line).
func TestCheckOutputCannotBeForged(t *testing.T) {
	var lines []string
	for _, text := range hostileTexts() {
		for _, s := range []string{text, text + forgedLine, forgedLine + text} {
			lines = append(lines,
				// in a member name, repeated: its path is printed
				`{"message_type":"core.device","`+s+`":1,"`+s+`":2}`,
				// in a value not among those allowed: printed in the message
				`{"message_type":"example.event","type":"`+s+`"}`,
				// in an unknown message_type
				`{"message_type":"`+s+`"}`,
				// after a backslash, an invalid escape
				`{"message_type":"core.device","x":"\`+s+`"}`,
			)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "hostile\n\x1b[31mfake.ndjson:1: forged\r.ndjson")
	require.NoError(t, os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	missing := filepath.Join(dir, "missing\nmsgcheck: forged\x1b[2K.ndjson")

	r := runCheck(t, nil, file, missing)
	assert.Equal(t, 2, r.code)
	out := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, out, len(lines), "one line per invalid message")
	prefix := strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(file, "\n", `\x0a`), "\x1b", `\x1b`), "\r", `\x0d`) + ":"
	for i, line := range out {
		assert.True(t, strings.HasPrefix(line, fmt.Sprintf("%s%d: ", prefix, i+1)), "line %d: %q", i+1, line)
	}
	assertPrintable(t, r.stdout)
	errLines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	require.Len(t, errLines, 2, "the missing file and the summary: %q", r.stderr)
	assert.Contains(t, errLines[0], `missing\x0amsgcheck: forged\x1b[2K.ndjson`)
	assertPrintable(t, r.stderr)
}

// assertPrintable checks that text is UTF-8 with no control character but
// line ends, and none that a terminal acts on.
func assertPrintable(t *testing.T, text string) {
	t.Helper()
	require.True(t, utf8.ValidString(text), "output is UTF-8")
	for i, r := range text {
		bad := r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r == '\u2028' || r == '\u2029' || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
		if bad {
			t.Errorf("control %U at byte %d: %q", r, i, text[max(0, i-60):min(len(text), i+20)])
			return
		}
	}
}
