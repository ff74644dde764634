package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckStopsOnTheFirstSignalWhileOpeningAFIFO: check blocked opening
// a FIFO that no writer opens stops on the first SIGINT (issue 12: it
// ignored it, blocked in open(2)).
func TestCheckStopsOnTheFirstSignalWhileOpeningAFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or SIGINT on windows")
	}
	fifo := filepath.Join(t.TempDir(), "quiet.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	c := startCheck(t, exec.Command(binary, "check", fifo))
	waitInOpen(t, c.cmd.Process.Pid)
	c.interrupt(t, os.Interrupt)
}

// TestCheckStopsOnTheFirstSignalWhileStdinIsIdle pins that one signal ends
// a check whose standard input is open but quiet, as in `tail -f log |
// msgcheck check`: exit 2, "interrupted" and the summary, at once.
func TestCheckStopsOnTheFirstSignalWhileStdinIsIdle(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM or SIGINT to send on windows")
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(binary, "check")
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			defer stdin.Close()
			c := startCheck(t, cmd)

			// More than a pipe holds: once the write returns, check is
			// reading, so it handles signals. Then stdin goes quiet.
			_, err = io.WriteString(stdin, strings.Repeat(validEvent+"\n", 1<<20/len(validEvent)))
			require.NoError(t, err)
			time.Sleep(100 * time.Millisecond) // time to judge it all and wait in Read
			c.interrupt(t, sig)
		})
	}
}

// A checkProcess is msgcheck check running in a process of its own.
type checkProcess struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	exited         func(timeout time.Duration) (error, bool)
}

// startCheck starts cmd, a msgcheck check, with its output kept in
// buffers to read once it exits.
func startCheck(t *testing.T, cmd *exec.Cmd) *checkProcess {
	t.Helper()
	c := &checkProcess{cmd: cmd}
	cmd.Stdout, cmd.Stderr = &c.stdout, &c.stderr
	c.exited = start(t, cmd)
	return c
}

// interrupt sends sig to the check and checks that it stops at once,
// as interrupted: exit status 2, "interrupted" and the summary on
// stderr, nothing on stdout.
func (c *checkProcess) interrupt(t *testing.T, sig os.Signal) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Signal(sig))
	err, ok := c.exited(5 * time.Second)
	require.True(t, ok, "msgcheck check did not stop on the first signal %v", sig)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 2, exit.ExitCode(), "killed by the signal, not stopped: %v; stderr: %s", exit, c.stderr.String())
	result{stderr: c.stderr.String()}.summary(t, "msgcheck: interrupted")
	assert.Empty(t, c.stdout.String())
}

// waitInOpen waits until a thread of process pid is in the openat system
// call (Linux reports it in /proc/PID/task/*/syscall), so that a signal
// sent next finds it there; elsewhere it waits a moment.
func waitInOpen(t *testing.T, pid int) {
	t.Helper()
	if runtime.GOOS != "linux" {
		time.Sleep(200 * time.Millisecond)
		return
	}
	const sysOpenat = "257 " // x86-64; arm64's openat is 56
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob(filepath.Join("/proc", fmt.Sprint(pid), "task", "*", "syscall"))
		for _, task := range tasks {
			b, err := os.ReadFile(task)
			if err == nil && (strings.HasPrefix(string(b), sysOpenat) || runtime.GOARCH == "arm64" && strings.HasPrefix(string(b), "56 ")) {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.FailNow(t, "msgcheck check never blocked opening the FIFO")
}

// serveHelperEnv, when set, makes the test binary run serve itself, with
// time-outs short enough for a test; its value is the read time-out.
const serveHelperEnv = "MSGCHECK_TEST_SERVE_READ_TIMEOUT"

// TestServeHelper is not a test: run by
// TestServeShutdownWaitsForASlowBody in a child process, it is msgcheck
// serve with short time-outs.
func TestServeHelper(t *testing.T) {
	read := os.Getenv(serveHelperEnv)
	if read == "" {
		return
	}
	d, err := time.ParseDuration(read)
	if err != nil {
		os.Exit(3)
	}
	timeouts = serverTimeouts{readHeader: d, read: d, write: 2 * d, idle: d}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, []string{"serve", "-addr", "127.0.0.1:0"}, nil, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// TestServeShutdownWaitsForASlowBody: SIGTERM while a client is still
// sending its body slowly; serve answers it (at its read time-out) and
// exits 0 (issue 12: the shutdown deadline equalled the read time-out,
// and serve reported "context deadline exceeded" and exited 1).
func TestServeShutdownWaitsForASlowBody(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on windows")
	}
	const readTimeout = time.Second
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeHelper$")
	cmd.Env = append(os.Environ(), serveHelperEnv+"="+readTimeout.String())
	s := startServer(t, cmd)
	u, err := url.Parse(s.base)
	require.NoError(t, err)

	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /api/schemas/core.device/versions/1.0/validate HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
	require.NoError(t, err)
	// The client goes on sending, a byte at a time, until it has its
	// answer: never the whole body.
	answered := make(chan struct{})
	go func() {
		for {
			select {
			case <-answered:
				return
			case <-time.After(50 * time.Millisecond):
				if _, err := io.WriteString(conn, " "); err != nil {
					return
				}
			}
		}
	}()
	time.Sleep(readTimeout / 4) // the request is in flight
	s.signal(t, syscall.SIGTERM)

	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	close(answered)
	require.NoError(t, err, "the request in flight is answered")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	assert.JSONEq(t, `{"error":"the request body could not be read: timed out"}`, string(body))

	rest, err := s.wait(t, 10*readTimeout)
	require.NoError(t, err, "serve exits 0 once everything in flight is answered: %q", rest)
	assert.Equal(t, []string{"msgcheck: stopped"}, rest)
}

func TestShutdownOutlastsEveryTimeout(t *testing.T) {
	for _, to := range []serverTimeouts{timeouts, {readHeader: 1, read: 10, write: 3, idle: 100}} {
		assert.Greater(t, to.shutdown(), to.readHeader+to.read)
		assert.Greater(t, to.shutdown(), to.readHeader+to.write)
	}
}
