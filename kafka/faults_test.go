package kafka_test

import (
	"context"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/gate/gatetest"
	"github.com/fleetkit/catalogue/kafka"
)

// produceRecords produces the inputs of indices from to from+n-1, as
// produceInput makes them, each to partition i%partitions, with a client
// given opts too, and returns them, with the offsets the broker gave
// them, and which are valid.
func produceRecords(t *testing.T, addrs []string, from, n int, partitions int32, opts ...kgo.Opt) ([]*kgo.Record, []bool) {
	_, lines := samples(t)
	records := make([]*kgo.Record, n)
	valid := make([]bool, n)
	for i := range n {
		records[i], valid[i] = input(t, lines, from+i)
		records[i].Partition = int32(i) % partitions
	}
	cl := readerClient(t, addrs, append([]kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	require.NoError(t, cl.ProduceSync(context.Background(), records...).FirstErr())
	return records, valid
}

// deleteRecords deletes the records of the input's partitions below
// the offsets given, as an operator's DeleteRecords (or retention)
// does.
func deleteRecords(t *testing.T, addrs []string, below map[int32]int64) {
	os := kadm.Offsets{}
	for p, at := range below {
		os.Add(kadm.Offset{Topic: inTopic, Partition: p, At: at})
	}
	resp, err := kadm.NewClient(readerClient(t, addrs)).DeleteRecords(context.Background(), os)
	require.NoError(t, err)
	require.NoError(t, resp.Error())
}

// TestGateSkipsOnlyTheRecordsDeletedBeforeItReadThem deletes records of
// the input before the gate reads them (DeleteRecords, as an operator or
// retention does): every record of one partition before the gate ever
// ran, and, once the gate has committed a first pass and stopped, those
// of another beyond its group's offset, so that the offset it commmitted
// is out of range. The records deleted are gone; the gate must gate
// every one that is left, exactly once, and skip none it could still
// read, and with UntilIdle it must return once it has: a partition
// whose records were all deleted has nothing left for it.
func TestGateSkipsOnlyTheRecordsDeletedBeforeItReadThem(t *testing.T) {
	const partitions = 3
	_, addrs := newCluster(t, partitions)
	first, valid := produceRecords(t, addrs, 0, 30, partitions)
	// Partition 0 loses every record before a gate runs.
	deleteRecords(t, addrs, map[int32]int64{0: 10})
	runAndCheck := func(want []bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		sess := gateSession(t, addrs)
		st, err := (&kafka.Gate{Session: sess, Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}).Run(ctx)
		sess.Close() // it leaves the group, for the next
		require.NoError(t, err)
		require.NoError(t, ctx.Err(), "the gate never found its input idle")
		stored := 0
		for _, ok := range want {
			if ok {
				stored++
			}
		}
		assert.Equal(t, stored, st.Messages, "%+v", st)
	}
	want := make([]bool, 30) // which inputs the gate must store
	for i, r := range first {
		want[i] = r.Partition != 0
	}
	runAndCheck(want)

	// Partition 1 loses the first 5 of its next 10 records while no
	// gate runs: the group's offset there is below its new start.
	second, secondValid := produceRecords(t, addrs, 30, 30, partitions)
	valid = append(valid, secondValid...)
	deleteRecords(t, addrs, map[int32]int64{1: second[1].Offset + 5})
	for _, r := range second {
		want = append(want, r.Partition != 1 || r.Offset >= second[1].Offset+5)
	}
	runAndCheck(want[30:])

	// Each input left exactly once, where it belongs; none deleted.
	seen := keys(readAll(t, addrs, 0, outTopic, deadTopic))
	for i := range want {
		n := 0
		if want[i] {
			n = 1
		}
		assert.Equal(t, n, seen[strconv.Itoa(i)], "input %d (valid %v)", i, valid[i])
	}
}

// TestGateOutlivesTransactionsTheBrokerTimedOut makes the broker hold the
// end of the gate's transaction past the gate's transaction timeout, so
// that the broker aborts the transaction itself and bumps the producer's
// epoch, twice, some seconds apart: the gate must start again on a new
// session each time (a broker that times out its transactions is not
// another gate sharing its transactional id), its records come again,
// and a read_committed reader find every input exactly once.
func TestGateOutlivesTransactionsTheBrokerTimedOut(t *testing.T) {
	n := 1000
	if raceEnabled {
		n = 500
	}
	c, addrs := newCluster(t, 3)
	valid := produceInput(t, addrs, n)
	const timeout = time.Second
	var committed, held atomic.Int64
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		// Held: the end of the gate's transaction after its 3rd and
		// after its 8th committed.
		if at := committed.Load(); !(at >= 3 && held.Load() == 0 || at >= 8 && held.Load() == 1) {
			return nil, nil, false
		}
		held.Add(1)
		since := time.Now()
		c.SleepControl(func() {
			for time.Since(since) < 2*timeout {
				time.Sleep(50 * time.Millisecond)
			}
		})
		return nil, nil, false
	})
	var sessions atomic.Int64
	g := &kafka.Gate{
		NewSession: func() (*kgo.GroupTransactSession, error) {
			sessions.Add(1)
			return kgo.NewGroupTransactSession(kgo.SeedBrokers(addrs...), kgo.ConsumerGroup("g"), kgo.ConsumeTopics(inTopic),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.TransactionalID("gate"), kgo.TransactionTimeout(timeout),
				kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
		},
		Batch: 50, Log: slog.New(slog.NewTextHandler(testWriter{t}, nil)),
		Progress: func(gate.Stats) { committed.Add(1) },
	}
	st := runUntilIdle(t, addrs, g)
	assert.Equal(t, int64(2), held.Load(), "produces held past the transaction timeout")
	checkExactlyOnce(t, addrs, valid)
	assert.Equal(t, n, st.Messages, "%+v", st)
	t.Logf("%d sessions, %+v", sessions.Load(), st)
}

// A hold holds, once armed, the next request of one key from one
// transactional id on a kfake cluster, until its condition holds (or
// for 10 seconds at most), and says whether it did.
type hold struct {
	armed, hit atomic.Bool
	// txnID is the transactional id whose request it holds; until
	// reports when to let it go.
	txnID string
	until func() bool
}

// holdNext adds a control of key to c that holds the next request of
// h's transactional id once h is armed: a Produce or an EndTxn.
func holdNext(c *kfake.Cluster, key kmsg.Key, h *hold) {
	c.ControlKey(int16(key), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		var id *string
		switch r := req.(type) {
		case *kmsg.ProduceRequest:
			id = r.TransactionID
		case *kmsg.EndTxnRequest:
			id = &r.TransactionalID
		}
		if id == nil || *id != h.txnID || !h.armed.CompareAndSwap(true, false) {
			return nil, nil, false
		}
		h.hit.Store(true)
		deadline := time.Now().Add(10 * time.Second)
		c.SleepControl(func() {
			for !h.until() && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
		})
		return nil, nil, false
	})
}

// TestGatesRebalanceInTheMiddleOfTheirTransactions has the group of
// gates rebalance while a gate is in a transaction: a second gate joins
// while the first's copies are held on their way to the broker, a third
// while the second's transaction is held ending (its offsets committed
// in it, not yet settled), and the first leaves, told to stop, while the
// third's copies are held. The partitions move under transactions that
// have produced copies and not ended; a read_committed reader of the
// output and the dead letters must find every input exactly once, and
// the gates' totals must add up to the input.
func TestGatesRebalanceInTheMiddleOfTheirTransactions(t *testing.T) {
	c, gs := newGateGroup(t, "rebalance")

	joins := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.JoinGroup}, Observe: true, Count: -1})
	leaves := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.LeaveGroup}, Observe: true, Count: -1})
	holdA := &hold{txnID: "a"}
	holdB := &hold{txnID: "b"}
	holdC := &hold{txnID: "c"}
	holdNext(c, kmsg.Produce, holdA)
	holdNext(c, kmsg.EndTxn, holdB)
	holdNext(c, kmsg.Produce, holdC)

	// Input comes whenever the group has committed all there was:
	// waiting for a gate's transactions does not depend on how fast the
	// others were.
	gs.produce()
	a, committedA := gs.start("a")
	gs.until("a's first transactions", func() bool { return committedA.Load() >= 3 })
	// b joins while a's copies are held.
	before := joins.Hits()
	holdA.until = func() bool { return joins.Hits() > before+1 } // b's join, and a's again
	holdA.armed.Store(true)
	gs.until("a's copies held", holdA.hit.Load)
	b, committedB := gs.start("b")
	gs.until("b's first transactions", func() bool { return committedB.Load() >= 2 })
	// c joins while b's transaction is held ending.
	before = joins.Hits()
	holdB.until = func() bool { return joins.Hits() > before+1 }
	holdB.armed.Store(true)
	gs.until("b's end held", holdB.hit.Load)
	cg, committedC := gs.start("c")
	gs.until("c's first transactions", func() bool { return committedC.Load() >= 2 })
	// a leaves while c's copies are held.
	holdC.until = func() bool { return leaves.Hits() > 0 }
	holdC.armed.Store(true)
	gs.until("c's copies held", holdC.hit.Load)
	_, err := a.Stop()
	require.NoError(t, err)

	gs.finish(b, cg)
}

// TestGatesRideOutTheirCoordinatorsFailingAndMoving has the brokers
// answer the requests of the gates' group and transaction coordinators
// with the errors of a coordinator moving or loading (NOT_COORDINATOR,
// COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE), each twice,
// on FindCoordinator, InitProducerId, JoinGroup, SyncGroup, Heartbeat,
// TxnOffsetCommit and EndTxn (kgo sends no AddOffsetsToTxn to a broker
// of KIP-890, as kfake is), and moves every
// coordinator to another broker, three times, while two gates run. The
// gates must go on, on the sessions they started with (Run returns no
// error: these errors are the brokers' to recover from), and a
// read_committed reader find every input exactly once.
func TestGatesRideOutTheirCoordinatorsFailingAndMoving(t *testing.T) {
	c, gs := newGateGroup(t, "coordinators")
	gs.produce()

	// TxnOffsetCommit has no error but its partitions'.
	fault := func(key kmsg.Key, err *kerr.Error) *kfake.FaultHandle {
		return c.Fault(kfake.Fault{Keys: []kmsg.Key{key}, Err: err, TopLevel: key != kmsg.TxnOffsetCommit, Count: 2})
	}
	faults := map[string]*kfake.FaultHandle{
		"FindCoordinator": fault(kmsg.FindCoordinator, kerr.CoordinatorNotAvailable),
		"InitProducerID":  fault(kmsg.InitProducerID, kerr.CoordinatorLoadInProgress),
		"JoinGroup":       fault(kmsg.JoinGroup, kerr.NotCoordinator),
	}
	a, _ := gs.start("a")
	gs.until("a's first transactions", func() bool { return gs.committed.Load() >= 3 })
	// Faults in the middle of the transactions, and a second gate joins.
	faults["SyncGroup"] = fault(kmsg.SyncGroup, kerr.CoordinatorLoadInProgress)
	faults["Heartbeat"] = fault(kmsg.Heartbeat, kerr.NotCoordinator)
	faults["TxnOffsetCommit"] = fault(kmsg.TxnOffsetCommit, kerr.NotCoordinator)
	faults["EndTxn"] = fault(kmsg.EndTxn, kerr.CoordinatorNotAvailable)
	b, _ := gs.start("b")
	// The coordinators move, three times, while the gates take more
	// input.
	for i := range 3 {
		gs.produce()
		c.RehashCoordinators()
		t.Logf("coordinators moved (%d): the group's to %d", i, c.CoordinatorFor("coordinators"))
		gs.settled()
	}
	gs.finish(a, b)
	for name, f := range faults {
		assert.Positive(t, f.Hits(), "the fault on %s injected", name)
	}
}

// A gateGroup runs gates in one group on the test's topics, each on a
// transactional session of its own, and adds up what they did.
type gateGroup struct {
	t     *testing.T
	addrs []string
	group string
	valid []bool // which inputs produced so far are valid
	// opts are more options of every session; with restart, a gate
	// starts again on a new session, as kafka/cmd/gate does
	// (Gate.NewSession), rather than stop on a broker lost.
	opts    []kgo.Opt
	restart bool

	committed atomic.Int64 // transactions ended, by every gate
	mu        sync.Mutex
	total     gate.Stats
}

// start starts a gate of transactional id id, and returns it and the
// count of the transactions it ends.
func (gs *gateGroup) start(id string) (gatetest.Gate, *atomic.Int64) {
	t := gs.t
	newSession := func() (*kgo.GroupTransactSession, error) {
		return kgo.NewGroupTransactSession(append([]kgo.Opt{kgo.SeedBrokers(gs.addrs...),
			kgo.ConsumerGroup(gs.group), kgo.ConsumeTopics(inTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.TransactionalID(id), kgo.SessionTimeout(2 * time.Second), kgo.HeartbeatInterval(100 * time.Millisecond),
			kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords()}, gs.opts...)...)
	}
	var committed atomic.Int64
	g := &kafka.Gate{Output: outTopic, DeadLetters: deadTopic, Batch: 100,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, nil)),
		Progress: func(gate.Stats) {
			committed.Add(1)
			gs.committed.Add(1)
		}}
	closeSession := func() {}
	if gs.restart {
		g.NewSession = newSession
	} else {
		sess, err := newSession()
		require.NoError(t, err)
		g.Session, closeSession = sess, sess.Close
	}
	return gatetest.Go(t, func(ctx context.Context) (gate.Stats, error) {
		st, err := g.Run(ctx)
		assert.NoError(t, err, id)
		closeSession()
		gs.mu.Lock()
		gs.total.Add(st)
		gs.mu.Unlock()
		t.Logf("gate %s: %+v", id, st)
		return st, err
	}, closeSession), &committed
}

// newGateGroup starts a cluster of three brokers, with an input of six
// partitions, closed at the test's end, and returns it and a group of
// gates on it.
func newGateGroup(t *testing.T, group string) (*kfake.Cluster, *gateGroup) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.GroupMinSessionTimeout(500*time.Millisecond),
		kfake.SeedTopics(6, inTopic), kfake.SeedTopics(3, outTopic, deadTopic))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c, &gateGroup{t: t, addrs: c.ListenAddrs(), group: group}
}

// produce produces more input: 2,000 inputs, or 500 under the race
// detector, spread over the input's six partitions.
func (gs *gateGroup) produce() {
	n := 2_000
	if raceEnabled {
		n = 500
	}
	_, valid := produceRecords(gs.t, gs.addrs, len(gs.valid), n, 6)
	gs.valid = append(gs.valid, valid...)
}

// settled waits, for a minute at most, for the group to have committed
// every partition of its input to its end.
func (gs *gateGroup) settled() {
	t := gs.t
	t.Helper()
	adm := kadm.NewClient(readerClient(t, gs.addrs))
	deadline := time.Now().Add(time.Minute)
	for !committedAll(t, adm, gs.group) {
		if time.Now().After(deadline) {
			ctx := context.Background()
			ends, _ := adm.ListEndOffsets(ctx, inTopic)
			committed, _ := adm.FetchOffsets(ctx, gs.group)
			t.Fatalf("the whole input never committed: ends %v, committed %v", ends.Offsets(), committed.Offsets())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// finish waits for the group to have committed its whole input, stops
// the gates running, and checks that a read_committed reader finds
// every input exactly once and that the gates' totals add up to it.
func (gs *gateGroup) finish(running ...gatetest.Gate) {
	t := gs.t
	t.Helper()
	gs.settled()
	for _, g := range running {
		g.Stop()
	}
	checkExactlyOnce(t, gs.addrs, gs.valid)
	gs.mu.Lock()
	defer gs.mu.Unlock()
	n := len(gs.valid)
	assert.Equal(t, n, gs.total.Messages, "messages counted by the gates: %+v", gs.total)
	assert.Equal(t, n*4/5, gs.total.Forwarded)
	assert.Zero(t, gs.total.Redeliveries)
}

// until waits, for a minute at most, for cond to hold, producing more
// input whenever the group has committed all there was.
func (gs *gateGroup) until(what string, cond func() bool) {
	t := gs.t
	t.Helper()
	adm := kadm.NewClient(readerClient(t, gs.addrs))
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "waiting for %s", what)
		if committedAll(t, adm, gs.group) {
			gs.produce()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An outage cuts the connections to one broker, and refuses new ones,
// until it is over: a dialer for the clients of a test.
type outage struct {
	mu    sync.Mutex
	down  string // the address cut off, if any
	conns map[string][]net.Conn
}

func (o *outage) dial(ctx context.Context, network, host string) (net.Conn, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if host == o.down {
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	}
	c, err := (&net.Dialer{}).DialContext(ctx, network, host)
	if err == nil {
		if o.conns == nil {
			o.conns = map[string][]net.Conn{}
		}
		o.conns[host] = append(o.conns[host], c)
	}
	return c, err
}

// cut cuts the connections to host, and refuses new ones, until over.
func (o *outage) cut(host string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.down = host
	for _, c := range o.conns[host] {
		c.Close()
	}
	delete(o.conns, host)
}

func (o *outage) over() {
	o.mu.Lock()
	o.down = ""
	o.mu.Unlock()
}

// TestGatesGoOnWhileABrokerOfThreeIsAway takes away, while two gates
// run, the broker that coordinates their group: it leaves the cluster
// (its partitions' leaders and the coordinators move to the others) and
// its connections are cut, new ones refused; once the gates have gone
// on without it for some transactions, it comes back at its address,
// and more input comes. The gates start again on new sessions as the
// command's do, and a read_committed reader finds every input exactly
// once. Found so: the leaders of the input moved twice with nothing
// written in between, and the broker answered that it had no record of
// the leader epoch the gates had consumed at (as Kafka does after an
// unclean election); kgo took it for lost records and moved the
// partitions back to their start, and the gates stored again, and
// counted again, everything they had stored.
func TestGatesGoOnWhileABrokerOfThreeIsAway(t *testing.T) {
	c, gs := newGateGroup(t, "away")
	addrs := gs.addrs
	o := &outage{}
	gs.restart = true
	gs.opts = []kgo.Opt{kgo.Dialer(o.dial), kgo.RequestRetries(3), kgo.RetryTimeout(5 * time.Second)}
	for range 3 {
		gs.produce()
	}
	a, _ := gs.start("a")
	b, _ := gs.start("b")
	gs.until("the gates' first transactions", func() bool { return gs.committed.Load() >= 5 })

	// Twice, the broker that coordinates the group goes away (nodes are
	// numbered as their addresses are listed) and comes back, at its
	// address, while the gates read the input written before.
	for range 2 {
		node := c.CoordinatorFor("away")
		_, port, err := net.SplitHostPort(addrs[node])
		require.NoError(t, err)
		p, err := strconv.Atoi(port)
		require.NoError(t, err)
		require.NoError(t, c.RemoveNode(node))
		o.cut(addrs[node])
		at := gs.committed.Load() + 5
		gs.until("transactions without the broker", func() bool { return gs.committed.Load() >= at })
		_, _, err = c.AddNode(node, p)
		require.NoError(t, err)
		o.over()
		at = gs.committed.Load() + 5
		gs.until("transactions with the broker back", func() bool { return gs.committed.Load() >= at })
	}
	gs.produce()
	gs.finish(a, b)
}

// TestGateStopsOnATransactionTimeoutItsBrokersRefuse starts a gate whose
// session's transaction timeout is longer than its brokers allow
// (transaction.max.timeout.ms): they refuse its producer id, and every
// record it produces, for good. It must stop, saying why, rather than
// abort its batch and read it again for ever.
func TestGateStopsOnATransactionTimeoutItsBrokersRefuse(t *testing.T) {
	_, addrs := newCluster(t, 1, kfake.BrokerConfigs(map[string]string{"transaction.max.timeout.ms": "60000"}))
	produceInput(t, addrs, 20)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := (&kafka.Gate{Session: gateSession(t, addrs, kgo.TransactionTimeout(2*time.Minute)),
		Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}).Run(ctx)
	require.ErrorIs(t, err, kerr.InvalidTransactionTimeout, "%+v", st)
	assert.NoError(t, ctx.Err(), "the gate stopped only when told to")
	assert.Zero(t, st.Messages, "nothing stored")
}
