package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

// binary is the msgcheck command, built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	if os.Getenv(serveHelperEnv) != "" {
		os.Exit(m.Run()) // a child running TestServeHelper needs no binary
	}
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "msgcheck-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "msgcheck")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building msgcheck: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// runBinary runs msgcheck with args to completion, within a time limit.
func runBinary(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	r := runMsgcheck(t, 10*time.Second, nil, args...)
	return r.stdout, r.stderr, r.code
}

// runMsgcheck runs msgcheck with args to completion, within limit, once
// setup (unless nil) has given the command what else it needs, such as
// its standard input; a run that fails to start or is killed fails the
// test.
func runMsgcheck(t *testing.T, limit time.Duration, setup func(*exec.Cmd), args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if setup != nil {
		setup(cmd)
	}
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "msgcheck %v did not finish in time", args)
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
	}
	return result{out.String(), errOut.String(), cmd.ProcessState.ExitCode()}
}

func TestSchemasPrintsTheCatalogueAsAnAlignedTable(t *testing.T) {
	stdout, stderr, code := runBinary(t, "schemas")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)

	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	all := schemas.All()
	require.Len(t, all, 4)
	require.Len(t, lines, 1+len(all), stdout)
	assert.Equal(t, []string{"NAME", "VERSION", "ID"}, strings.Fields(lines[0]))
	for i, s := range all {
		assert.Equal(t, []string{s.Name, s.Version, s.ID}, strings.Fields(lines[i+1]))
	}
	// Aligned: every column starts at the same offset on every line.
	for _, col := range []string{"VERSION", "ID"} {
		at := strings.Index(lines[0], col)
		for _, line := range lines[1:] {
			assert.NotEqual(t, ' ', line[at], "column %s of %q", col, line)
			assert.Equal(t, ' ', rune(line[at-1]), "column %s of %q", col, line)
		}
	}
}

func TestUsageErrorsExit2WithUsageOnStderr(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no command", nil},
		{"unknown command", []string{"frobnicate"}},
		{"unknown flag of schemas", []string{"schemas", "-x"}},
		{"argument to schemas", []string{"schemas", "extra"}},
		{"unknown flag of serve", []string{"serve", "-bogus"}},
		{"argument to serve", []string{"serve", "extra"}},
		{"addr without value", []string{"serve", "-addr"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runBinary(t, tt.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, "usage: msgcheck")
		})
	}
}

func TestHelpListsTheCommandsAndExits0(t *testing.T) {
	stdout, _, code := runBinary(t, "help")
	assert.Equal(t, 0, code)
	for _, c := range commands {
		assert.Regexp(t, `(?m)^  `+regexp.QuoteMeta(c.name)+` `, stdout)
	}
}

// lines returns a channel of the lines read from r, closed at EOF.
func lines(r io.Reader) <-chan string {
	c := make(chan string, 100)
	go func() {
		defer close(c)
		s := bufio.NewScanner(r)
		for s.Scan() {
			c <- s.Text()
		}
	}()
	return c
}

var servingLine = regexp.MustCompile(`^msgcheck: serving the catalogue on (https?://\S+)$`)

// servingURL waits for serve to log the URL it serves on, and returns it.
func servingURL(t *testing.T, log <-chan string) string {
	t.Helper()
	base, _ := servingLines(t, log)
	return base
}

// servingLines waits for serve to log the URL it serves on, and returns
// it and the lines logged before it.
func servingLines(t *testing.T, log <-chan string) (base string, before []string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-log:
			require.True(t, ok, "serve ended without logging its address")
			if m := servingLine.FindStringSubmatch(line); m != nil {
				return m[1], before
			}
			before = append(before, line)
		case <-timeout:
			require.FailNow(t, "serve did not log its address in time")
		}
	}
}

// checkServes fetches the catalogue and a schema from the server at base,
// which must be on loopback.
func checkServes(t *testing.T, base string) {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", u.Hostname())
	require.NotEqual(t, "0", u.Port(), "the log names the port bound, not the one asked for")

	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	get := func(path string) (*http.Response, []byte) { return fetch(t, client, base+path) }

	resp, body := get("/api/schemas")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var list []struct{ Name, Version, ID, URL string }
	require.NoError(t, json.Unmarshal(body, &list))
	require.Len(t, list, len(schemas.All()))

	want, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	resp, body = get("/api/schemas/core.device/versions/1.0")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/schema+json", resp.Header.Get("Content-Type"))
	assert.Equal(t, want.JSON(), body)
}

func TestServeServesUntilSignalledThenExits0(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM or SIGINT to send on windows")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startServer(t, exec.Command(binary, "serve", "-addr", "127.0.0.1:0"))
			checkServes(t, s.base)

			s.signal(t, sig)
			rest, err := s.wait(t, 5*time.Second)
			require.NoError(t, err, "msgcheck serve should exit 0 on %v", sig)
			assert.Equal(t, []string{"msgcheck: stopped"}, rest)
		})
	}
}

// A server is msgcheck serve running in a process of its own.
type server struct {
	cmd    *exec.Cmd
	base   string        // the URL it logged it serves on
	log    <-chan string // the lines it logs after that, closed when it exits
	exited func(timeout time.Duration) (error, bool)
}

// startServer starts cmd, a msgcheck serve, with its stderr read line by
// line, and waits for it to log the URL it serves on.
func startServer(t *testing.T, cmd *exec.Cmd) *server {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	cmd.Stderr = w
	exited := start(t, cmd)
	w.Close() // the child holds its own copy; EOF comes when it exits
	log := lines(r)
	return &server{cmd: cmd, base: servingURL(t, log), log: log, exited: exited}
}

// signal sends sig to the server.
func (s *server) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(sig))
}

// wait waits up to timeout for the server to exit, and returns the lines
// it logged after its URL and how it exited.
func (s *server) wait(t *testing.T, timeout time.Duration) (rest []string, err error) {
	t.Helper()
	err, ok := s.exited(timeout)
	require.True(t, ok, "msgcheck serve did not exit in time")
	for line := range s.log {
		rest = append(rest, line)
	}
	return rest, err
}

// The tests below call run in the process: quicker, and they reach what a
// signal cannot, such as a listen error.

func TestRunServeStopsWhenTheContextIsDone(t *testing.T) {
	base, stop := serveInProcess(t)
	checkServes(t, base)
	assert.Equal(t, 0, stop())
}

// serveInProcess runs serve with args in the process, on a free port of
// loopback, and returns the URL it serves on and a function that stops it
// as a signal would, returning its exit status.
func serveInProcess(t *testing.T, args ...string) (base string, stop func() int) {
	t.Helper()
	s := serveLogging(t, args...)
	return s.base, s.stop
}

// An inProcess is serve running in the process.
type inProcess struct {
	base   string
	before []string      // the lines logged before the URL
	log    <-chan string // the lines logged after it: read them as they come, or stop
	stop   func() int    // stops serve as a signal would, and returns its exit status
}

// serveLogging is serveInProcess, with what serve logs.
func serveLogging(t *testing.T, args ...string) *inProcess {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r, w := io.Pipe()
	t.Cleanup(func() { r.Close() })
	code := make(chan int, 1)
	go func() {
		defer w.Close()
		code <- run(ctx, append([]string{"serve", "-addr", "127.0.0.1:0"}, args...), nil, io.Discard, w)
	}()
	log := lines(r)
	s := &inProcess{log: log}
	s.base, s.before = servingLines(t, log)
	s.stop = func() int {
		cancel()
		select {
		case c := <-code:
			for range log {
			}
			return c
		case <-time.After(5 * time.Second):
			require.FailNow(t, "serve did not return in time")
			return -1
		}
	}
	return s
}

func TestRunServeOnAnAddressInUseExits1(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"serve", "-addr", ln.Addr().String()}, nil, io.Discard, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "msgcheck: listen tcp "+ln.Addr().String())
}

func TestRunSchemasMatchesTheBinary(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"schemas"}, nil, &stdout, &stderr))
	fromBinary, _, _ := runBinary(t, "schemas")
	assert.Equal(t, fromBinary, stdout.String())
}

// start starts cmd and returns a function that waits up to timeout for
// it to exit, giving its error and true, or false if it is still
// running. A child still running when the test ends is killed then.
func start(t *testing.T, cmd *exec.Cmd) (exited func(timeout time.Duration) (error, bool)) {
	t.Helper()
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waited := false
	t.Cleanup(func() {
		if !waited {
			cmd.Process.Kill()
			<-done
		}
	})
	return func(timeout time.Duration) (error, bool) {
		select {
		case err := <-done:
			waited = true
			return err, true
		case <-time.After(timeout):
			return nil, false
		}
	}
}

func TestRunServeMapsTopicSubjectsToSchemas(t *testing.T) {
	base, stop := serveInProcess(t, "-subject", "telemetry-value=core.device")
	res, err := http.Get(base + "/api/registry/subjects/telemetry-value/versions/latest")
	require.NoError(t, err)
	var v struct {
		Subject string
		ID      int32
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&v))
	res.Body.Close()
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	assert.Equal(t, "telemetry-value", v.Subject)
	assert.Equal(t, device.RegistryID, v.ID)
	assert.Equal(t, 0, stop())
}

func TestRunServeRefusesASubjectOfNoSchema(t *testing.T) {
	for _, arg := range []string{"t-value=core.nothing", "t-value", "core.device=core.vehicle"} {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve", "-addr", "127.0.0.1:0", "-subject", arg}, nil, io.Discard, &stderr)
		assert.Equal(t, 2, code, arg)
		assert.Contains(t, stderr.String(), "-subject", arg)
	}
}
