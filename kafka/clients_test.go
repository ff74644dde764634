package kafka_test

// Records as producers and settings not tried elsewhere make them:
// tombstones and values that are no JSON object, beside the usual
// headers; transactions of the input's producer left open while a gate
// runs; kcat (librdkafka) producing idempotently, in large batches of
// each codec, with null and empty header values, repeated ce_ headers
// and keys null, empty or not the entity's.

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
)

// A value that is no JSON object, or JSON whose decoding stopped before
// the members the headers name, says nothing those headers could
// contradict: the verdict is the body's alone (found from outside: a
// tombstone, the null value a producer sends to delete an entity's key
// from a compacted topic, given the entity's usual ce_ headers, was said
// to have message_id 00000000-0000-0000-0000-000000000000 and time
// 0001-01-01T00:00:00Z, which ce_id and ce_time "contradicted"; so was
// a value cut or broken before its id).
func TestDecodeJudgesAValueThatIsNoObjectOnItsBodyAlone(t *testing.T) {
	for i := range 4 {
		r := validRecord(t, i)
		for _, value := range [][]byte{nil, {}, []byte(" "), []byte("null"), []byte("[]"), []byte(`"x"`),
			[]byte(`{"tenant_id":"club-1"`), []byte(`{"tenant_id":"club-1",}`), []byte("{\"tenant_id\":\"\xff\"}"),
			append(framing(t, i), "null"...), append(framing(t, i), r.Value[:8]...)} {
			x := *r
			x.Value = value
			_, err := kafka.Decode(catalogue.Kinds, &x)
			e, ok := errors.AsType[*msg.Error](err)
			require.True(t, ok, "%q: %v", value, err)
			for _, v := range e.Violations {
				assert.NotEqual(t, msg.RuleHeader, v.Rule, "%s: %q: %s", r.Headers, value, v)
			}
			assert.NotEmpty(t, e.Violations)
		}
	}
}

// framing returns the registry framing of the sample's valid message of
// index i.
func framing(t *testing.T, i int) []byte {
	ms, _ := samples(t)
	return kafka.AppendFrame(nil, ms[i].Identity().Kind.RegistryID)
}
