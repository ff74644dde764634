package nats

import (
	"context"
	"fmt"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/internal/fixture"
)

// A schema the published catalogue does not have, at three versions over
// two majors (the fixture catalogue, demo.sensor 1.0, 1.1 and 2.0), goes
// through the gate with no hand edit: the gate takes the generated table
// of kinds, forwards each version's valid messages with that version's
// headers, and dead-letters a message that only a later major accepts.
func TestGateCarriesAFifthSchemaAndANewMajor(t *testing.T) {
	b := startBroker(t)
	ctx := context.Background()
	body := func(id int, kind string) []byte {
		return fmt.Appendf(nil, `{"message_id":"7c9e6679-7425-40de-944b-%012d","message_type":"demo.sensor",`+
			`"sensor_id":"0f8fad5b-d9cb-469f-a165-70867728950e","kind":%q,"level":50,"time":"2024-05-01T12:00:00Z"}`, id, kind)
	}
	publish := func(i int, kindName, version, value string) {
		k := fixture.Kinds.Lookup(kindName, version)
		require.NotNil(t, k, "%s %s", kindName, version)
		m := k.New()
		require.NoError(t, m.UnmarshalJSON(body(i, "temperature")))
		out := &natsgo.Msg{Subject: "in.sensor", Header: natsgo.Header{}, Data: body(i, value)}
		require.NoError(t, ce.NATS.Write(out.Header, m)) // the headers of its version
		_, err := b.js.PublishMsg(ctx, out)
		require.NoError(t, err)
	}
	kinds := fixture.Kinds.All()
	require.Len(t, kinds, 3)
	for i, k := range kinds {
		publish(i, k.Name, k.Version, "temperature")
	}
	publish(10, "demo.sensor", "2.0", "pressure") // a kind major 2 adds
	publish(11, "demo.sensor", "1.1", "pressure") // which major 1 refuses

	g := &Gate{JetStream: b.js, From: b.durable("gate", "in.>"), Output: "out", DeadLetter: "dead",
		UntilIdle: true, MaxWait: 100 * time.Millisecond, Kinds: fixture.Kinds}
	st, err := g.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 4, st.Forwarded)
	assert.Equal(t, 1, st.DeadLetters)

	var schemas []string
	b.readStream("OUT", 4, func(m jetstream.Msg) {
		schemas = append(schemas, m.Headers().Get("ce-dataschema"))
		assert.Equal(t, "demo.sensor", m.Headers().Get("ce-type"))
	})
	assert.Equal(t, []string{kinds[0].ID, kinds[1].ID, kinds[2].ID, fixture.Kinds.Lookup("demo.sensor", "2.0").ID}, schemas)
	b.readStream("DEAD", 1, func(m jetstream.Msg) {
		v, err := ParseVerdict(m.Headers())
		require.NoError(t, err)
		assert.Equal(t, "demo.sensor", v.Schema)
		assert.Equal(t, "1.1", v.Version)
		require.NotEmpty(t, v.Violations)
		assert.Equal(t, "/kind", v.Violations[0].Path)
	})
}
