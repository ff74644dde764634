package kafka_test

// Interoperability with the pure-language Kafka clients JavaScript and
// Python teams run, with no librdkafka under them: kafkajs, at the
// version testdata/js/package-lock.json pins (npm ci there installs it),
// and kafka-python, as Debian's python3-kafka packages it, run with
// /usr/bin/python3. What they produce, with the ce_ headers kafka.Record
// writes and each codec they have, the gate judges and stores exactly
// once; what the gate and kafka.Producer write, they read back intact,
// or as far as they can (kafka-python reads neither committed only nor
// without the transaction markers).

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/kafka"
)

// A clientHeader is a record's header as a script is given it or
// answers it: its value base64 in JSON, or null.
type clientHeader struct {
	Key   string `json:"key"`
	Value []byte `json:"value"`
}

// A clientRecord is a record as a script is given it to produce, or
// answers it read: its key and value base64 in JSON, or null.
type clientRecord struct {
	Topic     string         `json:"topic,omitempty"`
	Partition int32          `json:"partition"`
	Offset    int64          `json:"offset"`
	Key       []byte         `json:"key"`
	Value     []byte         `json:"value"`
	Headers   []clientHeader `json:"headers"`
}

// clientRecordOf returns r as a script is given it.
func clientRecordOf(r *kgo.Record) clientRecord {
	c := clientRecord{Key: r.Key, Value: r.Value}
	for _, h := range r.Headers {
		c.Headers = append(c.Headers, clientHeader{Key: h.Key, Value: h.Value})
	}
	return c
}

// stored returns r, read by a client, as checkStored takes it.
func (r clientRecord) stored() stored {
	s := stored{topic: r.Topic, key: r.Key, value: r.Value}
	for _, h := range r.Headers {
		s.headers = append(s.headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
	}
	return s
}

// A clientSend is one producer's send of records, in a script.
type clientSend struct {
	Name       string `json:"name"`
	Codec      string `json:"codec"`
	Idempotent bool   `json:"idempotent,omitempty"`
	// Transaction is "commit" or "abort" for a transactional producer
	// (kafkajs only).
	Transaction string `json:"transaction,omitempty"`
	// Config is more of the producer's config (kafka-python only).
	Config  map[string]any `json:"config,omitempty"`
	Records []clientRecord `json:"records"`
}

// clientSendOf returns a send of inputs.
func clientSendOf(name, codec string, inputs []*goInput) *clientSend {
	s := &clientSend{Name: name, Codec: codec}
	for _, in := range inputs {
		s.Records = append(s.Records, clientRecordOf(in.r))
	}
	return s
}

// A clientAnswer is a script's answer to one call: what it returned, or
// the error the client raised.
type clientAnswer struct {
	OK      json.RawMessage `json:"ok"`
	Refused *string         `json:"refused"`
}

// String returns "ok" or "refused " and the error.
func (a clientAnswer) String() string {
	if a.Refused != nil {
		return "refused " + *a.Refused
	}
	return "ok"
}

// needKafkaJS returns the path of node if it runs kafkajs, installed in
// jsDir, and otherwise skips the test, or fails it in CI, which
// installs it.
func needKafkaJS(t *testing.T) string {
	t.Helper()
	node := needNode(t)
	cmd := exec.Command(node, "-e", `require("kafkajs")`)
	cmd.Dir = jsDir
	if out, err := cmd.CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v: %s: CI runs npm ci in kafka/%s", err, out, jsDir)
		}
		t.Skipf("%v: %s: run npm ci in kafka/%s", err, out, jsDir)
	}
	return node
}

// needKafkaPython returns systemPython if it has kafka-python and the
// codecs' libraries, and otherwise skips the test, or fails it in CI,
// which installs them.
func needKafkaPython(t *testing.T) string {
	t.Helper()
	const pkgs = "python3-kafka python3-snappy python3-lz4 python3-zstandard"
	if out, err := exec.Command(systemPython, "-c", "import kafka, snappy, lz4.frame, zstandard").CombinedOutput(); err != nil {
		missing(t, pkgs, fmt.Errorf("%s cannot import kafka-python or a codec's library: %w: %s", systemPython, err, bytes.TrimSpace(out)))
	}
	return systemPython
}

// runClient runs script, a kafkajs script of jsDir with node or a
// kafka-python one of testdata/python with systemPython, in mode
// (produce or consume) against the brokers at addrs, request on its
// standard input, and decodes its answer into answer.
func runClient(t *testing.T, interpreter, script, mode string, addrs []string, request, answer any) {
	t.Helper()
	in, err := json.Marshal(request)
	require.NoError(t, err)
	cmd := exec.Command(interpreter, script, mode, strings.Join(addrs, ","))
	if interpreter == systemPython {
		cmd.Dir = "testdata/python"
	} else {
		cmd.Dir = jsDir
	}
	out := output(t, cmd, in)
	require.NoError(t, json.Unmarshal(out, answer), "%s", out)
}

// gzipBatches is the option of a franz-go client that compresses with GZIP,
// the one codec kafkajs has built in: its default, Snappy, kafkajs
// cannot read (TestKafkaJSReadsNoSnappy).
var gzipBatches = kgo.ProducerBatchCompression(kgo.GzipCompression())

// kafkaJSRead reads the output and the dead letters, of partitions
// partitions each, with a kafkajs consumer of a group of its own,
// readUncommitted false, each partition to its sentinel (see
// sentinels), and returns what it read, the sentinels left out, in the
// order of franzReadAll: by topic, the output's first, partition and
// offset; and the error that stopped it, if one did.
func kafkaJSRead(t *testing.T, node string, addrs []string, partitions int) ([]clientRecord, string) {
	t.Helper()
	var got struct {
		Records []clientRecord `json:"records"`
		Crashed string         `json:"crashed"`
	}
	runClient(t, node, "kafkajs_client.js", "consume", addrs, map[string]any{
		"group": "kafkajs-" + t.Name(), "topics": []string{outTopic, deadTopic}, "partitions": partitions, "sentinel": sentinelHeader,
	}, &got)
	sortRead(got.Records)
	return got.Records, got.Crashed
}

// kafkaJSReadAll is kafkaJSRead, the test failing if the consumer
// stopped.
func kafkaJSReadAll(t *testing.T, node string, addrs []string, partitions int) []clientRecord {
	t.Helper()
	got, crashed := kafkaJSRead(t, node, addrs, partitions)
	require.Empty(t, crashed, "kafkajs's consumer stopped")
	return got
}

// sortRead sorts rs by topic, the output's first, partition and offset.
func sortRead(rs []clientRecord) {
	slices.SortFunc(rs, func(a, b clientRecord) int {
		return cmp.Or(-cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
	})
}

// storedOf returns rs as checkStored takes them.
func storedOf(rs []clientRecord) []stored {
	out := make([]stored, len(rs))
	for i, r := range rs {
		out[i] = r.stored()
	}
	return out
}

// placeFromInput notes where each input was stored, as a franz-go
// reader of the input, read_uncommitted, finds it: want records, those
// of aborted transactions among them.
func placeFromInput(t *testing.T, addrs []string, inputs map[string]*goInput, want int) {
	t.Helper()
	cl := readerClient(t, addrs, kgo.ConsumeTopics(inTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()), kgo.FetchMaxWait(100*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for n := 0; n < want; {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "%d of %d records read from the input", n, want)
		for _, r := range fs.Records() {
			n++
			in := inputs[string(r.Value)]
			require.NotNil(t, in, "a record of no input: %s", r.Value)
			in.placed, in.partition, in.offset = true, r.Partition, r.Offset
		}
	}
}

// kafkajs produces to a gate's input, idempotent, uncompressed and with
// GZIP, the one codec it has built in (Snappy, LZ4 and ZSTD need codecs
// of other packages, plugged into its CompressionCodecs: without, it
// refuses to send, and nothing reaches the input), records with the ce_
// headers kafka.Record writes, plain or framed (goInputs), and records
// with no header nor key; from a transactional producer, a transaction
// it commits and one it aborts. The gate counts what it stored, and no
// record of the aborted transaction; a kafkajs consumer, readUncommitted
// false, then finds every input not aborted exactly once where it
// belongs (checkStored): a valid one in the output, byte for byte, keyed
// by its entity's id, with the ce_ headers, an invalid one among the dead
// letters, with its key and headers and the verdict kafka.Decode gives
// it, placed where it was stored; and it reads exactly what franz-go's
// read_committed reader does. kafkajs negotiates each request's version
// with kfake's ApiVersions (its newest it has: Produce v7, Fetch v11)
// and is not refused any.
func TestKafkaJSThroughTheGate(t *testing.T) {
	node := needKafkaJS(t)
	_, addrs := newCluster(t, 3)
	inputs := map[string]*goInput{}
	var sends []*clientSend
	send := func(name, codec string, headers bool, transaction string) []*goInput {
		ins := goInputs(t, inputs, 20, headers)
		s := clientSendOf(name, codec, ins)
		s.Idempotent, s.Transaction = true, transaction
		sends = append(sends, s)
		return ins
	}
	send("none", "none", true, "")
	send("gzip", "gzip", true, "")
	send("no headers", "gzip", false, "")
	send("committed", "gzip", true, "commit")
	for _, in := range send("aborted", "none", true, "abort") {
		in.times = 0
	}
	for _, codec := range []string{"snappy", "lz4", "zstd"} {
		for _, in := range send(codec, codec, true, "") {
			in.times = 0 // refused
		}
	}
	var answer map[string]clientAnswer
	runClient(t, node, "kafkajs_client.js", "produce", addrs, map[string]any{"topic": inTopic, "sends": sends}, &answer)
	got := map[string]string{}
	for name, a := range answer {
		got[name] = a.String()
		if a.OK != nil {
			// send returns, for each partition it wrote to, its base offset.
			var parts []struct {
				TopicName string `json:"topicName"`
				Partition int32  `json:"partition"`
				ErrorCode int16  `json:"errorCode"`
			}
			require.NoError(t, json.Unmarshal(a.OK, &parts), "%s: %s", name, a.OK)
			require.NotEmpty(t, parts, name)
			for _, p := range parts {
				assert.Equal(t, inTopic, p.TopicName, name)
				assert.Zero(t, p.ErrorCode, name)
			}
		}
	}
	assert.Equal(t, map[string]string{
		"none": "ok", "gzip": "ok", "no headers": "ok", "committed": "ok", "aborted": "ok",
		"snappy": "refused KafkaJSNotImplemented: Snappy compression not implemented",
		"lz4":    "refused KafkaJSNotImplemented: LZ4 compression not implemented",
		"zstd":   "refused KafkaJSNotImplemented: ZSTD compression not implemented",
	}, got)
	placeFromInput(t, addrs, inputs, 5*20)

	st := runUntilIdle(t, addrs, &kafka.Gate{Session: gateSession(t, addrs, gzipBatches), Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))})
	valid, invalid := count(inputs)
	assert.Equal(t, gate.Stats{Messages: valid + invalid, Forwarded: valid, DeadLetters: invalid, Bytes: st.Bytes}, st)
	sentinels(t, addrs, 3, gzipBatches)
	read := kafkaJSReadAll(t, node, addrs, 3)
	checkStored(t, inputs, storedOf(read))
	assert.Equal(t, franzReadAll(t, addrs, kgo.ReadCommitted(), false), storedOf(read), "kafkajs's consumer against franz-go's, read_committed")
}

// A kafkajs consumer, readUncommitted false, leaves out what the gate
// stored in a transaction it aborted (a batch whose produce of copies
// the broker refused, read and judged again), as franz-go's and
// sarama's do and kafka-go's does not
// (TestKafkaGoReadCommittedReadsAbortedTransactions), and the markers:
// it finds each input once.
func TestKafkaJSReadCommittedLeavesOutAbortedTransactions(t *testing.T) {
	node := needKafkaJS(t)
	addrs, inputs, st := gateAbortingOnce(t, gzipBatches)
	assert.Positive(t, st.Retries)
	sentinels(t, addrs, 1, gzipBatches)

	// Read uncommitted, some inputs are there twice.
	twice := 0
	for _, s := range franzReadAll(t, addrs, kgo.ReadUncommitted(), false) {
		if in := inputs[string(s.value)]; in != nil {
			if in.found++; in.found == 2 {
				twice++
			}
		}
	}
	require.Positive(t, twice, "inputs stored twice, once in the aborted transaction")
	read := kafkaJSReadAll(t, node, addrs, 1)
	checkStored(t, reset(inputs), storedOf(read))
}

// A kafkajs consumer reads what kafka.Producer writes, framed and plain:
// each value is the message, byte for byte, framed by its schema's
// registry id or not, its key the entity's id, its headers, which
// kafkajs gives as Buffers, those kafka.Record writes, in order; and the
// record decodes with kafka.Decode.
func TestKafkaJSReadsWhatTheProducerWrites(t *testing.T) {
	node := needKafkaJS(t)
	_, addrs := newCluster(t, 3)
	ms, _ := samples(t)
	cl := readerClient(t, addrs, gzipBatches)
	byValue := produceBoth(t, cl, ms)
	sentinels(t, addrs, 3, gzipBatches)
	got := kafkaJSReadAll(t, node, addrs, 3)
	checkProduced(t, byValue, storedOf(got))
}

// kafkajs has only GZIP built in: a batch compressed with Snappy (as
// franz-go's clients, kafka.Producer's and the gate's among them,
// compress by default), LZ4 or ZSTD stops its consumer, on the first
// fetch that holds one, with KafkaJSNotImplemented, having read nothing
// of the partition from there. Its consumers need the codecs plugged in
// (kafkajs-snappy and the like, in its CompressionCodecs), or the
// producers GZIP or no compression: kafka/cmd/gate's -compression.
func TestKafkaJSReadsNoSnappy(t *testing.T) {
	node := needKafkaJS(t)
	ms, _ := samples(t)
	for name, codec := range map[string]kgo.CompressionCodec{"Snappy": kgo.SnappyCompression(), "LZ4": kgo.Lz4Compression(), "ZSTD": kgo.ZstdCompression()} {
		_, addrs := newCluster(t, 1)
		_, err := kafka.Producer{Client: readerClient(t, addrs, kgo.ProducerBatchCompression(codec))}.Produce(context.Background(), outTopic, ms[0])
		require.NoError(t, err)
		sentinels(t, addrs, 1, gzipBatches)
		got, crashed := kafkaJSRead(t, node, addrs, 1)
		assert.Empty(t, got, name)
		assert.Equal(t, "KafkaJSNotImplemented: "+name+" compression not implemented", crashed)
	}
}

// kafkajs gives a record's headers as an object, each value a Buffer (or
// null): a key that comes twice gives an array of its values, and the
// keys come in JavaScript's order, keys that read as integers first,
// ascending, the others as the first of each came. A reader that needs
// the headers in order, or how keys given more than once interleave,
// cannot have them from kafkajs; kafka.Record writes each key once, and
// a dead letter's verdict is found by its key, kafka.VerdictHeader.
func TestKafkaJSHeadersAreAnObject(t *testing.T) {
	node := needKafkaJS(t)
	_, addrs := newCluster(t, 1)
	r := &kgo.Record{Topic: outTopic, Key: []byte{}, Value: []byte("v"), Headers: []kgo.RecordHeader{
		{Key: "b", Value: []byte("1")}, {Key: "a", Value: []byte("2")}, {Key: "b", Value: []byte("3")},
		{Key: "7", Value: []byte("4")}, {Key: "empty", Value: []byte{}}, {Key: "null"},
	}}
	require.NoError(t, readerClient(t, addrs, gzipBatches).ProduceSync(context.Background(), r).FirstErr())
	sentinels(t, addrs, 1, gzipBatches)
	got := kafkaJSReadAll(t, node, addrs, 1)
	require.Len(t, got, 1)
	assert.Equal(t, []byte{}, got[0].Key)
	assert.Equal(t, []clientHeader{
		{Key: "7", Value: []byte("4")}, {Key: "b", Value: []byte("1")}, {Key: "b", Value: []byte("3")},
		{Key: "a", Value: []byte("2")}, {Key: "empty", Value: []byte{}}, {Key: "null"},
	}, got[0].Headers)
}

// kafkaPythonRead reads the output and the dead letters, of partitions
// partitions each, with a kafka-python consumer of no group, each
// partition from its start to its sentinel (see sentinels), and returns
// what it read, the sentinels left out, in the order of franzReadAll.
// The consumer is asked to read read_committed; kafka-python 2.0.2 has no
// such config, and refuses it: its refusal is returned.
func kafkaPythonRead(t *testing.T, python string, addrs []string, partitions int) ([]clientRecord, string) {
	t.Helper()
	var got struct {
		Records []clientRecord `json:"records"`
		Config  string         `json:"config"`
	}
	runClient(t, python, "kafka_python.py", "consume", addrs, map[string]any{
		"topics": []string{outTopic, deadTopic}, "partitions": partitions, "sentinel": sentinelHeader,
		"config": map[string]any{"isolation_level": "read_committed"},
	}, &got)
	sortRead(got.Records)
	return got.Records, got.Config
}

// kafkaPythonRefusesReadCommitted is what kafka-python 2.0.2 answers a
// consumer's isolation_level: it has none, reading every record, of
// aborted transactions too, and the transaction markers.
// (kafka-python's errors of its own name their class in their message.)
const kafkaPythonRefusesReadCommitted = "KafkaConfigurationError: KafkaConfigurationError: Unrecognized configs: {'isolation_level'}"

// kafka-python, Debian's 2.0.2, produces to a gate's input, uncompressed
// and with each codec it has (GZIP, and Snappy, LZ4 and ZSTD with
// Debian's python3-snappy, python3-lz4 and python3-zstandard), records
// with the ce_ headers kafka.Record writes, plain or framed, and records
// with no header nor key; it has no idempotence (it refuses
// enable_idempotence) nor transactions. It takes kfake for Kafka 2.5
// (its newest guess from ApiVersions) and sends Produce v7, and Fetch
// v4 and ListOffsets v1, the oldest Kafka 4.0 (KIP-896) and kfake still
// answer. The gate stores each input once, placed where kafka-python said
// it stored it. Its consumer has no isolation level (it refuses
// isolation_level='read_committed'): it reads what franz-go's
// read_uncommitted reader does, the transaction markers among them, as
// records (a key of 4 bytes, 00 00 00 01 for a commit, and a value of 6
// bytes, which kafka.Decode finds invalid); the gate having aborted
// nothing, the records besides them are every input once, where it
// belongs (checkStored).
func TestKafkaPythonThroughTheGate(t *testing.T) {
	python := needKafkaPython(t)
	_, addrs := newCluster(t, 3)
	inputs := map[string]*goInput{}
	var sends []*clientSend
	byName := map[string][]*goInput{}
	send := func(name, codec string, headers bool) *clientSend {
		ins := goInputs(t, inputs, 20, headers)
		s := clientSendOf(name, codec, ins)
		sends = append(sends, s)
		byName[name] = ins
		return s
	}
	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		send(codec, codec, true)
	}
	send("no headers", "none", false)
	send("idempotent", "none", true).Config = map[string]any{"enable_idempotence": true}
	for _, in := range byName["idempotent"] {
		in.times = 0 // refused
	}
	var answer map[string]json.RawMessage
	runClient(t, python, "kafka_python.py", "produce", addrs, map[string]any{"topic": inTopic, "sends": sends}, &answer)
	assert.JSONEq(t, `"2.0.2"`, string(answer["version"]))
	assert.JSONEq(t, `"2.5.0"`, string(answer["api_version"]), "the broker version kafka-python takes kfake for")
	got := map[string]string{}
	for name, ins := range byName {
		var a clientAnswer
		require.NoError(t, json.Unmarshal(answer[name], &a), "%s: %s", name, answer[name])
		got[name] = a.String()
		if a.OK == nil {
			continue
		}
		var places []struct {
			Partition int32 `json:"partition"`
			Offset    int64 `json:"offset"`
		}
		require.NoError(t, json.Unmarshal(a.OK, &places), "%s: %s", name, a.OK)
		require.Len(t, places, len(ins), name)
		for i, in := range ins {
			in.placed, in.partition, in.offset = true, places[i].Partition, places[i].Offset
		}
	}
	assert.Equal(t, map[string]string{
		"none": "ok", "gzip": "ok", "snappy": "ok", "lz4": "ok", "zstd": "ok", "no headers": "ok",
		"idempotent": "refused AssertionError: Unrecognized configs: {'enable_idempotence': True}",
	}, got)

	st := runUntilIdle(t, addrs, &kafka.Gate{Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))})
	valid, invalid := count(inputs)
	assert.Equal(t, gate.Stats{Messages: valid + invalid, Forwarded: valid, DeadLetters: invalid, Bytes: st.Bytes}, st)
	sentinels(t, addrs, 3)
	read, config := kafkaPythonRead(t, python, addrs, 3)
	assert.Equal(t, kafkaPythonRefusesReadCommitted, config)
	all := franzReadAll(t, addrs, kgo.ReadUncommitted(), true)
	assert.Equal(t, unmarked(all), storedOf(read), "kafka-python's consumer against franz-go's, read_uncommitted, markers kept")
	records, markers := withoutMarkers(t, storedOf(read), all)
	assert.Positive(t, markers, "transaction markers read as records")
	checkStored(t, inputs, records)
}

// kafka-python's consumer reads the records of a transaction the gate
// aborted (a batch whose produce of copies the broker refused, read and
// judged again): inputs come twice, once from the aborted transaction. A
// consumer of the gate's topics on kafka-python must drop them itself
// (by the aborted transactions a fetch answers, which kafka-python does
// not give), or use another client.
func TestKafkaPythonReadsAbortedTransactions(t *testing.T) {
	python := needKafkaPython(t)
	addrs, inputs, st := gateAbortingOnce(t)
	assert.Positive(t, st.Retries)
	sentinels(t, addrs, 1)

	checkStored(t, inputs, franzReadAll(t, addrs, kgo.ReadCommitted(), false))
	read, config := kafkaPythonRead(t, python, addrs, 1)
	assert.Equal(t, kafkaPythonRefusesReadCommitted, config)
	all := franzReadAll(t, addrs, kgo.ReadUncommitted(), true)
	assert.Equal(t, unmarked(all), storedOf(read), "kafka-python's consumer against franz-go's, read_uncommitted, markers kept")
	got, _ := withoutMarkers(t, storedOf(read), all)
	assert.Positive(t, readTwice(t, inputs, got), "inputs read twice, once from the aborted transaction")
}

// A kafka-python consumer reads what kafka.Producer writes, framed and
// plain, compressed as franz-go compresses by default (Snappy): each
// value is the message, byte for byte, framed by its schema's registry
// id or not, its key the entity's id, its headers those kafka.Record
// writes, in order; and the record decodes with kafka.Decode.
func TestKafkaPythonReadsWhatTheProducerWrites(t *testing.T) {
	python := needKafkaPython(t)
	_, addrs := newCluster(t, 3)
	ms, _ := samples(t)
	cl := readerClient(t, addrs)
	byValue := produceBoth(t, cl, ms)
	sentinels(t, addrs, 3)
	got, _ := kafkaPythonRead(t, python, addrs, 3)
	checkProduced(t, byValue, storedOf(got))
}
