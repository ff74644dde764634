package kafka

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/msg"
)

// VerdictHeader is the header of a dead letter that holds its verdict,
// gate.Verdict's JSON on one line, its Place the input's topic, partition
// and offset.
const VerdictHeader = "catalogue-verdict"

// OriginalPrefix goes before the name of an input's header that a copy
// or a dead letter must not carry as it is: one named VerdictHeader (in
// any case, or up to a NUL byte, as librdkafka reads names), which a
// reader would take for the gate's verdict, on a copy that has none or
// beside a dead letter's, written by whoever produced the input. It is kept, renamed, and no longer read as a verdict.
const OriginalPrefix = "catalogue-original-"

// batchOverhead is what a record batch adds to its records: its header.
const batchOverhead = 61

// A Gate keeps invalid messages out of a topic (decision 16), in Kafka
// transactions: it is package gate's Gate over a consumer group's
// transactional session. It consumes its input as a member of the group,
// judges each record as DecodeIdentity does (plain or framed), and
// produces a valid message to Output, byte for byte with its ce_ headers
// written, and anything else to DeadLetters, with its verdict. Each batch
// of records is one transaction: the copies, the dead letters and the
// input's offsets commit together, so that a read_committed consumer of
// the output and dead letters sees every input once, whatever fails, and
// a batch that fails is aborted and read again. Gates scale out as the
// members of the group; within one, a batch's records are judged on as
// many goroutines as GOMAXPROCS allows (gate.Gate's Judges).
//
// A record too large for the broker once its headers are written is
// dead-lettered (msg.RuleTooLarge); a dead letter too large is cut to
// fit (gate.FitDeadLetter). A tombstone (a record with no value) is no
// message, and is dead-lettered; a dead letter is never a tombstone (its
// value is empty where it keeps none), so that a consumer that passes
// over deletions sees it. A message whose id was forwarded in the last
// DuplicateWindow ids is a redelivery if its body (the message, without
// the registry framing) is the same, counted and not forwarded again,
// and a dead letter of rule msg.RuleDuplicateID if not; the window is
// the gate's own (gate.Gate's DuplicateWindow), kept for the partitions
// it holds, and starts empty when it starts.
//
// A batch of the input that decompresses to more than its session's
// client may decompress of one (kgo.MaxDecompressBatchBytes, 1 GiB
// unless set; kafka/cmd/gate sets 32 times its -max-record-bytes) is a
// compression bomb, or a producer's batch far larger than the gate
// allows: kgo reads none of its records and stops consuming its
// partition. The gate dead-letters it as one input, of rule
// msg.RuleTooLarge, with no body, its verdict's Place its first offset,
// and commits the partition's offset past it. kgo goes on reading the
// partition at once only if it holds an offset for it: the gate polled
// a record of it, or its group had committed one when the gate was
// given it. A bomb first in a partition its group never committed is
// dead-lettered and committed past too, but the records after it are
// read only once a gate is given the partition anew (started again, or
// the group rebalanced). kgo bounds each batch, not a fetch: a fetch
// (kgo.FetchMaxBytes of compressed batches) may hold thousands of
// batches each just within the bound, all decompressed before the gate
// polls one record. A session made with the options of BoundedFetches,
// as kafka/cmd/gate's is, decompresses less than twice the bound of a
// fetch and leaves the batches after for later fetches, none skipped
// nor read twice, and fetches from one broker at a time: the gate holds
// at most two fetches of its input at once, each at most
// kgo.FetchMaxBytes as fetched (or one batch, if larger) and less than
// twice the bound decompressed. Without them, a gate's memory is bounded
// by what may produce to its input, not by its options.
//
// A copy keeps its input's key and value, byte for byte, and its
// headers (a null value still null, an empty one empty), with the ce_
// ones written; an input whose key is null or empty is keyed by its
// entity's id (decision 15). It keeps not its partition (the session's
// partitioner chooses, by key) nor its timestamp: a copy, like a dead
// letter, is stamped with the time the gate produced it, as a broker
// would refuse one stamped far in the future
// (log.message.timestamp.after.max.ms) and so hold the input hostage.
//
// A retry, on Kafka, is a batch aborted: its records come again, after
// a back-off that grows while batches keep aborting (gate.Backoff), each
// counted once in gate.Stats.Retries, and then once more where they end.
// A batch is aborted when a copy or a dead letter could not be produced,
// or its transaction could not commit. One aborted for a topic the broker
// no longer has makes the gate check its topics again, as at start: it
// stops, refused, when its output or dead-letter topic was deleted. One
// deleted and made again is produced to anew, and Log told so: what the
// gate stored in the topic deleted, counted in its totals, is gone with
// it, and so are the records of a transaction that was ending as it
// went, which the brokers commit all the same (Kafka skips the markers
// of a deleted partition). An input topic deleted while the gate runs
// is read anew once made again, from its start.
//
// The gate reads its input read_committed: a partition on which a
// producer left a transaction open is read up to that transaction's
// first record (its last stable offset) and not past it, neither stored
// nor committed, until the producer commits or aborts it or the broker
// aborts it as timed out (transaction.timeout.ms); with UntilIdle, such a
// partition is not idle until then. The records of an aborted
// transaction are neither copied nor dead-lettered.
//
// Records deleted from the input before the gate read them (by
// DeleteRecords, retention, or the compaction of a compacted input) are
// gone, and not counted: a group whose offset fell below the start of a
// partition goes on at the first record left there, skipping none that
// can still be read, as a session made with
// kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()) does (one reset to
// the end would skip what is left). Log is told of each range of
// offsets deleted so, once: from where the group was (0 where it never
// committed) to the partition's start, as the gate reads the first
// record past them, or, with UntilIdle, finds its group's offset below
// the start. With UntilIdle, a partition whose records were all deleted
// is idle: nothing is left there to commit.
// A partition that kgo finds to have lost records where it cannot tell
// (kgo.ErrDataLoss: a broker with no record of the leader epoch the gate
// consumed at, as after an unclean election) resumes where the group
// committed, or at the end of its log if that is lower: kgo would move
// it back to its reset offset, and the gate store again, and count
// again, what it had stored.
//
// A partition that kgo cannot read on from where it is (a record batch
// that fails its CRC, as from a disk gone bad, or cannot be read; an
// error of the broker's that kgo does not retry) is held there, as by
// every Kafka client: kgo does not move past the error, and meets it at
// every fetch, for ever if the batch is corrupt. The gate goes on with
// the other partitions, and tells Log once, as a warning, the topic and
// partition, the offset it is held at and kgo's error, however many
// fetches meet it (again only for another error), and once as it reads
// the partition again. The operator moves the group's offset past the
// batch (its gates stopped: kafka-consumer-groups --reset-offsets, or
// kadm's CommitOffsets), or deletes the records up to past it
// (DeleteRecords); the records passed so are not gated. A partition the
// brokers refuse the gate (TOPIC_AUTHORIZATION_FAILED) stops it, as Run
// says, even while the others come with records: those are not gated,
// and come again to the next gate.
type Gate struct {
	// Session consumes the input and produces in transactions. Make it
	// with kgo.NewGroupTransactSession and the options kgo.ConsumerGroup,
	// kgo.ConsumeTopics (the input), kgo.TransactionalID (one per gate),
	// kgo.FetchIsolationLevel(kgo.ReadCommitted()), which keeps the
	// records of aborted transactions from the gate, and
	// kgo.KeepControlRecords(), which gives it the transaction markers
	// its group's offsets must pass: an input written in transactions
	// (another gate's output) ends with one. A gate refuses to start
	// without either. The options of BoundedFetches bound what it
	// decompresses of the input; a gate whose session has not them logs
	// so, once, as it starts. Partitions added to the input are
	// gated once the group's leader reloads its metadata
	// (kgo.MetadataMaxAge: kgo's default is 5 minutes, kafka/cmd/gate's
	// 5 seconds), the group rebalances after the transactions under way,
	// and the fetch a gate has waiting on the new partition's broker
	// returns (kgo.FetchMaxWait: 5 seconds unless set, a tenth of a
	// second with BoundedFetches). A transaction its transactional id
	// left open (a gate before it killed) holds its consumer until the
	// broker times it out; a gate with NewSession aborts it first.
	Session *kgo.GroupTransactSession
	// NewSession, if not nil, makes the gate's sessions, as Session
	// says, instead of Session (which must then be nil): Run makes one to
	// start with, and a new one whenever the one it runs on has failed
	// on an error of the connection (the brokers lost while it ended a
	// transaction) or had its producer fenced for the first time in a
	// minute (by a broker that aborted its transaction itself, as one
	// back from a crash may), or fenced at the end of a transaction open
	// longer than the session's kgo.TransactionTimeout, which the broker
	// aborted as timed out, or told that the brokers lost the state of
	// its producer (UNKNOWN_PRODUCER_ID, or OUT_OF_ORDER_SEQUENCE_NUMBER
	// from a broker before KIP-890), closing each when done with it. A session
	// that failed cannot begin another transaction; the new one aborts
	// the transaction it left open, whose records come again, and the
	// gate goes on with its duplicate window and its totals. With no
	// NewSession, Run returns such an error. The first session aborts
	// too any transaction its transactional id left open (a gate killed,
	// or refused the end of its transaction): its group's offsets
	// written in that transaction would otherwise hold the gate's
	// consumer, in silence, until the broker timed the transaction out.
	NewSession func() (*kgo.GroupTransactSession, error)
	// Output and DeadLetters are the topics valid messages and dead
	// letters go to. Both must exist, and neither may be consumed by the
	// gate itself, named or matched by a regular expression
	// (kgo.ConsumeRegex) its session consumes.
	Output, DeadLetters string
	// Kinds is the table of the schemas a message may follow; nil means
	// the published catalogue's, catalogue.Kinds.
	Kinds *msg.Kinds
	// Batch is the most records in one transaction; 0 means 256.
	Batch int
	// MaxRecordBytes bounds the size of every record the gate produces,
	// as the broker's limit (message.max.bytes) does; 0 means the most
	// the session's client puts in a batch (kgo.ProducerBatchMaxBytes,
	// whose default is below Kafka's default limit), which it must not
	// exceed. A gate does not start with less than gate.MinLimit.
	MaxRecordBytes int
	// DuplicateWindow is how many forwarded message ids the gate keeps to
	// tell a redelivery from a reused id; 0 means 100,000.
	DuplicateWindow int
	// Log, if not nil, is told of aborted transactions, of the broker
	// lost and found, of records of the input deleted before the gate
	// read them, of a partition of the input it cannot read, and reads
	// again, and of its output or dead-letter topic made again.
	Log *slog.Logger
	// Progress, if not nil, is called after every transaction, committed
	// or aborted, with the totals so far.
	Progress func(gate.Stats)
	// StopTimeout is how long a gate told to stop takes, at most, to end
	// the transaction under way; 0 means 10 seconds. Past it, the broker
	// aborts the transaction when it times out, and its records come
	// again, and Run returns an error that says so. A session made by
	// NewSession is closed within what is left of it: closing leaves
	// the group, which waits for a join the broker holds while the
	// group waits for a member that vanished, and aborts a transaction
	// the brokers did not let the gate end.
	StopTimeout time.Duration
	// UntilIdle makes Run return once the group has nothing left to
	// consume: every partition of its input committed to its end, or
	// with no record left (all deleted). An input topic that does not
	// exist for 5 seconds (deleted, or never made) makes it return an
	// error, saying so, rather than wait for the topic for ever.
	UntilIdle bool
}

// stopTimeout is StopTimeout, or its default.
func (g *Gate) stopTimeout() time.Duration { return cmp.Or(g.StopTimeout, 10*time.Second) }

// Run checks that the gate can work (decision 16: its output and dead
// letters exist, it does not consume them, and its records may hold at
// least gate.MinLimit bytes), waiting with back-off for a broker that is
// down, and then runs it until ctx is done (or, with UntilIdle, until
// the group has committed its whole input), ending the transaction under
// way, and returns what it did. It returns an error
// wrapping gate.ErrRefused for a gate that must not start, and the error
// of a transaction that could not be ended: its producer fenced by
// another with its transactional id, or, without NewSession, the brokers
// lost while it ended. With NewSession, a gate whose session failed so
// starts again on a new one, with back-off, as kafka/cmd/gate does; a
// fenced one once, and stops when fenced again within a minute. It
// stops too, with the brokers' error, when they refuse its group for
// good (a session timeout out of the range they allow, a group id or a
// right refused).
func (g *Gate) Run(ctx context.Context) (gate.Stats, error) {
	if (g.Session == nil) == (g.NewSession == nil) {
		return gate.Stats{}, fmt.Errorf("%w: it needs a Session or a NewSession to make its sessions, not both", gate.ErrRefused)
	}
	b := &broker{g: g, sess: g.Session, deleted: map[partition]int64{}, starts: map[partition]int64{}, stuck: map[partition]string{}}
	// StopTimeout bounds the whole of stopping: ending the transaction
	// under way and closing the session, which aborts one a broker did
	// not let it end.
	var stopAt atomic.Int64
	defer context.AfterFunc(ctx, func() { stopAt.Store(time.Now().UnixNano()) })()
	core := gate.Gate{Broker: b, Binding: ce.Kafka, Kinds: g.Kinds, Batch: g.Batch,
		Judges: runtime.GOMAXPROCS(0), DuplicateWindow: cmp.Or(g.DuplicateWindow, 100_000),
		UntilIdle: g.UntilIdle, Progress: g.Progress, Log: g.Log}
	st, err := core.Run(ctx)
	if g.NewSession != nil && b.sess != nil {
		grace := g.stopTimeout()
		if at := stopAt.Load(); at != 0 {
			grace -= time.Since(time.Unix(0, at))
		}
		closeWithin(b.sess, grace)
	}
	return st, err
}

// closeWithin closes sess, waiting for it at most grace. Closing leaves
// the group, which waits for a join under way; the broker holds a join
// until every member has joined again or timed out, for as long as a
// member that vanished (a gate killed) has to time out. A gate that
// stops holds no transaction by then: it does not wait so long, and the
// group times it out as it would a gate killed, once the join is
// answered and the session closed.
func closeWithin(sess *kgo.GroupTransactSession, grace time.Duration) {
	closed := make(chan struct{})
	go func() {
		sess.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(grace):
	}
}

// abortOpen aborts the transaction the gate's last session, or a gate
// before it with its transactional id, left open, by initializing a
// producer with that transactional id, as the session's
// own producer would only once it produces: until then its consumer
// would wait for the open transaction's offsets to be settled, which the
// broker does only when the transaction times out.
func abortOpen(ctx context.Context, cl *kgo.Client) error {
	txnID, _ := cl.OptValue(kgo.TransactionalID).(string)
	if txnID == "" {
		return fmt.Errorf("%w: its session has no transactional id", gate.ErrRefused)
	}
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = &txnID
	req.TransactionTimeoutMillis = 60_000
	if timeout, ok := cl.OptValue(kgo.TransactionTimeout).(time.Duration); ok && timeout > 0 {
		req.TransactionTimeoutMillis = int32(timeout.Milliseconds())
	}
	req.ProducerID, req.ProducerEpoch = -1, -1
	resp, err := req.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	return err
}

// transient reports whether err, the error a gate stopped on, is one of
// the connection, which a new session may not meet: not a refusal, and
// not a producer fenced (see broker.stop).
func transient(err error) bool {
	if errors.Is(err, gate.ErrRefused) || fenced(err) || errors.Is(err, kerr.TransactionalIDAuthorizationFailed) {
		return false
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || kerr.IsRetriable(err)
}

// refusedForGood reports whether err, an error of the session's
// consumer or of a record it produced, says that the brokers will never
// let it consume or produce as it is configured: a session timeout out
// of the group's range, a group id it may not use, no right to its
// group or topics, or its SASL credentials refused. Waiting would not
// help: the gate stops, saying why.
func refusedForGood(err error) bool {
	for _, e := range []error{kerr.InvalidSessionTimeout, kerr.InvalidGroupID, kerr.GroupAuthorizationFailed,
		kerr.TopicAuthorizationFailed, kerr.ClusterAuthorizationFailed, kerr.SaslAuthenticationFailed} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// broker adapts a transactional session to gate.Broker: each batch it
// fetches is a transaction, begun by Fetch and ended by Commit.
type broker struct {
	g    *Gate
	sess *kgo.GroupTransactSession
	// failed says that sess failed on an error of the connection, and
	// abort that the one made after it is to abort the transaction it
	// left open.
	failed, abort bool
	fencedAt      time.Time // when its producer was last fenced, if ever
	aborted       int       // transactions aborted since the last committed
	limit         int       // the size a record it produces must keep within (recordLimit)
	txn           *txn      // the transaction under way, or nil
	// missing is since when State has found an input topic missing, if
	// it does, and gone the error Fetch stops the gate with once that
	// has lasted inputGone (see State).
	missing time.Time
	gone    error
	// deleted is, for each partition of the input, the start of the
	// last range of records sayDeleted logged as deleted before the gate
	// read them, and starts the start of its log when noteDeleted last
	// looked.
	deleted, starts map[partition]int64
	// topicMissing is since when Start has found the output or the
	// dead-letter topic missing, if it does.
	topicMissing time.Time
	// topicIDs are the ids of the output and dead-letter topics when
	// Start last found them (see noteRemade).
	topicIDs map[string][16]byte
	// scratch is a buffer withIdentity may use, from one copy to the
	// next.
	scratch []byte
	// warnedUnbounded says that Start has logged that a session does
	// not bound what it decompresses of a fetch (see bounded).
	warnedUnbounded bool
	// stuck is, for each partition of the input that kgo cannot read
	// on, the error noteStuck logged it with.
	stuck map[partition]string
}

var (
	_ gate.Broker        = (*broker)(nil)
	_ gate.Transactional = (*broker)(nil)
	_ gate.Decoder       = (*broker)(nil)
)

// A txn is a batch's transaction, in which its copies and dead letters
// are produced: they are stored when it commits (their gate.Pending is
// nil).
type txn struct {
	ctx    context.Context // the records' context, done StopTimeout after the gate's
	cancel context.CancelFunc
	begun  time.Time    // when it began: the broker times it out TransactionTimeout after
	copies []kgo.Record // the batch's copies, in one allocation
	// done is promise, made once: a method value given to each Produce
	// would be an allocation a record.
	done func(*kgo.Record, error)

	mu     sync.Mutex
	failed error // the first record that could not be produced, or a retry asked for

	// bombs are the batches of the input, dead-lettered in this
	// transaction, that decompress past the session's bound (see
	// decompressBomb): the transaction commits their partitions' offsets
	// past them.
	bombs []*kgo.ErrDecompressTooLarge
}

// errRetry is the error of a batch aborted because the gate left one of
// its records to come again.
var errRetry = errors.New("a record of the batch is left to come again")

// fail marks t as not to commit, for err.
func (t *txn) fail(err error) {
	t.mu.Lock()
	t.failed = cmp.Or(t.failed, err)
	t.mu.Unlock()
}

func (t *txn) promise(_ *kgo.Record, err error) {
	if err != nil {
		t.fail(err)
	}
}

// delivery is a record as the session delivered it, in the transaction
// of its batch.
type delivery struct {
	r    *kgo.Record
	body []byte // the message: the value, unframed
	txn  *txn
	// written says that r's headers are those its copy carries: judging
	// found each one ce.Kafka writes once, with the value it writes.
	written bool
	// bomb, if not nil, says that d is no record but a batch whose
	// records were not read: it decompresses past the session's bound.
	// r is then only its place, its first offset.
	bomb *kgo.ErrDecompressTooLarge
}

func (d *delivery) Header() ce.Header  { return Header{Record: d.r} }
func (d *delivery) Body() []byte       { return d.body }
func (d *delivery) Deliveries() uint64 { return 1 }
func (d *delivery) Place() gate.Place {
	return gate.Place{Subject: d.r.Topic, Partition: d.r.Partition, Sequence: uint64(d.r.Offset)}
}

// Start checks that the output and dead-letter topics exist, and that
// the gate does not consume them. With NewSession, it makes the first
// session, and a new one after one that failed, which first aborts the
// transaction the one before left open.
func (b *broker) Start(ctx context.Context) error {
	g := b.g
	if g.Output == "" || g.DeadLetters == "" || g.Output == g.DeadLetters {
		return fmt.Errorf("%w: the output (%q) and dead-letter (%q) topics must be named, and differ", gate.ErrRefused, g.Output, g.DeadLetters)
	}
	if g.NewSession != nil && (b.sess == nil || b.failed) {
		if b.sess != nil {
			b.sess.Close()
		}
		sess, err := g.NewSession()
		if err != nil {
			return gate.Fatal(fmt.Errorf("kafka gate: making a session: %w", err))
		}
		// Its first session too: a gate before it with its
		// transactional id (killed, or refused the end of its
		// transaction) may have left one open.
		b.abort = true
		b.sess, b.failed = sess, false
	}
	if b.abort {
		if err := abortOpen(ctx, b.sess.Client()); err != nil {
			err = fmt.Errorf("aborting the transaction its transactional id left open: %w", err)
			if transient(err) || ctx.Err() != nil {
				return err // waited out
			}
			return gate.Fatal(err)
		}
		b.abort = false
	}
	if b.limit = b.recordLimit(); b.limit < gate.MinLimit {
		return fmt.Errorf("%w: it may produce records of at most %d bytes, below %d: too few for a dead letter's verdict and some of its body", gate.ErrRefused, b.limit, gate.MinLimit)
	}
	cl := b.sess.Client()
	if err := readsCommitted(cl); err != nil {
		return err
	}
	if !b.warnedUnbounded && !bounded(cl) && g.Log != nil {
		b.warnedUnbounded = true
		g.Log.Warn("the gate's session bounds what it decompresses of each batch of the input, not of a fetch: a producer's many small batches that each decompress to near the bound can exhaust its memory; make the session with the options of kafka.BoundedFetches")
	}
	if by, ok := consumes(cl, g.Output); ok {
		return fmt.Errorf("%w: it consumes its output topic %q%s: it would judge its own copies", gate.ErrRefused, g.Output, by)
	}
	if by, ok := consumes(cl, g.DeadLetters); ok {
		return fmt.Errorf("%w: it consumes its dead-letter topic %q%s: it would judge its own dead letters", gate.ErrRefused, g.DeadLetters, by)
	}
	adm := kadm.NewClient(cl)
	topics, err := adm.ListTopics(ctx, g.Output, g.DeadLetters)
	if errors.Is(err, kerr.TopicAuthorizationFailed) {
		which := g.Output
		if _, err := adm.ListTopics(ctx, g.Output); err == nil {
			which = g.DeadLetters
		}
		return fmt.Errorf("%w: the brokers refuse it its topic %q: %w", gate.ErrRefused, which, err)
	}
	if refusedForGood(err) {
		return gate.Fatal(fmt.Errorf("the brokers refuse the gate's session: %w", err))
	}
	if err != nil {
		return fmt.Errorf("cannot reach the broker: %w", err)
	}
	for _, t := range [][2]string{{"output", g.Output}, {"dead-letter", g.DeadLetters}} {
		if topics.Has(t[1]) {
			continue
		}
		// A broker that has not yet learnt of a topic just made says
		// that it does not exist: asked again, with back-off, until it
		// has been missing for topicGone.
		if b.topicMissing.IsZero() {
			b.topicMissing = time.Now()
		}
		if time.Since(b.topicMissing) < topicGone {
			cl.PurgeTopicsFromClient(t[1]) // and from its cache of metadata, kept kgo.MetadataMinAge
			return fmt.Errorf("its %s topic %q does not exist, the brokers say: asking again", t[0], t[1])
		}
		b.topicMissing = time.Time{}
		return fmt.Errorf("%w: its %s topic %q does not exist", gate.ErrRefused, t[0], t[1])
	}
	b.topicMissing = time.Time{}
	b.noteRemade(topics)
	return b.fitsTopics(ctx, adm)
}

// noteRemade logs each of the output and dead-letter topics that was
// deleted and made again since the gate last checked them, as its id
// says: what the gate stored in it before is gone with it, though
// counted in its totals, and so are the records of a transaction that
// committed while it was deleted (the brokers commit a transaction whose
// topic is gone, as Kafka skips the markers of deleted partitions).
func (b *broker) noteRemade(topics kadm.TopicDetails) {
	for _, name := range []string{b.g.Output, b.g.DeadLetters} {
		id := topics[name].ID
		if was, ok := b.topicIDs[name]; ok && was != id && b.g.Log != nil {
			b.g.Log.Warn("a topic the gate produces to was deleted and made again while it ran: the records it stored there before, counted in its totals, are gone with it",
				"topic", msg.Escape(name))
		}
		if b.topicIDs == nil {
			b.topicIDs = map[string][16]byte{}
		}
		b.topicIDs[name] = id
	}
}

// consumes reports whether cl consumes topic, as its options say: named
// among its topics, or, with kgo.ConsumeRegex, matched by one of its
// regular expressions and none of those it excludes, which by then says
// how (the topics a regex matches are known only once the client has
// loaded its metadata: what it consumes so far is no proof).
func consumes(cl *kgo.Client, topic string) (by string, ok bool) {
	topics, _ := cl.OptValue(kgo.ConsumeTopics).(map[string]*regexp.Regexp)
	if regex, _ := cl.OptValue(kgo.ConsumeRegex).(bool); !regex {
		_, ok := topics[topic]
		return "", ok
	}
	excluded, _ := cl.OptValue(kgo.ConsumeExcludeTopics).([]string)
	for _, e := range excluded {
		if re, err := regexp.Compile(e); err == nil && re.MatchString(topic) {
			return "", false
		}
	}
	for pattern, re := range topics {
		if re != nil && re.MatchString(topic) {
			return " (by the regular expression " + strconv.Quote(pattern) + ")", true
		}
	}
	return "", false
}

// readCommitted is the isolation level of kgo.ReadCommitted(), as Kafka
// numbers it and kgo's OptValue reports it.
const readCommitted int8 = 1

// readsCommitted refuses a gate whose client reads the records of
// aborted transactions, which it would forward, or drops the
// transaction markers, which its offsets must pass: its group would
// never commit the end of an input written in transactions, and a gate
// with UntilIdle never return.
func readsCommitted(cl *kgo.Client) error {
	if level, _ := cl.OptValue(kgo.FetchIsolationLevel).(int8); level != readCommitted {
		return fmt.Errorf("%w: its session reads records that their producer aborted: make it with kgo.FetchIsolationLevel(kgo.ReadCommitted())", gate.ErrRefused)
	}
	if keep, _ := cl.OptValue(kgo.KeepControlRecords).(bool); !keep {
		return fmt.Errorf("%w: its session drops the transaction markers its group's offsets must pass: make it with kgo.KeepControlRecords()", gate.ErrRefused)
	}
	return nil
}

// fitsTopics refuses a gate whose client may put more in a record batch
// than its output or dead-letter topic stores (max.message.bytes): the
// broker would refuse every batch that large, and the gate read its
// records again for ever. It refuses a compacted dead-letter topic too:
// compaction keeps one record of each key, so that the dead letters of
// one entity would replace each other and vanish, and Kafka refuses a
// record without a key there (INVALID_RECORD), so that a keyless input
// would come again for ever. A broker that does not say (its configs
// not described to this client) is left to refuse what it must.
func (b *broker) fitsTopics(ctx context.Context, adm *kadm.Client) error {
	batch := b.batchBytes()
	configs, err := adm.DescribeTopicConfigs(ctx, b.g.Output, b.g.DeadLetters)
	if err != nil && transient(err) {
		return fmt.Errorf("cannot reach the broker: %w", err)
	}
	for _, rc := range configs {
		for _, c := range rc.Configs {
			if rc.Err != nil {
				continue
			}
			if c.Key == "cleanup.policy" && rc.Name == b.g.DeadLetters && strings.Contains(c.MaybeValue(), "compact") {
				return fmt.Errorf("%w: its dead-letter topic %q is compacted (cleanup.policy %s): the dead letters of one key would replace each other, and those of a record without one be refused",
					gate.ErrRefused, rc.Name, c.MaybeValue())
			}
			if c.Key != "max.message.bytes" {
				continue
			}
			if limit, err := strconv.Atoi(c.MaybeValue()); err == nil && batch > limit {
				return fmt.Errorf("%w: its topic %q stores record batches of at most %d bytes (max.message.bytes), fewer than the %d its client may put in one (kgo.ProducerBatchMaxBytes, the command's -max-record-bytes)",
					gate.ErrRefused, rc.Name, limit, batch)
			}
		}
	}
	return nil
}

// pollWait is how long Fetch waits for records when there are none.
const pollWait = 250 * time.Millisecond

// Fetch polls the next records, and begins their transaction. It polls
// for a while whether or not wait is set: a poll returns what has been
// fetched as soon as there is some.
func (b *broker) Fetch(ctx context.Context, max int, _ bool) ([]gate.Delivery, error) {
	if b.gone != nil {
		return nil, gate.Fatal(b.gone)
	}
	poll, cancel := context.WithTimeout(ctx, pollWait)
	defer cancel()
	fs := b.sess.PollRecords(poll, max)
	if fs.IsClientClosed() {
		return nil, gate.Fatal(kgo.ErrClientClosed)
	}
	// Refused for good, whether or not the other partitions came with
	// records: the records polled are not gated, and come again to the
	// next gate.
	var refused error
	fs.EachError(func(_ string, _ int32, err error) {
		if refused == nil && refusedForGood(err) {
			refused = err
		}
	})
	if refused != nil {
		return nil, gate.Fatal(fmt.Errorf("the brokers refuse the gate's session: %w", refused))
	}
	records := fs.Records()
	b.noteDeleted(fs)
	b.noteStuck(fs)
	if at := b.resumeAfterDataLoss(ctx, fs); at != nil {
		// Every record of those partitions is dropped, not only those
		// below where they resume: SetOffsets made that offset the one
		// the transaction commits for them, and a record above it kept
		// here would be stored now and fetched, and stored, again.
		records = slices.DeleteFunc(records, func(r *kgo.Record) bool {
			_, reset := at[r.Topic][r.Partition]
			return reset
		})
	}
	var bombs []*kgo.ErrDecompressTooLarge
	fs.EachError(func(_ string, _ int32, err error) {
		if bomb, ok := errors.AsType[*kgo.ErrDecompressTooLarge](err); ok {
			bombs = append(bombs, bomb)
		}
	})
	if len(records) == 0 && len(bombs) == 0 {
		var failed error
		var recreated []string
		held := false
		fs.EachError(func(topic string, p int32, err error) {
			switch {
			case stuck(topic, err):
				// Said once (noteStuck): the gate goes on with the
				// partitions it can read.
				held = true
			case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			case errors.Is(err, errDeferred):
				// Its fetch decompressed its budget before the
				// partition's first batch (BoundedFetches): kgo
				// fetches it again, from there.
			case errors.Is(err, kerr.UnknownTopicID) && !slices.Contains(recreated, topic):
				// The topic was deleted, and perhaps made again: kgo
				// reads only the one it first knew, under its id,
				// until told to forget it.
				recreated = append(recreated, topic)
				failed = cmp.Or(failed, fmt.Errorf("the input topic %s was deleted: reading it anew, once made again: %w", topic, err))
			case topic == "": // the group's, not a partition's
				failed = cmp.Or(failed, err)
			default:
				failed = cmp.Or(failed, fmt.Errorf("topic %s, partition %d: %w", topic, p, err))
			}
		})
		if recreated != nil {
			b.sess.Client().PurgeTopicsFromClient(recreated...)
			b.sess.Client().AddConsumeTopics(recreated...)
		}
		if held && failed == nil {
			// kgo answers at once a poll of a partition it cannot
			// read: the gate waits out its poll, rather than ask
			// again at once, for ever.
			<-poll.Done()
		}
		return nil, failed
	}
	// The transaction markers (control records, kgo.KeepControlRecords)
	// are not messages: they only move the offsets the transaction
	// commits past them.
	polled := len(records)
	records = slices.DeleteFunc(records, func(r *kgo.Record) bool { return r.Attrs.IsControl() })
	if len(records) == 0 && polled > 0 && len(bombs) == 0 {
		return nil, b.passMarkers(ctx)
	}
	if err := b.sess.Begin(); err != nil {
		return nil, b.stop(fmt.Errorf("kafka gate: beginning a transaction: %w", err))
	}
	// A gate told to stop ends the transaction under way, as it would
	// have: what it fetched is settled, not left for the broker to time
	// out; but within StopTimeout, as a broker gone could make it wait
	// for ever.
	t := &txn{copies: make([]kgo.Record, 0, len(records)), begun: time.Now(), bombs: bombs}
	t.done = t.promise
	t.ctx, t.cancel = afterStop(ctx, b.g.stopTimeout())
	b.txn = t
	ds := make([]delivery, len(records), len(records)+len(bombs))
	out := make([]gate.Delivery, len(records), len(records)+len(bombs))
	for i, r := range records {
		_, body, _, err := Unframe(r.Value)
		if err != nil {
			body = r.Value // DecodeIdentity says why
		}
		ds[i] = delivery{r: r, body: body, txn: t}
		out[i] = &ds[i]
	}
	for _, bomb := range bombs {
		ds = append(ds, delivery{r: &kgo.Record{Topic: bomb.Topic, Partition: bomb.Partition, Offset: bomb.Offset}, txn: t, bomb: bomb})
		out = append(out, &ds[len(ds)-1])
	}
	return out, nil
}

// resumeAfterDataLoss undoes what kgo did on finding, it says, that a
// partition of the input lost records (kgo.ErrDataLoss), where it could
// not tell where: it moved the partition back to where its reset offset
// says (kgo.ConsumeResetOffset: a gate's session, at the start), and the
// gate would judge again, and store again, every record it had stored
// from there on, each counted twice. A broker that answers that it has
// no record of the leader epoch the gate consumed at does so (KIP-320;
// kfake, a leader moved twice with nothing written in between). The
// group's committed offset says exactly what the gate's transactions
// stored: the partition resumes there, or at the end of its log if
// that is lower now (the records past it lost), and never below the
// offset kgo chose. It returns where the partitions resume, so that the
// records fetched from them are dropped, to be fetched again from there,
// or nil if none does.
func (b *broker) resumeAfterDataLoss(ctx context.Context, fs kgo.Fetches) map[string]map[int32]kgo.EpochOffset {
	var lost []*kgo.ErrDataLoss
	fs.EachError(func(_ string, _ int32, err error) {
		if dl, ok := errors.AsType[*kgo.ErrDataLoss](err); ok && dl.ResetTo < dl.ConsumedTo {
			lost = append(lost, dl)
		}
	})
	if lost == nil {
		return nil
	}
	cl := b.sess.Client()
	committed := cl.CommittedOffsets()
	var topics []string
	for _, dl := range lost {
		if !slices.Contains(topics, dl.Topic) {
			topics = append(topics, dl.Topic)
		}
	}
	// The end of a log that lost records may be below the group's
	// offset: the records past it are gone. Unknown, the group's offset
	// stands, and a fetch past the end is reset again.
	ends, _ := kadm.NewClient(cl).ListEndOffsets(ctx, topics...)
	at := map[string]map[int32]kgo.EpochOffset{}
	for _, dl := range lost {
		c, ok := committed[dl.Topic][dl.Partition]
		if !ok || c.Offset <= dl.ResetTo {
			continue
		}
		offset := c.Offset
		if end, ok := ends.Lookup(dl.Topic, dl.Partition); ok && end.Err == nil {
			offset = min(offset, max(end.Offset, dl.ResetTo))
		}
		if at[dl.Topic] == nil {
			at[dl.Topic] = map[int32]kgo.EpochOffset{}
		}
		at[dl.Topic][dl.Partition] = kgo.EpochOffset{Epoch: -1, Offset: offset}
		if b.g.Log != nil {
			b.g.Log.Warn("the broker says the input lost records; resuming where the group committed, not where kgo reset",
				"topic", dl.Topic, "partition", dl.Partition, "reset", dl.ResetTo, "resumed", offset)
		}
	}
	if len(at) == 0 {
		return nil
	}
	cl.SetOffsets(at)
	return at
}

// A partition is a partition of a topic.
type partition struct {
	topic string
	p     int32
}

// stuck reports whether err, an error kgo gave for a partition of the
// input (of topic), is one it keeps and meets again at every fetch of
// the partition, from the same offset: a record batch there that fails
// its CRC or cannot be read, an error code it does not know, any it does
// not retry itself. Not the group's errors (no topic), the session's
// poll ending, a batch left for a later fetch (errDeferred), a topic
// deleted (kerr.UnknownTopicID), a right refused (refusedForGood), a
// compression bomb or records lost (kgo.ErrDataLoss), which the gate
// acts on otherwise.
func stuck(topic string, err error) bool {
	if topic == "" || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, errDeferred) || errors.Is(err, kerr.UnknownTopicID) || refusedForGood(err) {
		return false
	}
	_, bomb := errors.AsType[*kgo.ErrDecompressTooLarge](err)
	_, lost := errors.AsType[*kgo.ErrDataLoss](err)
	return !bomb && !lost
}

// noteStuck logs, once, each partition of the input that kgo cannot read
// on from where it is (see stuck), with kgo's error and the offset it is
// held at, whether or not the others came with records: kgo does not
// move past the error, and fetches the partition again from there, for
// ever if a batch there is corrupt, holding its records. A partition
// noted is logged again only for another error, and once as it is read
// again.
func (b *broker) noteStuck(fs kgo.Fetches) {
	if b.g.Log == nil {
		return
	}
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		at := partition{p.Topic, p.Partition}
		if p.Err == nil || !stuck(p.Topic, p.Err) {
			if _, ok := b.stuck[at]; ok && p.Err == nil && len(p.Records) > 0 {
				delete(b.stuck, at)
				b.g.Log.Info("the gate reads again a partition of the input it could not read",
					"topic", msg.Escape(p.Topic), "partition", p.Partition, "offset", p.Records[0].Offset)
			}
			return
		}
		text := msg.Escape(p.Err.Error())
		if b.stuck[at] == text {
			return
		}
		b.stuck[at] = text
		args := []any{"topic", msg.Escape(p.Topic), "partition", p.Partition}
		if offset, ok := b.heldAt(p); ok {
			args = append(args, "offset", offset)
		}
		b.g.Log.Warn("the gate cannot read a partition of the input: its records from offset on are held, not gated, until it can; a record batch there that fails its CRC is held for ever: move the group's offset past it, or delete the records",
			append(args, "error", text)...)
	})
}

// heldAt returns the offset at which kgo is held on p, a partition of
// the input it cannot read on, if known: past the last record polled of
// it (those of p included), or where its group committed, or, for a
// partition its group never committed, the start of its log, where a
// gate's session begins.
func (b *broker) heldAt(p kgo.FetchTopicPartition) (int64, bool) {
	cl := b.sess.Client()
	if o, ok := cl.UncommittedOffsets()[p.Topic][p.Partition]; ok {
		return o.Offset, true
	}
	if o, ok := cl.CommittedOffsets()[p.Topic][p.Partition]; ok {
		return o.Offset, true
	}
	return p.LogStartOffset, p.LogStartOffset >= 0
}

// noteDeleted logs, once, each range of the input's offsets that the
// brokers deleted (DeleteRecords, or retention) before the gate read
// them, as it finds a partition's first record past where its group
// committed and past the partition's start: kgo moves on to the first
// record left, saying so only to its own logger, and those records
// never reach the output or the dead letters. The start of the log
// tells them from the records of aborted transactions and those
// compacted away, which leave gaps too. The group's offsets are looked
// at only when a partition's start is new to the gate: records deleted
// past where the group is move it.
func (b *broker) noteDeleted(fs kgo.Fetches) {
	if b.g.Log == nil {
		return
	}
	var committed map[string]map[int32]kgo.EpochOffset
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if len(p.Records) == 0 || p.Records[0].Offset < p.LogStartOffset {
			return
		}
		at := partition{p.Topic, p.Partition}
		if seen, ok := b.starts[at]; ok && p.LogStartOffset <= seen {
			return
		}
		b.starts[at] = p.LogStartOffset
		if committed == nil {
			committed = b.sess.Client().CommittedOffsets()
		}
		if c, ok := committed[p.Topic][p.Partition]; ok {
			b.sayDeleted(p.Topic, p.Partition, c.Offset, p.LogStartOffset)
		}
	})
}

// sayDeleted logs that the records of a partition of the input from
// offset from, where its group is, to start, the first left, were
// deleted before the gate read them, unless it has said so already.
func (b *broker) sayDeleted(topic string, p int32, from, start int64) {
	at := partition{topic, p}
	if b.g.Log == nil || from < 0 || from >= start || b.deleted[at] == start {
		return // none, or said already: read again after an abort
	}
	b.deleted[at] = start
	b.g.Log.Warn("records of the input were deleted before the gate read them: they are not gated",
		"topic", msg.Escape(topic), "partition", p, "from", from, "to", start-1)
}

// decompressBomb returns the verdict's violation of a batch of the input
// that decompresses to more than the session's client may decompress
// (kgo.MaxDecompressBatchBytes): kgo reads none of its records, and
// stops consuming its partition until told to skip it. A gate would
// otherwise hold the partition hostage; it dead-letters the batch
// instead, as one input, with no body, and its transaction commits the
// partition's offset past it (see Commit).
func (b *broker) decompressBomb(bomb *kgo.ErrDecompressTooLarge) error {
	bound, _ := b.sess.Client().OptValue(kgo.MaxDecompressBatchBytes).(int)
	return &msg.Error{Violations: []*msg.Violation{{Rule: msg.RuleTooLarge,
		Message: fmt.Sprintf("the record batch at offsets %d to %d decompresses to more than the %d bytes the gate may decompress of one (kgo.MaxDecompressBatchBytes): its records are not read",
			bomb.Offset, bomb.NextOffset-1, bound)}}}
}

// passMarkers commits the offsets past the transaction markers the
// session polled with no record, in a transaction of their own: the
// gate core is given no message to commit them with.
func (b *broker) passMarkers(ctx context.Context) error {
	if err := b.sess.Begin(); err != nil {
		return b.stop(fmt.Errorf("kafka gate: beginning a transaction: %w", err))
	}
	end, cancel := afterStop(ctx, b.g.stopTimeout())
	defer cancel()
	if _, err := b.sess.End(end, kgo.TryCommit); err != nil {
		return b.stop(fmt.Errorf("kafka gate: ending a transaction: %w", err))
	}
	return nil
}

// DecodeIdentity judges d as the package's DecodeIdentity does, plain
// or framed, borrowing from its value, without building the message
// (ce.Binding's Judging: the gate forwards the value byte for byte, and
// needs only the verdict and the identity), and notes for Forward whether the
// headers of a valid message are already those of its copy, as ce
// found them checking them (ce.WrittenHeader): they are compared once,
// on the judges' goroutines.
func (b *broker) DecodeIdentity(kinds *msg.Kinds, gd gate.Delivery) (m msg.Message, id msg.Identity, err error) {
	d := gd.(*delivery)
	if d.bomb != nil {
		return nil, msg.Identity{}, b.decompressBomb(d.bomb)
	}
	h := readHeaders(d.r)
	defer h.release()
	m, err = h.decodeInto(kinds, d.r, ce.Kafka.Judging(), &id)
	d.written = err == nil && h.written
	return m, id, err
}

// Forward produces the copy of d into its transaction: its value as it
// came, its key (the entity's id if it had none), and its headers with
// the ce_ ones written for id.
func (b *broker) Forward(gd gate.Delivery, id msg.Identity) (gate.Pending, error) {
	d := gd.(*delivery)
	t := d.txn
	t.copies = append(t.copies, kgo.Record{Topic: b.g.Output, Key: d.r.Key, Value: d.r.Value})
	out := &t.copies[len(t.copies)-1]
	if len(out.Key) == 0 {
		out.Key = id.Key.Append(nil)
	}
	var err error
	if out.Headers, err = b.copyHeaders(d, id); err != nil {
		return nil, err
	}
	if size := recordSize(out); size > b.limit {
		return nil, gate.TooLarge(size, b.limit)
	}
	b.sess.Produce(t.ctx, out, t.done)
	return nil, nil
}

// copyHeaders returns the headers of d's copy, the message of identity
// id, as withIdentity makes them: d's own when judging found them
// written already.
func (b *broker) copyHeaders(d *delivery, id msg.Identity) ([]kgo.RecordHeader, error) {
	if d.written {
		return keptHeaders(d.r.Headers), nil
	}
	hs, scratch, err := withIdentity(d.r.Headers, id, b.scratch)
	b.scratch = scratch
	return hs, err
}

// DeadLetter produces the dead letter of d into its transaction, or
// returns the error of one whose verdict does not fit (see deadLetter),
// which aborts the transaction.
func (b *broker) DeadLetter(gd gate.Delivery, v gate.Verdict) (gate.Pending, error) {
	d := gd.(*delivery)
	dead, err := b.deadLetter(d.r, v)
	if err != nil {
		return nil, err
	}
	b.sess.Produce(d.txn.ctx, dead, d.txn.done)
	return nil, nil
}

// Ack does nothing: the transaction commits the offsets of its records.
func (b *broker) Ack(gate.Delivery) error { return nil }

// Retry aborts the transaction of d, if it is under way: its records
// come again. One that has ended has been aborted already.
func (b *broker) Retry(gd gate.Delivery) {
	if t := gd.(*delivery).txn; t == b.txn {
		t.fail(errRetry)
	}
}

// Commit ends the transaction under way: it flushes its records, and
// commits them with the offsets of the batch, or aborts both.
func (b *broker) Commit(ctx context.Context) error {
	t := b.txn
	b.txn = nil
	defer t.cancel()
	// Its records are flushed before it is decided: End would commit
	// the input's offsets whatever became of them, as it ends the
	// transaction it was asked to, and a copy the broker refused for
	// good (one too large for its limit, say) would be lost.
	if err := b.sess.Client().Flush(t.ctx); err != nil {
		t.fail(err)
	}
	t.mu.Lock()
	commit := t.failed == nil
	t.mu.Unlock()
	end := t.ctx
	if commit && t.bombs != nil {
		end = b.pastBombs(t)
	}
	committed, err := b.sess.End(end, kgo.TransactionEndTry(commit))
	b.resume(t.bombs, err == nil && committed)
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case err != nil && b.timedOut(t) && fenced(err):
		// The broker aborted it itself, and fenced the producer, as
		// it had been open longer than the session's transaction
		// timeout (a broker slow to answer, say): the gate starts again
		// on a new session, as it would once fenced, but this is no
		// sign of another gate using its transactional id.
		return b.stop(fmt.Errorf("kafka gate: ending a transaction open for %v, past its timeout of %v: %w",
			time.Since(t.begun).Round(time.Millisecond), b.txnTimeout(), &timedOut{err}))
	case err != nil && ctx.Err() != nil && t.ctx.Err() != nil:
		// Told to stop, it gave the brokers StopTimeout to end it.
		return b.stop(fmt.Errorf("kafka gate: told to stop, the brokers did not end its transaction within its StopTimeout (%v), which they abort when it times out, its records to come again: %w",
			b.g.stopTimeout(), err))
	case err != nil:
		// The transactional producer is fenced or failed: no
		// transaction can follow (see kgo.GroupTransactSession.End). Its
		// records come again, to this gate started anew or another.
		return b.stop(fmt.Errorf("kafka gate: ending a transaction: %w", err))
	case refusedForGood(t.failed) || errors.Is(t.failed, kerr.TransactionalIDAuthorizationFailed):
		// No right to produce its records: waiting would not give it.
		return gate.Fatal(fmt.Errorf("the brokers refuse the gate's records: %w", t.failed))
	case errors.Is(t.failed, kerr.UnknownTopicOrPartition) || errors.Is(t.failed, kerr.UnknownTopicID):
		// A topic it produces to is gone (deleted while it ran, and
		// perhaps made again), or moving: Start checks them again, and
		// refuses to go on without one, rather than read its records
		// again for ever. The client forgets what it knew of them: it
		// produces only to the topic it first knew, under its id, and
		// would refuse every record for one made again.
		b.sess.Client().PurgeTopicsFromClient(b.g.Output, b.g.DeadLetters)
		return gate.Restart(fmt.Errorf("transaction aborted, its records to come again: %w", t.failed))
	case errors.Is(t.failed, kerr.MessageTooLarge) || errors.Is(t.failed, kerr.RecordListTooLarge) ||
		errors.Is(t.failed, kerr.InvalidRecord):
		// A batch larger than its topic stores, or a record it refuses:
		// the topic's limit (max.message.bytes) lowered since Start
		// checked it, or its dead-letter topic made compacted (Kafka
		// refuses a record without a key there). Start checks them
		// again, and refuses to go on so, rather than read its records
		// again for ever.
		return gate.Restart(fmt.Errorf("transaction aborted, its records to come again: %w", t.failed))
	case !committed || t.failed != nil:
		// Its records come again after a back-off, growing while
		// transactions keep aborting: a broker that refuses them for a
		// while is not asked again at once, for ever.
		b.aborted++
		select {
		case <-time.After(gate.Backoff(b.aborted)):
		case <-ctx.Done():
		}
		return fmt.Errorf("transaction aborted, its records to come again: %w", cmp.Or(t.failed, errAborted))
	}
	b.aborted = 0
	return nil
}

// pastBombs returns the context of ending t, whose batches t.bombs are
// dead-lettered: its offset commit moves each one's partition past it,
// where the session would commit only the offsets of the records it
// polled.
func (b *broker) pastBombs(t *txn) context.Context {
	ids := map[string][16]byte{}
	for _, bomb := range t.bombs {
		ids[bomb.Topic] = [16]byte{}
	}
	if topics, err := kadm.NewClient(b.sess.Client()).ListTopics(t.ctx, slices.Collect(maps.Keys(ids))...); err == nil {
		for name, td := range topics {
			ids[name] = td.ID
		}
	}
	return kgo.PreTxnCommitFnContext(t.ctx, func(req *kmsg.TxnOffsetCommitRequest) error {
		for _, bomb := range t.bombs {
			i := slices.IndexFunc(req.Topics, func(rt kmsg.TxnOffsetCommitRequestTopic) bool { return rt.Topic == bomb.Topic })
			if i < 0 {
				rt := kmsg.NewTxnOffsetCommitRequestTopic()
				rt.Topic, rt.TopicID = bomb.Topic, ids[bomb.Topic]
				req.Topics = append(req.Topics, rt)
				i = len(req.Topics) - 1
			}
			rt := &req.Topics[i]
			j := slices.IndexFunc(rt.Partitions, func(p kmsg.TxnOffsetCommitRequestTopicPartition) bool { return p.Partition == bomb.Partition })
			if j < 0 {
				p := kmsg.NewTxnOffsetCommitRequestTopicPartition()
				p.Partition, p.Metadata = bomb.Partition, &req.MemberID
				rt.Partitions = append(rt.Partitions, p)
				j = len(rt.Partitions) - 1
			}
			// The bomb follows every record of its partition polled
			// with it: kgo stops before it.
			rt.Partitions[j].Offset, rt.Partitions[j].LeaderEpoch = bomb.NextOffset, bomb.Epoch
		}
		return nil
	})
}

// resume has the session consume again the partitions of the batches
// bombs, which kgo stopped at: past them once their dead letters are
// committed; else from them, to dead-letter them again. An abort moves
// back a partition of which the transaction held records, before them,
// and kgo consumes it again; one that sits at its bomb is moved to the
// bomb again, under an unknown leader epoch, as kgo does nothing for an
// offset it has already. kgo moves only a partition it holds an offset
// for (see Gate).
func (b *broker) resume(bombs []*kgo.ErrDecompressTooLarge, committed bool) {
	if bombs == nil {
		return
	}
	cl := b.sess.Client()
	known := cl.CommittedOffsets()
	offsets := map[string]map[int32]kgo.EpochOffset{}
	for _, bomb := range bombs {
		at := kgo.EpochOffset{Epoch: bomb.Epoch, Offset: bomb.NextOffset}
		if !committed {
			now, ok := known[bomb.Topic][bomb.Partition]
			if !ok || now.Offset != bomb.Offset {
				continue // moved back before it by the abort, or not kgo's to move
			}
			at = kgo.EpochOffset{Epoch: -1, Offset: bomb.Offset}
			if now.Epoch == -1 {
				at.Epoch = bomb.Epoch
			}
		}
		if offsets[bomb.Topic] == nil {
			offsets[bomb.Topic] = map[int32]kgo.EpochOffset{}
		}
		offsets[bomb.Topic][bomb.Partition] = at
	}
	cl.SetOffsets(offsets)
}

// stop returns err, on which the session failed, as the gate is to take
// it: with NewSession, an error of the connection makes the gate start
// again on a new session (gate.Restart); anything else stops it.
//
// A producer fenced starts again too, once: a broker that aborted the
// transaction itself (one that timed out while the broker was away, or
// a broker that came back from a crash) fences the producer that held
// it, with no other gate in play. A gate fenced again within
// fencedAgain of that is taken to share its transactional id with
// another, which a new session would only fence in turn: it stops.
func (b *broker) stop(err error) error {
	if b.g.NewSession != nil && errors.As(err, new(*timedOut)) {
		b.failed = true
		return gate.Restart(err)
	}
	if b.g.NewSession != nil && fenced(err) {
		if !b.fencedAt.IsZero() && time.Since(b.fencedAt) < fencedAgain {
			txnID, _ := b.sess.Client().OptValue(kgo.TransactionalID).(string)
			return gate.Fatal(fmt.Errorf("%w (fenced again within %v: another producer uses its transactional id %q, which must be the gate's own)", err, fencedAgain, txnID))
		}
		b.fencedAt = time.Now()
		b.failed = true
		return gate.Restart(err)
	}
	if b.g.NewSession != nil && (transient(err) || lostProducer(err)) {
		b.failed = true
		return gate.Restart(err)
	}
	return gate.Fatal(err)
}

// lostProducer reports whether err says that the brokers lost the
// state of the session's producer (UNKNOWN_PRODUCER_ID; on a broker
// before KIP-890, OUT_OF_ORDER_SEQUENCE_NUMBER, after which kgo's
// producer fails for good): a new session, with a new producer, goes
// on.
func lostProducer(err error) bool {
	return errors.Is(err, kerr.UnknownProducerID) || errors.Is(err, kerr.OutOfOrderSequenceNumber)
}

// fencedAgain is how long after being fenced a gate that is fenced again
// stops rather than starting again.
const fencedAgain = time.Minute

// fenced reports whether err says that another producer took the
// gate's transactional id, or the broker fenced it. A broker that
// ended the transaction itself (KIP-890: an abort answered to the
// producer's commit, with the epoch it had before the broker bumped it)
// answers INVALID_TXN_STATE, as it does when another producer took the
// transactional id and aborted the transaction.
func fenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) || errors.Is(err, kerr.InvalidTxnState)
}

// timedOut wraps the error of a transaction the broker fenced once it
// had been open past the transaction timeout: its own abort, not
// another producer's (see broker.stop).
type timedOut struct{ err error }

func (e *timedOut) Error() string { return e.err.Error() }
func (e *timedOut) Unwrap() error { return e.err }

// txnTimeout returns the session's transaction timeout
// (kgo.TransactionTimeout), after which the broker aborts a transaction
// still open.
func (b *broker) txnTimeout() time.Duration {
	timeout, _ := b.sess.Client().OptValue(kgo.TransactionTimeout).(time.Duration)
	return timeout
}

// timedOut reports whether t has been open longer than the session's
// transaction timeout: the broker may have aborted it.
func (b *broker) timedOut(t *txn) bool {
	timeout := b.txnTimeout()
	return timeout > 0 && time.Since(t.begun) >= timeout
}

// errAborted is the error of a transaction the session aborted (its
// group rebalanced, or committing its offsets failed).
var errAborted = errors.New("the session aborted it")

// State says whether the gate's group has committed every partition of
// its input to its end: whether nothing is left for any gate of it. The
// gate core asks only with UntilIdle. An input topic that does not exist
// is Waiting, until it has been missing for inputGone: then the next
// Fetch stops the gate, saying so (see inputMissing).
func (b *broker) State(ctx context.Context) gate.State {
	cl := b.sess.Client()
	group, _ := cl.OptValue(kgo.ConsumerGroup).(string)
	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(ctx, cl.GetConsumeTopics()...)
	if err != nil {
		return gate.AcksAwaited
	}
	if b.inputMissing(ends) {
		return gate.Waiting
	}
	if ends.Error() != nil {
		return gate.AcksAwaited
	}
	// A partition whose records were all deleted (DeleteRecords, or
	// retention) has nothing left to read, and nothing the group could
	// commit past: its start is its end.
	starts, err := adm.ListStartOffsets(ctx, cl.GetConsumeTopics()...)
	if err != nil || starts.Error() != nil {
		return gate.AcksAwaited
	}
	committed, err := adm.FetchOffsets(ctx, group)
	if err != nil || committed.Error() != nil {
		return gate.AcksAwaited
	}
	state := gate.Idle
	ends.Each(func(end kadm.ListedOffset) {
		at := int64(0)
		if c, ok := committed.Lookup(end.Topic, end.Partition); ok {
			at = c.At
		}
		if start, ok := starts.Lookup(end.Topic, end.Partition); ok {
			if c, ok := committed.Lookup(end.Topic, end.Partition); ok {
				b.sayDeleted(end.Topic, end.Partition, c.At, start.Offset)
			}
			at = max(at, start.Offset)
		}
		if at < end.Offset {
			state = gate.Waiting
		}
	})
	return state
}

// topicGone is how long the output or dead-letter topic must be
// missing before a gate refuses to start, or to go on, for it: a broker
// may not know at once of a topic just made.
const topicGone = 2 * time.Second

// inputGone is how long an input topic must be missing before a gate
// with UntilIdle stops for it: a topic just made may not be known to
// every broker at once.
const inputGone = 5 * time.Second

// inputMissing reports whether ends, the end offsets of the input, says
// that one of its topics does not exist (kadm's partition -1), and sets
// b.gone, which stops the gate at its next Fetch, once one has been
// missing for inputGone. Only a gate with UntilIdle asks (see State): a
// gate that serves waits for the topic to be made again, and reads it
// then; one that is to stop once nothing is left would wait for ever.
func (b *broker) inputMissing(ends kadm.ListedOffsets) bool {
	var missing string
	ends.Each(func(end kadm.ListedOffset) {
		if errors.Is(end.Err, kerr.UnknownTopicOrPartition) {
			missing = end.Topic
		}
	})
	switch {
	case missing == "":
		b.missing = time.Time{}
		return false
	case b.missing.IsZero():
		b.missing = time.Now()
	case time.Since(b.missing) >= inputGone:
		b.gone = fmt.Errorf("the input topic %s does not exist (deleted, or never made): with UntilIdle, nothing is left to read", missing)
	}
	return true
}

// withIdentity returns the headers of a copy: those of hs that are not
// the ones ce.Kafka writes, then those, written for the message of
// identity id (which the input's agree with, or were absent, and those
// named so in another case too: see shadowed), their values in one
// allocation; a header named VerdictHeader renamed, as keptHeaders does.
// When hs holds each of those once
// already, with the value it would write, and no verdict, it returns hs
// itself: the copy shares the input's headers, as a copy of the record
// made without the library would. scratch is a buffer it may use,
// returned for the next call.
func withIdentity(hs []kgo.RecordHeader, id msg.Identity, scratch []byte) ([]kgo.RecordHeader, []byte, error) {
	same := true
	var at ceIndex
	at.index(hs)
	var written [ceNames]kgo.RecordHeader // their values in scratch, one after the other
	n := 0
	scratch, err := ce.Kafka.AppendHeaders(scratch[:0], id, func(key string, value []byte) {
		i, one := at.only(hs, key)
		same = same && one && bytes.Equal(hs[i].Value, value)
		written[n] = kgo.RecordHeader{Key: key, Value: value}
		n++
	})
	if err != nil {
		return nil, scratch, err
	}
	if same {
		return keptHeaders(hs), scratch, nil
	}
	// The copy's values are its own, scratch being the next copy's: the
	// values written, moved to one allocation, in the order
	// AppendHeaders appended them.
	values := slices.Clone(scratch)
	out := make([]kgo.RecordHeader, 0, len(hs)+n)
	for _, h := range keptHeaders(hs) {
		if !slices.ContainsFunc(written[:n], func(w kgo.RecordHeader) bool { return w.Key == h.Key }) {
			out = append(out, h)
		}
	}
	for _, w := range written[:n] {
		size := len(w.Value)
		out = append(out, kgo.RecordHeader{Key: w.Key, Value: values[:size:size]})
		values = values[size:]
	}
	return out, scratch, nil
}

// deadLetter returns the dead letter of r with verdict v (whose Place
// the gate filled in): r's key and headers, the verdict's header, and
// r's value, the key and headers dropped and the value cut as
// gate.FitDeadLetter decides. It returns an error wrapping
// gate.ErrTooLarge if not even the verdict fits.
func (b *broker) deadLetter(r *kgo.Record, v gate.Verdict) (*kgo.Record, error) {
	dead := &kgo.Record{Topic: b.g.DeadLetters, Headers: []kgo.RecordHeader{{Key: VerdictHeader}}}
	overhead := recordSize(dead)
	kept := keptHeaders(r.Headers)
	original := recordSize(&kgo.Record{Key: r.Key, Headers: kept}) - recordSize(&kgo.Record{})
	d, err := gate.FitDeadLetter(v, r.Value, gate.DeadLetterSize{Limit: b.limit, Overhead: overhead, Headers: original})
	if err != nil {
		return nil, err
	}
	if d.KeepHeaders {
		dead.Key = r.Key
		dead.Headers = append(kept, dead.Headers...)
	}
	dead.Headers[len(dead.Headers)-1].Value = d.Verdict
	// Never a tombstone, whatever the input's value (none) or the room
	// left for it: a consumer that passes over deletions would miss it.
	if dead.Value = d.Body; dead.Value == nil {
		dead.Value = []byte{}
	}
	return dead, nil
}

// keptHeaders returns the headers of an input that its copy or its dead
// letter keeps: all of them, each one named VerdictHeader (in any case,
// or up to a NUL byte) renamed with OriginalPrefix, so that the one
// verdict a consumer finds is the gate's. It returns hs itself, clipped,
// when none is.
func keptHeaders(hs []kgo.RecordHeader) []kgo.RecordHeader {
	// No letter of VerdictHeader has a fold outside ASCII (as k and s
	// do): a name that folds to it has its length, which is compared
	// first (TestVerdictHeaderFoldsInASCII). A name is read up to its
	// first NUL byte by librdkafka and the clients on it: one that goes
	// on after a NUL reads as what comes before it.
	forged := func(h kgo.RecordHeader) bool {
		n := len(VerdictHeader)
		return len(h.Key) >= n && (len(h.Key) == n || h.Key[n] == 0) && strings.EqualFold(h.Key[:n], VerdictHeader)
	}
	if !slices.ContainsFunc(hs, forged) {
		return slices.Clip(hs)
	}
	out := slices.Clone(hs)
	for i, h := range out {
		if forged(h) {
			out[i].Key = OriginalPrefix + h.Key
		}
	}
	return slices.Clip(out)
}

// recordOverhead is a generous bound on what a record adds to its key,
// value and headers in a record batch: lengths, deltas and attributes.
const recordOverhead = 64

// recordSize returns the size r takes in a record batch, at most.
func recordSize(r *kgo.Record) int {
	n := recordOverhead + len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += 10 + len(h.Key) + len(h.Value)
	}
	return n
}

// recordLimit returns the size a record the gate produces must keep
// within: MaxRecordBytes, and no more than the client puts in a batch.
func (b *broker) recordLimit() int {
	limit := b.batchBytes() - batchOverhead
	if b.g.MaxRecordBytes > 0 {
		limit = min(limit, b.g.MaxRecordBytes)
	}
	return limit
}

// batchBytes returns the most the session's client puts in a record
// batch (kgo.ProducerBatchMaxBytes).
func (b *broker) batchBytes() int {
	batch, _ := b.sess.Client().OptValue(kgo.ProducerBatchMaxBytes).(int32)
	return int(batch)
}

// afterStop returns a context that is done grace after ctx is.
func afterStop(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var timer *time.Timer
	var mu sync.Mutex
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		timer = time.AfterFunc(grace, cancel)
		mu.Unlock()
	})
	return c, func() {
		stop()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel()
	}
}
