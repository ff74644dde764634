package nats

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/serverproc"
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
// and serves it (serverproc.Serve) until its input ends; then it stops
// the server and returns the process's exit status.
func serve(dir string, in io.Reader, out io.Writer) int {
	s, err := embedded.Start(dir, -1, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { s.Shutdown(); s.WaitForShutdown() }()
	if err := serverproc.Serve(s.ClientURL(), in, out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startBrokerProcess is startBroker with the server in a process of its
// own (serverproc), as an operator runs it, so that its work is not the
// test process's and it runs on the cores the system gives it. It runs
// with as many cores (GOMAXPROCS) as the test process has.
func startBrokerProcess(t testing.TB) *broker {
	dir := t.TempDir()
	p, err := serverproc.Start([]string{serverStoreEnv + "=" + dir}, runtime.GOMAXPROCS(0))
	require.NoError(t, err)
	t.Cleanup(p.Stop)
	b := &broker{t: t, dir: dir, proc: p, url: p.Addr}
	b.makeStreams()
	return b
}

// TestBrokerProcess checks the server that BenchmarkGateApart runs in a
// process of its own: it stores what a client publishes, it reports the
// CPU time that costs it, and it ends when told to.
func TestBrokerProcess(t *testing.T) {
	b := startBrokerProcess(t)
	require.NotEqual(t, os.Getpid(), b.proc.Pid())
	before, err := b.proc.CPU()
	require.NoError(t, err)
	const n = 200
	size, _ := publishBench(t, b, n, false)
	require.Positive(t, size)
	require.Equal(t, uint64(n), b.count("IN"))
	after, err := b.proc.CPU()
	require.NoError(t, err)
	require.Greater(t, after, before, "the server's CPU time did not grow with its work")
	b.stop()
	require.True(t, b.proc.State().Success(), "the server process: %v", b.proc.State())
}
