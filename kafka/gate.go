package kafka

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/msg"
)

// VerdictHeader is the header of a dead letter that holds its verdict,
// gate.Verdict's JSON on one line, its Place the input's topic, partition
// and offset.
const VerdictHeader = "catalogue-verdict"

// batchOverhead is what a record batch adds to its records: its header.
const batchOverhead = 61

// A Gate keeps invalid messages out of a topic (decision 16), in Kafka
// transactions: it consumes its input as a consumer group, judges each
// record (Decode), and produces a valid message to Output, byte for byte
// with its ce_ headers written, and anything else to DeadLetters, with
// its verdict. Each batch of records is one transaction: the copies, the
// dead letters and the input's offsets commit together, so that a
// read_committed consumer of the output and dead letters sees every input
// once, whatever fails, and a batch that fails is aborted and read again.
// Gates scale out as the members of the group; within one, a batch's
// records are judged on as many goroutines as GOMAXPROCS allows, and
// settled in their order.
//
// A record too large for the broker once its headers are written is
// dead-lettered (msg.RuleTooLarge); a dead letter too large is cut to
// fit (gate.Fit). A message whose id was forwarded in the last
// DuplicateWindow ids is a redelivery if its body is the same (counted,
// not forwarded again) and a dead letter of rule msg.RuleDuplicateID if
// not; the window is the gate's own, kept for the partitions it holds,
// and starts empty when it starts.
type Gate struct {
	// Session consumes the input and produces in transactions. Make it
	// with kgo.NewGroupTransactSession and the options kgo.ConsumerGroup,
	// kgo.ConsumeTopics (the input), kgo.TransactionalID (one per gate),
	// and kgo.FetchIsolationLevel(kgo.ReadCommitted()).
	Session *kgo.GroupTransactSession
	// NewSession, if not nil, makes the gate's sessions, as Session
	// says, instead of Session (which must then be nil): Run makes one to
	// start with, and a new one whenever the one it runs on has failed
	// on an error of the connection (the brokers lost while it ended a
	// transaction), closing each when done with it. A session that
	// failed cannot begin another transaction; the new one aborts the
	// transaction it left open, whose records come again, and the gate
	// goes on with its duplicate window and its totals. With no
	// NewSession, Run returns such an error.
	NewSession func() (*kgo.GroupTransactSession, error)
	// Output and DeadLetters are the topics valid messages and dead
	// letters go to. Both must exist, and neither may be consumed by the
	// gate itself.
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
	// exceed.
	MaxRecordBytes int
	// DuplicateWindow is how many forwarded message ids the gate keeps to
	// tell a redelivery from a reused id; 0 means 100,000.
	DuplicateWindow int
	// Log, if not nil, is told of aborted transactions and of the broker
	// lost and found.
	Log *slog.Logger
	// Progress, if not nil, is called after every transaction that
	// committed with the totals so far.
	Progress func(gate.Stats)
	// StopTimeout is how long a gate told to stop takes, at most, to end
	// the transaction under way; 0 means 10 seconds. Past it, the broker
	// aborts the transaction when it times out, and its records come
	// again.
	StopTimeout time.Duration
	// UntilIdle makes Run return once the group has nothing left to
	// consume: every partition of its input committed to its end.
	UntilIdle bool

	sess   *kgo.GroupTransactSession // the session Run runs on
	window *window
	limit  int // recordLimit, read once: the client's options are read by reflection
}

// Run checks that the gate can work (decision 16: its output and dead
// letters exist, and it does not consume them), waiting with back-off for
// a broker that is down, and then runs it until ctx is done (or, with
// UntilIdle, until the group has committed its whole input), ending the
// transaction under way, and returns what it did. It returns an error
// wrapping gate.ErrRefused for a gate that must not start, and the error
// of a transaction that could not be ended: its producer fenced by
// another with its transactional id, or, without NewSession, the brokers
// lost while it ended. With NewSession, a gate whose session failed so
// starts again on a new one, with back-off, as kafka/cmd/gate does.
func (g *Gate) Run(ctx context.Context) (gate.Stats, error) {
	if (g.Session == nil) == (g.NewSession == nil) {
		return gate.Stats{}, fmt.Errorf("%w: it needs a Session or a NewSession to make its sessions, not both", gate.ErrRefused)
	}
	g.window = newWindow(orDefault(g.DuplicateWindow, 100_000))
	if g.NewSession == nil {
		g.sess = g.Session
		var st gate.Stats
		err := g.run(ctx, &st)
		return st, err
	}
	var st gate.Stats
	for try, first := 1, true; ; try, first = try+1, false {
		sess, err := g.NewSession()
		if err != nil {
			return st, fmt.Errorf("kafka gate: making a session: %w", err)
		}
		g.sess = sess
		if !first {
			err = abortOpen(ctx, sess.Client())
		}
		before := st.Messages
		if err == nil {
			err = g.run(ctx, &st)
		}
		sess.Close()
		g.sess = nil
		if err == nil || ctx.Err() != nil || !transient(err) {
			return st, err
		}
		if st.Messages > before {
			try = 1 // it worked for a while: back off from the start again
		}
		wait := gate.Backoff(try)
		g.log(slog.LevelWarn, "the session failed on an error of the connection; starting again on a new one", "in", wait.Round(time.Millisecond), "error", err)
		select {
		case <-ctx.Done():
			return st, nil
		case <-time.After(wait):
		}
	}
}

// run runs the gate on its session, adding what it does to st.
func (g *Gate) run(ctx context.Context, st *gate.Stats) error {
	if err := g.start(ctx); err != nil || ctx.Err() != nil {
		return err
	}
	g.limit = g.recordLimit()
	for ctx.Err() == nil {
		poll := ctx
		var cancel context.CancelFunc = func() {}
		if g.UntilIdle {
			poll, cancel = context.WithTimeout(ctx, 250*time.Millisecond)
		}
		fs := g.sess.PollRecords(poll, orDefault(g.Batch, 256))
		cancel()
		if fs.IsClientClosed() {
			break
		}
		fs.EachError(func(topic string, p int32, err error) {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				g.log(slog.LevelWarn, "fetching failed; trying again", "topic", topic, "partition", p, "error", err)
			}
		})
		records := fs.Records()
		if len(records) == 0 {
			if g.UntilIdle && g.idle(ctx) {
				break
			}
			continue
		}
		done, err := g.transact(ctx, records)
		st.Add(done)
		if err != nil {
			return err
		}
		if done.Retries == 0 && g.Progress != nil {
			g.Progress(*st)
		}
	}
	return nil
}

// abortOpen aborts the transaction the gate's last session left open,
// by initializing a producer with its transactional id, as the session's
// own producer would only once it produces: until then its consumer
// would wait for the open transaction's offsets to be settled, which the
// broker does only when the transaction times out.
func abortOpen(ctx context.Context, cl *kgo.Client) error {
	txnID, _ := cl.OptValue(kgo.TransactionalID).(string)
	if txnID == "" {
		return fmt.Errorf("%w: its session has no transactional id", gate.ErrRefused)
	}
	for try := 1; ; try++ {
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
		if err == nil || !transient(err) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(min(time.Second, 50*time.Millisecond*time.Duration(try))):
		}
	}
}

// transient reports whether err, the error a gate stopped on, is one of
// the connection, which a new session may not meet: not a refusal, and
// not a producer fenced by another with its transactional id, which must
// stop it.
func transient(err error) bool {
	if errors.Is(err, gate.ErrRefused) || errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) ||
		errors.Is(err, kerr.TransactionalIDAuthorizationFailed) {
		return false
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || kerr.IsRetriable(err)
}

// start checks, until ctx is done, that the output and dead-letter topics
// exist and that the gate does not consume them.
func (g *Gate) start(ctx context.Context) error {
	if g.Output == "" || g.DeadLetters == "" || g.Output == g.DeadLetters {
		return fmt.Errorf("%w: the output (%q) and dead-letter (%q) topics must be named, and differ", gate.ErrRefused, g.Output, g.DeadLetters)
	}
	cl := g.sess.Client()
	for _, t := range cl.GetConsumeTopics() {
		switch t {
		case g.Output:
			return fmt.Errorf("%w: it consumes its output topic %q: it would judge its own copies", gate.ErrRefused, t)
		case g.DeadLetters:
			return fmt.Errorf("%w: it consumes its dead-letter topic %q: it would judge its own dead letters", gate.ErrRefused, t)
		}
	}
	adm := kadm.NewClient(cl)
	for try := 1; ; try++ {
		topics, err := adm.ListTopics(ctx, g.Output, g.DeadLetters)
		if err == nil {
			for _, t := range [][2]string{{"output", g.Output}, {"dead-letter", g.DeadLetters}} {
				if !topics.Has(t[1]) {
					return fmt.Errorf("%w: its %s topic %q does not exist", gate.ErrRefused, t[0], t[1])
				}
			}
			if try > 1 {
				g.log(slog.LevelInfo, "the broker is back")
			}
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
		wait := gate.Backoff(try)
		g.log(slog.LevelWarn, "cannot reach the broker yet; trying again", "in", wait.Round(time.Millisecond), "error", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// idle reports whether the gate's group has committed every partition of
// its input to its end: whether nothing is left for any gate of it.
func (g *Gate) idle(ctx context.Context) bool {
	cl := g.sess.Client()
	group, _ := cl.OptValue(kgo.ConsumerGroup).(string)
	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(ctx, cl.GetConsumeTopics()...)
	if err != nil || ends.Error() != nil {
		return false
	}
	committed, err := adm.FetchOffsets(ctx, group)
	if err != nil || committed.Error() != nil {
		return false
	}
	idle := true
	ends.Each(func(end kadm.ListedOffset) {
		c, ok := committed.Lookup(end.Topic, end.Partition)
		if end.Offset > 0 && (!ok || c.At < end.Offset) {
			idle = false
		}
	})
	return idle
}

// transact judges records and produces what becomes of each in one
// transaction with their offsets, and returns what it counted: the
// records' outcomes if it committed, else as many retries.
func (g *Gate) transact(ctx context.Context, records []*kgo.Record) (gate.Stats, error) {
	if err := g.sess.Begin(); err != nil {
		return gate.Stats{}, fmt.Errorf("kafka gate: beginning a transaction: %w", err)
	}
	// A gate told to stop ends the transaction under way, as it would
	// have: what it fetched is settled, not left for the broker to time
	// out; but within StopTimeout, as a broker gone could make it wait
	// for ever.
	ctx, cancel := afterStop(ctx, orDuration(g.StopTimeout, 10*time.Second))
	defer cancel()
	var (
		st      gate.Stats
		forward []forwarded
		mu      sync.Mutex
		failed  error
	)
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			mu.Lock()
			failed = cmpErr(failed, err)
			mu.Unlock()
		}
	}
	seen := map[uuid.UUID][sha256.Size]byte{} // ids forwarded in this batch
	js := g.judgeAll(records)
	for i := range js {
		j := &js[i]
		out, dead, fw := g.settle(j, seen)
		switch {
		case out != nil:
			g.sess.Produce(ctx, out, promise)
			forward = append(forward, fw)
			seen[fw.id] = fw.sum
			st.Forwarded++
		case dead != nil:
			g.sess.Produce(ctx, dead, promise)
			st.DeadLetters++
		default:
			st.Redeliveries++
			continue
		}
		st.Messages++
		st.Bytes += int64(len(j.r.Value))
	}
	// End flushes, then commits the produced records and the offsets
	// together, or aborts both.
	mu.Lock()
	commit := failed == nil
	mu.Unlock()
	committed, err := g.sess.End(ctx, kgo.TransactionEndTry(commit))
	mu.Lock()
	commit = committed && failed == nil
	why := cmpErr(failed, err)
	mu.Unlock()
	if err != nil {
		// The transactional producer is fenced or failed: no
		// transaction can follow (see kgo.GroupTransactSession.End). Its
		// records come again, to this gate started anew or another.
		return gate.Stats{Retries: len(records)}, fmt.Errorf("kafka gate: ending a transaction: %w", err)
	}
	if !commit {
		g.log(slog.LevelWarn, "transaction aborted; its records come again", "records", len(records), "error", why)
		return gate.Stats{Retries: len(records)}, nil
	}
	for _, f := range forward {
		g.window.add(f.id, f.sum)
	}
	return st, nil
}

// forwarded is a message forwarded in the transaction under way.
type forwarded struct {
	id  uuid.UUID
	sum [sha256.Size]byte
}

// judgeAll judges records, on as many goroutines as the process runs
// Go code on (GOMAXPROCS) for a batch large enough: judging a record
// (decoding it exactly, validating it, writing its copy's headers) is
// most of the gate's work, and needs nothing of the others. What depends
// on the order of the records, the duplicate window, is settle's.
func (g *Gate) judgeAll(records []*kgo.Record) []judgement {
	js := make([]judgement, len(records))
	workers := min(runtime.GOMAXPROCS(0), len(records)/minChunk)
	if workers <= 1 {
		g.judgeRange(records, js)
		return js
	}
	var wg sync.WaitGroup
	size := (len(records) + workers - 1) / workers
	for lo := 0; lo < len(records); lo += size {
		hi := min(lo+size, len(records))
		wg.Go(func() { g.judgeRange(records[lo:hi], js[lo:hi]) })
	}
	wg.Wait()
	return js
}

// minChunk is the fewest records judgeAll gives a goroutine of its own.
const minChunk = 32

// judgeRange judges records into js, one for one.
func (g *Gate) judgeRange(records []*kgo.Record, js []judgement) {
	scratch := make([]byte, 0, 512)
	for i, r := range records {
		scratch = g.judge(&js[i], r, scratch)
	}
}

// A judgement is what a record is, judged alone: a dead letter if it is
// invalid; else its copy (or, if the copy cannot be made, its dead
// letter), which settle forwards unless its id was forwarded before.
type judgement struct {
	r    *kgo.Record
	m    msg.Message
	id   msg.Identity
	dead *kgo.Record // the dead letter of an invalid record
	out  *kgo.Record // the copy of a valid one, or nil if it has none
	late *kgo.Record // the dead letter of a valid record without a copy
	fw   forwarded
	copy kgo.Record // out's memory, allocated with the batch's
}

// judge judges r alone into j; scratch is a buffer it may use, returned
// for the next record. It changes nothing of g's: records are judged at
// once.
func (g *Gate) judge(j *judgement, r *kgo.Record, scratch []byte) []byte {
	j.r = r
	m, id, err := decodeIdentity(g.kinds(), r, ce.Kafka.Borrowing())
	if err != nil {
		j.dead = g.deadLetter(r, gate.VerdictOf(m, err))
		return scratch
	}
	j.m, j.id = m, id
	_, body, _, _ := Unframe(r.Value)
	j.fw = forwarded{id: id.ID, sum: sha256.Sum256(body)}
	j.copy = kgo.Record{Topic: g.Output, Key: r.Key, Value: r.Value}
	out := &j.copy
	if len(out.Key) == 0 {
		out.Key = id.Key.Append(nil)
	}
	if out.Headers, scratch, err = withIdentity(r.Headers, id, scratch); err != nil {
		j.late = g.deadLetter(r, gate.VerdictOf(m, err))
		return scratch
	}
	if size := recordSize(out); size > g.maxRecord() {
		v := gate.VerdictOf(m, nil)
		v.Violations = []*msg.Violation{{Rule: msg.RuleTooLarge, Message: fmt.Sprintf("its copy is %d bytes with its headers, more than the %d the broker stores", size, g.maxRecord())}}
		j.late = g.deadLetter(r, v)
		return scratch
	}
	j.out = out
	return scratch
}

// settle returns what becomes of a judged record, in the order of the
// input: its copy for the output, or its dead letter, or neither for a
// redelivery of a message already forwarded (in this batch, seen, or in
// the window).
func (g *Gate) settle(j *judgement, seen map[uuid.UUID][sha256.Size]byte) (out, dead *kgo.Record, fw forwarded) {
	if j.dead != nil {
		return nil, j.dead, fw
	}
	fw = j.fw
	prev, ok := seen[fw.id]
	if !ok {
		prev, ok = g.window.get(fw.id)
	}
	if ok {
		if prev == fw.sum {
			return nil, nil, fw
		}
		v := gate.VerdictOf(j.m, nil)
		v.Valid = true
		v.Violations = []*msg.Violation{{
			Path:    j.id.Kind.IDMember,
			Rule:    msg.RuleDuplicateID,
			Message: "another message, with another body, was forwarded under its id",
			Value:   `"` + fw.id.String() + `"`,
		}}
		return nil, g.deadLetter(j.r, v), fw
	}
	if j.out == nil {
		return nil, j.late, fw
	}
	return j.out, nil, fw
}

// withIdentity returns the headers of a copy: those of hs that are not
// the ones ce.Kafka writes, then those, written for the message of
// identity id (which the input's agree with, or were absent), their
// values in one allocation. When hs holds each of those once already,
// with the value it would write, it returns hs itself: the copy shares
// the input's headers, as a copy of the record made without the library
// would. scratch is a buffer it may use, returned for the next call.
func withIdentity(hs []kgo.RecordHeader, id msg.Identity, scratch []byte) ([]kgo.RecordHeader, []byte, error) {
	same := true
	scratch, err := ce.Kafka.AppendHeaders(scratch[:0], id, func(key string, value []byte) {
		n := 0
		for _, h := range hs {
			if h.Key == key {
				n++
				same = same && bytes.Equal(h.Value, value)
			}
		}
		same = same && n == 1
	})
	if err != nil {
		return nil, scratch, err
	}
	if same {
		return hs, scratch, nil
	}
	out := make([]kgo.RecordHeader, 0, len(hs)+7)
	written := make([]kgo.RecordHeader, 0, 7)
	_, err = ce.Kafka.AppendHeaders(make([]byte, 0, len(scratch)), id, func(key string, value []byte) {
		written = append(written, kgo.RecordHeader{Key: key, Value: value})
	})
	if err != nil {
		return nil, scratch, err
	}
	for _, h := range hs {
		if !slices.ContainsFunc(written, func(w kgo.RecordHeader) bool { return w.Key == h.Key }) {
			out = append(out, h)
		}
	}
	return append(out, written...), scratch, nil
}

// deadLetter returns the dead letter of r with verdict v: r's key, its
// headers and the verdict's, and as much of its value as fits.
func (g *Gate) deadLetter(r *kgo.Record, v gate.Verdict) *kgo.Record {
	v.Place = gate.Place{Subject: r.Topic, Partition: r.Partition, Sequence: uint64(r.Offset)}
	v.Deliveries = 1
	dead := &kgo.Record{Topic: g.DeadLetters, Key: r.Key, Headers: slices.Clone(r.Headers)}
	room := g.maxRecord() - recordSize(dead) - len(VerdictHeader)
	if room < g.maxRecord()/2 {
		// Headers that leave the verdict no room are dropped: the
		// verdict and the body say more.
		dead.Headers, v.HeadersDropped = nil, true
		room = g.maxRecord() - recordSize(dead) - len(VerdictHeader)
	}
	verdict, body, err := gate.Fit(v, r.Value, room)
	if err != nil {
		// Not even a verdict without violations fits in half the
		// limit: say so in the fewest bytes.
		verdict, body = []byte(`{"truncated":true,"valid":false}`), nil
	}
	dead.Value = body
	dead.Headers = append(dead.Headers, kgo.RecordHeader{Key: VerdictHeader, Value: verdict})
	return dead
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

// maxRecord returns the size a record the gate produces must keep within.
func (g *Gate) maxRecord() int { return g.limit }

// recordLimit returns the size a record the gate produces must keep
// within: MaxRecordBytes, and no more than the client puts in a batch.
func (g *Gate) recordLimit() int {
	batch, _ := g.sess.Client().OptValue(kgo.ProducerBatchMaxBytes).(int32)
	limit := int(batch) - batchOverhead
	if g.MaxRecordBytes > 0 {
		limit = min(limit, g.MaxRecordBytes)
	}
	return limit
}

func (g *Gate) kinds() *msg.Kinds {
	if g.Kinds == nil {
		return catalogue.Kinds
	}
	return g.Kinds
}

func (g *Gate) log(level slog.Level, text string, args ...any) {
	if g.Log != nil {
		g.Log.Log(context.Background(), level, text, args...)
	}
}

// window remembers the last n message ids forwarded, each with the digest
// of its body.
type window struct {
	sums  map[uuid.UUID][sha256.Size]byte
	order []uuid.UUID // a ring of the ids, oldest at next
	next  int
}

func newWindow(n int) *window {
	return &window{sums: make(map[uuid.UUID][sha256.Size]byte, n), order: make([]uuid.UUID, 0, n)}
}

func (w *window) get(id uuid.UUID) ([sha256.Size]byte, bool) {
	s, ok := w.sums[id]
	return s, ok
}

func (w *window) add(id uuid.UUID, sum [sha256.Size]byte) {
	if _, ok := w.sums[id]; ok {
		return
	}
	if len(w.order) < cap(w.order) {
		w.order = append(w.order, id)
	} else {
		delete(w.sums, w.order[w.next])
		w.order[w.next] = id
		w.next = (w.next + 1) % len(w.order)
	}
	w.sums[id] = sum
}

// orDefault returns n, or def if n is not positive.
func orDefault(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// cmpErr returns a if it is not nil, else b.
func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
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

func orDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
