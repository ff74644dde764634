// Package cmdtest runs a command's test binary as the command itself, in
// a process of its own, so that its tests send it real signals and read
// what it writes as it runs:
//
//	func TestMain(m *testing.M) {
//		cmdtest.Main(main)
//		os.Exit(m.Run())
//	}
//
//	c := cmdtest.Start(t, t.TempDir(), "-server", url)
//	c.WaitLog(t, "connected")
//	c.Signal(t, syscall.SIGTERM)
//	status := c.Exit(t)
package cmdtest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// env is set in the environment of the test binary started as the
// command.
const env = "CATALOGUE_CMDTEST_MAIN"

// Wait is how long WaitLog and Exit wait.
const Wait = 30 * time.Second

// Main runs main, the command's, when the test binary was started as the
// command by Start, and returns otherwise. Call it first in TestMain.
func Main(main func()) {
	if os.Getenv(env) == "1" {
		main()
		os.Exit(0)
	}
}

// A Command is the command running in a process of its own.
type Command struct {
	cmd            *exec.Cmd
	stdout, stderr Buffer // the process writes as the test reads
	seen           int    // how much of stderr WaitLog has read
}

// Start starts the command with args, in dir, and kills it at the end of
// the test if it still runs.
func Start(t testing.TB, dir string, args ...string) *Command {
	t.Helper()
	c := &Command{cmd: exec.Command(os.Args[0], args...)}
	c.cmd.Env = append(os.Environ(), env+"=1")
	c.cmd.Dir = dir
	c.cmd.Stdout = &c.stdout
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.cmd.Process.Kill() })
	return c
}

// A Buffer is a bytes.Buffer that one goroutine may read while another
// writes to it, such as a command's output while the command runs.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// Len returns how many bytes were written so far.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Len()
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Log returns what the command wrote on stderr so far.
func (c *Command) Log() string { return c.stderr.String() }

// Stdout returns what the command wrote on stdout so far.
func (c *Command) Stdout() string { return c.stdout.String() }

// WaitLog waits for the command to write s on stderr after what the last
// WaitLog found, so that a line written earlier cannot stand for one
// written later; it fails the test after Wait.
func (c *Command) WaitLog(t testing.TB, s string) {
	t.Helper()
	for deadline := time.Now().Add(Wait); ; time.Sleep(20 * time.Millisecond) {
		if i := strings.Index(c.Log()[c.seen:], s); i >= 0 {
			c.seen += i + len(s)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command never logged %q; it logged:\n%s", s, c.Log())
		}
	}
}

// Signal sends sig to the command.
func (c *Command) Signal(t testing.TB, sig os.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// Exit waits for the command to exit, and returns its status; it fails
// the test after Wait.
func (c *Command) Exit(t testing.TB) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if e, ok := errors.AsType[*exec.ExitError](err); ok {
			return e.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(Wait):
		t.Fatalf("the command did not exit; it logged:\n%s", c.Log())
		return -1
	}
}
