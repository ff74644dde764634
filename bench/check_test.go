//go:build unix

package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	// Named so, as the package-level stream is BenchmarkStream's input.
	streamgen "github.com/fleetkit/catalogue/bench/internal/stream"
)

// BenchmarkCheckCommand times msgcheck check itself, built from the working
// tree, on a stream of 128 MiB written by cmd/genstream's generator (package
// internal/stream), on one core and on two (GOMAXPROCS in the command's
// environment). Besides MB/s it reports msgs/s and peak-MB, the largest
// resident set the command reached in any iteration, in MB of 10⁶ bytes
// like MB/s. The stream and the commands are made once, untimed, and each
// run's exit status and summary are checked against what the generator
// wrote.
//
// The file needs unix for the resident set size (rusage's ru_maxrss).
func BenchmarkCheckCommand(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "stream.ndjson")
	s := writeStream(b, file, 128<<20)
	msgcheck := filepath.Join(dir, "msgcheck")
	goBuild(b, ".", "-o", msgcheck, "github.com/fleetkit/catalogue/cmd/msgcheck")
	peakrss := buildPeakRSS(b, dir)
	// The summary msgcheck prints to stderr, up to its timing.
	summary := fmt.Sprintf("msgcheck: %d messages, %d valid, %d invalid, ", s.Messages, s.Messages-s.Invalid, s.Invalid)

	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			var peak int64 // bytes
			b.SetBytes(s.Bytes)
			for b.Loop() {
				var stdout, stderr bytes.Buffer
				cmd := exec.Command(peakrss, msgcheck, "check", file)
				cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs))
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				if exit, ok := errors.AsType[*exec.ExitError](err); !ok || exit.ExitCode() != 1 {
					b.Fatalf("msgcheck check: %v, want exit status 1\n%s", err, &stderr)
				}
				if !strings.HasPrefix(stderr.String(), summary) {
					b.Fatalf("msgcheck check printed %q, want a summary starting %q", &stderr, summary)
				}
				rss, err := strconv.ParseInt(strings.TrimSpace(stdout.String()), 10, 64)
				if err != nil {
					b.Fatalf("peakrss: %v", err)
				}
				peak = max(peak, rss)
			}
			b.ReportMetric(float64(s.Messages)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
			b.ReportMetric(float64(peak)/1e6, "peak-MB")
		})
	}
}

// writeStream writes a stream of at least size bytes to file.
func writeStream(b *testing.B, file string, size int64) streamgen.Stats {
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	s, err := streamgen.Write(f, "testdata", size)
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func goBuild(b *testing.B, dir string, args ...string) {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
}

// buildPeakRSS builds peakRSSSource in dir and returns the program's path.
func buildPeakRSS(b *testing.B, dir string) string {
	src := filepath.Join(dir, "peakrss.go")
	if err := os.WriteFile(src, []byte(peakRSSSource), 0o666); err != nil {
		b.Fatal(err)
	}
	exe := filepath.Join(dir, "peakrss")
	goBuild(b, dir, "-o", exe, src)
	return exe
}

// peakRSSSource is a program that runs a command, its standard output
// discarded, and prints the command's peak resident set in bytes; its exit
// status is the command's.
//
// The command cannot be run by the test process itself: Linux records a
// process's resident set at exec as the peak of its child, and Go starts a
// child sharing the parent's memory (vfork), so the child's ru_maxrss would
// be at least the test process's own peak, itself above 20 MB. peakrss's
// peak is a few MB.
const peakRSSSource = `package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(125)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		rss <<= 10 // KiB, except on Apple's systems
	}
	fmt.Println(rss)
	os.Exit(cmd.ProcessState.ExitCode())
}
`
