package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/gate"
)

// TestDemoHintRunsWhereTheREADMERunsTheDemo runs gate demo as the
// README's Kafka session starts it, with go run in kafka/ (on a free
// port), and then the command its hint gives, in kafka/, where the
// README's other terminal is: the hint must be the README's line, and
// run a gate that gates the sample and exits 0. Found by a new user: the
// hint said gate -brokers ..., and go run had built no gate to run.
func TestDemoHintRunsWhereTheREADMERunsTheDemo(t *testing.T) {
	readme, err := os.ReadFile(readmeFile)
	require.NoError(t, err)
	var command, hint string
	for line := range strings.Lines(string(readme)) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "$ ") && strings.HasSuffix(line, "go run ./cmd/gate demo") {
			command = strings.TrimPrefix(line, "$ ")
		}
		if _, h, ok := strings.Cut(line, "gate demo: serving until interrupted; in another terminal: "); ok && command != "" && hint == "" {
			hint = h
		}
	}
	require.Equal(t, "cd kafka && go run ./cmd/gate demo", command, "the README's session starts gate demo so")
	require.NotEmpty(t, hint, "the README shows gate demo's hint")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	demo := exec.CommandContext(ctx, "bash", "-c", command+" -addr 127.0.0.1:0")
	demo.Dir = "../../.." // the repository's root, as the README says
	demo.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	demo.Cancel = func() error { return syscall.Kill(-demo.Process.Pid, syscall.SIGKILL) }
	stderr, err := demo.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, demo.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-demo.Process.Pid, syscall.SIGINT)
		_ = demo.Wait()
	})
	var printed []string
	got := ""
	for s := bufio.NewScanner(stderr); got == "" && s.Scan(); {
		printed = append(printed, s.Text())
		_, got, _ = strings.Cut(s.Text(), "gate demo: serving until interrupted; in another terminal: ")
	}
	require.NotEmpty(t, got, "gate demo printed no hint:\n%s", strings.Join(printed, "\n"))
	_, after, ok := strings.Cut(got, " -brokers ")
	require.True(t, ok, "gate demo's hint names the brokers: %s", got)
	address := strings.Fields(after)[0]
	assert.Equal(t, strings.ReplaceAll(hint, readmeBroker, address), got, "gate demo's hint, as the README shows it")

	gate := exec.CommandContext(ctx, "bash", "-c", got)
	gate.Dir = "../.." // kafka/, the README's other terminal
	out, err := gate.CombinedOutput()
	require.NoError(t, err, "%s, in kafka/:\n%s", got, out)
	assert.Contains(t, string(out), "gate: 37 messages, 23 forwarded to fleet.valid, 14 dead letters to fleet.dead;", "%s, in kafka/", got)
}

// TestInvocationNamesWhatRunsTheCommandAgain holds gate demo's hint to
// what runs the gate from where the demonstration runs: the name it was
// run by, or, for an executable go run built, go run of its package.
func TestInvocationNamesWhatRunsTheCommandAgain(t *testing.T) {
	cached := "/var/cache/go/0d/" + strings.Repeat("0d", 32) + "-d/gate"
	for _, c := range []struct{ arg0, dir, version, want string }{
		{"./gate", ".", "(devel)", "./gate"},
		{"gate", ".", "(devel)", "gate"},
		{"/usr/local/bin/gate", "../..", "v1.2.0", "/usr/local/bin/gate"},
		{"/opt/my tools/gate", ".", "", "'/opt/my tools/gate'"},
		{"./it's", ".", "", `'./it'\''s'`},
		{"./gate\x1b[2J", ".", "", `'./gate\x1b[2J'`},
		{"/tmp/go-build4242/b001/exe/gate", "../..", "(devel)", "go run ./cmd/gate"},
		{cached, "../..", "(devel)", "go run ./cmd/gate"},
		{"/tmp/go-build4242/b001/exe/gate", ".", "(devel)", "go run " + importPath},
		{"/tmp/go-build4242/b001/exe/gate", "../../..", "", "go run " + importPath},
		{"/tmp/go-build4242/b001/exe/gate", "../..", "v1.2.0", "go run " + importPath + "@v1.2.0"},
	} {
		assert.Equal(t, c.want, invocation(c.arg0, c.dir, c.version), "%q in %s at %q", c.arg0, c.dir, c.version)
	}
	mod, err := os.ReadFile("../../go.mod")
	require.NoError(t, err)
	assert.Equal(t, modulePath, moduleOf(mod), "the module's path")
	info, ok := debug.ReadBuildInfo()
	require.True(t, ok)
	assert.Equal(t, importPath, strings.TrimSuffix(info.Path, ".test"), "the command's import path")
	assert.Equal(t, importPath, modulePath+"/"+filepath.ToSlash(filepath.Join("cmd", "gate")), "the command's folder in its module")
}

// TestREADMESaysWhenTheVerdictLeavesOutThePartition holds what the
// README says of a dead letter's verdict to what the gate writes: the
// input's partition, left out when it is 0. Found by a new user: the
// README's session showed "partition":1, and the first dead letter kcat
// listed in the user's own run had no partition at all, which the README
// did not say could happen.
func TestREADMESaysWhenTheVerdictLeavesOutThePartition(t *testing.T) {
	section := gateSection(t)
	text := strings.Join(strings.Fields(section), " ")

	one := string((&gate.Verdict{Place: gate.Place{Subject: "fleet.in", Partition: 1, Sequence: 1}}).AppendHeader(nil))
	zero := string((&gate.Verdict{Place: gate.Place{Subject: "fleet.in", Sequence: 1}}).AppendHeader(nil))
	assert.Contains(t, one, `"subject":"fleet.in","partition":1,"sequence":1,`, "the verdict names the input's partition")
	assert.Contains(t, section, `catalogue-verdict={"subject":"fleet.in","partition":1,"sequence":1,`, "the README's session shows a verdict of partition 1")
	if strings.Contains(zero, `"partition"`) {
		assert.NotContains(t, text, "left out when it is 0", "the gate writes partition 0, and the README says it is left out")
	} else {
		assert.Contains(t, text, "the input's topic, partition and offset, the partition left out when it is 0", "the gate leaves partition 0 out: %s", zero)
		assert.Contains(t, text, "`\"partition\"` is left out when it is 0", "what differs from run to run: the gate leaves partition 0 out")
	}
}
