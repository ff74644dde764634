package kafka_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

func TestFrameRoundTrips(t *testing.T) {
	body := []byte(`{"id":"x"}`)
	for _, id := range []int32{1, 4, 256, 1 << 24, 2147483647} {
		value := append(kafka.AppendFrame(nil, id), body...)
		assert.Len(t, value, kafka.FrameSize+len(body))
		got, msg, framed, err := kafka.Unframe(value)
		require.NoError(t, err)
		assert.True(t, framed)
		assert.Equal(t, id, got)
		assert.Equal(t, body, msg)
	}
	assert.Equal(t, []byte{0, 0, 0, 1, 2}, kafka.AppendFrame(nil, 258))
}

// TestRegistryLookupAllocatesNothing pins the issue's "a registry lookup
// by id: no allocation on the hot path": a consumer of framed records
// reads the id from the frame and looks its schema up, record after
// record, in the generated kinds table.
func TestRegistryLookupAllocatesNothing(t *testing.T) {
	ids := map[int32]bool{}
	for _, s := range schemas.All() {
		ids[s.RegistryID] = true
		value := append(kafka.AppendFrame(nil, s.RegistryID), `{}`...)
		var k *msg.Kind
		allocs := testing.AllocsPerRun(100, func() {
			id, _, _, err := kafka.Unframe(value)
			if err != nil {
				panic(err)
			}
			k = catalogue.Kinds.LookupRegistryID(id)
		})
		assert.Zero(t, allocs, s.Name)
		require.NotNil(t, k, s.Name)
		assert.Equal(t, s.RegistryID, k.RegistryID)
	}
	assert.Len(t, ids, len(schemas.All()), "one id a schema version")
}

func TestUnframeLeavesJSONAsItIs(t *testing.T) {
	for _, v := range []string{`{}`, ` {}`, `[`, ``, "\x01\x00\x00\x00\x01{}"} {
		id, msg, framed, err := kafka.Unframe([]byte(v))
		require.NoError(t, err, "%q", v)
		assert.False(t, framed)
		assert.Zero(t, id)
		assert.Equal(t, v, string(msg))
	}
}

func TestUnframeRefusesAShortOrNonPositiveFrame(t *testing.T) {
	for _, v := range []string{"\x00", "\x00\x00\x00\x01", "\x00\x00\x00\x00\x00{}", "\x00\x80\x00\x00\x00{}", "\x00\xff\xff\xff\xff"} {
		_, _, framed, err := kafka.Unframe([]byte(v))
		assert.True(t, framed, "%q", v)
		assert.Error(t, err, "%q", v)
	}
}

func FuzzUnframe(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x00\x02{}"))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, value []byte) {
		id, msg, framed, err := kafka.Unframe(value)
		if !framed {
			if err != nil || string(msg) != string(value) {
				t.Fatalf("unframed %q: %q, %v", value, msg, err)
			}
			return
		}
		if err != nil {
			return
		}
		if again := append(kafka.AppendFrame(nil, id), msg...); string(again) != string(value) {
			t.Fatalf("reframed %q as %q", value, again)
		}
	})
}
