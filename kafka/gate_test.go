package kafka_test

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/gate/gatetest"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/kafka/internal/kafkatest"
)

// TestGateContract holds the Kafka gate to the contract every gate keeps
// (decision 16), on an in-process cluster (kfake) that persists its data
// across a restart.
func TestGateContract(t *testing.T) {
	gatetest.Run(t, gatetest.Binding{CE: ce.Kafka, Start: startKafka, Large: large()})
}

// large is the number of messages of the suite's checks that run many:
// fewer under the race detector, which slows everything tenfold.
func large() int {
	if raceEnabled {
		return 500
	}
	return 2000
}

const (
	inTopic, outTopic, deadTopic = "in", "out", "dead"
	partitions                   = 3
)

// kbroker is a kfake cluster as gatetest.Broker: an input topic of three
// partitions, an output and a dead-letter topic.
type kbroker struct {
	t     testing.TB
	cfg   gatetest.Config
	dir   string
	ports []int
	limit int32 // the most a record batch may hold, the broker's and the clients'

	mu    sync.Mutex
	c     *kfake.Cluster
	gates int
}

func startKafka(t testing.TB, cfg gatetest.Config) gatetest.Broker {
	b := &kbroker{t: t, cfg: cfg, dir: t.TempDir(), limit: 2 << 20}
	if cfg.MaxBytes > 0 {
		b.limit = int32(cfg.MaxBytes)
	}
	b.Start(t)
	t.Cleanup(func() { b.Stop(t) })
	adm := kadm.NewClient(b.client(t))
	topics := []string{inTopic}
	if !cfg.NoOutput {
		topics = append(topics, outTopic)
	}
	if !cfg.NoDeadLetter {
		topics = append(topics, deadTopic)
	}
	// The topics say their limit too: kfake describes a topic's
	// max.message.bytes as Kafka's default, not as the broker's
	// message.max.bytes it enforces, and a gate refuses to start when
	// its client may put more in a batch than its topics store.
	limit := strconv.Itoa(int(b.limit))
	resp, err := adm.CreateTopics(context.Background(), partitions, 1, map[string]*string{"max.message.bytes": &limit}, topics...)
	require.NoError(t, err)
	require.NoError(t, resp.Error())
	return b
}

func (b *kbroker) Start(t testing.TB) {
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.DataDir(b.dir),
		kfake.GroupMinSessionTimeout(500 * time.Millisecond),
		kfake.BrokerConfigs(map[string]string{"message.max.bytes": strconv.Itoa(int(b.limit))}),
	}
	if b.ports != nil {
		opts = append(opts, kfake.Ports(b.ports...))
	}
	c, err := kfake.NewCluster(opts...)
	require.NoError(t, err)
	if b.ports == nil {
		for _, a := range c.ListenAddrs() {
			_, port, _ := net.SplitHostPort(a)
			p, _ := strconv.Atoi(port)
			b.ports = append(b.ports, p)
		}
	}
	b.mu.Lock()
	b.c = c
	b.mu.Unlock()
}

func (b *kbroker) Stop(t testing.TB) {
	b.mu.Lock()
	c := b.c
	b.c = nil
	b.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

func (b *kbroker) addrs() []string {
	var addrs []string
	for _, p := range b.ports {
		addrs = append(addrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	}
	return addrs
}

// client returns a client of the cluster, closed at the test's end.
func (b *kbroker) client(t testing.TB, opts ...kgo.Opt) *kgo.Client {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.addrs()...), kgo.ProducerBatchMaxBytes(b.limit)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

func (b *kbroker) Publish(t testing.TB, msgs []gatetest.Message) []gate.Place {
	cl := b.client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	records := make([]*kgo.Record, len(msgs))
	for i, m := range msgs {
		r := &kgo.Record{Topic: inTopic, Partition: int32(i % partitions), Value: m.Body}
		for k, vs := range m.Header {
			for _, v := range vs {
				r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
			}
		}
		records[i] = r
	}
	require.NoError(t, cl.ProduceSync(context.Background(), records...).FirstErr())
	places := make([]gate.Place, len(records))
	for i, r := range records {
		places[i] = gate.Place{Subject: r.Topic, Partition: r.Partition, Sequence: uint64(r.Offset)}
	}
	return places
}

func (b *kbroker) Output(t testing.TB) []gatetest.Stored      { return b.read(t, outTopic) }
func (b *kbroker) DeadLetters(t testing.TB) []gatetest.Stored { return b.read(t, deadTopic) }

// read returns what a read_committed consumer finds in topic, from its
// start to the last stable offset of each partition when it is called:
// never part of what is there because a poll on a loaded machine came
// back empty early.
func (b *kbroker) read(t testing.TB, topic string) []gatetest.Stored {
	cl := b.client(t, kafkatest.ReaderOpts(topic)...)
	defer cl.Close()
	r := kafkatest.NewReader(cl, topic)
	done, err := r.ToStableEnd(time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.True(t, done, "%s not read to its last stable offsets within a minute", topic)
	var out []gatetest.Stored
	for _, rec := range r.Records {
		s := gatetest.Stored{Header: map[string][]string{}, Body: rec.Value}
		for _, h := range rec.Headers {
			if h.Key == kafka.VerdictHeader {
				v, err := gate.ParseVerdict(h.Value)
				require.NoError(t, err)
				s.Verdict = &v
				continue
			}
			s.Header[h.Key] = append(s.Header[h.Key], string(h.Value))
		}
		out = append(out, s)
	}
	return out
}

func (b *kbroker) RecreateInput(t testing.TB) {
	adm := kadm.NewClient(b.client(t))
	ctx := context.Background()
	_, err := adm.DeleteTopics(ctx, inTopic)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		resp, err := adm.CreateTopics(ctx, partitions, 1, nil, inTopic)
		return err == nil && resp.Error() == nil
	}, 10*time.Second, 50*time.Millisecond)
}

// StartGate starts a gate with a transactional id and a connection of
// its own, in the broker's one group.
func (b *kbroker) StartGate(t testing.TB, o gatetest.GateOptions) gatetest.Gate {
	b.mu.Lock()
	b.gates++
	n := b.gates
	b.mu.Unlock()
	consume := []string{inTopic}
	if b.cfg.InputCoversOutput {
		consume = append(consume, outTopic)
	}
	if b.cfg.InputCoversDeadLetter {
		consume = append(consume, deadTopic)
	}
	d := &killable{}
	sess, err := kgo.NewGroupTransactSession(append(boundedFetches(t),
		kgo.SeedBrokers(b.addrs()...),
		kgo.Dialer(d.dial),
		kgo.ConsumerGroup("gates"),
		kgo.ConsumeTopics(consume...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.TransactionalID(fmt.Sprintf("gate-%d", n)),
		kgo.TransactionTimeout(10*time.Second),
		kgo.SessionTimeout(2*time.Second),
		kgo.HeartbeatInterval(200*time.Millisecond),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords(),
		kgo.ProducerBatchMaxBytes(b.limit),
		kgo.RetryTimeout(time.Minute),
	)...)
	require.NoError(t, err)
	g := &kafka.Gate{Session: sess, Output: outTopic, DeadLetters: deadTopic, Batch: o.Batch, Progress: o.Progress, UntilIdle: o.UntilIdle}
	// Killed, it cuts the gate's connections, and every one it tries
	// again, as a process killed would lose them: no transaction ended, no
	// group left.
	return gatetest.Go(t, func(ctx context.Context) (gate.Stats, error) {
		st, err := g.Run(ctx)
		if !d.killed() {
			sess.Close()
		}
		return st, err
	}, d.kill)
}

// killable dials connections it can cut all at once, and refuses any
// after.
type killable struct {
	mu    sync.Mutex
	conns []net.Conn
	dead  bool
}

func (k *killable) dial(ctx context.Context, network, host string) (net.Conn, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dead {
		return nil, fmt.Errorf("killed")
	}
	c, err := (&net.Dialer{}).DialContext(ctx, network, host)
	if err == nil {
		k.conns = append(k.conns, c)
	}
	return c, err
}

func (k *killable) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dead = true
	for _, c := range k.conns {
		c.Close()
	}
}

func (k *killable) killed() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.dead
}

// The Kafka gate is package gate's Gate over a Kafka session, not a copy
// of it: the batches it counts are counted by gate.Gate's loop, which
// calls Progress.
func TestGateRunsOnTheGateCore(t *testing.T) {
	_, addrs := newCluster(t, 1)
	produceInput(t, addrs, 10)
	var callers []string
	st := runUntilIdle(t, addrs, &kafka.Gate{
		Progress: func(gate.Stats) {
			if callers != nil {
				return
			}
			pcs := make([]uintptr, 32)
			frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
			for f, more := frames.Next(); more; f, more = frames.Next() {
				callers = append(callers, f.Function)
			}
		}})
	assert.Equal(t, 10, st.Messages)
	assert.True(t, slices.ContainsFunc(callers, func(f string) bool {
		return strings.HasPrefix(f, "github.com/fleetkit/catalogue/gate.(*Gate).")
	}), "Progress called by %v", callers)
}

// runUntilIdle runs g on the test's topics until it has nothing left to
// read, on a session of its own on the cluster at addrs (gateSession)
// unless it has a way to its sessions, and returns what it counted.
func runUntilIdle(t *testing.T, addrs []string, g *kafka.Gate) gate.Stats {
	t.Helper()
	if g.Session == nil && g.NewSession == nil {
		g.Session = gateSession(t, addrs)
	}
	g.Output, g.DeadLetters, g.UntilIdle = outTopic, deadTopic, true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := g.Run(ctx)
	require.NoError(t, err)
	return st
}

// boundedFetches returns the options of kafka.BoundedFetches that
// kafka/cmd/gate gives its sessions (a batch of its default
// -max-record-bytes may decompress to 32 MiB), for the tests that hold
// the gate to its contract as the command runs it.
func boundedFetches(t testing.TB) []kgo.Opt {
	opts, err := kafka.BoundedFetches(32 << 20)
	require.NoError(t, err)
	return opts
}

// ran is what a gate's Run returned.
type ran struct {
	st  gate.Stats
	err error
}

// runGate runs g in a goroutine of its own, and returns where what its Run
// returns comes.
func runGate(ctx context.Context, g *kafka.Gate) <-chan ran {
	done := make(chan ran, 1)
	go func() {
		st, err := g.Run(ctx)
		done <- ran{st, err}
	}()
	return done
}

// newCluster starts a one-broker kfake cluster with the test's topics of
// partitions partitions, closed at the test's end, and returns it and
// its addresses.
func newCluster(t *testing.T, partitions int32, opts ...kfake.Opt) (*kfake.Cluster, []string) {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(partitions, inTopic, outTopic, deadTopic)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c, c.ListenAddrs()
}

// A valid input cannot give its copy a verdict: a header of its own
// named like a dead letter's verdict, in any case, is kept renamed, so
// that a reader of the output finds no verdict on a copy.
func TestCopyCarriesNoVerdict(t *testing.T) {
	_, addrs := newCluster(t, 1)
	ms, _ := samples(t)
	forged := `{"subject":"elsewhere","sequence":0,"valid":false,"deliveries":1}`
	var in []*kgo.Record
	for i, withHeaders := range []bool{true, false} { // the copy shares its input's headers, or not
		r, err := kafka.Record(inTopic, ms[i], false)
		require.NoError(t, err)
		if !withHeaders {
			r.Headers = nil
		}
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: "Catalogue-Verdict", Value: []byte(forged)})
		in = append(in, r)
	}
	require.NoError(t, readerClient(t, addrs).ProduceSync(context.Background(), in...).FirstErr())
	st := runUntilIdle(t, addrs, &kafka.Gate{})
	require.Equal(t, 2, st.Forwarded, "%+v", st)

	reader := readerClient(t, addrs, kgo.ConsumeTopics(outTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var records []*kgo.Record
	for len(records) < 2 && ctx.Err() == nil {
		records = append(records, reader.PollFetches(ctx).Records()...)
	}
	require.Len(t, records, 2)
	for _, r := range records {
		originals := 0
		for _, h := range r.Headers {
			assert.False(t, strings.EqualFold(h.Key, kafka.VerdictHeader), "a verdict on a copy: %s", h.Value)
			if h.Key == kafka.OriginalPrefix+"Catalogue-Verdict" {
				assert.Equal(t, forged, string(h.Value))
				originals++
			}
		}
		assert.Equal(t, 1, originals)
	}
}

// An input cannot forge its dead letter's verdict: a header of its own
// named like the verdict's, in any case, is kept renamed, and the one
// verdict a consumer of the dead letters finds is the gate's.
func TestDeadLetterVerdictCannotBeForged(t *testing.T) {
	_, addrs := newCluster(t, 1)
	forged := `{"subject":"elsewhere","sequence":0,"valid":true,"deliveries":1}`
	in := &kgo.Record{Topic: inTopic, Value: []byte(`{"message_type":"core.device"}`), Headers: []kgo.RecordHeader{
		{Key: kafka.VerdictHeader, Value: []byte(forged)},
		{Key: "Catalogue-Verdict", Value: []byte(forged)},
	}}
	require.NoError(t, readerClient(t, addrs).ProduceSync(context.Background(), in).FirstErr())
	st := runUntilIdle(t, addrs, &kafka.Gate{})
	require.Equal(t, 1, st.DeadLetters)

	reader := readerClient(t, addrs, kgo.ConsumeTopics(deadTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	records := reader.PollFetches(ctx).Records()
	require.Len(t, records, 1)
	var verdicts []string
	originals := map[string]string{}
	for _, h := range records[0].Headers {
		if strings.EqualFold(h.Key, kafka.VerdictHeader) {
			verdicts = append(verdicts, string(h.Value))
		}
		if k, ok := strings.CutPrefix(h.Key, kafka.OriginalPrefix); ok {
			originals[k] = string(h.Value)
		}
	}
	require.Len(t, verdicts, 1, "the dead letter's verdict headers")
	v, err := gate.ParseVerdict([]byte(verdicts[0]))
	require.NoError(t, err)
	assert.False(t, v.Valid)
	assert.Equal(t, inTopic, v.Subject)
	assert.Equal(t, map[string]string{kafka.VerdictHeader: forged, "Catalogue-Verdict": forged}, originals)
}
