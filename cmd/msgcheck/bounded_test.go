package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/hostile"
	"github.com/fleetkit/catalogue/msg"
)

func TestCheckMaxLine(t *testing.T) {
	long := `{"x":"` + strings.Repeat("y", 1000) + `"}`
	input := validEvent + "\n" + long + "\n" + validEvent + "\n" + long // the last without a line end
	r := runCheck(t, strings.NewReader(input), "-max-line", "300")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "-:2: ?: (root): line longer than 300 bytes\n-:4: ?: (root): line longer than 300 bytes\n", r.stdout)
	assert.Equal(t, [3]string{"4", "2", "2"}, r.summary(t))

	r = runCheck(t, strings.NewReader(input), "-max-line", "300", "-json", "-schema", "example.event")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, lines, 4)
	assert.JSONEq(t, `{"file":"-","line":2,"schema":"example.event","valid":false,"violations":[{"path":"","rule":"line_length","message":"line longer than 300 bytes"}]}`, lines[1])

	r = runCheck(t, strings.NewReader(input), "-max-line", "0")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "-max-line: want a number of bytes above 0, got 0")
}

func TestCheckSaysHowManyViolationsItOmits(t *testing.T) {
	line := strings.Replace(validAssociation, `}`, `,"tags":[1`+strings.Repeat(",1", 149)+`]}`, 1)
	r := runCheck(t, strings.NewReader(line+"\n"))
	assert.Equal(t, 1, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, "-:1: core.association: /tags/0: want a string, got a number; "), r.stdout)
	assert.True(t, strings.HasSuffix(r.stdout, "; /tags/99: want a string, got a number; ... and 50 more violations\n"), r.stdout)
	assert.Equal(t, msg.MaxViolations+1, strings.Count(r.stdout, "; ")+1)

	r = runCheck(t, strings.NewReader(line+"\n"), "-json")
	var got jsonResult
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.Len(t, got.Violations, msg.MaxViolations)
	assert.Equal(t, 50, got.Omitted)
}

// peakRSS returns the peak resident memory of the process cmd ran, in
// bytes, once it has exited: of the child or, if larger, of this process
// before it started the child, which Linux counts in the child's (its
// memory is the child's until exec). Callers keep this process small.
// Maxrss is in kilobytes on Linux only: callers run elsewhere skip.
func peakRSS(cmd *exec.Cmd) int64 {
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}

// TestCheckMemoryIsBoundedOnHostileStreams: a stream of messages that
// break their schema in every place they can, or have huge names and
// values, with lines up to just below the default line limit of 64 MiB,
// keeps check under 200 MB (issue 12: past 2.9 GB and rising; issue 20:
// the limit, then 4 MiB, rose sixteen times once check stopped decoding).
func TestCheckMemoryIsBoundedOnHostileStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and judges 300 MB")
	}
	if runtime.GOOS != "linux" {
		t.Skip("Maxrss is in kilobytes on Linux only")
	}
	file := filepath.Join(t.TempDir(), "hostile.ndjson")
	f, err := os.Create(file)
	require.NoError(t, err)
	for range 4 {
		for _, m := range hostile.Messages() {
			f.Write(bytes.ReplaceAll(m.Body, []byte("\n"), nil))
			f.Write([]byte("\n"))
		}
	}
	// Lines just below the default limit (64 MiB), of what costs the most
	// memory once decoded: empty strings as tags (a 16-byte string for
	// every 3 bytes), undeclared members (a map entry each), tags that
	// are not strings (a violation each, counted past the cap), and a
	// member name repeated, and a free object of millions of members
	// (whose names the scanner gathers at 8 bytes a name: 390 MB before
	// it did). check judges them without decoding them.
	// They are written a piece at a time: the peak RSS of a
	// child includes that of this process when it starts the child (Linux
	// counts it at exec, the memory being shared until then), so this
	// process must stay small.
	big := defaultMaxLine - 64
	repeat := func(s string, n int) {
		piece := strings.Repeat(s, 1<<16/len(s))
		for ; n >= 1<<16/len(s); n -= 1 << 16 / len(s) {
			f.WriteString(piece)
		}
		f.WriteString(strings.Repeat(s, n))
	}
	{
		f.WriteString(`{"message_type":"core.association","tags":[""`)
		repeat(`,""`, big/3-20)
		f.WriteString("]}\n")
		f.WriteString(`{"message_type":"core.association","tags":[1`)
		repeat(",1", big/2-40)
		f.WriteString("]}\n")
		// Members named 0, 1, 2… in base 36, each with the value 0, until
		// the line, n bytes long so far, is just below the limit.
		distinct := func(w *bufio.Writer, n int) {
			for i := 0; n < big-24; i++ {
				m := `,"` + strconv.FormatInt(int64(i), 36) + `":0`
				w.WriteString(m)
				n += len(m)
			}
		}
		w := bufio.NewWriter(f)
		w.WriteString(`{"message_type":"core.association"`)
		distinct(w, 40)
		w.WriteString("}\n")
		w.WriteString(`{"message_type":"core.vehicle","meta":{"_":0`)
		distinct(w, 48)
		w.WriteString("}}\n")
		require.NoError(t, w.Flush())
	}
	f.WriteString(`{"message_type":"core.device","`)
	repeat("n", big/2-8)
	f.WriteString(`":1,"`)
	repeat("n", big/2-8)
	f.WriteString(`":2}` + "\n")
	require.NoError(t, f.Close())

	var cmd *exec.Cmd
	r := runMsgcheck(t, 2*time.Minute, func(c *exec.Cmd) {
		cmd = c
		c.Env = append(os.Environ(), "GOMAXPROCS=8")
	}, "check", file)
	rss := peakRSS(cmd)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, 4*len(hostile.Messages())+5, strings.Count(r.stdout, "\n"), "every message is reported")
	meta := fmt.Sprintf("%s:%d: core.vehicle: ", file, 4*len(hostile.Messages())+4)
	for line := range strings.SplitSeq(r.stdout, "\n") {
		if rest, ok := strings.CutPrefix(line, meta); ok {
			assert.NotContains(t, rest, "duplicate", "the free object's names are all distinct")
			meta = ""
		}
	}
	assert.Empty(t, meta, "the free object's message is reported")
	assert.NotContains(t, r.stdout, "line longer than", "every line is below the limit")
	t.Logf("peak RSS %.1f MB, stdout %d bytes", float64(rss)/1e6, len(r.stdout))
	assert.Less(t, rss, int64(200e6), "peak RSS")
	assert.Less(t, len(r.stdout), (4*len(hostile.Messages())+5)*64<<10, "each report is at most 64 KiB")
}

func TestCheckShortensALongUnknownMessageType(t *testing.T) {
	r := runCheck(t, strings.NewReader(`{"message_type":"`+strings.Repeat("t", 1<<20)+`"}`+"\n"))
	assert.Equal(t, 1, r.code)
	assert.Regexp(t, `^-:1: \?: /message_type: unknown message type "t{64}…" \(known types: `, r.stdout)
	assert.Less(t, len(r.stdout), 1000)
}

// vmHWM returns the peak resident memory of the running process pid, in
// bytes, from /proc.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	require.FailNow(t, "no VmHWM in /proc/PID/status")
	return 0
}

// TestServeMemoryIsBoundedUnderHostileLoad: 64 requests at once, each a
// body of a mebibyte that breaks its schema everywhere it can, keep the
// server under 300 MB, and each answer under 64 KiB (issue 12: 16 such
// requests took 3.9 GB). GOMAXPROCS=8 lets the server hold all 64 bodies
// at once (api.DefaultMaxBodies), the worst case.
func TestServeMemoryIsBoundedUnderHostileLoad(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := exec.Command(binary, "serve", "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "GOMAXPROCS=8")
	s := startServer(t, cmd)

	messages := hostile.Messages()
	const inFlight = 64
	type answer struct {
		status int
		size   int
		err    error
	}
	answers := make(chan answer, inFlight)
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxConnsPerHost: inFlight}}
	defer client.CloseIdleConnections()
	for i := range inFlight {
		m := messages[i%len(messages)]
		go func() {
			resp, err := client.Post(s.base+"/api/schemas/"+m.Schema+"/versions/1.0/validate", "application/json", bytes.NewReader(m.Body))
			if err != nil {
				answers <- answer{err: err}
				return
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			answers <- answer{resp.StatusCode, len(body), err}
		}()
	}
	judged := 0
	for range inFlight {
		a := <-answers
		require.NoError(t, a.err)
		require.Contains(t, []int{http.StatusUnprocessableEntity, http.StatusServiceUnavailable}, a.status)
		if a.status == http.StatusUnprocessableEntity {
			judged++
		}
		assert.LessOrEqual(t, a.size, 64<<10)
	}
	rss := vmHWM(t, cmd.Process.Pid)
	t.Logf("peak RSS %.1f MB, %d of %d judged", float64(rss)/1e6, judged, inFlight)
	assert.Less(t, rss, int64(300e6))
	assert.Greater(t, judged, inFlight/2, "most were judged, not turned away")

	s.signal(t, syscall.SIGTERM)
	_, err := s.wait(t, 15*time.Second)
	assert.NoError(t, err)
}
