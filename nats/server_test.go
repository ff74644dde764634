package nats

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/nats/internal/embedded"
)

// serverStoreEnv, set in the environment of a process of the test binary,
// makes it a NATS server with JetStream, storing its streams in the folder
// it names, instead of running the tests (see startBrokerProcess).
const serverStoreEnv = "CATNATS_SERVER_STORE"

func TestMain(m *testing.M) {
	if dir := os.Getenv(serverStoreEnv); dir != "" {
		os.Exit(serve(dir, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// serve runs the server of a process of the test binary: it starts it,
// writes its URL on a line to out, and then answers every line read from
// in with the process's CPU time so far in nanoseconds, on a line; once in
// is closed (its parent is done, or gone), it stops the server and
// returns the process's exit status.
func serve(dir string, in io.Reader, out io.Writer) int {
	s, err := embedded.Start(dir, -1, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { s.Shutdown(); s.WaitForShutdown() }()
	fmt.Fprintln(out, s.ClientURL())
	for lines := bufio.NewScanner(in); lines.Scan(); {
		fmt.Fprintln(out, int64(cpuTime()))
	}
	return 0
}

// serverProcess is a NATS server in a process of its own: the test
// binary run again with serverStoreEnv set.
type serverProcess struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	once sync.Once
}

// startBrokerProcess is startBroker with the server in a process of its
// own, as an operator runs it, so that its work is not the test process's
// and it runs on the cores the system gives it. It runs with as many
// cores (GOMAXPROCS) as the test process has.
func startBrokerProcess(t testing.TB) *broker {
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serverStoreEnv+"="+dir, "GOMAXPROCS="+strconv.Itoa(runtime.GOMAXPROCS(0)))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &serverProcess{cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(p.stop)
	url, err := p.out.ReadString('\n')
	require.NoError(t, err, "the server process did not say its URL")
	b := &broker{t: t, dir: dir, proc: p, url: strings.TrimSpace(url)}
	b.makeStreams()
	return b
}

// cpu returns the CPU time the server's process has used so far, user
// and system.
func (p *serverProcess) cpu() (time.Duration, error) {
	if _, err := io.WriteString(p.in, "cpu\n"); err != nil {
		return 0, err
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
	return time.Duration(ns), err
}

// stop stops the server and waits for its process to end; once is enough.
func (p *serverProcess) stop() {
	p.once.Do(func() {
		p.in.Close()
		p.cmd.Wait()
	})
}

// TestBrokerProcess checks the server that BenchmarkGateApart runs in a
// process of its own: it stores what a client publishes, it reports the
// CPU time that costs it, and it ends when told to.
func TestBrokerProcess(t *testing.T) {
	b := startBrokerProcess(t)
	require.NotEqual(t, os.Getpid(), b.proc.cmd.Process.Pid)
	before, err := b.proc.cpu()
	require.NoError(t, err)
	const n = 200
	size, _ := publishBench(t, b, n, false)
	require.Positive(t, size)
	require.Equal(t, uint64(n), b.count("IN"))
	after, err := b.proc.cpu()
	require.NoError(t, err)
	require.Greater(t, after, before, "the server's CPU time did not grow with its work")
	b.stop()
	require.True(t, b.proc.cmd.ProcessState.Success(), "the server process: %v", b.proc.cmd.ProcessState)
}
