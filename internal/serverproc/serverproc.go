// Package serverproc runs a test's server (a broker) in a process of its
// own, as an operator runs one: the test binary started again, its
// TestMain serving instead of running tests, so that the server's work is
// not the test process's and runs on the cores the system gives it, and
// the test can ask how much CPU time it has spent.
//
//	func TestMain(m *testing.M) {
//		if spec := os.Getenv("MY_SERVER"); spec != "" {
//			addr := startServer(spec) // in this process
//			if err := serverproc.Serve(addr, os.Stdin, os.Stdout); err != nil {
//				os.Exit(2)
//			}
//			os.Exit(0)
//		}
//		os.Exit(m.Run())
//	}
//
//	p, err := serverproc.Start([]string{"MY_SERVER=..."}, runtime.GOMAXPROCS(0))
//	defer p.Stop()
//	cpu, err := p.CPU()
package serverproc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Serve is the server process's side: it writes addr to out on a line of
// its own, then answers every line read from in with CPUTime in
// nanoseconds, on a line, until in ends (the test is done with it, or
// gone), when it returns.
func Serve(addr string, in io.Reader, out io.Writer) error {
	if _, err := fmt.Fprintln(out, addr); err != nil {
		return err
	}
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		if _, err := fmt.Fprintln(out, int64(CPUTime())); err != nil {
			return err
		}
	}
	return lines.Err()
}

// CPUTime returns the CPU time this process has spent, in user and system
// mode; 0 if the system does not say.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A Process is a server in a process of its own, started by Start.
type Process struct {
	// Addr is what the server wrote first: where to reach it.
	Addr string

	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	stopped sync.Once
}

// Start starts the test binary again, running no test, with env added to
// this process's environment (what makes its TestMain call Serve) and
// GOMAXPROCS procs, and returns it once it has written its address. The
// process's standard error is this one's.
func Start(env []string, procs int) (*Process, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), "GOMAXPROCS="+strconv.Itoa(procs))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, in: in, out: bufio.NewReader(out)}
	addr, err := p.out.ReadString('\n')
	if err != nil {
		p.Stop()
		return nil, fmt.Errorf("the server process wrote no address: %w (%v)", err, p.cmd.ProcessState)
	}
	p.Addr = strings.TrimSpace(addr)
	return p, nil
}

// CPU returns the CPU time the server's process has spent so far, in user
// and system mode, as it reports it.
func (p *Process) CPU() (time.Duration, error) {
	if _, err := io.WriteString(p.in, "cpu\n"); err != nil {
		return 0, err
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
	if err != nil {
		return 0, errors.New("the server process reports no CPU time: " + strings.TrimSpace(line))
	}
	return time.Duration(ns), nil
}

// Stop ends the process by closing its input, and waits for it to end,
// killing it if it has not after 10 seconds. Only the first call does
// anything.
func (p *Process) Stop() {
	p.stopped.Do(func() {
		p.in.Close()
		done := make(chan struct{})
		go func() { p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-done
		}
	})
}

// Pid returns the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// State returns the state of the process once Stop has returned.
func (p *Process) State() *os.ProcessState { return p.cmd.ProcessState }
