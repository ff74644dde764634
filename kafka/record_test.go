package kafka_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/internal/sample"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// samples returns the valid messages of the sample stream, of all four
// schemas, and their lines.
func samples(t testing.TB) ([]msg.Message, [][]byte) {
	t.Helper()
	var ms []msg.Message
	var lines [][]byte
	all, _ := sample.Lines(t, "../testdata/messages.ndjson")
	for _, line := range all {
		if m, err := catalogue.DecodeOr(line, "example.event"); err == nil {
			ms = append(ms, m)
			lines = append(lines, line)
		}
	}
	names := map[string]bool{}
	for _, m := range ms {
		names[m.SchemaName()] = true
	}
	require.Len(t, names, 4, "the sample has valid messages of every schema")
	return ms, lines
}

// cluster starts an in-process Kafka cluster (franz-go's kfake) with the
// topics, and returns a client of it.
func cluster(t testing.TB, topics ...string) (*kfake.Cluster, *kgo.Client) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, topics...))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	client, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	require.NoError(t, err)
	t.Cleanup(client.Close)
	return c, client
}

// consumeAll reads n records from topic, from its start.
func consumeAll(t *testing.T, c *kfake.Cluster, topic string, n int) []*kgo.Record {
	t.Helper()
	client, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []*kgo.Record
	for len(out) < n {
		fs := client.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "got %d of %d records", len(out), n)
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
		out = append(out, fs.Records()...)
	}
	return out
}

func TestProducedRecordsDecodeToTheSameMessages(t *testing.T) {
	ms, _ := samples(t)
	for _, framed := range []bool{false, true} {
		topic := map[bool]string{false: "plain", true: "framed"}[framed]
		c, client := cluster(t, topic)
		p := kafka.Producer{Client: client, Framed: framed}
		for _, m := range ms {
			_, err := p.Produce(context.Background(), topic, m)
			require.NoError(t, err)
		}
		got := consumeAll(t, c, topic, len(ms))
		byKey := map[string][]msg.Message{}
		for _, r := range got {
			_, _, isFramed, err := kafka.Unframe(r.Value)
			require.NoError(t, err)
			assert.Equal(t, framed, isFramed)
			m, err := kafka.Decode(catalogue.Kinds, r)
			require.NoError(t, err)
			id := m.Identity()
			assert.Equal(t, id.Key.String(), string(r.Key), "the key is the entity's own id (decision 15)")
			assert.Equal(t, []string{"application/json"}, kafka.Header{Record: r}.Values("content-type"))
			assert.Equal(t, []string{id.Kind.ID}, kafka.Header{Record: r}.Values("ce_dataschema"))
			byKey[string(r.Key)] = append(byKey[string(r.Key)], m)
		}
		// Every message arrives once, equal to what was produced.
		for _, m := range ms {
			key := m.Identity().Key.String()
			require.NotEmpty(t, byKey[key], key)
			assert.Contains(t, byKey[key], m)
		}
	}
}

// Records made one after another share memory; each must keep its own
// bytes, whether it fits the room left or outgrows it, and writing past
// one's value must not reach the next.
func TestRecordsKeptTogetherStayIntact(t *testing.T) {
	ms, _ := samples(t)
	big, err := catalogue.DecodeOr([]byte(`{"message_type":"example.event","id":"4f5bae96-7a8b-4d4c-8c5b-be0a9f8c7d65","type":"created","occurred_at":"2026-03-01T08:00:20Z","tags":["`+strings.Repeat("x", 3000)+`"]}`), "example.event")
	require.NoError(t, err)
	var want []msg.Message
	for i := range 200 {
		want = append(want, ms[i%len(ms)])
		if i%7 == 0 {
			want = append(want, big)
		}
	}
	var rs []*kgo.Record
	for i, m := range want {
		r, err := kafka.Record("t", m, i%2 == 0)
		require.NoError(t, err)
		_ = append(r.Value, "garbage"...)
		_ = append(r.Key, "garbage"...)
		rs = append(rs, r)
	}
	for i, r := range rs {
		m, err := kafka.Decode(catalogue.Kinds, r)
		require.NoError(t, err, "record %d", i)
		assert.Equal(t, want[i], m, "record %d", i)
		assert.Equal(t, want[i].Identity().Key.String(), string(r.Key), "record %d", i)
	}
}

func TestProducerProducesNoInvalidMessage(t *testing.T) {
	c, client := cluster(t, "in")
	ms, _ := samples(t)
	d, ok := ms[0].(*device.Device)
	require.True(t, ok)
	bad := *d
	bad.IMEI = "490154203237519" // a wrong check digit
	_, err := kafka.Producer{Client: client}.Produce(context.Background(), "in", &bad)
	var e *msg.Error
	require.ErrorAs(t, err, &e)
	assert.NotEmpty(t, e.Violations)
	// Nothing reached the topic: a valid record produced after it is the
	// first one there.
	_, err = kafka.Producer{Client: client}.Produce(context.Background(), "in", ms[1])
	require.NoError(t, err)
	got := consumeAll(t, c, "in", 1)
	assert.Equal(t, ms[1].Identity().Key.String(), string(got[0].Key))
}

// record returns a record of the value with the headers, as pairs.
func record(value []byte, headers ...string) *kgo.Record {
	r := &kgo.Record{Value: value}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: headers[i], Value: []byte(headers[i+1])})
	}
	return r
}

func rulesOf(err error) []msg.Rule {
	var e *msg.Error
	if !errors.As(err, &e) {
		return nil
	}
	var rules []msg.Rule
	for _, v := range e.Violations {
		rules = append(rules, v.Rule)
	}
	return rules
}

func TestDecodeChoosesTheSchemaAsDecision15Says(t *testing.T) {
	_, lines := samples(t)
	device, vehicle := lines[0], []byte(nil)
	for _, l := range lines {
		if m, _ := catalogue.Decode(l); m != nil && m.SchemaName() == "core.vehicle" {
			vehicle = l
			break
		}
	}
	require.NotNil(t, vehicle)
	dev, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	veh, err := schemas.Lookup("core.vehicle", "1.0")
	require.NoError(t, err)
	frame := func(id int32, body []byte) []byte { return append(kafka.AppendFrame(nil, id), body...) }

	for _, tc := range []struct {
		name   string
		r      *kgo.Record
		schema string     // the schema judged by, "" for none
		rules  []msg.Rule // the rules broken, nil for a valid message
	}{
		{"plain, by message_type", record(device), "core.device", nil},
		{"framed, by its id", record(frame(dev.RegistryID, device)), "core.device", nil},
		{"framed and ce_dataschema agree", record(frame(dev.RegistryID, device), "ce_dataschema", dev.ID), "core.device", nil},
		{"ce_dataschema comes before the framing", record(frame(veh.RegistryID, device), "ce_dataschema", dev.ID), "core.device", []msg.Rule{msg.RuleHeader}},
		{"the framing comes before ce_type", record(frame(veh.RegistryID, device), "ce_type", "core.device"), "core.vehicle", []msg.Rule{msg.RuleHeader}},
		{"a framing that is not the body's schema", record(frame(veh.RegistryID, device)), "core.vehicle", []msg.Rule{msg.RuleRequired, msg.RuleHeader}},
		{"a frame cut short", record([]byte{0, 0, 0}), "", []msg.Rule{msg.RuleSyntax}},
		{"a vehicle framed as one", record(frame(veh.RegistryID, vehicle), "ce_type", "core.vehicle"), "core.vehicle", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := kafka.Decode(catalogue.Kinds, tc.r)
			if tc.schema == "" {
				assert.Nil(t, m)
			} else {
				require.NotNil(t, m, "%v", err)
				assert.Equal(t, tc.schema, m.SchemaName())
			}
			if tc.rules == nil {
				assert.NoError(t, err)
				return
			}
			assert.Subset(t, rulesOf(err), tc.rules, "%v", err)
		})
	}

	// An id the catalogue lacks chooses no schema: invalid, never skipped.
	m, err := kafka.Decode(catalogue.Kinds, record(frame(99, device)))
	assert.Nil(t, m)
	assert.ErrorIs(t, err, schemas.ErrUnknown)
}

// recordOf returns an empty record, to collect headers in.
func recordOf() *kgo.Record { return &kgo.Record{} }

// TestDecodeKeepsNoHeaderBytes pins what decoding a record without
// copying its headers relies on: nothing Decode returns, message,
// identity or error, shares memory with the record's headers, which the
// caller may reuse afterwards. Every header of a record that contradicts
// its message, each of its violations quoting the header, is overwritten
// after decoding, and what was returned reads the same.
func TestDecodeKeepsNoHeaderBytes(t *testing.T) {
	ms, _ := samples(t)
	r, err := kafka.Record("t", ms[0], false)
	require.NoError(t, err)
	for _, h := range [][2]string{
		{"content-type", "text/plain"}, {"ce_specversion", "0.3"}, {"ce_id", "not a uuid"},
		{"ce_type", "core.nothing"}, {"ce_source", "/elsewhere"}, {"ce_time", "yesterday"},
		{"ce_dataschema", "https://example.com/nothing"}, {"ce_specversion", "given twice"},
	} {
		t.Run(h[0]+"="+h[1], func(t *testing.T) {
			in := *r
			in.Headers = nil
			for _, rh := range r.Headers {
				if rh.Key == h[0] && h[1] != "given twice" {
					rh.Value = []byte(h[1])
				}
				in.Headers = append(in.Headers, kgo.RecordHeader{Key: rh.Key, Value: append([]byte(nil), rh.Value...)})
			}
			if h[1] == "given twice" {
				in.Headers = append(in.Headers, kgo.RecordHeader{Key: h[0], Value: []byte(h[1])})
			}
			m, id, err := kafka.DecodeIdentity(catalogue.Kinds, &in)
			require.Error(t, err)
			before := returned(t, m, id, err)
			require.Contains(t, before, h[1], "a violation quotes the header")
			for _, rh := range in.Headers {
				for i := range rh.Value {
					rh.Value[i] = 'X'
				}
			}
			assert.Equal(t, before, returned(t, m, id, err))
		})
	}
}

// returned is what decoding returned, as text: the message's JSON, its
// identity and every violation, each field of it.
func returned(t *testing.T, m msg.Message, id msg.Identity, err error) string {
	var b strings.Builder
	if m != nil {
		j, jerr := m.AppendJSON(nil)
		require.NoError(t, jerr)
		b.Write(j)
		for _, s := range []string{id.Key.String(), id.ID.String(), id.Type, id.Time.String()} {
			b.WriteString("\n" + s)
		}
	}
	b.WriteString("\n" + err.Error())
	if e, ok := errors.AsType[*msg.Error](err); ok {
		for _, v := range e.Violations {
			for _, s := range []string{v.Path, string(v.Rule), v.Message, v.Value} {
				b.WriteString("\n" + s)
			}
		}
	}
	return b.String()
}

// A consumer decodes as the gate judges: a header named as one of the
// ce_ headers in another case, or up to a NUL byte (as librdkafka reads
// a header's name: see TestKcatReadsNoForgedHeaderOnACopy), or by the
// HTTP binding's prefix (ce-type, as a bridge from Kafka to HTTP passes
// it on beside the ce-type it makes of ce_type), must say what that one
// says, or the record is invalid, with a violation of rule header; one
// that agrees is kept.
func TestDecodeRefusesHeadersThatShadowTheCatalogues(t *testing.T) {
	ms, _ := samples(t)
	m := ms[0]
	r, err := kafka.Record("t", m, false)
	require.NoError(t, err)
	id := m.Identity()
	for _, c := range []struct {
		key, value string
		ok         bool
	}{
		{"CE_TYPE", "core.vehicle", false},
		{"Ce_Id", "6f1c6f0e-0000-4000-8000-000000000000", false},
		{"Content-Type", "text/plain", false},
		{"CE_TYPE", id.Kind.Name, true},
		{"X-Other", "anything", true},
		{"ce_type\x00junk", "core.vehicle", false},
		{"CE_TYPE\x00", "core.vehicle", false},
		{"content-type\x00\n", "text/plain", false},
		{"ce_type\x00", id.Kind.Name, true},
		{"ce_typo\x00", "core.vehicle", true},
		{"\x00ce_type", "core.vehicle", true},
		{"ce-type", "core.vehicle", false},
		{"CE-Id", "6f1c6f0e-0000-4000-8000-000000000000", false},
		{"ce-dataschema\x00", "https://example.com/api/schemas/core.vehicle/versions/1.0", false},
		{"ce-type", id.Kind.Name, true},
		{"ce-typo", "core.vehicle", true},
		{"ce-", "core.vehicle", true},
	} {
		shadowed := *r
		shadowed.Headers = append(slices.Clip(r.Headers), kgo.RecordHeader{Key: c.key, Value: []byte(c.value)})
		got, err := kafka.Decode(catalogue.Kinds, &shadowed)
		if c.ok {
			require.NoError(t, err, "%s: %s", c.key, c.value)
			assert.Equal(t, m, got)
			continue
		}
		var e *msg.Error
		require.ErrorAs(t, err, &e, "%s: %s", c.key, c.value)
		require.Len(t, e.Violations, 1)
		assert.Equal(t, msg.RuleHeader, e.Violations[0].Rule)
		assert.Contains(t, e.Violations[0].Message, msg.Escape(c.key))
		assert.NotContains(t, e.Violations[0].Message, "\x00")
	}
}
