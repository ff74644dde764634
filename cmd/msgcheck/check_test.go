package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/cmdtest"
)

// One message of each schema, valid, each with the message_type that routes
// it (an event's is an extra member, which the schema allows).
const (
	validDevice      = `{"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","message_type":"core.device","source_id":"dev-1","source_type":"tracker","tenant_id":"club-1","time":"2026-03-01T08:00:00Z","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","external_id":"ext-1","imei":"490154203237518"}`
	validVehicle     = `{"message_id":"2d3f8c74-5e69-4b2a-8a3f-9c8e7d6a5b43","message_type":"core.vehicle","source_id":"7b2e5c7a-0b7d-4e3a-9c5b-2f4d9e1a3c66","source_type":"CORE","tenant_id":"club-1","time":"2026-03-01T08:00:10Z","vehicle_id":"7b2e5c7a-0b7d-4e3a-9c5b-2f4d9e1a3c66"}`
	validAssociation = `{"message_id":"3e4a9d85-6f7a-4c3b-9b4a-ad9f8e7b6c54","message_type":"core.association","source_id":"dev-1","tenant_id":"club-1","time":"2026-03-01T08:00:15Z","association_id":"8c3f6d8b-1c8e-4f4b-8d6c-3a5e0f2b4d77","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44"}`
	validEvent       = `{"message_type":"example.event","id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65","type":"created","occurred_at":"2026-03-01T08:00:20Z"}`

	// A device with a wrong IMEI check digit and no external_id.
	invalidDevice       = `{"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","message_type":"core.device","source_id":"dev-1","source_type":"tracker","tenant_id":"club-1","time":"2026-03-01T08:00:00Z","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","imei":"490154203237519"}`
	invalidDeviceReport = `core.device: /imei: not an IMEI: check digit is 9, want 8; /external_id: required member is missing`
	// An event whose priority is out of bounds.
	invalidEvent       = `{"message_type":"example.event","id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65","type":"created","occurred_at":"2026-03-01T08:00:20Z","priority":10}`
	invalidEventReport = `example.event: /priority: want at most 9, got 10`
)

// summaryLine is the line check ends with on stderr.
var summaryLine = regexp.MustCompile(`^msgcheck: (\d+) messages?, (\d+) valid, (\d+) invalid, [\d.]+ (B|kB|MB|GB) in [\d.]+m?s \([\d.]+ (B|kB|MB|GB)/s, \d+ messages/s\)$`)

// result is how a test sees one run of msgcheck.
type result struct {
	stdout, stderr string
	code           int
}

// summary checks that stderr is the summary line after any lines of want
// before it, and returns the counts it gives: messages, valid, invalid.
func (r result) summary(t *testing.T, want ...string) [3]string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	require.True(t, strings.HasSuffix(r.stderr, "\n"), "stderr ends with a line end: %q", r.stderr)
	before := lines[:len(lines)-1]
	if len(before) == 0 {
		before = nil
	}
	require.Equal(t, want, before, "stderr before the summary")
	m := summaryLine.FindStringSubmatch(lines[len(lines)-1])
	require.NotNil(t, m, "summary line: %q", lines[len(lines)-1])
	return [3]string{m[1], m[2], m[3]}
}

// runCheck runs msgcheck check with args, stdin as its standard input,
// within a time limit. GOMAXPROCS=8 makes the stream judged by several
// workers even on a small machine.
func runCheck(t *testing.T, stdin io.Reader, args ...string) result {
	t.Helper()
	return runMsgcheck(t, 30*time.Second, func(cmd *exec.Cmd) {
		cmd.Stdin = stdin
		cmd.Env = append(os.Environ(), "GOMAXPROCS=8")
	}, append([]string{"check"}, args...)...)
}

// writeFile writes the lines, each ended by "\n", to a file in a new
// temporary directory, and returns its path.
func writeFile(t *testing.T, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return path
}

func TestCheckAllValidExits0AndPrintsOnlyTheSummary(t *testing.T) {
	file := writeFile(t, "valid.ndjson", validDevice, validVehicle, "", validAssociation, validEvent)
	r := runCheck(t, nil, file)
	assert.Equal(t, 0, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, [3]string{"4", "4", "0"}, r.summary(t))
}

// TestCheckLineFormat pins the whole output on a small stream: only the
// invalid messages, as FILE:LINE: SCHEMA: violation; violation; with "?"
// for the schema where none could be chosen and (root) for the document.
func TestCheckLineFormat(t *testing.T) {
	file := writeFile(t, "mixed.ndjson",
		validDevice,
		invalidDevice,
		"",
		`{"id":`,
		`{"message_type":"core.driver"}`,
		`[]`,
		validEvent,
		`{"id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65","type":"created","occurred_at":"2026-03-01T08:00:20Z"}`,
		invalidEvent,
	)
	r := runCheck(t, nil, file)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, ""+
		file+":2: "+invalidDeviceReport+"\n"+
		file+":4: ?: (root): unexpected end of input, want a value at byte offset 6\n"+
		file+`:5: ?: /message_type: unknown message type "core.driver" (known types: core.association, core.device, core.vehicle, example.event)`+"\n"+
		file+":6: ?: (root): want an object, got an array\n"+
		file+":8: ?: /message_type: no message_type member: the message does not name its schema (known types: core.association, core.device, core.vehicle, example.event)\n"+
		file+":9: "+invalidEventReport+"\n",
		r.stdout)
	assert.Equal(t, [3]string{"8", "2", "6"}, r.summary(t))
}

func TestCheckSchemaFlagJudgesEveryMessageByThatSchema(t *testing.T) {
	noType := `{"id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65","type":"created","occurred_at":"2026-03-01T08:00:20Z"}`
	file := writeFile(t, "events.ndjson", noType, validEvent, `{"id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65","type":"created"}`, validDevice)
	r := runCheck(t, nil, "-schema", "example.event", file)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, ""+
		file+":3: example.event: /occurred_at: required member is missing\n"+
		file+":4: example.event: /id: required member is missing; /type: required member is missing; /occurred_at: required member is missing\n",
		r.stdout, "message_type is ignored: the device is judged as an event")
	assert.Equal(t, [3]string{"4", "2", "2"}, r.summary(t))
}

// TestCheckSchemaFlagTakesAVersion pins that -schema NAME@VERSION judges
// by that version (the published catalogue has only 1.0 of each schema;
// that the version is judged by exactly its own file is pinned on the
// fixture catalogue, in package catalogue).
func TestCheckSchemaFlagTakesAVersion(t *testing.T) {
	file := writeFile(t, "events.ndjson", validEvent, validDevice)
	r := runCheck(t, nil, "-schema", "example.event@1.0", file)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, file+":2: example.event: /id: required member is missing; /type: required member is missing; /occurred_at: required member is missing\n", r.stdout)
	assert.Equal(t, [3]string{"2", "1", "1"}, r.summary(t))
}

// jsonLine is one line of check -json, as a consumer reads it.
type jsonLine struct {
	File       string `json:"file"`
	Line       int    `json:"line"`
	Schema     string `json:"schema"`
	Valid      bool   `json:"valid"`
	Violations []struct {
		Path    string  `json:"path"`
		Rule    string  `json:"rule"`
		Message string  `json:"message"`
		Value   *string `json:"value"`
	} `json:"violations"`
}

func TestCheckJSONGivesAnObjectPerMessage(t *testing.T) {
	file := writeFile(t, "mixed.ndjson", validDevice, "", invalidDevice, `{not json`, validEvent)
	r := runCheck(t, nil, "-json", file)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, [3]string{"4", "2", "2"}, r.summary(t))

	raw := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, raw, 4, "one object per message, valid ones included, none for the blank line")
	got := make([]jsonLine, len(raw))
	for i, line := range raw {
		require.NoError(t, json.Unmarshal([]byte(line), &got[i]), line)
		assert.Equal(t, file, got[i].File)
	}
	assert.Equal(t, []int{1, 3, 4, 5}, []int{got[0].Line, got[1].Line, got[2].Line, got[3].Line})
	assert.Equal(t, []bool{true, false, false, true}, []bool{got[0].Valid, got[1].Valid, got[2].Valid, got[3].Valid})
	assert.Equal(t, []string{"core.device", "core.device", "", "example.event"},
		[]string{got[0].Schema, got[1].Schema, got[2].Schema, got[3].Schema}, `"" where no schema could be chosen`)

	assert.NotContains(t, raw[0], "violations", "a valid message has no violations member")
	assert.NotContains(t, raw[3], "violations")

	v := got[1].Violations
	require.Len(t, v, 2)
	assert.Equal(t, "/imei", v[0].Path)
	assert.Equal(t, "imei", v[0].Rule)
	assert.Equal(t, "not an IMEI: check digit is 9, want 8", v[0].Message)
	require.NotNil(t, v[0].Value)
	assert.Equal(t, `"490154203237519"`, *v[0].Value, "the offending JSON text")
	assert.Equal(t, "/external_id", v[1].Path)
	assert.Equal(t, "required", v[1].Rule)
	assert.Nil(t, v[1].Value, "no value for a missing member")

	require.Len(t, got[2].Violations, 1)
	assert.Equal(t, "", got[2].Violations[0].Path, "the document's pointer is empty")
	assert.Equal(t, "syntax", got[2].Violations[0].Rule)
}

func TestCheckReadsStandardInput(t *testing.T) {
	input := validDevice + "\n" + invalidEvent + "\n"
	for _, args := range [][]string{nil, {"-"}, {"-json", "-"}} {
		t.Run(strings.Join(append([]string{"args"}, args...), " "), func(t *testing.T) {
			r := runCheck(t, strings.NewReader(input), args...)
			assert.Equal(t, 1, r.code)
			assert.Equal(t, [3]string{"2", "1", "1"}, r.summary(t))
			if len(args) > 0 && args[0] == "-json" {
				assert.Contains(t, r.stdout, `{"file":"-","line":2,"schema":"example.event","version":"1.0","valid":false,`)
				return
			}
			assert.Equal(t, "-:2: "+invalidEventReport+"\n", r.stdout)
		})
	}
}

func TestCheckFilesInOrderThenStdin(t *testing.T) {
	a := writeFile(t, "a.ndjson", invalidEvent, validEvent)
	b := writeFile(t, "b.ndjson", validDevice, invalidDevice)
	r := runCheck(t, strings.NewReader("\n"+invalidEvent+"\n"), a, b, "-", a)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, ""+
		a+":1: "+invalidEventReport+"\n"+
		b+":2: "+invalidDeviceReport+"\n"+
		"-:2: "+invalidEventReport+"\n"+
		a+":1: "+invalidEventReport+"\n",
		r.stdout, "line numbers count from 1 in each file")
	assert.Equal(t, [3]string{"7", "3", "4"}, r.summary(t), "the summary counts every file")
}

func TestCheckUnreadableFileExits2AndGoesOn(t *testing.T) {
	good := writeFile(t, "good.ndjson", validEvent)
	bad := writeFile(t, "bad.ndjson", invalidEvent)
	missing := filepath.Join(t.TempDir(), "missing.ndjson")
	dir := t.TempDir()

	r := runCheck(t, nil, missing, good)
	assert.Equal(t, 2, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, [3]string{"1", "1", "0"}, r.summary(t, "msgcheck: open "+missing+": no such file or directory"))

	r = runCheck(t, nil, bad, dir, good)
	assert.Equal(t, 2, r.code, "an I/O error outranks an invalid message")
	assert.Equal(t, bad+":1: "+invalidEventReport+"\n", r.stdout)
	assert.Equal(t, [3]string{"2", "1", "1"}, r.summary(t, "msgcheck: read "+dir+": is a directory"))
}

func TestCheckUsageErrorsExit2BeforeReading(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.ndjson")
	tests := []struct {
		name   string
		args   []string
		stderr string // a line stderr holds
	}{
		{"unknown flag", []string{"-bogus", missing}, "flag provided but not defined: -bogus"},
		{"schema without a value", []string{"-schema"}, "flag needs an argument: -schema"},
		{"unknown schema", []string{"-schema", "core.driver", missing},
			`msgcheck check: -schema: unknown schema "core.driver"; known schemas: core.association, core.device, core.vehicle, example.event`},
		{"names are case-sensitive", []string{"-schema", "CORE.DEVICE", missing}, `unknown schema "CORE.DEVICE"`},
		{"unknown version", []string{"-schema", "core.device@1.1", missing},
			`msgcheck check: -schema: unknown schema "core.device" version "1.1"; versions of core.device: 1.0`},
		{"version of an unknown schema", []string{"-schema", "core.driver@1.0", missing},
			`msgcheck check: -schema: unknown schema "core.driver" version "1.0"; known schemas: core.association, core.device, core.vehicle, example.event`},
		{"no version after @", []string{"-schema", "core.device@", missing},
			`msgcheck check: -schema: no version after @ in "core.device@"; versions of core.device: 1.0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCheck(t, strings.NewReader(invalidEvent+"\n"), tt.args...)
			assert.Equal(t, 2, r.code)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, tt.stderr)
			assert.NotContains(t, r.stderr, "missing.ndjson", "no file is opened")
			assert.NotRegexp(t, `(?m)^msgcheck: \d+ messages`, r.stderr, "no summary: nothing was read")
		})
	}
}

// TestCheckHelpExits0 pins that -h, asked for, prints on stdout, as
// msgcheck -h does, and a mistake on stderr.
func TestCheckHelpExits0(t *testing.T) {
	r := runCheck(t, nil, "-h")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "usage: msgcheck check [-schema name[@version]] [-default name] [-json] [-max-line bytes] [file ...]")
	assert.Contains(t, r.stdout, "-default name")
	assert.Empty(t, r.stderr)

	r = runCheck(t, nil, "-bogus")
	assert.Equal(t, 2, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "flag provided but not defined: -bogus")
	assert.Contains(t, r.stderr, "usage: msgcheck check")
}

// TestCheckTakesFlagsAfterTheFiles pins that check FILE -json is -json on
// FILE, as users type it, and that after -- every argument is a file.
func TestCheckTakesFlagsAfterTheFiles(t *testing.T) {
	file := writeFile(t, "one.ndjson", validDevice)
	r := runCheck(t, nil, file, "-json")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"valid":true`)

	r = runCheck(t, nil, file, "--", "-json")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "-json")
	assert.Empty(t, r.stdout, "no -json: valid messages print nothing")
}

// TestCheckDefaultJudgesMessagesWithoutAType pins -default: a stream of
// entity messages and events is judged in one run.
func TestCheckDefaultJudgesMessagesWithoutAType(t *testing.T) {
	untyped := strings.Replace(validEvent, `"message_type":"example.event",`, "", 1)
	in := validDevice + "\n" + untyped + "\n"
	r := runCheck(t, strings.NewReader(in))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "-:2: ?: /message_type: no message_type member")

	r = runCheck(t, strings.NewReader(in), "-default", "example.event")
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Empty(t, r.stdout)

	r = runCheck(t, strings.NewReader(in), "-default", "core.driver")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "-default: unknown schema")
}

// TestCheckNamesAByteOrderMark pins that a file saved with a BOM is told
// so, not that it holds byte 0xef.
func TestCheckNamesAByteOrderMark(t *testing.T) {
	r := runCheck(t, strings.NewReader("\xef\xbb\xbf"+validDevice+"\n"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "-:1: ?: (root): want a value, got a byte order mark (U+FEFF) at byte offset 0")
}

// TestCheckMalformedLineMidStream pins that a line that is not JSON is one
// invalid message: the lines after it are still judged.
func TestCheckMalformedLineMidStream(t *testing.T) {
	lines := make([]string, 3000)
	for i := range lines {
		lines[i] = validVehicle
	}
	lines[1499] = `{"message_type":"core.vehicle","message_id":` // cut short
	lines[1500] = "\x00\xff not even text"
	lines[2999] = invalidEvent
	r := runCheck(t, strings.NewReader(strings.Join(lines, "\n")), "-")
	assert.Equal(t, 1, r.code)
	got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, got, 3, r.stdout)
	assert.Regexp(t, `^-:1500: core\.vehicle: /message_id: `, got[0])
	assert.Regexp(t, `^-:1501: \?: \(root\): `, got[1])
	assert.Equal(t, "-:3000: "+invalidEventReport, got[2], "judged after the malformed lines; no final line end needed")
	assert.Equal(t, [3]string{"3000", "2997", "3"}, r.summary(t))
}

// TestCheckLinesOf17MiB pins that lines beyond 16 MiB are judged, valid or
// not, when -max-line allows them, and that the report on a long value
// stays short.
func TestCheckLinesOf17MiB(t *testing.T) {
	long := strings.Repeat("t", 17<<20)
	validLong := strings.Replace(validAssociation, `}`, `,"tags":["`+long+`"]}`, 1)
	invalidLong := strings.Replace(validEvent, `"created"`, `"`+long+`"`, 1)
	input := validLong + "\n" + invalidEvent + "\n" + invalidLong + "\n" + validEvent + "\n"
	r := runCheck(t, strings.NewReader(input), "-max-line", "33554432")
	assert.Equal(t, 1, r.code)
	got := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, got, 2)
	assert.Equal(t, "-:2: "+invalidEventReport, got[0])
	assert.Regexp(t, `^-:3: example\.event: /type: want one of "created", "updated" or "deleted", got "t+`, got[1])
	assert.Less(t, len(got[1]), 1000, "the offending value is shortened")
	assert.Equal(t, [3]string{"4", "2", "2"}, r.summary(t))
	assert.Contains(t, r.stderr, " 35.7 MB in ")
}

// orderInput is a stream of n messages of every schema in which message i
// (from 0) is invalid when i%5 is 1 or 3; some lines are much longer than
// others, so that workers finish out of order.
func orderInput(n int) (input string, invalid map[int]bool) {
	var b strings.Builder
	invalid = make(map[int]bool)
	valid := []string{validDevice, validVehicle, validAssociation, validEvent}
	pad := `,"x":"` + strings.Repeat("p", 50000) + `"}`
	for i := range n {
		switch i % 5 {
		case 1:
			b.WriteString(invalidDevice)
			invalid[i] = true
		case 3:
			b.WriteString(invalidEvent)
			invalid[i] = true
		default:
			m := valid[i%len(valid)]
			if i%97 == 0 {
				m = strings.TrimSuffix(m, "}") + pad
			}
			b.WriteString(m)
		}
		b.WriteByte('\n')
	}
	return b.String(), invalid
}

func TestCheckOutputIsInInputOrderUnderConcurrency(t *testing.T) {
	const n = 20000
	input, invalid := orderInput(n)
	var want strings.Builder
	for i := range n {
		if invalid[i] {
			report := invalidEventReport
			if i%5 == 1 {
				report = invalidDeviceReport
			}
			fmt.Fprintf(&want, "-:%d: %s\n", i+1, report)
		}
	}

	r := runCheck(t, strings.NewReader(input))
	assert.Equal(t, 1, r.code)
	require.Equal(t, want.String(), r.stdout)
	assert.Equal(t, [3]string{"20000", "12000", "8000"}, r.summary(t))

	r = runCheck(t, strings.NewReader(input), "-json")
	s := bufio.NewScanner(strings.NewReader(r.stdout))
	i := 0
	for ; s.Scan(); i++ {
		var l jsonLine
		require.NoError(t, json.Unmarshal(s.Bytes(), &l))
		require.Equal(t, i+1, l.Line)
		require.Equal(t, !invalid[i], l.Valid, "line %d", l.Line)
	}
	assert.Equal(t, n, i)
}

// slowly writes the lines to w in bursts, pausing between them, so that the
// stream lasts longer than a progress interval, and then closes w.
func slowly(w *io.PipeWriter, line string, bursts, perBurst int, pause time.Duration) {
	defer w.Close()
	chunk := strings.Repeat(line+"\n", perBurst)
	for range bursts {
		if _, err := io.WriteString(w, chunk); err != nil {
			return
		}
		time.Sleep(pause)
	}
}

func TestCheckDrawsNoProgressIntoAPipe(t *testing.T) {
	// The stream lasts about a second, four progress intervals, but stderr
	// is a pipe: only the summary is written to it.
	r, w := io.Pipe()
	go slowly(w, invalidEvent, 10, 100, 100*time.Millisecond)
	res := runCheck(t, r)
	assert.Equal(t, 1, res.code)
	assert.NotContains(t, res.stderr, "\r")
	assert.Equal(t, [3]string{"1000", "0", "1000"}, res.summary(t))
}

// The tests below call run in the process, to reach what the binary does
// not show in a pipe: the progress line, write errors, an interruption.

// terminal is a screen that stdout and stderr share: a carriage return
// moves back to the start of the line, and later text overwrites.
type terminal struct {
	mu     sync.Mutex
	lines  []string
	col    int
	writes []string // every write, in order
}

func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.writes = append(t.writes, string(p))
	if len(t.lines) == 0 {
		t.lines = []string{""}
	}
	for _, c := range string(p) {
		last := &t.lines[len(t.lines)-1]
		switch c {
		case '\r':
			t.col = 0
		case '\n':
			t.lines = append(t.lines, "")
			t.col = 0
		default:
			r := []rune(*last)
			if t.col < len(r) {
				r[t.col] = c
			} else {
				r = append(r, c)
			}
			*last = string(r)
			t.col++
		}
	}
	return len(p), nil
}

// screen returns the lines on the screen, trailing spaces trimmed.
func (t *terminal) screen() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var s []string
	for _, l := range t.lines {
		s = append(s, strings.TrimRight(l, " "))
	}
	return s
}

// onTerminal makes run see the writers in ws as terminals, and progress
// drawn every millisecond, until the test ends.
func onTerminal(t *testing.T, ws ...io.Writer) {
	savedTerminal, savedInterval := isTerminal, progressInterval
	t.Cleanup(func() { isTerminal, progressInterval = savedTerminal, savedInterval })
	isTerminal = func(w io.Writer) bool {
		for _, x := range ws {
			if w == x {
				return true
			}
		}
		return false
	}
	progressInterval = time.Millisecond
}

var progressLine = regexp.MustCompile(`^\rmsgcheck: \d+ messages?, \d+ valid, \d+ invalid, [\d.]+ (B|kB|MB) \([\d.]+ (B|kB|MB)/s\) \.\.\. *$`)

func TestCheckDrawsProgressOnATerminalAndClearsIt(t *testing.T) {
	stderr := &terminal{}
	onTerminal(t, stderr)
	r, w := io.Pipe()
	go slowly(w, invalidEvent, 20, 50, 10*time.Millisecond)
	var stdout bytes.Buffer
	code := run(context.Background(), []string{"check"}, r, &stdout, stderr)
	assert.Equal(t, 1, code)
	assert.NotContains(t, stdout.String(), "\r", "stdout is a pipe here: no progress in it")
	assert.Equal(t, 1000, strings.Count(stdout.String(), "\n"))

	var drawn int
	for _, wr := range stderr.writes {
		if strings.HasPrefix(wr, "\rmsgcheck:") {
			assert.Regexp(t, progressLine, wr)
			drawn++
		}
	}
	assert.Greater(t, drawn, 1, "progress is redrawn while the stream runs")
	screen := stderr.screen()
	require.Len(t, screen, 2, "the progress line is cleared: only the summary is left")
	assert.Regexp(t, summaryLine, screen[0])
	assert.Equal(t, "", screen[1])
}

func TestCheckProgressNeverOverwritesOutputOnTheSameTerminal(t *testing.T) {
	screen := &terminal{}
	onTerminal(t, screen)
	r, w := io.Pipe()
	go slowly(w, invalidEvent, 20, 50, 10*time.Millisecond)
	code := run(context.Background(), []string{"check"}, r, screen, screen)
	assert.Equal(t, 1, code)

	lines := screen.screen()
	require.Len(t, lines, 1002, "1000 reports, the summary, and the empty line after it")
	for i, l := range lines[:1000] {
		require.Equal(t, fmt.Sprintf("-:%d: %s", i+1, invalidEventReport), l)
	}
	assert.Regexp(t, summaryLine, lines[1000])
	var drawn int
	for _, wr := range screen.writes {
		if strings.HasPrefix(wr, "\rmsgcheck:") {
			drawn++
		}
	}
	assert.Greater(t, drawn, 1)
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestRunCheckReadErrorExits2AfterJudgingWhatWasRead(t *testing.T) {
	var stdout, stderr bytes.Buffer
	stdin := io.MultiReader(strings.NewReader(validEvent+"\n"+invalidEvent+"\n"), errReader{})
	code := run(context.Background(), []string{"check"}, stdin, &stdout, &stderr)
	assert.Equal(t, 2, code)
	assert.Equal(t, "-:2: "+invalidEventReport+"\n", stdout.String())
	assert.Equal(t, [3]string{"2", "1", "1"}, result{stderr: stderr.String()}.summary(t, "msgcheck: reading -: disk on fire"))
}

// failingWriter accepts n bytes, then fails.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		n := w.n
		w.n = 0
		return n, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestRunCheckWriteErrorStopsAndExits2(t *testing.T) {
	input, _ := orderInput(50000)
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"check", "-", "-"}, strings.NewReader(input), &failingWriter{n: 100 << 10}, &stderr)
	assert.Equal(t, 2, code)
	result{stderr: stderr.String()}.summary(t, "msgcheck: writing the report: disk full")
}

func TestRunCheckStopsWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, w := io.Pipe()
	defer r.Close() // ends the writer below
	go func() {
		line := []byte(invalidEvent + "\n")
		for {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}()
	var stdout cmdtest.Buffer
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() { code <- run(ctx, []string{"check", "-", "-"}, r, &stdout, &stderr) }()
	require.Eventually(t, func() bool { return stdout.Len() > 0 }, 10*time.Second, time.Millisecond)
	cancel()
	select {
	case c := <-code:
		assert.Equal(t, 2, c)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "check did not stop when interrupted")
	}
	result{stderr: stderr.String()}.summary(t, "msgcheck: interrupted")
}

func TestSecondsFormat(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{seconds(410 * time.Millisecond), "0.41s"},
		{seconds(2500 * time.Microsecond), "2.50ms"},
		{seconds(75 * time.Second), "75.00s"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.got)
	}
}

// TestSampleStreamIsWhatTheREADMEShows runs the README's command on the
// sample stream: every line it prints must be in the README, and the stream
// must hold valid and invalid messages of every schema.
func TestSampleStreamIsWhatTheREADMEShows(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	sample := func(args ...string) result {
		t.Helper()
		inRepository := func(cmd *exec.Cmd) { cmd.Dir = "../.." }
		return runMsgcheck(t, 30*time.Second, inRepository, append([]string{"check"}, append(args, "testdata/messages.ndjson")...)...)
	}

	r := sample()
	assert.Equal(t, 1, r.code)
	assert.Equal(t, [3]string{"37", "23", "14"}, r.summary(t))
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		assert.True(t, bytes.Contains(readme, []byte("\n"+line+"\n")), "the README shows the output as it is, without %q", line)
	}

	r = sample("-json")
	seen := map[string]map[bool]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var l jsonLine
		require.NoError(t, json.Unmarshal([]byte(line), &l))
		if seen[l.Schema] == nil {
			seen[l.Schema] = map[bool]bool{}
		}
		seen[l.Schema][l.Valid] = true
		if l.Line == 5 || l.Line == 6 {
			assert.True(t, bytes.Contains(readme, []byte("\n"+line+"\n")), "the README's -json excerpt, without %q", line)
		}
	}
	for _, s := range []string{"core.device", "core.vehicle", "core.association", "example.event"} {
		assert.Equal(t, map[bool]bool{true: true, false: true}, seen[s], s)
	}
	assert.Equal(t, map[bool]bool{false: true}, seen[""], "messages whose schema cannot be chosen")
}
