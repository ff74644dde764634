package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/kafka"
)

// The README's address of the demonstration's broker, and of msgcheck
// serve's registry, which the test replaces with its own.
const (
	readmeBroker   = "127.0.0.1:9092"
	readmeRegistry = "http://127.0.0.1:8080/api/registry"
)

// readmeFile is the repository's README.
const readmeFile = "../../../README.md"

// gateSection returns the README's section "A Kafka gate, the command",
// up to the next section of its level or higher.
func gateSection(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile(readmeFile)
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n### A Kafka gate, the command\n")
	require.True(t, ok, "README.md has no section A Kafka gate, the command")
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// TestREADMEKafkaSessionRunsAsShown runs the session of the README's "A
// Kafka gate, the command" from start to summary, as a new user pastes
// it: gate demo's cluster, the gates, kcat, and the README's Python
// producer with Debian's python3-confluent-kafka against the registry of
// msgcheck serve -subject as the README starts it. What each command
// prints is held to the README's lines, the times, the transactional id
// and where kcat finds a dead letter (partition, offset) aside, and each
// exit status to the README's echo $?. Found by a new user: the README
// showed the session on a cluster it gave no way to start, and ran the
// command as gate where go build had made ./gate.
func TestREADMEKafkaSessionRunsAsShown(t *testing.T) {
	readme, err := os.ReadFile(readmeFile)
	require.NoError(t, err)
	section := gateSection(t)
	var session []string
	for _, block := range strings.Split(section, "\n```text\n")[1:] {
		block, _, _ = strings.Cut(block, "\n```")
		if strings.HasPrefix(block, "$ ") {
			session = append(session, strings.Split(block, "\n")...)
		}
	}
	require.NotEmpty(t, session, "the section's session, a text block of $ commands")
	_, python, ok := strings.Cut(string(readme), "\n```python\n")
	require.True(t, ok, "README.md has no Python producer")
	python, _, _ = strings.Cut(python, "\n```")

	kcat, kcatErr := exec.LookPath("kcat")
	pythonErr := exec.Command("/usr/bin/python3", "-c", "import confluent_kafka.schema_registry.json_schema").Run()
	for _, err := range []error{kcatErr, pythonErr} {
		if err != nil && os.Getenv("CI") != "" {
			t.Fatalf("%v: CI installs kcat and python3-confluent-kafka", err)
		} else if err != nil {
			t.Skipf("%v: apt-get install kcat python3-confluent-kafka python3-requests python3-jsonschema", err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var broker, registry string
	demoLines := make(chan string, 10)
	status := -1
	for i := 0; i < len(session); {
		command := strings.TrimPrefix(session[i], "$ ")
		var shown []string
		for i++; i < len(session) && !strings.HasPrefix(session[i], "$ "); i++ {
			shown = append(shown, session[i])
		}
		var got []string
		switch {
		case command == "cd kafka && go run ./cmd/gate demo":
			// The hint names the command as go run, run in kafka/,
			// gives it (TestDemoHintRunsWhereTheREADMERunsTheDemo runs
			// both for real).
			was := self
			self = invocation(filepath.Join(os.TempDir(), "go-build1", "b001", "exe", "gate"), "../..", "(devel)")
			t.Cleanup(func() { self = was })
			r, w := io.Pipe()
			done := make(chan struct{})
			go func() {
				defer close(done)
				run(ctx, []string{"demo", "-addr", "127.0.0.1:0"}, w)
				w.Close()
			}()
			t.Cleanup(func() { cancel(); <-done })
			go func() {
				for s := bufio.NewScanner(r); s.Scan(); {
					demoLines <- s.Text()
				}
				close(demoLines)
			}()
			for range shown {
				select {
				case line := <-demoLines:
					got = append(got, line)
				case <-time.After(30 * time.Second):
					t.Fatalf("gate demo printed %q, then nothing for 30s", got)
				}
			}
			address := regexp.MustCompile(`127\.0\.0\.1:\d+`).FindString(strings.Join(got, "\n"))
			require.NotEmpty(t, address, "gate demo names its broker's address: %q", got)
			broker = address
		case strings.HasPrefix(command, "./gate "):
			require.NotEmpty(t, broker, "the README runs a gate before it starts gate demo")
			args := strings.Fields(strings.ReplaceAll(strings.TrimPrefix(command, "./gate "), readmeBroker, broker))
			var out bytes.Buffer
			status = run(ctx, args, &out)
			got = strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if !slices.ContainsFunc(shown, connected.MatchString) {
				// A gate that refuses to start may have connected before,
				// and logged it, or not: kgo's hook and the refusal race.
				got = slices.DeleteFunc(got, connected.MatchString)
			}
		case command == "echo $?":
			got = []string{strconv.Itoa(status)}
		case strings.HasPrefix(command, "kcat "):
			// Every dead letter, not only the first: which partition kcat
			// reads first is its own.
			line, _, _ := strings.Cut(strings.ReplaceAll(command, readmeBroker, broker), " | head -1")
			out, err := exec.Command("bash", "-c", strings.Replace(line, "kcat", kcat, 1)).Output()
			require.NoError(t, err, "%s", line)
			require.Len(t, shown, 1, "the README shows kcat's first line")
			all := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			assert.Contains(t, mask(all), mask(shown)[0], "README.md: %s prints\n%s", command, out)
			continue
		case strings.HasPrefix(command, "/usr/bin/python3 producer.py"):
			serve := regexp.MustCompile(`msgcheck serve -subject (\S+)=(\S+) running$`).FindStringSubmatch(command)
			require.NotNil(t, serve, "the README says how msgcheck serve runs for the producer: %s", command)
			s := httptest.NewServer(api.Handler(api.Subjects(map[string]string{serve[1]: serve[2]})))
			t.Cleanup(s.Close)
			registry = s.URL + "/api/registry"
			require.Contains(t, python, readmeRegistry)
			require.Contains(t, python, readmeBroker)
			script := strings.ReplaceAll(strings.ReplaceAll(python, readmeRegistry, registry), readmeBroker, broker)
			out, err := exec.Command("/usr/bin/python3", "-c", script).CombinedOutput()
			require.NoError(t, err, "the README's Python producer: %s", out)
			got = slices.DeleteFunc(strings.Split(string(out), "\n"), func(s string) bool { return s == "" })
			checkFramed(t, broker)
		default:
			t.Fatalf("README.md: the test does not know how to run %q", command)
		}
		for i := range got {
			got[i] = strings.ReplaceAll(got[i], broker, readmeBroker)
		}
		assert.Equal(t, mask(shown), mask(got), "README.md: %s prints\n%s", command, strings.Join(got, "\n"))
	}
	require.NotEmpty(t, registry, "the session runs the Python producer")
}

// The parts of the session's lines that are not the same from run to
// run.
var (
	timeField   = regexp.MustCompile(`^time=\S+ `)
	txnField    = regexp.MustCompile(` transactional_id=catalogue-gate-\S+-\d+$`)
	summaryRate = regexp.MustCompile(` in [0-9.]+[µmn]?s \([^)]*\)$`)
	kcatPlace   = regexp.MustCompile(`^(\S+) \[\d+\] at \d+: `)
	inputPlace  = regexp.MustCompile(`("partition":\d+,)?"sequence":\d+,`)
	connected   = regexp.MustCompile(`^time=\S+ level=INFO msg="connected to a broker" `)
)

// mask returns lines with what changes from run to run left out.
func mask(lines []string) []string {
	masked := make([]string, len(lines))
	for i, l := range lines {
		l = timeField.ReplaceAllString(l, "time=T ")
		l = txnField.ReplaceAllString(l, " transactional_id=catalogue-gate-HOST-PID")
		l = summaryRate.ReplaceAllString(l, " in T")
		l = kcatPlace.ReplaceAllString(l, "$1 [P] at O: ")
		l = inputPlace.ReplaceAllString(l, `"partition":P,"sequence":O,`)
		masked[i] = l
	}
	return masked
}

// checkFramed checks that fleet.in holds a record framed as the README
// says Confluent's serializer frames it (0x00, the id 2 in 4 bytes, then
// the message), keyed by its device's id, which the catalogue decodes.
func checkFramed(t *testing.T, broker string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.ConsumeTopics(demoTopics[0]),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		for _, r := range cl.PollFetches(ctx).Records() {
			if len(r.Headers) > 0 || !bytes.HasPrefix(r.Value, []byte{0, 0, 0, 0, 2}) {
				continue // the sample's records: kafka.Record writes ce_ headers
			}
			m, err := kafka.Decode(catalogue.Kinds, r)
			require.NoError(t, err, "%s", r.Value)
			assert.Equal(t, m.Identity().Key.String(), string(r.Key), "keyed by the device's id")
			return
		}
	}
	t.Fatal("no record of the Python producer in fleet.in")
}

// The demonstration's sample is the repository's.
func TestDemoSampleIsTheRepositorysSample(t *testing.T) {
	want, err := os.ReadFile("../../../" + sampleName)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(sample), "sample.ndjson is a copy of "+sampleName)
}

// gate demo's usage errors, and a port already taken, exit 2 saying why.
func TestDemoRefusesWhatItCannotServe(t *testing.T) {
	for _, args := range [][]string{{"-addr", "localhost:9092"}, {"-addr", "127.0.0.1"}, {"-addr", "127.0.0.1:70000"}, {"extra"}, {"-nope"}} {
		var stderr bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), append([]string{"demo"}, args...), &stderr), "%q", args)
		assert.Contains(t, stderr.String(), "usage: gate demo", "%q", args)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	var stderr bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"demo", "-addr", taken.Addr().String()}, &stderr))
	assert.Contains(t, stderr.String(), "address already in use (give another address with -addr)")
}
