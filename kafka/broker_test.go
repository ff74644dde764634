package kafka_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/internal/serverproc"
	"github.com/fleetkit/catalogue/kafka"
)

// brokerEnv is the environment variable that makes the test binary a
// Kafka broker (kfake) rather than run its tests: see startBroker.
const brokerEnv = "CATALOGUE_KAFKA_BROKER"

// TestMain runs the tests and benchmarks, then prints the table of the
// benchmarks' figures, if any ran; or, when brokerEnv is set, it serves a
// cluster in this process, for startBroker.
func TestMain(m *testing.M) {
	if spec := os.Getenv(brokerEnv); spec != "" {
		if err := serveBroker(spec, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "broker:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	code := m.Run()
	printTable(os.Stdout)
	os.Exit(code)
}

// serveBroker serves a kfake cluster as spec says ("BROKERS PARTITIONS
// TOPIC..."), writes the addresses of its brokers to out on one line,
// separated by commas, and then, for every line read from in, the CPU
// time this process has spent so far, in nanoseconds, on a line of its
// own. It stops when in ends: when the process that started it closes
// the pipe or exits.
func serveBroker(spec string, in io.Reader, out io.Writer) error {
	f := strings.Fields(spec)
	if len(f) < 3 {
		return fmt.Errorf("%s=%q: want BROKERS PARTITIONS TOPIC...", brokerEnv, spec)
	}
	brokers, err := strconv.Atoi(f[0])
	if err != nil {
		return err
	}
	partitions, err := strconv.ParseInt(f[1], 10, 32)
	if err != nil {
		return err
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(brokers), kfake.SeedTopics(int32(partitions), f[2:]...))
	if err != nil {
		return err
	}
	defer c.Close()
	return serverproc.Serve(strings.Join(c.ListenAddrs(), ","), in, out)
}

// A brokerProcess is a kfake cluster served by a process of its own
// (serverproc), as an operator runs a broker: its work is not the
// client's, and it runs on the cores the scheduler gives it.
type brokerProcess struct {
	*serverproc.Process
	addrs []string
}

// startBroker starts the test binary again as a broker process of
// brokers brokers, with the topics, each of partitions partitions, and
// GOMAXPROCS procs; it stops when tb's test ends.
func startBroker(tb testing.TB, procs, brokers int, partitions int32, topics ...string) *brokerProcess {
	tb.Helper()
	p, err := serverproc.Start([]string{fmt.Sprintf("%s=%d %d %s", brokerEnv, brokers, partitions, strings.Join(topics, " "))}, procs)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Stop)
	return &brokerProcess{Process: p, addrs: strings.Split(p.Addr, ",")}
}

// cpuTime returns the CPU time the broker process has spent, in user and
// system mode, as it reports it; tb fails when it reports none.
func (p *brokerProcess) cpuTime(tb testing.TB) time.Duration {
	tb.Helper()
	cpu, err := p.CPU()
	if err != nil {
		tb.Fatalf("the broker process: %v", err)
	}
	return cpu
}

// procs is the GOMAXPROCS a benchmark runs with (go test -cpu).
func procs() int { return runtime.GOMAXPROCS(0) }

// TestBrokerProcess checks the benchmarks' broker process: a client
// produces to it and reads back what it produced, it reports the CPU time
// it spends, and it ends, successfully, when its input is closed.
func TestBrokerProcess(t *testing.T) {
	p := startBroker(t, 1, 1, 1, "smoke")
	before := p.cpuTime(t)
	require.Positive(t, before, "the broker's CPU time")

	ms, _ := samples(t)
	client, err := kgo.NewClient(kgo.SeedBrokers(p.addrs...), kgo.ConsumeTopics("smoke"))
	require.NoError(t, err)
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = kafka.Producer{Client: client, Framed: true}.Produce(ctx, "smoke", ms[0])
	require.NoError(t, err)
	fs := client.PollFetches(ctx)
	require.NoError(t, fs.Err())
	require.Len(t, fs.Records(), 1)
	got, err := kafka.Decode(catalogue.Kinds, fs.Records()[0])
	require.NoError(t, err)
	assert.Equal(t, ms[0], got)

	assert.Greater(t, p.cpuTime(t), before, "the broker's CPU time after serving")
	p.Stop()
	assert.True(t, p.State().Success(), p.State().String())
}

// TestBrokerProcessRefusesABadSpec checks that serveBroker says what it
// wants rather than serve a cluster it was not asked for.
func TestBrokerProcessRefusesABadSpec(t *testing.T) {
	for _, spec := range []string{"1", "1 3", "x 3 t", "1 x t"} {
		err := serveBroker(spec, strings.NewReader(""), io.Discard)
		assert.Error(t, err, spec)
	}
}
