package kafka_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
)

// A tombstone (a record with no value: a deletion, on a compacted topic)
// is no message. Decoding says so, once, with the headers a producer of
// the message it deletes would write: not "unexpected end of input", nor
// their contradictions with members there are none of.
func TestDecodeSaysATombstoneIsNoMessage(t *testing.T) {
	r := validRecord(t, 0)
	r.Value = nil
	_, id, err := kafka.DecodeIdentity(catalogue.Kinds, r)
	e, ok := errors.AsType[*msg.Error](err)
	require.True(t, ok, "%v", err)
	require.Len(t, e.Violations, 1, "%v", err)
	v := e.Violations[0]
	assert.Equal(t, msg.RuleSyntax, v.Rule)
	assert.Equal(t, "", v.Path)
	assert.Equal(t, "the record has no value (a tombstone), not a message", v.Message)
	assert.NotNil(t, id.Kind, "the headers still name the schema")

	r.Value = []byte{}
	_, err = kafka.Decode(catalogue.Kinds, r)
	assert.ErrorContains(t, err, "unexpected end of input", "an empty value is JSON cut short, not a tombstone")
}

// The gate dead-letters a tombstone with its key and headers, and the
// dead letter is no tombstone itself: a consumer that passes over
// records without a value (as deletions) would never see it.
func TestGateDeadLettersATombstoneAsARecordWithAValue(t *testing.T) {
	_, addrs := newCluster(t, 1)
	tomb := validRecord(t, 0)
	tomb.Value = nil
	require.NoError(t, readerClient(t, addrs).ProduceSync(context.Background(), tomb, validRecord(t, 1)).FirstErr())
	st := runUntilIdle(t, addrs, &kafka.Gate{})
	require.Equal(t, gate.Stats{Messages: 2, Forwarded: 1, DeadLetters: 1, Bytes: st.Bytes}, st)
	dead := readAll(t, addrs, 1, deadTopic)
	require.Len(t, dead, 1)
	assert.NotNil(t, dead[0].Value, "a dead letter is a tombstone")
	assert.Empty(t, dead[0].Value)
	assert.Equal(t, tomb.Key, dead[0].Key)
	var verdict []byte
	for _, h := range dead[0].Headers {
		if h.Key == kafka.VerdictHeader {
			verdict = h.Value
		}
	}
	v, err := gate.ParseVerdict(verdict)
	require.NoError(t, err, "%s", verdict)
	require.Len(t, v.Violations, 1, "%s", verdict)
	assert.Contains(t, v.Violations[0].Message, "tombstone")
}
