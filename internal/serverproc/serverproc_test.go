package serverproc_test

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/serverproc"
)

// env makes the test binary a server process: "serve" serves the address
// "here:1"; "fail" exits before saying an address, as a server that
// cannot start does.
const env = "SERVERPROC_TEST"

func TestMain(m *testing.M) {
	switch os.Getenv(env) {
	case "serve":
		if err := serverproc.Serve("here:1", os.Stdin, os.Stdout); err != nil {
			os.Exit(2)
		}
		os.Exit(0)
	case "fail":
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func TestStartServeAndStop(t *testing.T) {
	p, err := serverproc.Start([]string{env + "=serve"}, 1)
	require.NoError(t, err)
	defer p.Stop()
	assert.Equal(t, "here:1", p.Addr)
	assert.NotEqual(t, os.Getpid(), p.Pid())
	first, err := p.CPU()
	require.NoError(t, err)
	assert.Positive(t, first, "a process that started has spent CPU time")
	second, err := p.CPU()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, second, first)
	p.Stop()
	p.Stop() // a second call does nothing
	assert.True(t, p.State().Success(), p.State().String())
	_, err = p.CPU()
	assert.Error(t, err, "a stopped process reports nothing")
}

func TestStartSaysWhenTheServerDoesNotStart(t *testing.T) {
	_, err := serverproc.Start([]string{env + "=fail"}, runtime.GOMAXPROCS(0))
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "wrote no address"), err.Error())
	assert.Contains(t, err.Error(), "exit status 3")
}

func TestCPUTimeGrows(t *testing.T) {
	before := serverproc.CPUTime()
	x := 0
	for i := range 50_000_000 {
		x ^= i * i
	}
	runtime.KeepAlive(x)
	assert.Greater(t, serverproc.CPUTime(), before)
}
