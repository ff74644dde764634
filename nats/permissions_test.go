package nats

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/nats/internal/embedded"
)

// guarded is a broker whose server has two users: admin, the test's, who
// may do anything, and gate, whose permissions the test sets, and changes
// while the server runs.
type guarded struct {
	*broker
	opts *server.Options // the server's, to reload with other permissions
}

// startGuarded starts a server whose user gate has permissions perms,
// and makes the streams of startBroker as admin.
func startGuarded(t *testing.T, perms *server.Permissions) *guarded {
	g := &guarded{broker: &broker{t: t, dir: t.TempDir()}}
	var err error
	g.srv, err = embedded.Start(g.dir, -1, 0, func(o *server.Options) {
		o.Users = []*server.User{
			{Username: "admin", Password: "admin"},
			{Username: "gate", Password: "gate", Permissions: perms},
		}
		g.opts = o
	})
	require.NoError(t, err)
	t.Cleanup(func() { g.srv.Shutdown(); g.srv.WaitForShutdown() })
	g.url = g.as("admin")
	g.makeStreams()
	return g
}

// as returns the server's URL with the credentials of user.
func (g *guarded) as(user string) string {
	u, err := url.Parse(g.srv.ClientURL())
	require.NoError(g.t, err)
	u.User = url.UserPassword(user, user)
	return u.String()
}

// permit gives the user gate permissions perms, on the running server.
func (g *guarded) permit(perms *server.Permissions) {
	o := g.opts.Clone()
	o.Users[1].Permissions = perms
	require.NoError(g.t, g.srv.ReloadOptions(o))
	g.opts = o
}

// deny returns permissions that deny publishing to subjects, and allow
// the rest.
func deny(subjects ...string) *server.Permissions {
	return &server.Permissions{Publish: &server.SubjectPermission{Deny: subjects}}
}

// readingMessages are the subjects of the JetStream API that read a
// stream's messages one by one, as the gate reads the copy stored under
// an id to compare it with a message reusing the id.
var readingMessages = []string{"$JS.API.STREAM.MSG.GET.>", "$JS.API.DIRECT.GET.>"}

// gateAs returns a gate of in.> through the durable gate, connected as
// the user gate.
func (g *guarded) gateAs() *Gate {
	_, js := connect(g.t, g.as("gate"))
	return &Gate{JetStream: js, Input: "in.>", Durable: "gate", Output: "out", DeadLetter: "dead", MaxWait: 100 * time.Millisecond}
}

// publishTwice publishes a valid message twice, under two Nats-Msg-Ids:
// the gate finds the second's copy a duplicate of the first's, and reads
// the first to compare them.
func (g *guarded) publishTwice(seed uint64) {
	m, err := newMsg("in.x", newGen(seed).valid())
	require.NoError(g.t, err)
	for _, key := range []string{"first", "again"} {
		m.Header.Set(jetstream.MsgIDHeader, key)
		_, err := g.js.PublishMsg(context.Background(), m)
		require.NoError(g.t, err)
	}
}

// A gate whose credentials cannot read the output stream's messages
// cannot tell a redelivery from another message reusing its id: it
// refuses to start, saying so. It started, and then retried the
// comparison of the first message that came again for ever.
func TestGateRefusesCredentialsThatCannotReadItsOutput(t *testing.T) {
	g := startGuarded(t, deny(readingMessages...))
	g.publishTwice(51)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gt := g.gateAs()
	gt.UntilIdle = true
	_, err := gt.Run(ctx)
	require.ErrorIs(t, err, ErrRefused)
	assert.Contains(t, err.Error(), "may not read the output stream OUT")
	assert.NoError(t, ctx.Err(), "refused at once")
}

// A gate whose credentials lose the right to read the output stream, or
// to publish its copies or dead letters, while it runs stops with an
// error that says so, rather than retry for ever; the messages it could
// not end come again to the next gate, which ends each once.
func TestGateStopsWhenItsCredentialsLoseARight(t *testing.T) {
	for _, c := range []struct {
		name   string
		denied []string
		says   string
	}{
		{"read the output", readingMessages, "may not read the output stream OUT"},
		{"publish copies", []string{"out"}, `may not publish to the output subject out`},
		{"publish dead letters", []string{"dead"}, `may not publish to the dead-letter subject dead`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each waits out a store's timeout
			g := startGuarded(t, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			run := goGate(ctx, g.gateAs())
			defer run.stop()
			gen := newGen(52)
			g.started(gen)
			g.permit(deny(c.denied...))
			g.publishTwice(53)
			bad := gen.invalid(t, "bad")
			_, err := g.js.PublishMsg(ctx, bad)
			require.NoError(t, err)
			err = run.wait(t, 30*time.Second)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.says)

			// Given its rights again, the next gate ends what is left.
			g.permit(nil)
			gt := g.gateAs()
			gt.UntilIdle = true
			_, err = gt.Run(ctx)
			require.NoError(t, err)
			out, dead := g.count("OUT"), g.count("DEAD")
			assert.EqualValues(t, 1, dead, "the invalid message")
			assert.GreaterOrEqual(t, out, uint64(2))
			ids := map[string]int{}
			for _, m := range g.all("OUT") {
				ids[m.Header.Get("ce-id")]++
			}
			for id, n := range ids {
				assert.Equal(t, 1, n, "%s forwarded %d times", id, n)
			}
			info, err := g.stream("IN").Info(ctx)
			require.NoError(t, err)
			assert.EqualValues(t, info.State.Msgs, out+dead+1, "each input ended once, the one published twice a redelivery")
		})
	}
}
