package kafka_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
)

// alterTopic sets the config key of topic to value.
func alterTopic(t *testing.T, addrs []string, topic, key, value string) {
	resp, err := kadm.NewClient(readerClient(t, addrs)).AlterTopicConfigs(context.Background(),
		[]kadm.AlterConfig{{Name: key, Value: kadm.StringPtr(value)}}, topic)
	require.NoError(t, err)
	require.NoError(t, resp[0].Err)
}

// gateSession returns a transactional session of the group "g" on
// inTopic, closed at the test's end.
func gateSession(t *testing.T, addrs []string, opts ...kgo.Opt) *kgo.GroupTransactSession {
	sess, err := kgo.NewGroupTransactSession(append([]kgo.Opt{
		kgo.SeedBrokers(addrs...), kgo.ConsumerGroup("g"), kgo.ConsumeTopics(inTopic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.TransactionalID("g-" + t.Name()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords(),
	}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(sess.Close)
	return sess
}

// TestGateAbortsATransactionWhoseCopyFailed makes the broker refuse, for
// good, a produce of the gate's copies (found from outside: a broker
// whose limit was below the gate's refused a batch of copies with
// MESSAGE_TOO_LARGE): the transaction must abort, its records come
// again, rather than commit the input's offsets without the copies.
func TestGateAbortsATransactionWhoseCopyFailed(t *testing.T) {
	c, addrs := newCluster(t, 3)
	valid := produceInput(t, addrs, 500)
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: outTopic, Err: kerr.MessageTooLarge})

	st := runUntilIdle(t, addrs, &kafka.Gate{Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))})
	assert.Equal(t, 1, fault.Hits(), "the fault was injected")
	checkExactlyOnce(t, addrs, valid)
	assert.Equal(t, len(valid), st.Messages)
	assert.Positive(t, st.Retries, "the aborted transaction's records counted as retries")
}

// TestGateRefusesABatchLargerThanItsTopicsStore starts a gate whose client
// may put more in a record batch than its output or dead-letter topic
// stores (max.message.bytes). Found from outside: such a gate had every
// transaction holding a full batch of copies refused with
// MESSAGE_TOO_LARGE, and read its records again for ever. It must refuse
// to start, saying which topic stores how much.
func TestGateRefusesABatchLargerThanItsTopicsStore(t *testing.T) {
	for _, topic := range []string{outTopic, deadTopic} {
		t.Run(topic, func(t *testing.T) {
			_, addrs := newCluster(t, 3)
			alterTopic(t, addrs, topic, "max.message.bytes", "100000")

			g := &kafka.Gate{Session: gateSession(t, addrs, kgo.ProducerBatchMaxBytes(200_000)), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := g.Run(ctx)
			require.ErrorIs(t, err, gate.ErrRefused)
			assert.ErrorContains(t, err, fmt.Sprintf("%q", topic))
			assert.ErrorContains(t, err, "100000")

			// Within the topics' limit, it starts.
			g = &kafka.Gate{Session: gateSession(t, addrs, kgo.ProducerBatchMaxBytes(100_000), kgo.TransactionalID("within")),
				Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}
			_, err = g.Run(ctx)
			require.NoError(t, err)
		})
	}
}

// TestGateStopsWhileItsGroupWaitsForAVanishedMember stops a gate that is
// joining its group while the group waits for a member that vanished
// (a gate killed with SIGKILL, found from outside): the broker holds the
// join until that member's session times out, and closing the session
// left the group only once the join was answered, so SIGTERM took the
// session timeout (45 s by default) to stop the command. Holding no
// transaction, it must stop within its StopTimeout.
func TestGateStopsWhileItsGroupWaitsForAVanishedMember(t *testing.T) {
	c, addrs := newCluster(t, 3)
	produceInput(t, addrs, 10)

	// The member that vanishes: it joins, then loses its connections
	// without leaving.
	const vanished = time.Minute
	d := &killable{}
	member, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.Dialer(d.dial), kgo.ConsumerGroup("g"), kgo.ConsumeTopics(inTopic),
		kgo.SessionTimeout(vanished), kgo.RebalanceTimeout(vanished), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	require.NoError(t, err)
	defer member.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NotEmpty(t, member.PollRecords(ctx, 1).Records(), "the member never joined")
	d.kill()

	joining := make(chan struct{})
	observe := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.JoinGroup}, Observe: true, Count: -1})
	g := &kafka.Gate{
		NewSession: func() (*kgo.GroupTransactSession, error) {
			return kgo.NewGroupTransactSession(kgo.SeedBrokers(addrs...), kgo.ConsumerGroup("g"), kgo.ConsumeTopics(inTopic),
				kgo.TransactionalID("gate"), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
		},
		Output: outTopic, DeadLetters: deadTopic, StopTimeout: time.Second,
		Progress: func(gate.Stats) { t.Error("the gate committed a transaction while its group waited") },
	}
	run, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := g.Run(run)
		done <- err
	}()
	go func() {
		for observe.Hits() == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		close(joining)
	}()
	select {
	case <-joining:
	case <-time.After(10 * time.Second):
		t.Fatal("the gate never asked to join")
	}
	time.Sleep(500 * time.Millisecond) // the join held by the broker
	stop()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(vanished / 2):
		t.Fatal("the gate did not stop while its group waited for the vanished member")
	}
}

// TestGateStopsOnAGroupItCanNeverJoin starts a gate whose session timeout
// its broker refuses (found from outside: -session-timeout 5s against a
// broker whose group.min.session.timeout.ms is 6 s). The gate logged
// "fetching failed; trying again" every few seconds for ever, and with
// -until-idle never exited; it must stop, saying why.
func TestGateStopsOnAGroupItCanNeverJoin(t *testing.T) {
	_, addrs := newCluster(t, 3, kfake.GroupMinSessionTimeout(6*time.Second))
	produceInput(t, addrs, 10)

	g := &kafka.Gate{Session: gateSession(t, addrs, kgo.SessionTimeout(5*time.Second)), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := g.Run(ctx)
	require.ErrorIs(t, err, kerr.InvalidSessionTimeout)
	assert.NoError(t, ctx.Err(), "the gate stopped only when told to")
	assert.NotContains(t, err.Error(), "topic ,", "a group's error named as a partition's")
}

// TestGateStartsAgainWhenItsBrokerFencedIt has the broker answer the end
// of a transaction with PRODUCER_FENCED, as a broker killed and started
// again answered the gate's open transaction (found from outside; a
// broker that aborts a transaction timed out during an outage does the
// same), with no other gate using its transactional id. The gate exited
// with status 2; it must start again on a new session, and its records
// come again, once.
func TestGateStartsAgainWhenItsBrokerFencedIt(t *testing.T) {
	c, addrs := newCluster(t, 3)
	valid := produceInput(t, addrs, 2000)
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.EndTxn}, Err: kerr.ProducerFenced, TopLevel: true})

	g := &kafka.Gate{
		NewSession: func() (*kgo.GroupTransactSession, error) {
			return kgo.NewGroupTransactSession(kgo.SeedBrokers(addrs...), kgo.ConsumerGroup("g"), kgo.ConsumeTopics(inTopic),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.TransactionalID("gate"), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
		},
		Batch: 64, Log: slog.New(slog.NewTextHandler(testWriter{t}, nil)),
	}
	st := runUntilIdle(t, addrs, g)
	assert.Equal(t, 1, fault.Hits(), "the fault was injected")
	checkExactlyOnce(t, addrs, valid)
	assert.Equal(t, len(valid), st.Messages)
}

// TestGateDeadLettersAHeaderThatShadowsOneItWrites produces valid messages
// whose headers include one named as a header the gate writes in another
// case, with another value (found from outside: CE_TYPE=core.vehicle
// beside the gate's ce_type=core.device, Ce_Id with another id,
// Content-Type: text/plain, all forwarded). A consumer that reads header
// names in any case would read the message as what the gate did not
// judge it to be: it is a dead letter of rule header. One that agrees
// with the gate's is forwarded.
func TestGateDeadLettersAHeaderThatShadowsOneItWrites(t *testing.T) {
	_, addrs := newCluster(t, 1)
	_, lines := samples(t)
	shadows := []kgo.RecordHeader{
		{Key: "CE_TYPE", Value: []byte("core.vehicle")},
		{Key: "Ce_Id", Value: []byte("0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21")},
		{Key: "Content-Type", Value: []byte("text/plain")},
		{Key: "ce-type", Value: []byte("core.vehicle")},          // the HTTP binding's name
		{Key: "Content-Type", Value: []byte("application/json")}, // agrees
	}
	var records []*kgo.Record
	for i, h := range shadows {
		body := withNewID(t, lines[1]) // a valid core.device
		records = append(records, &kgo.Record{Topic: inTopic, Value: body,
			Headers: []kgo.RecordHeader{{Key: keyHeader, Value: []byte(strconv.Itoa(i))}, h}})
	}
	require.NoError(t, readerClient(t, addrs).ProduceSync(context.Background(), records...).FirstErr())

	st := runUntilIdle(t, addrs, &kafka.Gate{})
	checkExactlyOnce(t, addrs, []bool{false, false, false, false, true})
	assert.Equal(t, 1, st.Forwarded)
	for _, r := range readAll(t, addrs, 4, deadTopic) {
		for _, h := range r.Headers {
			if h.Key == kafka.VerdictHeader {
				v, err := gate.ParseVerdict(h.Value)
				require.NoError(t, err)
				require.Len(t, v.Violations, 1, "%s", h.Value)
				assert.Equal(t, msg.RuleHeader, v.Violations[0].Rule)
			}
		}
	}
}

// TestGateStopsWhenItsDeadLetterTopicIsDeleted deletes the dead-letter
// topic under a running gate (found from outside: the gate aborted the
// transaction of each dead letter, read it again, every five seconds for
// ever, the messages behind it waiting). The gate must check its topics
// again and refuse to go on, saying which is missing.
func TestGateStopsWhenItsDeadLetterTopicIsDeleted(t *testing.T) {
	_, addrs := newCluster(t, 1)
	produceInput(t, addrs, 10)
	committed := make(chan struct{}, 1)
	g := &kafka.Gate{Session: gateSession(t, addrs), Output: outTopic, DeadLetters: deadTopic,
		Progress: func(gate.Stats) {
			select {
			case committed <- struct{}{}:
			default:
			}
		}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := g.Run(ctx)
		done <- err
	}()
	<-committed
	adm := kadm.NewClient(readerClient(t, addrs))
	_, err := adm.DeleteTopics(context.Background(), deadTopic)
	require.NoError(t, err)
	produceInput(t, addrs, 10)
	select {
	case err := <-done:
		require.ErrorIs(t, err, gate.ErrRefused)
		assert.ErrorContains(t, err, fmt.Sprintf("dead-letter topic %q does not exist", deadTopic))
	case <-ctx.Done():
		t.Fatal("the gate went on without its dead-letter topic")
	}
}

// produceInTransactions produces the messages ms to inTopic from a
// transactional producer, each in a transaction of its own, committed
// or, where abort says so, aborted: every partition of the input then
// ends with a transaction marker, a control record no consumer is
// given.
func produceInTransactions(t *testing.T, addrs []string, ms []catalogue.Message, abort func(i int) bool) {
	tx := readerClient(t, addrs, kgo.TransactionalID("producer-"+t.Name()))
	ctx := context.Background()
	for i, m := range ms {
		require.NoError(t, tx.BeginTransaction())
		r, err := kafka.Record(inTopic, m, false)
		require.NoError(t, err)
		require.NoError(t, tx.ProduceSync(ctx, r).FirstErr())
		require.NoError(t, tx.EndTransaction(ctx, kgo.TransactionEndTry(!abort(i))))
	}
}

// TestGateIsIdleAfterAnInputWrittenInTransactions gates an input written
// by a transactional producer, as another gate's output is (found from
// outside: a gate chained after another, and one after a producer in
// transactions). Its group's offsets stopped at the last record
// of each partition, short of the transaction marker after it: with
// UntilIdle the gate never returned, and its group's lag never reached
// zero. The records of aborted transactions are not forwarded.
func TestGateIsIdleAfterAnInputWrittenInTransactions(t *testing.T) {
	_, addrs := newCluster(t, 3)
	ms, _ := samples(t)
	aborted := func(i int) bool { return i%3 == 2 }
	produceInTransactions(t, addrs, ms, aborted)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	g := &kafka.Gate{Session: gateSession(t, addrs), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}
	st, err := g.Run(ctx)
	require.NoError(t, err)
	require.NoError(t, ctx.Err(), "the gate never found its input idle")
	var want int
	for i := range ms {
		if !aborted(i) {
			want++
		}
	}
	assert.Equal(t, gate.Stats{Messages: want, Forwarded: want, Bytes: st.Bytes}, st)
	assert.Len(t, readAll(t, addrs, want, outTopic, deadTopic), want, "the committed inputs, and no aborted one")
	adm := kadm.NewClient(readerClient(t, addrs))
	assert.True(t, committedAll(t, adm, "g"), "the group's offsets past the markers")
}

// TestGateRefusesToReadUncommitted starts a gate whose session reads its
// input read_uncommitted, Kafka's default (found from outside: such a
// gate forwarded the records of a producer's aborted transaction). It
// must refuse to start, saying which option it needs; so must one whose
// session drops the transaction markers, which its offsets must pass.
func TestGateRefusesToReadUncommitted(t *testing.T) {
	_, addrs := newCluster(t, 1)
	ms, _ := samples(t)
	produceInTransactions(t, addrs, ms[:2], func(i int) bool { return i == 1 })
	for _, tc := range []struct {
		only kgo.Opt // of the two options a gate's session needs
		want string  // the other, named in the refusal
	}{
		{kgo.KeepControlRecords(), "kgo.FetchIsolationLevel(kgo.ReadCommitted())"},
		{kgo.FetchIsolationLevel(kgo.ReadCommitted()), "kgo.KeepControlRecords()"},
	} {
		sess, err := kgo.NewGroupTransactSession(kgo.SeedBrokers(addrs...), kgo.ConsumerGroup("g"), kgo.ConsumeTopics(inTopic),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.TransactionalID("g"), tc.only)
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		st, err := (&kafka.Gate{Session: sess, Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}).Run(ctx)
		cancel()
		sess.Close()
		require.ErrorIs(t, err, gate.ErrRefused, "%+v", st)
		assert.ErrorContains(t, err, tc.want)
	}
	assert.Empty(t, readAll(t, addrs, 0, outTopic, deadTopic), "nothing forwarded")
}

// TestGateRefusesACompactedDeadLetterTopic starts a gate whose dead-letter
// topic is compacted (cleanup.policy=compact, found from outside: a
// dead-letter topic made like the output, which an operator compacts to
// keep each entity's latest state). Compaction keeps the last record of
// each key, so the dead letters of one device replaced each other, and
// Kafka refuses a record without a key on such a topic, so a keyless
// invalid input would come again for ever. The gate must refuse to
// start, saying why; a compacted output is the operator's to choose.
func TestGateRefusesACompactedDeadLetterTopic(t *testing.T) {
	for _, topic := range []string{outTopic, deadTopic} {
		t.Run(topic, func(t *testing.T) {
			_, addrs := newCluster(t, 1)
			alterTopic(t, addrs, topic, "cleanup.policy", "compact,delete")
			produceInput(t, addrs, 10)

			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := (&kafka.Gate{Session: gateSession(t, addrs), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}).Run(ctx)
			if topic == outTopic {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, gate.ErrRefused)
			assert.ErrorContains(t, err, fmt.Sprintf("dead-letter topic %q is compacted", deadTopic))
		})
	}
}

// TestGateReadsItsInputMadeAgain deletes the input topic under a running
// gate and makes it again (found from outside: the gate logged
// UNKNOWN_TOPIC_ID once and then held every message of the new topic
// for ever, as kgo reads only the topic it first knew, under its id).
// It must read the new topic: every input of both, once.
func TestGateReadsItsInputMadeAgain(t *testing.T) {
	_, addrs := newCluster(t, 3)
	produceInput(t, addrs, 10)
	g := startGate(t, addrs)
	g.until(10)
	remake(t, addrs, inTopic)
	produceInput(t, addrs, 10)
	st := g.until(20)
	require.NoError(t, g.stop())
	assert.Equal(t, 20, st.Messages, "%+v", st)

	// Each input of each topic once: their keys, 0 to 9, twice each.
	seen := keys(readAll(t, addrs, 20, outTopic, deadTopic))
	for i := range 10 {
		assert.Equal(t, 2, seen[strconv.Itoa(i)], "input %d", i)
	}
	assert.Len(t, seen, 10)
}

// TestGateProducesToItsTopicsMadeAgain deletes the output or the
// dead-letter topic under a running gate and makes it again at once
// (found from outside: the gate aborted every transaction with
// UNKNOWN_TOPIC_ID, 82,240 retries in 40 s, and gated nothing more, as
// kgo produces only to the topic it first knew, under its id). It must
// check its topics again and go on, producing to the new topic.
func TestGateProducesToItsTopicsMadeAgain(t *testing.T) {
	for _, topic := range []string{outTopic, deadTopic} {
		t.Run(topic, func(t *testing.T) {
			_, addrs := newCluster(t, 3)
			produceInput(t, addrs, 10)
			g := startGate(t, addrs)
			g.until(10)
			remake(t, addrs, topic)
			second := produceInput(t, addrs, 10)
			st := g.until(20)
			require.NoError(t, g.stop())
			assert.Equal(t, gate.Stats{Messages: 20, Forwarded: 16, DeadLetters: 4, Bytes: st.Bytes, Retries: st.Retries}, st)

			// The second input's records, each once where it belongs;
			// the first's gone with the topic made again.
			want := map[string]int{}
			for i, valid := range second {
				if valid == (topic == outTopic) {
					want[strconv.Itoa(i)]++
				}
			}
			assert.Equal(t, want, keys(readAll(t, addrs, len(want), topic)))
		})
	}
}

// A runningGate is a gate run by startGate.
type runningGate struct {
	t        *testing.T
	ctx      context.Context
	progress chan gate.Stats
	last     gate.Stats
	stop     func() error
}

// startGate runs a gate on the test's topics, on a session of its own,
// until its stop is called.
func startGate(t *testing.T, addrs []string) *runningGate {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	g := &runningGate{t: t, ctx: ctx, progress: make(chan gate.Stats, 100)}
	k := &kafka.Gate{Session: gateSession(t, addrs), Output: outTopic, DeadLetters: deadTopic,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, nil)), Progress: func(s gate.Stats) { g.progress <- s }}
	done := make(chan error, 1)
	go func() {
		_, err := k.Run(ctx)
		done <- err
	}()
	g.stop = func() error {
		cancel()
		return <-done
	}
	return g
}

// until waits until the gate has stored n messages, and returns its
// totals then.
func (g *runningGate) until(n int) gate.Stats {
	for g.last.Messages < n {
		select {
		case g.last = <-g.progress:
		case <-g.ctx.Done():
			g.t.Fatalf("the gate stored %d messages of %d: %+v", g.last.Messages, n, g.last)
		}
	}
	return g.last
}

// remake deletes topic and makes it again, with three partitions.
func remake(t *testing.T, addrs []string, topic string) {
	adm := kadm.NewClient(readerClient(t, addrs))
	ctx := context.Background()
	_, err := adm.DeleteTopics(ctx, topic)
	require.NoError(t, err)
	time.Sleep(time.Second) // the gate finds it gone
	resp, err := adm.CreateTopics(ctx, 3, 1, nil, topic)
	require.NoError(t, err)
	require.NoError(t, resp.Error())
}

// key returns the index of the input r was made from (keyHeader).
func key(r *kgo.Record) string {
	for _, h := range r.Headers {
		if h.Key == keyHeader {
			return string(h.Value)
		}
	}
	return ""
}

// keys counts the records of rs by the index of their input.
func keys(rs []*kgo.Record) map[string]int {
	seen := map[string]int{}
	for _, r := range rs {
		seen[key(r)]++
	}
	return seen
}

// TestGateRefusesARegexThatCoversItsOutput starts a gate whose session
// consumes by regular expression (kgo.ConsumeRegex) one that its output
// or dead-letter topic matches (found from outside: "fleet\..*" for
// fleet.in, with fleet.valid and fleet.dead beside it). The topics a
// regex matches are not known before the first metadata, so the gate
// started, and judged its own copies again, each a redelivery, for
// ever. It must refuse, saying which topic the regex covers; a regex
// that covers neither, or whose exclusion does, starts.
func TestGateRefusesARegexThatCoversItsOutput(t *testing.T) {
	_, addrs := newCluster(t, 1)
	produceInput(t, addrs, 10)
	for _, tc := range []struct {
		regex, exclude, refused string
	}{
		{regex: "^(in|out)$", refused: fmt.Sprintf("its output topic %q", outTopic)},
		{regex: "d", refused: fmt.Sprintf("its dead-letter topic %q", deadTopic)},
		{regex: ".*", exclude: "^(out|dead)$"},
		{regex: "^in$"},
	} {
		opts := []kgo.Opt{kgo.ConsumeRegex(), kgo.ConsumeTopics(tc.regex), kgo.TransactionalID("regex")}
		if tc.exclude != "" {
			opts = append(opts, kgo.ConsumeExcludeTopics(tc.exclude))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		st, err := (&kafka.Gate{Session: gateSession(t, addrs, opts...), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}).Run(ctx)
		cancel()
		if tc.refused == "" {
			require.NoError(t, err, tc.regex)
			continue
		}
		require.ErrorIs(t, err, gate.ErrRefused, "%s: %+v", tc.regex, st)
		assert.ErrorContains(t, err, tc.refused)
		assert.ErrorContains(t, err, tc.regex)
	}
}

// TestGateBacksOffFromTransactionsAborted has the broker refuse every
// produce to the output, for a while, with an error a retry does not
// cure (found from outside: with an output topic the brokers refused,
// the gate aborted and read its batch again 82,240 times in 40 s, a
// warning logged each time, a core busy). It must back off, as from a
// broker lost, and log a bounded number of lines; once the broker takes
// its records again, every input is stored once.
func TestGateBacksOffFromTransactionsAborted(t *testing.T) {
	c, addrs := newCluster(t, 1)
	valid := produceInput(t, addrs, 20)
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: outTopic, Err: kerr.PolicyViolation, Count: -1})
	var lines lineCounter
	g := &kafka.Gate{Session: gateSession(t, addrs), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true,
		Log: slog.New(slog.NewTextHandler(&lines, nil))}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan gate.Stats, 1)
	go func() {
		st, err := g.Run(ctx)
		assert.NoError(t, err)
		done <- st
	}()
	time.Sleep(3 * time.Second)
	fault.Remove()
	st := <-done
	require.NoError(t, ctx.Err(), "the gate never finished")
	checkExactlyOnce(t, addrs, valid)
	assert.Less(t, st.Retries, 20*20, "retries in 3 s: %+v", st)
	assert.Less(t, lines.n.Load(), int64(20), "log lines in 3 s")
}

// lineCounter counts the lines written to it.
type lineCounter struct{ n atomic.Int64 }

func (l *lineCounter) Write(p []byte) (int, error) {
	l.n.Add(int64(bytes.Count(p, []byte("\n"))))
	return len(p), nil
}

// TestGateStopsWhenItsRecordsAreRefusedForGood has the brokers refuse
// the gate's right to produce to its output (TOPIC_AUTHORIZATION_FAILED,
// found from outside: an ACL taken away while the gate ran). Waiting
// does not cure it: the gate must stop, saying why, rather than abort
// its batch and read it again for ever.
func TestGateStopsWhenItsRecordsAreRefusedForGood(t *testing.T) {
	c, addrs := newCluster(t, 1)
	produceInput(t, addrs, 20)
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: outTopic, Err: kerr.TopicAuthorizationFailed, Count: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := (&kafka.Gate{Session: gateSession(t, addrs), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true}).Run(ctx)
	require.ErrorIs(t, err, kerr.TopicAuthorizationFailed, "%+v", st)
	assert.NoError(t, ctx.Err(), "the gate stopped only when told to")
	assert.Zero(t, st.Messages, "nothing stored")
}

// TestGateUntilIdleStopsWhenItsInputIsDeleted deletes the input topic
// under a gate told to stop once idle (found from outside: it waited for
// the topic to come back for ever, as a gate that serves does, so that a
// job draining the topic never ended). It must stop, saying why, with
// what it stored counted.
func TestGateUntilIdleStopsWhenItsInputIsDeleted(t *testing.T) {
	_, addrs := newCluster(t, 3)
	produceInput(t, addrs, 3000)
	first := make(chan gate.Stats)
	deleted := make(chan struct{})
	// Fetching little at a time, it has most of the input yet to read
	// when the topic goes.
	opts := []kgo.Opt{kgo.FetchMaxBytes(4096), kgo.FetchMaxPartitionBytes(4096)}
	k := &kafka.Gate{NewSession: func() (*kgo.GroupTransactSession, error) { return gateSession(t, addrs, opts...), nil }, Output: outTopic, DeadLetters: deadTopic, Batch: 100, UntilIdle: true,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, nil)),
		Progress: func(s gate.Stats) {
			select {
			case first <- s: // the first batch: held until the topic is gone
				<-deleted
			default:
			}
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := runGate(ctx, k)
	stored := <-first
	_, err := kadm.NewClient(readerClient(t, addrs)).DeleteTopics(context.Background(), inTopic)
	require.NoError(t, err)
	close(deleted)

	r := <-done
	require.Error(t, r.err, "%+v", r.st)
	assert.ErrorContains(t, r.err, "deleted")
	assert.NoError(t, ctx.Err(), "it stopped by itself")
	assert.GreaterOrEqual(t, r.st.Messages, stored.Messages)
}
