package kafka_test

// Records as producers and settings not tried elsewhere make them:
// tombstones and values that are no JSON object, beside the usual
// headers; transactions of the input's producer left open while a gate
// runs; kcat (librdkafka) producing idempotently, in large batches of
// each codec, with null and empty header values, repeated ce_ headers
// and keys null, empty or not the entity's.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/internal/sample"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
)

// A framed value (the registry wire format) whose message is no JSON
// object, or is cut short, is judged on its body alone, as an unframed
// one is (ce's TestDecodeComparesHeadersOnlyWithMembersRead): the
// framing's schema, beside the usual ce_ headers, is not held against
// members decoding never reached.
func TestDecodeJudgesAFramedValueThatIsNoObjectOnItsBodyAlone(t *testing.T) {
	for i := range 4 {
		r := validRecord(t, i)
		for _, body := range [][]byte{nil, []byte("null"), []byte("[]"), r.Value[:8], r.Value[:len(r.Value)/2]} {
			x := *r
			x.Value = append(framing(t, i), body...)
			_, err := kafka.Decode(catalogue.Kinds, &x)
			e, ok := errors.AsType[*msg.Error](err)
			require.True(t, ok, "%q: %v", x.Value, err)
			assert.NotEmpty(t, e.Violations)
			for _, v := range e.Violations {
				assert.NotEqual(t, msg.RuleHeader, v.Rule, "%q: %s", x.Value, v)
			}
		}
	}
}

// framing returns the registry framing of the sample's valid message of
// index i.
func framing(t *testing.T, i int) []byte {
	ms, _ := samples(t)
	return kafka.AppendFrame(nil, ms[i].Identity().Kind.RegistryID)
}

// kcat (librdkafka) produces the sample's lines to a gate's input
// idempotently (enable.idempotence, a producer id and sequence numbers on
// every batch), in large batches (linger.ms=100, batch.num.messages=10000)
// compressed with each codec, with a header of null value (kcat's -H name,
// without =) and one of empty value; each line keyed as a producer keys
// it, with an empty key, a key of the producer's own, or none (null);
// and, among them, tombstones (-Z: a key and an empty value, sent as
// null; -Z also sends an empty key as null). A
// read_committed reader then finds every valid line once in the output,
// byte for byte, keyed by the producer's key when it gave one and by the
// entity's id (decision 15) when its key was null or empty, with its
// null header still null and its empty header still empty; and every
// other line once among the dead letters, a tombstone with the verdict
// of its value alone.
func TestKcatIdempotentBatchesThroughTheGate(t *testing.T) {
	t.Parallel() // a few seconds of waiting for the gate to find its input idle
	kcat := needKcat(t)
	_, addrs := newCluster(t, 3)
	all, _ := sample.Lines(t, "../testdata/messages.ndjson")
	type sent struct {
		key   string // "" for null or empty, as the gate treats them
		valid bool
		found int
	}
	byValue := map[string]*sent{}
	tombstones := 0
	produce := func(codec string, keyed bool, in []byte) {
		args := []string{"-P", "-b", addrs[0], "-t", inTopic, "-z", codec,
			"-X", "enable.idempotence=true", "-X", "linger.ms=100", "-X", "batch.num.messages=10000",
			"-H", "trace", "-H", "empty="}
		if args = append(args, "-K", "\t"); !keyed {
			args = append(args, "-Z")
		}
		cmd := exec.Command(kcat, args...)
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	for i, codec := range []string{"gzip", "snappy", "lz4", "zstd"} {
		var keyed, unkeyed bytes.Buffer
		for j, line := range all {
			for n, buf := range []*bytes.Buffer{&keyed, &unkeyed} {
				line := withSuffix(line, 10*i+n)
				_, err := catalogue.Decode(line)
				s := &sent{valid: err == nil}
				if buf == &keyed {
					if j%2 == 1 {
						s.key = fmt.Sprintf("producer-key-%d", j)
					}
				}
				buf.WriteString(s.key + "\t")
				require.Nil(t, byValue[string(line)], "%s", line)
				byValue[string(line)] = s
				buf.Write(line)
				buf.WriteByte('\n')
			}
		}
		fmt.Fprintf(&unkeyed, "tombstone-%d\t\ntombstone-%d\t\n", i, i+10)
		tombstones += 2
		produce(codec, true, keyed.Bytes())
		produce(codec, false, unkeyed.Bytes())
	}
	valid := 0
	for _, s := range byValue {
		if s.valid {
			valid++
		}
	}
	st := runUntilIdle(t, addrs, &kafka.Gate{})
	assert.Equal(t, gate.Stats{Messages: len(byValue) + tombstones, Forwarded: valid, DeadLetters: len(byValue) - valid + tombstones, Bytes: st.Bytes}, st)

	for _, r := range readAll(t, addrs, len(byValue)+tombstones, outTopic, deadTopic) {
		headers := map[string][]byte{}
		for _, h := range r.Headers {
			headers[h.Key] = h.Value
		}
		if assert.Contains(t, headers, "trace") && assert.Contains(t, headers, "empty") {
			assert.Nil(t, headers["trace"], "the null header, still null")
			assert.Equal(t, []byte{}, headers["empty"], "the empty header, still empty")
		}
		if len(r.Value) == 0 {
			require.Equal(t, deadTopic, r.Topic, "a tombstone")
			tombstones--
			v, err := gate.ParseVerdict(headers[kafka.VerdictHeader])
			require.NoError(t, err)
			require.Len(t, v.Violations, 1, "%+v", v)
			assert.Equal(t, msg.RuleSyntax, v.Violations[0].Rule)
			continue
		}
		s := byValue[string(r.Value)]
		require.NotNil(t, s, "a record of no input in %s: %s", r.Topic, r.Value)
		s.found++
		if !s.valid {
			assert.Equal(t, deadTopic, r.Topic, "%s", r.Value)
			continue
		}
		require.Equal(t, outTopic, r.Topic, "%s", r.Value)
		want := s.key
		if want == "" {
			m, err := catalogue.Decode(r.Value)
			require.NoError(t, err)
			want = m.Identity().Key.String()
		}
		assert.Equal(t, want, string(r.Key), "%s", r.Value)
	}
	assert.Zero(t, tombstones, "tombstones not dead-lettered once")
	for line, s := range byValue {
		assert.Equal(t, 1, s.found, "%s", line)
	}
}

// hangingInput produces, to a one-partition input, the inputs 0 to 9
// (as produceInput makes them), then 10 to 14 in a transaction it leaves
// open, of timeout timeout, then 15 to 24 outside it: a read_committed
// reader reads only up to the open transaction, its last stable offset
// 10, until it ends. It returns the transactional producer, and which
// inputs are valid.
func hangingInput(t *testing.T, addrs []string, timeout time.Duration) (*kgo.Client, []bool) {
	_, lines := samples(t)
	ctx := context.Background()
	plain := readerClient(t, addrs)
	tx := readerClient(t, addrs, kgo.TransactionalID("hanging-"+t.Name()), kgo.TransactionTimeout(timeout))
	valid := make([]bool, 25)
	for i := range valid {
		r, ok := input(t, lines, i)
		valid[i] = ok
		cl := plain
		if i == 10 {
			require.NoError(t, tx.BeginTransaction())
		}
		if i >= 10 && i < 15 {
			cl = tx
		}
		require.NoError(t, cl.ProduceSync(ctx, r).FirstErr())
	}
	return tx, valid
}

// checkOnceBut checks that a read_committed reader of the output and the
// dead letters finds every input of valid exactly once where it belongs,
// but those of the indices in none, which it does not find.
func checkOnceBut(t *testing.T, addrs []string, valid []bool, none ...int) {
	stored := 0
	for i := range valid {
		if !slices.Contains(none, i) {
			stored++
		}
	}
	got := readAll(t, addrs, stored, outTopic, deadTopic)
	seen := keys(got)
	for i := range valid {
		want := 1
		if slices.Contains(none, i) {
			want = 0
		}
		assert.Equal(t, want, seen[strconv.Itoa(i)], "input %d", i)
	}
	for _, r := range got {
		i, err := strconv.Atoi(key(r))
		require.NoError(t, err)
		want := outTopic
		if !valid[i] {
			want = deadTopic
		}
		assert.Equal(t, want, r.Topic, "input %d", i)
	}
}

// A producer's transaction left open on the gate's input holds the gate
// at its first record, the partition's last stable offset: the records
// after it are not given to a read_committed consumer, and the gate
// neither stores them nor commits its group's offset past them. Once the
// producer aborts it, the gate goes on: the records of the transaction
// are neither copied nor dead-lettered, and those after it are.
func TestGateWaitsAtATransactionLeftOpenOnItsInput(t *testing.T) {
	t.Parallel() // a few seconds of waiting for the gate to find its input idle
	_, addrs := newCluster(t, 1)
	tx, valid := hangingInput(t, addrs, time.Minute)
	g := startGate(t, addrs)
	g.until(10)
	adm := kadm.NewClient(readerClient(t, addrs))
	committed := func() int64 {
		offsets, err := adm.FetchOffsets(context.Background(), "g")
		require.NoError(t, err)
		o, _ := offsets.Lookup(inTopic, 0)
		return o.At
	}
	assert.Equal(t, int64(10), committed(), "the group's offset, at the open transaction")
	time.Sleep(time.Second) // what the gate would do past it, it does now
	assert.Equal(t, int64(10), committed(), "the group's offset, at the open transaction")
	select {
	case st := <-g.progress:
		t.Fatalf("the gate went past the open transaction: %+v", st)
	default:
	}

	require.NoError(t, tx.EndTransaction(context.Background(), kgo.TryAbort))
	st := g.until(20)
	require.NoError(t, g.stop())
	assert.Equal(t, 20, st.Messages, "%+v", st)
	checkOnceBut(t, addrs, valid, 10, 11, 12, 13, 14)
}

// A gate with UntilIdle does not find its input idle while a producer's
// transaction is open on it, with records after it that it cannot read
// yet: it waits until the broker aborts the transaction, timed out, and
// then stores those records and returns.
func TestGateUntilIdleWaitsForATransactionOpenOnItsInputToTimeOut(t *testing.T) {
	t.Parallel() // a few seconds of waiting for the gate to find its input idle
	_, addrs := newCluster(t, 1)
	_, valid := hangingInput(t, addrs, 2*time.Second)
	st := runUntilIdle(t, addrs, &kafka.Gate{})
	assert.Equal(t, 20, st.Messages, "%+v", st)
	checkOnceBut(t, addrs, valid, 10, 11, 12, 13, 14)
	assert.True(t, committedAll(t, kadm.NewClient(readerClient(t, addrs)), "g"), "the group's offsets past the abort marker")
}

// A header that spells one the gate writes in another case, with a null
// or empty value (librdkafka's -H CE_ID without =, or a franz-go
// RecordHeader with a nil Value), is a violation that shows that value
// as the Value of the violation, quoted as ce quotes its headers' (found
// from outside: the verdict said "header CE_ID ... and says , not
// <id>", the value missing from between the words).
func TestDecodeQuotesTheEmptyValueOfAShadowingHeader(t *testing.T) {
	r := validRecord(t, 0)
	for _, value := range [][]byte{nil, {}, []byte("other\nline")} {
		_, err := kafka.Decode(catalogue.Kinds, withHeader(r, "CE_ID", value))
		e, ok := errors.AsType[*msg.Error](err)
		require.True(t, ok, "%v", err)
		require.Len(t, e.Violations, 1)
		v := e.Violations[0]
		assert.Equal(t, msg.RuleHeader, v.Rule)
		want, err := json.Marshal(string(value))
		require.NoError(t, err)
		assert.Equal(t, string(want), v.Value, "%s", v.Message)
		assert.NotContains(t, v.Message, "says ,")
		assert.NotContains(t, v.Message, "\n")
	}
}

// A record whose schema cannot be chosen (no ce_ header naming it, no
// message_type) still has its headers checked where they need no
// schema: its verdict says that its content-type is not
// application/json, or that a header is given twice, beside the missing
// message_type (found from outside: a CloudEvents SDK producing in
// structured mode, content-type application/cloudevents+json and the
// message in the envelope's data, was told only that its value had no
// message_type). So is it judged by the gate (ce's Judging binding).
func TestDecodeChecksTheHeadersOfAValueThatNamesNoSchema(t *testing.T) {
	r := validRecord(t, 0)
	structured := &kgo.Record{Topic: inTopic,
		Value:   append(append([]byte(`{"specversion":"1.0","id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","type":"core.device","source":"/x","datacontenttype":"application/json","data":`), r.Value...), '}'),
		Headers: []kgo.RecordHeader{{Key: "content-type", Value: []byte("application/cloudevents+json; charset=UTF-8")}}}
	twice := &kgo.Record{Topic: inTopic, Value: []byte(`{"id":"x"}`),
		Headers: []kgo.RecordHeader{{Key: "ce_specversion", Value: []byte("1.0")}, {Key: "ce_specversion", Value: []byte("1.0")}}}
	for _, tc := range []struct {
		r    *kgo.Record
		want string
	}{
		{structured, "content-type is not application/json"},
		{twice, "ce_specversion is given 2 times"},
	} {
		for name, decode := range map[string]func() error{
			"Decode": func() error { _, err := kafka.Decode(catalogue.Kinds, tc.r); return err },
			"Judging": func() error {
				_, _, err := ce.Kafka.Judging().DecodeIdentity(catalogue.Kinds, kafka.Header{Record: tc.r}, tc.r.Value)
				return err
			},
		} {
			err := decode()
			require.ErrorIs(t, err, catalogue.ErrNoType, "%s: %v", name, err)
			assert.ErrorContains(t, err, tc.want, name)
			assert.Contains(t, rulesOf(err), msg.RuleHeader, "%s: %v", name, err)
		}
	}
}
