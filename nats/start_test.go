package nats

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A gate that cannot work is refused before it changes anything on the
// server, and an operator's mistake in its subjects or its durable's name
// is refused, not waited out: a subject that covers the output picked
// the output's stream to make the durable consumer on (and on an
// interest-based stream, that consumer would hold every copy); an output
// that is the dead-letter subject mixed dead letters into the output; an
// output with a wildcard was taken as a subject to publish to; and an
// invalid durable name was retried for ever.
func TestGateRefusesMistakesBeforeMakingItsConsumer(t *testing.T) {
	b := startBroker(t)
	for _, c := range []struct {
		name                   string
		in, out, dead, durable string
		says                   string
	}{
		{"input covers every stream", ">", "out", "dead", "gate", "covers the output"},
		{"input covers the dead letters", "*", "out", "dead", "gate", "covers the output"},
		{"output is the dead letters", "in.>", "dead", "dead", "gate", "dead-letter subject"},
		{"output with a wildcard", "in.>", "out.*", "dead", "gate", "wildcard"},
		{"dead letters with a wildcard", "in.>", "out", ">", "gate", "wildcard"},
		{"a durable name JetStream refuses", "in.>", "out", "dead", "a.b", "a.b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			g := &Gate{JetStream: b.js, Input: c.in, Durable: c.durable, Output: c.out, DeadLetter: c.dead, UntilIdle: true}
			_, err := g.Run(ctx)
			require.ErrorIs(t, err, ErrRefused)
			assert.Contains(t, err.Error(), c.says)
			for _, stream := range []string{"IN", "OUT", "DEAD"} {
				for name := range b.stream(stream).ConsumerNames(ctx).Name() {
					t.Errorf("stream %s has a consumer %s, made by a gate refused", stream, name)
				}
			}
		})
	}
}
