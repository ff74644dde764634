package kafka_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// A value whose framing names a registry id the catalogue does not have
// is judged by no schema, but its headers that need none still are: a
// content type that is not application/json and a header given twice
// are listed after the unknown id, in every mode of decoding, and the
// error still wraps schemas.ErrUnknown. With headers that break nothing,
// the error is the unknown id's alone.
func TestDecodeChecksTheHeadersBesideAnUnknownRegistryID(t *testing.T) {
	r := validRecord(t, 0)
	framed := func(hs ...kgo.RecordHeader) *kgo.Record {
		return &kgo.Record{Topic: r.Topic, Value: append(kafka.AppendFrame(nil, 999_999), r.Value...), Headers: hs}
	}
	var kept []kgo.RecordHeader
	for _, h := range r.Headers {
		if h.Key != "ce_dataschema" && h.Key != "ce_type" && h.Key != "content-type" {
			kept = append(kept, h)
		}
	}
	clean := framed(kept...)
	broken := framed(append(kept,
		kgo.RecordHeader{Key: "content-type", Value: []byte("application/cloudevents+json")},
		kgo.RecordHeader{Key: "ce_specversion", Value: []byte("1.0")})...)
	for name, decode := range map[string]func(r *kgo.Record) error{
		"Decode": func(r *kgo.Record) error { _, err := kafka.Decode(catalogue.Kinds, r); return err },
		"DecodeIdentity": func(r *kgo.Record) error {
			_, _, err := kafka.DecodeIdentity(catalogue.Kinds, r)
			return err
		},
	} {
		err := decode(clean)
		require.ErrorIs(t, err, schemas.ErrUnknown, name)
		assert.EqualError(t, err, "the value's framing names registry id 999999: unknown schema", name)

		err = decode(broken)
		require.ErrorIs(t, err, schemas.ErrUnknown, name)
		e, ok := errors.AsType[*msg.Error](err)
		require.True(t, ok, "%s: %v", name, err)
		var texts []string
		for _, v := range e.Violations {
			texts = append(texts, string(v.Rule)+": "+v.Message)
		}
		assert.Equal(t, []string{
			"schema: the value's framing names registry id 999999: unknown schema",
			"header: ce_specversion is given 2 times, want once",
			"header: content-type is not application/json",
		}, texts, name)
	}
}
