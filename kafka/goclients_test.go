package kafka_test

// Interoperability with the two other Kafka clients Go users run, IBM's
// sarama and segmentio's kafka-go: what they produce, with the ce_
// headers kafka.Record writes and each codec they have, the gate judges
// and stores exactly once; what the gate and kafka.Producer write, they
// read back intact.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	kafkago "github.com/segmentio/kafka-go"
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

// A goInput is a record a Go client produces to the gate's input, and
// what became of it.
type goInput struct {
	r     *kgo.Record // its key, value and headers, as the client is given them
	valid bool
	// times is how many times a read_committed reader of the output
	// and the dead letters is to find it: once, unless its producer
	// aborted the transaction it was produced in (never), or stored it
	// twice and it is invalid (twice: the gate's duplicate window holds
	// the messages it forwarded).
	times int
	// want are the headers of its copy, if valid: those kafka.Record
	// writes for its message.
	want []kgo.RecordHeader
	// placed says that its producer told where it was stored: its
	// partition and offset, which its dead letter's verdict must name.
	placed    bool
	partition int32
	offset    int64
	// found counts the times a reader found it.
	found int
}

// goInputs returns n inputs, the sample's lines each made a message of
// its own (withNewID), indexed by their values: a valid one is the record
// kafka.Record makes of it, keyed by its entity's id, with its ce_
// headers and content-type, every other one framed in the registry wire
// format, as a producer with a Confluent-style serializer sends it; one
// in five is invalid, its message cut short under the headers and key of
// the whole. With headers false, no input has a header or a key, as a
// producer that knows nothing of decision 15 sends them: an event, which
// has no message_type, then names its schema only by its framing.
func goInputs(t *testing.T, into map[string]*goInput, n int, headers bool) []*goInput {
	t.Helper()
	_, lines := samples(t)
	var out []*goInput
	for i := range n {
		line := withNewID(t, lines[i%len(lines)])
		m, err := catalogue.DecodeOr(line, "example.event")
		require.NoError(t, err)
		framed := i%2 == 1
		rec, err := kafka.Record(inTopic, m, framed)
		require.NoError(t, err)
		_, err = catalogue.Decode(line)
		in := &goInput{valid: i%5 != 4 && (headers || framed || err == nil), times: 1, r: &kgo.Record{Topic: inTopic, Value: bytes.Clone(rec.Value)}}
		for _, h := range rec.Headers {
			in.want = append(in.want, kgo.RecordHeader{Key: h.Key, Value: bytes.Clone(h.Value)})
		}
		if headers {
			in.r.Key = bytes.Clone(rec.Key)
			in.r.Headers = in.want
		}
		if i%5 == 4 {
			in.r.Value = in.r.Value[:len(in.r.Value)-2] // the id kept: the value is still its own
		}
		require.Nil(t, into[string(in.r.Value)], "%s", in.r.Value)
		into[string(in.r.Value)] = in
		out = append(out, in)
	}
	return out
}

// A stored record is a record of the output or the dead letters as a
// client read it.
type stored struct {
	topic      string
	key, value []byte
	headers    []kgo.RecordHeader
	// control says that it is a transaction marker, as franz-go tells
	// (franzReadAll); another client does not.
	control bool
}

// sentinelHeader marks the record sentinels writes.
const sentinelHeader = "test-sentinel"

// sentinels produces, once the gate is done, a record marked
// sentinelHeader to every partition of the output and the dead letters,
// outside any transaction: a reader that has read every partition up to
// its sentinel has read all the gate stored, without waiting for polls
// to come back empty. Its client has opts too.
func sentinels(t *testing.T, addrs []string, partitions int32, opts ...kgo.Opt) {
	cl := readerClient(t, addrs, append([]kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	for _, topic := range []string{outTopic, deadTopic} {
		for p := range partitions {
			r := &kgo.Record{Topic: topic, Partition: p, Value: []byte("sentinel"), Headers: []kgo.RecordHeader{{Key: sentinelHeader}}}
			require.NoError(t, cl.ProduceSync(context.Background(), r).FirstErr())
		}
	}
}

// isSentinel reports whether headers are a sentinel's.
func isSentinel(headers []kgo.RecordHeader) bool {
	return len(headers) == 1 && headers[0].Key == sentinelHeader
}

// checkStored checks what a client read of the output and the dead
// letters against the inputs by value: every input not aborted found
// once, a valid one in the output, keyed by its entity's id, with the
// headers kafka.Record writes for it, byte for byte; an invalid one among
// the dead letters, with its key and headers, and the verdict that
// kafka.Decode gives it, placed in the input.
func checkStored(t *testing.T, inputs map[string]*goInput, got []stored) {
	t.Helper()
	for _, s := range got {
		in := inputs[string(s.value)]
		require.NotNil(t, in, "a record of no input in %s: %s", s.topic, s.value)
		in.found++
		if in.valid {
			require.Equal(t, outTopic, s.topic, "%s", s.value)
			assert.Equal(t, in.want, s.headers, "%s", s.value)
			_, body, _, err := kafka.Unframe(s.value)
			require.NoError(t, err)
			m, err := catalogue.DecodeOr(body, "example.event")
			require.NoError(t, err)
			assert.Equal(t, m.Identity().Key.String(), string(s.key), "%s", s.value)
			continue
		}
		require.Equal(t, deadTopic, s.topic, "%s", s.value)
		assert.Equal(t, in.r.Key, s.key, "%s", s.value)
		require.NotEmpty(t, s.headers)
		verdict := s.headers[len(s.headers)-1]
		require.Equal(t, kafka.VerdictHeader, verdict.Key)
		if own := s.headers[:len(s.headers)-1]; len(own) > 0 || len(in.r.Headers) > 0 {
			assert.Equal(t, in.r.Headers, own, "the dead letter's own headers: %s", s.value)
		}
		v, err := gate.ParseVerdict(verdict.Value)
		require.NoError(t, err)
		assert.False(t, v.Valid)
		assert.Equal(t, inTopic, v.Subject)
		if in.placed {
			assert.Equal(t, gate.Place{Subject: inTopic, Partition: in.partition, Sequence: uint64(in.offset)}, v.Place, "%s", s.value)
		}
		_, decodeErr := kafka.Decode(catalogue.Kinds, in.r)
		want := msg.VerdictOf(nil, decodeErr)
		require.NotEmpty(t, want.Violations, "%s", s.value)
		for _, v := range want.Violations {
			v.Err = nil // not carried by the verdict's JSON
		}
		assert.Equal(t, want.Violations, v.Violations, "%s", s.value)
	}
	for value, in := range inputs {
		assert.Equal(t, in.times, in.found, "%s", value)
	}
}

// count returns how many inputs are valid and how many invalid, of those
// the gate is to store (see goInput.times).
func count(inputs map[string]*goInput) (valid, invalid int) {
	for _, in := range inputs {
		switch {
		case in.times == 0:
		case in.valid:
			valid++
		default:
			invalid++
		}
	}
	return valid, invalid
}

// saramaMessage returns r as a sarama message, its headers copied.
func saramaMessage(r *kgo.Record) *sarama.ProducerMessage {
	m := &sarama.ProducerMessage{Topic: r.Topic, Value: sarama.ByteEncoder(r.Value)}
	if r.Key != nil {
		m.Key = sarama.ByteEncoder(r.Key)
	}
	for _, h := range r.Headers {
		m.Headers = append(m.Headers, sarama.RecordHeader{Key: []byte(h.Key), Value: h.Value})
	}
	return m
}

// saramaInput returns in as a sarama message, that notes where in was
// stored once its producer says.
func saramaInput(in *goInput) *sarama.ProducerMessage {
	m := saramaMessage(in.r)
	m.Metadata = in
	return m
}

// placed notes where m, made by saramaInput, was stored.
func placed(m *sarama.ProducerMessage) {
	in := m.Metadata.(*goInput)
	in.placed, in.partition, in.offset = true, m.Partition, m.Offset
}

// saramaProducerConfig returns the config of an idempotent sarama
// producer (acks from every replica, one request in flight, as sarama
// requires) of Kafka version version, compressing with codec.
func saramaProducerConfig(version sarama.KafkaVersion, codec sarama.CompressionCodec) *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.ClientID = "sarama-test"
	cfg.Version = version
	cfg.Producer.Compression = codec
	cfg.Producer.Idempotent = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Net.MaxOpenRequests = 1
	cfg.Producer.Return.Successes = true
	cfg.Producer.Flush.Frequency = 20 * time.Millisecond // batches of many records
	cfg.Producer.Retry.Backoff = 20 * time.Millisecond
	cfg.Metadata.Retry.Backoff = 20 * time.Millisecond
	return cfg
}

// saramaCodecs are the compression codecs sarama has.
var saramaCodecs = []sarama.CompressionCodec{sarama.CompressionGZIP, sarama.CompressionSnappy, sarama.CompressionLZ4, sarama.CompressionZSTD}

// saramaSync produces inputs with a sarama SyncProducer of config cfg,
// all in one call (sarama batches them).
func saramaSync(t *testing.T, addrs []string, cfg *sarama.Config, inputs []*goInput) {
	t.Helper()
	p, err := sarama.NewSyncProducer(addrs, cfg)
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	var ms []*sarama.ProducerMessage
	for _, in := range inputs {
		ms = append(ms, saramaInput(in))
	}
	require.NoError(t, p.SendMessages(ms))
	for _, m := range ms {
		placed(m)
	}
}

// saramaAsync produces inputs with a sarama AsyncProducer of config cfg,
// and waits for each to be acknowledged.
func saramaAsync(t *testing.T, addrs []string, cfg *sarama.Config, inputs []*goInput) {
	t.Helper()
	cfg.Producer.Return.Errors = true
	p, err := sarama.NewAsyncProducer(addrs, cfg)
	require.NoError(t, err)
	go func() {
		for _, in := range inputs {
			p.Input() <- saramaInput(in)
		}
	}()
	for range inputs {
		select {
		case m := <-p.Successes():
			placed(m)
		case perr := <-p.Errors():
			t.Errorf("sarama's async producer: %v", perr)
		}
	}
	require.NoError(t, p.Close())
}

// saramaReadAll reads the output and the dead letters with a sarama
// consumer of config cfg, each partition from its start to its sentinel
// (see sentinels), and returns what it read, the sentinels left out.
func saramaReadAll(t *testing.T, addrs []string, cfg *sarama.Config) []stored {
	t.Helper()
	cfg.Consumer.Return.Errors = true
	c, err := sarama.NewConsumer(addrs, cfg)
	require.NoError(t, err)
	defer func() { require.NoError(t, c.Close()) }()
	var out []stored
	timeout := time.After(time.Minute)
	for _, topic := range []string{outTopic, deadTopic} {
		partitions, err := c.Partitions(topic)
		require.NoError(t, err)
		for _, p := range partitions {
			pc, err := c.ConsumePartition(topic, p, sarama.OffsetOldest)
			require.NoError(t, err)
			for done := false; !done; {
				select {
				case m := <-pc.Messages():
					s := stored{topic: m.Topic, key: m.Key, value: m.Value}
					for _, h := range m.Headers {
						s.headers = append(s.headers, kgo.RecordHeader{Key: string(h.Key), Value: h.Value})
					}
					if done = isSentinel(s.headers); !done {
						out = append(out, s)
					}
				case err := <-pc.Errors():
					t.Fatalf("sarama's consumer: %v", err)
				case <-timeout:
					t.Fatalf("sarama's consumer: %s/%d not read to its sentinel within a minute", topic, p)
				}
			}
			require.NoError(t, pc.Close())
		}
	}
	return out
}

// saramaReadCommitted is the config of a sarama consumer that reads
// read_committed.
func saramaReadCommitted() *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.ClientID = "sarama-test"
	cfg.Consumer.IsolationLevel = sarama.ReadCommitted
	cfg.Consumer.MaxWaitTime = 100 * time.Millisecond
	return cfg
}

// sarama produces to a gate's input with a SyncProducer and an
// AsyncProducer, idempotent, with each codec it has, records with the
// ce_ headers kafka.Record writes, plain or framed (goInputs); from a
// transactional producer, a transaction it commits and one it aborts;
// and, as Kafka 0.11 (the oldest version whose records kfake stores),
// records with no header nor key, judged by their bodies alone (an
// event unframed is a dead letter: nothing names its schema). A sarama
// consumer reading read_committed then finds every input not aborted
// exactly once where it belongs: a valid one in the output, byte for
// byte, keyed by its entity's id, with the ce_ headers (written by the
// gate for those that had none); an invalid one among the dead letters,
// with its key and headers and the verdict kafka.Decode gives it, placed
// where sarama said it stored it. The gate counts what it stored, and no
// record of the aborted transaction.
func TestSaramaProducersThroughTheGate(t *testing.T) {
	_, addrs := newCluster(t, 3)
	inputs := map[string]*goInput{}
	for _, codec := range saramaCodecs {
		saramaSync(t, addrs, saramaProducerConfig(sarama.DefaultVersion, codec), goInputs(t, inputs, 20, true))
		saramaAsync(t, addrs, saramaProducerConfig(sarama.DefaultVersion, codec), goInputs(t, inputs, 20, true))
	}

	cfg := saramaProducerConfig(sarama.DefaultVersion, sarama.CompressionLZ4)
	cfg.Producer.Transaction.ID = "sarama-" + t.Name()
	p, err := sarama.NewSyncProducer(addrs, cfg)
	require.NoError(t, err)
	for _, commit := range []bool{true, false} {
		require.NoError(t, p.BeginTxn())
		var ms []*sarama.ProducerMessage
		for _, in := range goInputs(t, inputs, 20, true) {
			if !commit {
				in.times = 0
			}
			ms = append(ms, saramaInput(in))
		}
		require.NoError(t, p.SendMessages(ms))
		for _, m := range ms {
			placed(m)
		}
		if commit {
			require.NoError(t, p.CommitTxn())
		} else {
			require.NoError(t, p.AbortTxn())
		}
	}
	require.NoError(t, p.Close())

	saramaSync(t, addrs, saramaProducerConfig(sarama.V0_11_0_0, sarama.CompressionGZIP), goInputs(t, inputs, 20, false))

	st := runUntilIdle(t, addrs, &kafka.Gate{Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))})
	valid, invalid := count(inputs)
	assert.Equal(t, gate.Stats{Messages: valid + invalid, Forwarded: valid, DeadLetters: invalid, Bytes: st.Bytes}, st)
	sentinels(t, addrs, 3)
	checkStored(t, inputs, saramaReadAll(t, addrs, saramaReadCommitted()))
	// As Kafka 0.11, the oldest version that reads headers and reads
	// read_committed.
	cfg = saramaReadCommitted()
	cfg.Version = sarama.V0_11_0_0
	checkStored(t, reset(inputs), saramaReadAll(t, addrs, cfg))
}

// sarama as a client of Kafka before 0.11, whose records are message
// sets of the legacy formats (v0, v1) with no headers: it refuses itself
// to produce a record with headers, and kfake, as Kafka 4.0 does
// (KIP-896), refuses the produce requests of those versions (below v3)
// and the fetches (below v4), closing the connection: the producer is
// told, with io.EOF, and nothing reaches the input, so that the gate has
// nothing to judge; nothing is dropped in silence. A consumer of those
// versions cannot read read_committed: sarama refuses the config, and
// read_uncommitted is told io.EOF too.
func TestSaramaBeforeKafka011IsRefused(t *testing.T) {
	_, addrs := newCluster(t, 1)
	inputs := goInputs(t, map[string]*goInput{}, 2, true)
	for _, version := range []sarama.KafkaVersion{sarama.V0_10_0_0, sarama.V0_10_2_0} {
		cfg := sarama.NewConfig()
		cfg.Version = version
		cfg.Producer.Return.Successes = true
		cfg.Producer.Retry.Max = 1
		cfg.Producer.Retry.Backoff = 10 * time.Millisecond
		p, err := sarama.NewSyncProducer(addrs, cfg)
		require.NoError(t, err, version)
		_, _, err = p.SendMessage(saramaMessage(inputs[0].r))
		assert.ErrorContains(t, err, "Producing headers requires Kafka at least v0.11", version)
		headerless := saramaMessage(&kgo.Record{Topic: inTopic, Value: inputs[0].r.Value})
		_, _, err = p.SendMessage(headerless)
		assert.ErrorIs(t, err, io.EOF, version)
		require.NoError(t, p.Close())

		cfg = saramaReadCommitted()
		cfg.Version = version
		_, err = sarama.NewConsumer(addrs, cfg)
		assert.ErrorContains(t, err, "ReadCommitted requires Version >= V0_11_0_0", version)
		cfg.Consumer.IsolationLevel = sarama.ReadUncommitted
		cfg.Consumer.Return.Errors = true
		c, err := sarama.NewConsumer(addrs, cfg)
		require.NoError(t, err, version)
		pc, err := c.ConsumePartition(inTopic, 0, sarama.OffsetOldest)
		require.NoError(t, err, version)
		select {
		case m := <-pc.Messages():
			t.Errorf("%v: read %s from an input nothing was stored in", version, m.Value)
		case err := <-pc.Errors():
			assert.ErrorIs(t, err, io.EOF, version)
		}
		var errs sarama.ConsumerErrors
		if err := pc.Close(); !errors.As(err, &errs) { // what it was told since, io.EOF again
			require.NoError(t, err, version)
		}
		require.NoError(t, c.Close())
	}
	st := runUntilIdle(t, addrs, &kafka.Gate{})
	assert.Equal(t, gate.Stats{}, st)
	assert.Empty(t, readAll(t, addrs, 0, inTopic, outTopic, deadTopic))
}

// A sarama consumer reads what kafka.Producer writes, framed and plain:
// each value, split by kafka.Unframe, is the message byte for byte
// (framed by its schema's registry id, or not framed), its key the
// entity's id and its headers those kafka.Record writes; and the record,
// its headers as sarama gives them, decodes with kafka.Decode.
func TestSaramaReadsWhatTheProducerWrites(t *testing.T) {
	_, addrs := newCluster(t, 3)
	ms, _ := samples(t)
	cl := readerClient(t, addrs)
	byValue := produceBoth(t, cl, ms)
	sentinels(t, addrs, 3)
	got := saramaReadAll(t, addrs, saramaReadCommitted())
	checkProduced(t, byValue, got)
}

// kafkaGoCodecs are the compression codecs kafka-go has.
var kafkaGoCodecs = []kafkago.Compression{kafkago.Gzip, kafkago.Snappy, kafkago.Lz4, kafkago.Zstd}

// kafkaGoTransport returns a transport of kafka-go's of its own for a
// Writer, its connections closed at the test's end: a Writer without
// one shares kafka-go's DefaultTransport, which keeps connections to the
// test's brokers, and refreshes their metadata, for as long as the
// process runs.
func kafkaGoTransport(t *testing.T) *kafkago.Transport {
	tr := &kafkago.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// kafkaGoReadAll reads the output and the dead letters, of partitions
// partitions each, with a kafka-go Reader of each partition at isolation
// level isolation, from its start to its sentinel (see sentinels), and
// returns what it read, the sentinels left out.
func kafkaGoReadAll(t *testing.T, addrs []string, partitions int, isolation kafkago.IsolationLevel) []stored {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []stored
	for _, topic := range []string{outTopic, deadTopic} {
		for p := range partitions {
			r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: addrs, Topic: topic, Partition: p,
				IsolationLevel: isolation, MaxWait: 100 * time.Millisecond})
			for {
				m, err := r.ReadMessage(ctx)
				require.NoError(t, err, "kafka-go's reader of %s/%d", topic, p)
				s := stored{topic: m.Topic, key: m.Key, value: m.Value}
				for _, h := range m.Headers {
					s.headers = append(s.headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
				}
				if isSentinel(s.headers) {
					break
				}
				out = append(out, s)
			}
			require.NoError(t, r.Close())
		}
	}
	return out
}

// kafka-go's Writer produces to a gate's input, with each codec it has,
// records with the ce_ headers kafka.Record writes, and, with none,
// records with no header nor key. It has no idempotence nor
// transactions (no producer id, no sequence numbers): what it retries
// may be stored twice. A kafka-go Reader of each partition, read
// committed, then finds every input exactly once where it belongs, as
// sarama's does (TestSaramaProducersThroughTheGate), the gate having
// aborted no transaction (see
// TestKafkaGoReadCommittedReadsAbortedTransactions); but it gives the
// transaction markers too, as messages (segmentio/kafka-go#1446): a
// commit's keyed 00 00 00 01, an abort's 00 00 00 00, with a value of 6
// bytes, one for every transaction of the gate on every partition it
// wrote to, which kafka.Decode finds invalid (a framing of registry id
// 0).
func TestKafkaGoThroughTheGate(t *testing.T) {
	_, addrs := newCluster(t, 3)
	inputs := map[string]*goInput{}
	ctx := context.Background()
	for i, codec := range append([]kafkago.Compression{0}, kafkaGoCodecs...) {
		w := &kafkago.Writer{Addr: kafkago.TCP(addrs...), Transport: kafkaGoTransport(t), Topic: inTopic, Compression: codec,
			RequiredAcks: kafkago.RequireAll, BatchTimeout: 20 * time.Millisecond, Balancer: &kafkago.Hash{}}
		var ms []kafkago.Message
		for _, in := range goInputs(t, inputs, 20, i > 0) {
			m := kafkago.Message{Key: in.r.Key, Value: in.r.Value}
			for _, h := range in.r.Headers {
				m.Headers = append(m.Headers, kafkago.Header{Key: h.Key, Value: h.Value})
			}
			ms = append(ms, m)
		}
		require.NoError(t, w.WriteMessages(ctx, ms...), "codec %v", codec)
		require.NoError(t, w.Close())
	}
	st := runUntilIdle(t, addrs, &kafka.Gate{})
	valid, invalid := count(inputs)
	assert.Equal(t, gate.Stats{Messages: valid + invalid, Forwarded: valid, DeadLetters: invalid, Bytes: st.Bytes}, st)
	sentinels(t, addrs, 3)
	all := franzReadAll(t, addrs, kgo.ReadUncommitted(), true)
	got := kafkaGoReadAll(t, addrs, 3, kafkago.ReadCommitted)
	assert.Equal(t, unmarked(all), got, "kafka-go's reader, read_committed, against franz-go's, read_uncommitted, markers kept")
	records, markers := withoutMarkers(t, got, all)
	assert.Positive(t, markers, "transaction markers read as messages")
	checkStored(t, inputs, records)
}

// kafka-go's Writer has no idempotence: a produce whose answer it does
// not get in time (WriteTimeout) it sends again, and the broker stores
// both, WriteMessages returning no error. The gate's duplicate window
// takes each valid message stored twice for a redelivery, forwarded once
// and counted in Redeliveries; an invalid one, whose id it never
// forwarded, is dead-lettered twice.
func TestKafkaGoRetriesStoreTwiceTheGateForwardsOnce(t *testing.T) {
	c, addrs := newCluster(t, 1)
	// The broker answers kafka-go's first produce only once it has
	// stored the one kafka-go sends again, after its WriteTimeout.
	var produces atomic.Int32
	again := make(chan struct{})
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		switch produces.Add(1) {
		case 1:
			c.SleepControl(func() { <-again })
		case 2:
			close(again)
		}
		return nil, nil, false
	})
	inputs := map[string]*goInput{}
	var ms []kafkago.Message
	for _, in := range goInputs(t, inputs, 20, true) {
		in.times = 2
		if in.valid {
			in.times = 1
		}
		m := kafkago.Message{Key: in.r.Key, Value: in.r.Value}
		for _, h := range in.r.Headers {
			m.Headers = append(m.Headers, kafkago.Header{Key: h.Key, Value: h.Value})
		}
		ms = append(ms, m)
	}
	w := &kafkago.Writer{Addr: kafkago.TCP(addrs...), Transport: kafkaGoTransport(t), Topic: inTopic, RequiredAcks: kafkago.RequireAll,
		BatchSize: len(ms), BatchTimeout: time.Millisecond, WriteTimeout: time.Second, ReadTimeout: time.Second}
	require.NoError(t, w.WriteMessages(context.Background(), ms...))
	require.NoError(t, w.Close())
	require.Len(t, readAll(t, addrs, 2*len(ms), inTopic), 2*len(ms), "the input, each record stored twice")

	st := runUntilIdle(t, addrs, &kafka.Gate{})
	valid, invalid := count(inputs)
	assert.Equal(t, gate.Stats{Messages: valid + 2*invalid, Forwarded: valid, DeadLetters: 2 * invalid, Redeliveries: valid, Bytes: st.Bytes}, st)
	sentinels(t, addrs, 1)
	all := franzReadAll(t, addrs, kgo.ReadUncommitted(), true)
	read, _ := withoutMarkers(t, kafkaGoReadAll(t, addrs, 1, kafkago.ReadCommitted), all)
	checkStored(t, inputs, read)
}

// kafka-go's Reader, read_committed, does not leave out the records of
// aborted transactions (segmentio/kafka-go#1332): it reads only up to
// the last stable offset, as the broker answers, but gives the copies
// and dead letters of a batch the gate aborted as well as those of the
// batch read again: it reads what a read_uncommitted reader reads, some
// inputs twice, and the markers. A read_committed reader that leaves them
// out (sarama's, franz-go's) finds each once. A consumer of the gate's
// topics on kafka-go must drop them itself, or use another client.
func TestKafkaGoReadCommittedReadsAbortedTransactions(t *testing.T) {
	addrs, inputs, st := gateAbortingOnce(t)
	valid, invalid := count(inputs)
	assert.Equal(t, gate.Stats{Messages: valid + invalid, Forwarded: valid, DeadLetters: invalid, Retries: st.Retries, Bytes: st.Bytes}, st)
	assert.Positive(t, st.Retries)
	sentinels(t, addrs, 1)

	checkStored(t, inputs, saramaReadAll(t, addrs, saramaReadCommitted()))
	checkStored(t, reset(inputs), franzReadAll(t, addrs, kgo.ReadCommitted(), false))
	all := franzReadAll(t, addrs, kgo.ReadUncommitted(), true)
	got := kafkaGoReadAll(t, addrs, 1, kafkago.ReadCommitted)
	assert.Equal(t, unmarked(all), got, "kafka-go's reader, read_committed, against franz-go's, read_uncommitted, markers kept")
	read, _ := withoutMarkers(t, got, all)
	assert.Positive(t, readTwice(t, inputs, read), "inputs read twice, once from the aborted transaction")
}

// readTwice returns how many of inputs the records read hold twice,
// each of which must be an input's copy or dead letter.
func readTwice(t *testing.T, inputs map[string]*goInput, read []stored) int {
	t.Helper()
	twice := 0
	reset(inputs)
	for _, s := range read {
		in := inputs[string(s.value)]
		require.NotNil(t, in, "a record of no input in %s: %s", s.topic, s.value)
		if in.found++; in.found == 2 {
			twice++
		}
	}
	return twice
}

// reset returns inputs, none of them found yet.
func reset(inputs map[string]*goInput) map[string]*goInput {
	for _, in := range inputs {
		in.found = 0
	}
	return inputs
}

// unmarked returns rs, the records as franzReadAll returns them, as
// another client returns them: with no word of which are transaction
// markers.
func unmarked(rs []stored) []stored {
	out := make([]stored, len(rs))
	for i, r := range rs {
		r.control = false
		out[i] = r
	}
	return out
}

// withoutMarkers returns got, the records kafka-go read, without those
// that are transaction markers, as franzReadAll read them (all, with the
// markers kept) in the same order, and how many markers there were.
func withoutMarkers(t *testing.T, got, all []stored) ([]stored, int) {
	t.Helper()
	require.Len(t, got, len(all))
	var out []stored
	markers := 0
	for i, s := range got {
		if !all[i].control {
			out = append(out, s)
			continue
		}
		markers++
		assert.Len(t, s.value, 6, "a transaction marker's value")
		assert.Contains(t, []string{"\x00\x00\x00\x00", "\x00\x00\x00\x01"}, string(s.key), "a transaction marker's key")
		// A consumer that decodes it finds it invalid: its value starts
		// with the framing's magic byte, and names no registry id.
		_, err := kafka.Decode(catalogue.Kinds, &kgo.Record{Key: s.key, Value: s.value})
		assert.ErrorContains(t, err, "the value's framing names registry id 0: ids are positive")
	}
	return out, markers
}

// franzReadAll reads the output and the dead letters with a franz-go
// client at isolation level isolation, every partition from its start
// to its sentinel (see sentinels), and returns what it read, the
// sentinels left out, the transaction markers too unless keepMarkers,
// each partition in order, the output's first.
func franzReadAll(t *testing.T, addrs []string, isolation kgo.IsolationLevel, keepMarkers bool) []stored {
	t.Helper()
	var out []stored
	for _, topic := range []string{outTopic, deadTopic} {
		opts := []kgo.Opt{kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.FetchIsolationLevel(isolation), kgo.FetchMaxWait(100 * time.Millisecond)}
		if keepMarkers {
			opts = append(opts, kgo.KeepControlRecords())
		}
		cl := readerClient(t, addrs, opts...)
		partitions := map[int32][]stored{}
		done := map[int32]bool{}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		for n := 0; n == 0 || len(done) < n; {
			fs := cl.PollFetches(ctx)
			require.NoError(t, ctx.Err(), "%s not read to its sentinels", topic)
			for _, r := range fs.Records() {
				if isSentinel(r.Headers) {
					done[r.Partition] = true
					continue
				}
				partitions[r.Partition] = append(partitions[r.Partition],
					stored{topic: r.Topic, key: r.Key, value: r.Value, headers: r.Headers, control: r.Attrs.IsControl()})
			}
			if n == 0 {
				ps, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
				require.NoError(t, err)
				n = len(ps[topic])
			}
		}
		cancel()
		for p := range int32(len(done)) {
			out = append(out, partitions[p]...)
		}
	}
	return out
}

// kafka-go reads a header's empty value as null (nil), as it reads an
// empty key or value: a reader on it cannot tell a dead letter with an
// empty value (the gate's dead letter of a tombstone) from a tombstone.
// It writes each as it is, and franz-go and sarama read each as it is.
func TestKafkaGoReadsEmptyAsNull(t *testing.T) {
	_, addrs := newCluster(t, 1)
	w := &kafkago.Writer{Addr: kafkago.TCP(addrs...), Transport: kafkaGoTransport(t), Topic: inTopic, RequiredAcks: kafkago.RequireAll, BatchTimeout: time.Millisecond}
	require.NoError(t, w.WriteMessages(context.Background(), kafkago.Message{Key: []byte{}, Value: nil,
		Headers: []kafkago.Header{{Key: "null"}, {Key: "empty", Value: []byte{}}}}))
	require.NoError(t, w.Close())
	st := runUntilIdle(t, addrs, &kafka.Gate{})
	require.Equal(t, 1, st.DeadLetters, "%+v", st)

	// franz-go reads what kafka-go wrote, and the dead letter, as they are.
	for _, r := range readAll(t, addrs, 2, inTopic, deadTopic) {
		assert.NotNil(t, r.Key, r.Topic)
		assert.Equal(t, []kgo.RecordHeader{{Key: "null"}, {Key: "empty", Value: []byte{}}}, r.Headers[:2], r.Topic)
		if r.Topic == inTopic {
			assert.Nil(t, r.Value, "a tombstone")
		} else {
			assert.Equal(t, []byte{}, r.Value, "a dead letter is never a tombstone")
		}
	}
	sentinels(t, addrs, 1)
	// So does sarama.
	got := saramaReadAll(t, addrs, saramaReadCommitted())
	require.Len(t, got, 1)
	assert.Equal(t, []byte{}, got[0].key)
	assert.Equal(t, []byte{}, got[0].value, "the dead letter, no tombstone")
	assert.Equal(t, []kgo.RecordHeader{{Key: "null"}, {Key: "empty", Value: []byte{}}}, got[0].headers[:2])
	// kafka-go reads them all null.
	got, _ = withoutMarkers(t, kafkaGoReadAll(t, addrs, 1, kafkago.ReadCommitted), franzReadAll(t, addrs, kgo.ReadCommitted(), true))
	require.Len(t, got, 1)
	assert.Nil(t, got[0].key)
	assert.Nil(t, got[0].value, "the dead letter, read as a tombstone")
	assert.Equal(t, []kgo.RecordHeader{{Key: "null"}, {Key: "empty"}}, got[0].headers[:2])
}

// producedRecord is a record kafka.Producer wrote (produceBoth): its
// message, whether it was framed, and how often a client found it.
type producedRecord struct {
	m      msg.Message
	framed bool
	found  int
}

// produceBoth has kafka.Producer write each message of ms on cl, plain
// to the output topic and framed to the dead-letter topic, and returns
// the records by value.
func produceBoth(t *testing.T, cl *kgo.Client, ms []msg.Message) map[string]*producedRecord {
	byValue := map[string]*producedRecord{}
	for _, framed := range []bool{false, true} {
		topic := outTopic
		if framed {
			topic = deadTopic
		}
		for _, m := range ms {
			r, err := kafka.Producer{Client: cl, Framed: framed}.Produce(context.Background(), topic, m)
			require.NoError(t, err)
			byValue[string(r.Value)] = &producedRecord{m: m, framed: framed}
		}
	}
	return byValue
}

// checkProduced checks that got, what another client read of the output
// and dead-letter topics, holds every record produceBoth wrote once, as
// it wrote it: its value, split by kafka.Unframe, the message byte for
// byte, framed by its schema's registry id or not; its key the entity's
// id; its headers those kafka.Record writes, in order; and that it
// decodes with kafka.Decode to the message's identity.
func checkProduced(t *testing.T, byValue map[string]*producedRecord, got []stored) {
	t.Helper()
	require.Len(t, got, len(byValue))
	for _, s := range got {
		in := byValue[string(s.value)]
		require.NotNil(t, in, "%s: a record of no message: %q", s.topic, s.value)
		in.found++
		id := in.m.Identity()
		registryID, body, framed, err := kafka.Unframe(s.value)
		require.NoError(t, err)
		assert.Equal(t, in.framed, framed)
		if framed {
			assert.Equal(t, id.Kind.RegistryID, registryID)
		}
		want, err := in.m.AppendJSON(nil)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(body))
		assert.Equal(t, id.Key.String(), string(s.key))
		r, err := kafka.Record(s.topic, in.m, framed)
		require.NoError(t, err)
		assert.Equal(t, r.Headers, s.headers)

		m, err := kafka.Decode(catalogue.Kinds, &kgo.Record{Key: s.key, Value: s.value, Headers: s.headers})
		require.NoError(t, err)
		assert.Equal(t, id, m.Identity())
	}
	for _, in := range byValue {
		assert.Equal(t, 1, in.found, "%s framed %v", in.m.Identity().ID, in.framed)
	}
}

// gateAbortingOnce produces 20 inputs (goInputs, valid and not) to a
// cluster of one partition and gates them until idle, on a session given
// opts too, the broker refusing the gate's first produce of copies: that
// batch aborts, what it stored (its dead letters, copies produced after)
// aborted with it, and is read and judged again. It returns the
// cluster's addresses, the inputs and the gate's totals.
func gateAbortingOnce(t *testing.T, opts ...kgo.Opt) ([]string, map[string]*goInput, gate.Stats) {
	c, addrs := newCluster(t, 1)
	inputs := map[string]*goInput{}
	var records []*kgo.Record
	for _, in := range goInputs(t, inputs, 20, true) {
		records = append(records, in.r)
	}
	require.NoError(t, readerClient(t, addrs).ProduceSync(context.Background(), records...).FirstErr())
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: outTopic, Err: kerr.MessageTooLarge})
	st := runUntilIdle(t, addrs, &kafka.Gate{Session: gateSession(t, addrs, opts...), Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))})
	require.Equal(t, 1, fault.Hits())
	return addrs, inputs, st
}
