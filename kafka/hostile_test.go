package kafka_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// validRecord returns the record of the sample's valid message of index
// i, as the producer makes it, its headers a copy of their own.
func validRecord(t *testing.T, i int) *kgo.Record {
	ms, _ := samples(t)
	r, err := kafka.Record(inTopic, ms[i], false)
	require.NoError(t, err)
	out := &kgo.Record{Topic: r.Topic, Key: bytes.Clone(r.Key), Value: bytes.Clone(r.Value)}
	for _, h := range r.Headers {
		out.Headers = append(out.Headers, kgo.RecordHeader{Key: h.Key, Value: bytes.Clone(h.Value)})
	}
	return out
}

// withHeader returns a copy of r with the value of every header named key
// replaced by value, or one added if it has none.
func withHeader(r *kgo.Record, key string, value []byte) *kgo.Record {
	out := *r
	out.Headers = nil
	found := false
	for _, h := range r.Headers {
		if h.Key == key {
			h.Value, found = value, true
		}
		out.Headers = append(out.Headers, h)
	}
	if !found {
		out.Headers = append(out.Headers, kgo.RecordHeader{Key: key, Value: value})
	}
	return &out
}

// checkBoundedVerdict checks that err, the error of decoding a hostile
// record, says what is wrong in little room: its text and every
// violation short whatever the record holds, and the verdict of its dead
// letter, in the least room a gate leaves one (gate.MinLimit), listing at
// least one violation rather than omitting them all.
func checkBoundedVerdict(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 32<<10, "the error's text")
	v := gate.VerdictOf(nil, err)
	for _, viol := range v.Violations {
		assert.Less(t, len(viol.Message)+len(viol.Value)+len(viol.Path), 1<<10, "a violation: %.200s", viol.Message)
	}
	j, jerr := v.Encode(gate.MinLimit / 2)
	require.NoError(t, jerr)
	back, perr := gate.ParseVerdict(j)
	require.NoError(t, perr)
	assert.NotEmpty(t, back.Violations, "the dead letter says what is wrong: %s", j)
}

// A header's value of a mebibyte, in any of the headers ce reads, makes
// the record invalid with a verdict that quotes only the start of it
// (found here: ce quoted a header whole, so that the violation was a
// few mebibytes, escaped, and a dead letter's verdict had no room for it
// and listed none, saying nothing of what was wrong).
func TestDecodeQuotesAHugeHeaderShort(t *testing.T) {
	r := validRecord(t, 0)
	for _, fill := range []string{"a", "\x00", "\n", "\xff"} {
		huge := bytes.Repeat([]byte(fill), 1<<20)
		for _, key := range []string{"content-type", "ce_specversion", "ce_id", "ce_type", "ce_source", "ce_time", "ce_dataschema", "CE_TYPE"} {
			t.Run(fmt.Sprintf("%s=%q", key, fill), func(t *testing.T) {
				_, err := kafka.Decode(catalogue.Kinds, withHeader(r, key, huge))
				checkBoundedVerdict(t, err)
			})
		}
		t.Run(fmt.Sprintf("framed with ce_dataschema=%q", fill), func(t *testing.T) {
			dev, err := schemas.Lookup("core.device", "1.0")
			require.NoError(t, err)
			framed := withHeader(r, "ce_dataschema", huge)
			framed.Value = append(kafka.AppendFrame(nil, dev.RegistryID), framed.Value...)
			_, err = kafka.Decode(catalogue.Kinds, framed)
			checkBoundedVerdict(t, err)
		})
	}
}

// A header of ce's given many times, or named as one in another case
// many times, makes the record invalid with a verdict of bounded size:
// at most msg.MaxViolations violations listed, each short, the rest
// counted.
func TestDecodeBoundsTheViolationsOfManyHeaders(t *testing.T) {
	r := validRecord(t, 0)
	for _, key := range []string{"ce_id", "CE_ID", "Content-Type"} {
		t.Run(key, func(t *testing.T) {
			many := *r
			many.Headers = append([]kgo.RecordHeader(nil), r.Headers...)
			for i := range 20_000 {
				many.Headers = append(many.Headers, kgo.RecordHeader{Key: key, Value: fmt.Appendf(nil, "%d%s", i, strings.Repeat("x", 100))})
			}
			_, err := kafka.Decode(catalogue.Kinds, &many)
			checkBoundedVerdict(t, err)
			var e *msg.Error
			require.ErrorAs(t, err, &e)
			assert.LessOrEqual(t, len(e.Violations), msg.MaxViolations+10)
		})
	}
}

// Headers the catalogue does not read, however many, however large, and
// whatever their names hold (none, bytes that are not UTF-8, controls,
// line ends), leave a valid message valid: the gate keeps them on the
// copy as they came.
func TestDecodeIgnoresOtherHeadersWhateverTheyHold(t *testing.T) {
	r := validRecord(t, 0)
	want, err := kafka.Decode(catalogue.Kinds, r)
	require.NoError(t, err)
	for name, hs := range map[string][]kgo.RecordHeader{
		"empty name":            {{Key: "", Value: []byte("x")}},
		"not UTF-8":             {{Key: "\xff\xfe", Value: []byte("\xff")}},
		"controls and line end": {{Key: "x\r\nce_type: core.vehicle", Value: []byte("\x1b[2J\n")}},
		"a mebibyte":            {{Key: strings.Repeat("k", 1<<20), Value: bytes.Repeat([]byte("v"), 1<<20)}},
		"many":                  slices.Repeat([]kgo.RecordHeader{{Key: "x-many", Value: []byte("1")}}, 50_000),
	} {
		t.Run(name, func(t *testing.T) {
			in := *r
			in.Headers = append(append([]kgo.RecordHeader(nil), r.Headers...), hs...)
			got, err := kafka.Decode(catalogue.Kinds, &in)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// Values and frames that are hostile or odd: each is decoded, without a
// panic, to the verdict catalogue.Decode gives its body, or to the
// framing's violation.
func TestDecodeHostileValues(t *testing.T) {
	_, lines := samples(t)
	device := lines[0]
	veh := ""
	for _, l := range lines {
		if m, _ := catalogue.Decode(l); m != nil && m.SchemaName() == "core.vehicle" {
			veh = string(l)
			break
		}
	}
	require.NotEmpty(t, veh)
	vehKind, err := schemas.Lookup("core.vehicle", "1.0")
	require.NoError(t, err)
	frame := func(id uint32, body []byte) []byte {
		return append([]byte{kafka.Magic, byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}, body...)
	}
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	for _, tc := range []struct {
		name  string
		value []byte
		rule  msg.Rule // the rule broken, "" when the body's verdict is catalogue.Decode's
		err   error    // the error wrapped instead
	}{
		{name: "a frame of 5 bytes and no body", value: frame(uint32(vehKind.RegistryID), nil), rule: msg.RuleSyntax},
		{name: "a frame with id 0", value: frame(0, device), rule: msg.RuleSyntax},
		{name: "a frame with a negative id", value: frame(1<<31, device), rule: msg.RuleSyntax},
		{name: "a frame with id -1", value: frame(math.MaxUint32, device), rule: msg.RuleSyntax},
		{name: "a frame with the largest id", value: frame(math.MaxInt32, device), err: schemas.ErrUnknown},
		{name: "a vehicle's id on a device", value: frame(uint32(vehKind.RegistryID), device), rule: msg.RuleHeader},
		{name: "trailing garbage", value: append(bytes.Clone(device), " garbage"...)},
		{name: "a second document", value: append(bytes.Clone(device), device...)},
		{name: "a byte-order mark", value: append([]byte("\xef\xbb\xbf"), device...)},
		{name: "nesting 100,000 deep", value: []byte(`{"message_type":"core.device","x":` + deep + `}`)},
		{name: "nesting 100,000 deep, framed", value: frame(uint32(vehKind.RegistryID), []byte(`{"message_type":"core.vehicle","x":`+deep+`}`))},
		{name: "a bare deep array", value: []byte(deep)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &kgo.Record{Value: tc.value, Key: bytes.Repeat([]byte{0xff}, 1<<20)}
			m, err := kafka.Decode(catalogue.Kinds, r)
			switch {
			case tc.err != nil:
				assert.Nil(t, m)
				assert.ErrorIs(t, err, tc.err)
			case tc.rule != "":
				assert.Contains(t, rulesOf(err), tc.rule, "%v", err)
			default:
				_, body, _, uerr := kafka.Unframe(tc.value)
				require.NoError(t, uerr)
				want, wantErr := catalogue.Decode(body)
				assert.Equal(t, want, m)
				assert.Equal(t, rulesOf(wantErr), rulesOf(err), "%v", err)
				assert.Equal(t, wantErr == nil, err == nil, "%v", err)
				if wantErr != nil && rulesOf(wantErr) == nil {
					assert.Equal(t, wantErr.Error(), err.Error())
				}
			}
			if err != nil {
				checkBoundedVerdict(t, err)
			}
		})
	}
}

// A header whose name holds a NUL byte is read, by librdkafka and the
// clients on it (kcat, confluent-kafka-python), only up to that byte:
// ce_type\x00junk is their ce_type, catalogue-verdict\x00x their verdict
// (found here: such headers passed the gate as headers of no interest,
// so that a kcat or Python consumer of the output found a second
// ce_type, naming another schema, or a verdict on a copy). A record
// whose header so named says other than the gate's is a dead letter
// (TestDecodeRefusesHeadersThatShadowTheCatalogues), and a verdict so
// named is kept renamed: what the gate forwards, kcat reads with the one
// ce_type and no verdict.
func TestKcatReadsNoForgedHeaderOnACopy(t *testing.T) {
	kcat := needKcat(t)
	_, addrs := newCluster(t, 1)
	r, other := validRecord(t, 0), validRecord(t, 1)
	var device []byte
	for _, h := range other.Headers {
		if h.Key == "ce_type" {
			device = h.Value
		}
	}
	forged := `{"subject":"elsewhere","sequence":0,"valid":true,"deliveries":1}`
	shadowing := withHeader(r, "ce_type\x00junk", []byte("core.vehicle"))
	verdict := withHeader(other, "Catalogue-Verdict\x00x", []byte(forged))
	agreeing := withHeader(verdict, "ce_type\x00", device)
	require.NoError(t, readerClient(t, addrs).ProduceSync(context.Background(), shadowing, agreeing).FirstErr())
	st := runUntilIdle(t, addrs, &kafka.Gate{})
	assert.Equal(t, 1, st.Forwarded, "%+v", st)
	assert.Equal(t, 1, st.DeadLetters, "%+v", st)

	out, err := exec.Command(kcat, "-C", "-b", addrs[0], "-t", outTopic, "-X", "isolation.level=read_committed",
		"-o", "beginning", "-e", "-q", "-f", "%h\n").Output()
	require.NoError(t, err)
	headers := strings.Split(strings.TrimSpace(string(out)), ",")
	require.NotEmpty(t, headers)
	names := map[string]int{}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, "=")
		names[name]++
		if name == "ce_type" {
			assert.Equal(t, string(device), value)
		}
		assert.False(t, strings.EqualFold(name, kafka.VerdictHeader), "a verdict on a copy: %s", h)
	}
	assert.Equal(t, 1, names[kafka.OriginalPrefix+"Catalogue-Verdict"], "%s", out)
}

// bombBound is the most a batch of the input may decompress to in the
// bomb tests, kgo.MaxDecompressBatchBytes of the gate's session: a
// bound kept small so that a bomb past it is small too.
const bombBound = 256 << 10

// TestGateDeadLettersABatchThatDecompressesPastItsBound feeds a gate a
// compression bomb: a batch of a few kilobytes, compressed with each of
// Kafka's codecs, that decompresses to more than its session may
// decompress (kgo.MaxDecompressBatchBytes). kgo then stops consuming
// the partition until told to skip the batch (found here: the gate held
// the partition hostage for ever, every record behind the bomb waiting,
// and a gate with UntilIdle never returned). The gate must end it as
// decision 16 says: one dead letter of rule too_large saying where the
// batch is and why its records were not read, and the records behind it
// gated, each once.
func TestGateDeadLettersABatchThatDecompressesPastItsBound(t *testing.T) {
	codecs := map[string]kgo.CompressionCodec{"gzip": kgo.GzipCompression(), "zstd": kgo.ZstdCompression(),
		"lz4": kgo.Lz4Compression(), "snappy": kgo.SnappyCompression()}
	for name, codec := range codecs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, addrs := newCluster(t, 1)
			_, lines := samples(t)
			producer := readerClient(t, addrs, kgo.ProducerBatchCompression(codec), kgo.ProducerBatchMaxBytes(16<<20))
			ctx := context.Background()
			produce := func(rs ...*kgo.Record) {
				require.NoError(t, producer.ProduceSync(ctx, rs...).FirstErr())
			}
			valid := func(i int) *kgo.Record {
				return &kgo.Record{Topic: inTopic, Value: withNewID(t, lines[1]), Headers: []kgo.RecordHeader{{Key: keyHeader, Value: []byte(strconv.Itoa(i))}}}
			}
			produce(valid(0))
			// The bomb: records of zeros, four times the bound, in
			// one batch.
			var bomb []*kgo.Record
			for range 4 {
				bomb = append(bomb, &kgo.Record{Topic: inTopic, Value: make([]byte, bombBound)})
			}
			produce(bomb...)
			produce(valid(1), valid(2))

			st := runUntilIdle(t, addrs, &kafka.Gate{Session: gateSession(t, addrs, kgo.MaxDecompressBatchBytes(bombBound))})
			assert.Equal(t, 3, st.Forwarded, "%+v", st)
			assert.Equal(t, 1, st.DeadLetters, "%+v", st)

			out := readAll(t, addrs, 3, outTopic)
			assert.Len(t, out, 3)
			dead := readAll(t, addrs, 1, deadTopic)
			require.Len(t, dead, 1)
			assert.Empty(t, dead[0].Value)
			var verdict gate.Verdict
			for _, h := range dead[0].Headers {
				if h.Key == kafka.VerdictHeader {
					var err error
					verdict, err = gate.ParseVerdict(h.Value)
					require.NoError(t, err)
				}
			}
			require.Len(t, verdict.Violations, 1, "%+v", verdict)
			assert.Equal(t, msg.RuleTooLarge, verdict.Violations[0].Rule)
			assert.Contains(t, verdict.Violations[0].Message, "offsets 1 to 4")
			assert.Equal(t, gate.Place{Subject: inTopic, Sequence: 1}, verdict.Place)
		})
	}
}

// The copy of a record is stamped with the time the gate produced it,
// whatever the input's timestamp: none (-1), the epoch, or one far in
// the future, which a broker may refuse on a record it is given
// (log.message.timestamp.after.max.ms) and which would then hold the
// input hostage. Its key and value are the input's, byte for byte. So is
// a dead letter stamped. The README says so (what the gate keeps of a
// record).
func TestGateStampsCopiesWithItsOwnTime(t *testing.T) {
	_, addrs := newCluster(t, 1)
	var in []*kgo.Record
	for i, ts := range []time.Time{time.UnixMilli(-1), time.UnixMilli(0), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)} {
		r := validRecord(t, i)
		r.Timestamp = ts
		in = append(in, r, &kgo.Record{Topic: inTopic, Value: []byte(`{"message_type":"core.device"}`), Timestamp: ts})
	}
	require.NoError(t, readerClient(t, addrs).ProduceSync(context.Background(), in...).FirstErr())
	start := time.Now().Add(-time.Second)
	st := runUntilIdle(t, addrs, &kafka.Gate{})
	end := time.Now().Add(time.Second)
	require.Equal(t, gate.Stats{Messages: len(in), Forwarded: len(in) / 2, DeadLetters: len(in) / 2, Bytes: st.Bytes}, st)
	stored := readAll(t, addrs, len(in), outTopic, deadTopic)
	require.Len(t, stored, len(in))
	for _, r := range stored {
		assert.True(t, r.Timestamp.After(start) && r.Timestamp.Before(end), "a record of %s stamped %v", r.Topic, r.Timestamp)
		assert.False(t, r.Attrs.TimestampType() == 1, "a record of %s stamped by its broker", r.Topic)
		if r.Topic == deadTopic {
			continue
		}
		i := slices.IndexFunc(in, func(x *kgo.Record) bool { return bytes.Equal(x.Value, r.Value) })
		require.GreaterOrEqual(t, i, 0, "a copy of no input")
		assert.Equal(t, in[i].Key, r.Key)
	}
}

// FuzzDecodeRecord decodes whole records, value, key and headers (one
// a line of hdrs, its name before the first '='): it must not panic, and
// its verdict must be short whatever the record holds. A record whose
// value is not framed is judged as catalogue.Decode judges its value when
// its headers agree with it: with none, or with those ce.Kafka writes
// for the message.
func FuzzDecodeRecord(f *testing.F) {
	_, lines := samples(f)
	for _, l := range lines {
		f.Add(l, []byte("key"), []byte(""))
	}
	f.Add(lines[0], []byte{0xff}, []byte("ce_type=core.vehicle\nCE_ID=x\nce_type\x00=y"))
	f.Add(append(kafka.AppendFrame(nil, 1), lines[0]...), []byte(nil), []byte("ce_dataschema=\xff"))
	f.Add([]byte("\x00\x00\x00"), []byte(nil), []byte("content-type=text/plain\ncontent-type=x"))
	f.Fuzz(func(t *testing.T, value, key, hdrs []byte) {
		r := &kgo.Record{Value: value, Key: key}
		if len(hdrs) > 0 {
			for line := range bytes.SplitSeq(hdrs, []byte("\n")) {
				name, v, _ := bytes.Cut(line, []byte("="))
				r.Headers = append(r.Headers, kgo.RecordHeader{Key: string(name), Value: v})
			}
		}
		m, err := kafka.Decode(catalogue.Kinds, r)
		if err != nil {
			v := gate.VerdictOf(m, err)
			if j, jerr := v.Encode(gate.MinLimit / 2); jerr != nil || len(j) > gate.MinLimit/2 {
				t.Fatalf("a verdict of %d bytes: %v", len(j), jerr)
			}
		}
		if len(value) > 0 && value[0] == kafka.Magic {
			return
		}
		want, wantErr := catalogue.Decode(value)
		r.Headers = nil
		got, gotErr := kafka.Decode(catalogue.Kinds, r)
		sameVerdict(t, value, want, wantErr, got, gotErr)
		if want == nil {
			return
		}
		if werr := ce.Kafka.Write(kafka.Header{Record: r}, want); werr != nil {
			return // no headers to write for it (a message_type that is not its schema's)
		}
		got, gotErr = kafka.Decode(catalogue.Kinds, r)
		sameVerdict(t, value, want, wantErr, got, gotErr)
	})
}

// sameVerdict fails t unless decoding value as a record gave the message
// and the error catalogue.Decode gives it.
func sameVerdict(t *testing.T, value []byte, want msg.Message, wantErr error, got msg.Message, gotErr error) {
	t.Helper()
	if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
		t.Fatalf("%q: decoded as a record: %v; by catalogue.Decode: %v", value, gotErr, wantErr)
	}
	if (want == nil) != (got == nil) {
		t.Fatalf("%q: decoded as a record: %v; by catalogue.Decode: %v", value, got, want)
	}
	if want != nil {
		a, _ := want.AppendJSON(nil)
		b, _ := got.AppendJSON(nil)
		if !bytes.Equal(a, b) {
			t.Fatalf("%q: decoded as a record: %s; by catalogue.Decode: %s", value, b, a)
		}
	}
}

// A transaction holding a bomb's dead letter that aborts (its dead
// letter refused once) leaves the bomb to come again, and it comes (found
// here: kgo, asked to consume the partition from the offset it already
// held, the bomb's, did nothing, and the partition stayed stopped for
// ever): each input ends once, nothing skipped.
func TestGateDeadLettersABombAgainAfterAnAbort(t *testing.T) {
	c, addrs := newCluster(t, 1)
	_, lines := samples(t)
	producer := readerClient(t, addrs, kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerBatchMaxBytes(16<<20))
	ctx := context.Background()
	var before []*kgo.Record
	for i := range 3 {
		before = append(before, &kgo.Record{Topic: inTopic, Value: withNewID(t, lines[1]), Headers: []kgo.RecordHeader{{Key: keyHeader, Value: []byte(strconv.Itoa(i))}}})
	}
	require.NoError(t, producer.ProduceSync(ctx, before...).FirstErr())
	require.NoError(t, producer.ProduceSync(ctx, &kgo.Record{Topic: inTopic, Value: make([]byte, 2*bombBound)}).FirstErr())
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: deadTopic, Err: kerr.MessageTooLarge})

	st := runUntilIdle(t, addrs, &kafka.Gate{Session: gateSession(t, addrs, kgo.MaxDecompressBatchBytes(bombBound))})
	assert.Equal(t, 1, fault.Hits(), "the fault was injected")
	assert.Equal(t, 3, st.Forwarded, "%+v", st)
	assert.Equal(t, 1, st.DeadLetters, "%+v", st)
	assert.Len(t, readAll(t, addrs, 3, outTopic), 3)
	assert.Len(t, readAll(t, addrs, 1, deadTopic), 1)
}
