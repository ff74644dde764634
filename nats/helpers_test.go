package nats

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats-server/v2/server"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/internal/sample"
	"github.com/fleetkit/catalogue/internal/serverproc"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/nats/internal/embedded"
	"github.com/fleetkit/catalogue/vehicle"
)

// broker is a NATS server with JetStream, run by a test, with its store in
// a temporary folder, and a client of it.
type broker struct {
	t    testing.TB
	dir  string
	srv  *server.Server
	proc *serverproc.Process // instead of srv, a server in a process of its own
	url  string
	nc   *natsgo.Conn
	js   jetstream.JetStream
}

// startBroker starts a server, connects to it and makes the streams IN
// (in.>), OUT (out) and DEAD (dead).
func startBroker(t testing.TB) *broker { return startBrokerWith(t, 0) }

// startBrokerWith is startBroker with a server that takes messages of up
// to maxPayload bytes (0: embedded.Start's default).
func startBrokerWith(t testing.TB, maxPayload int) *broker {
	b := &broker{t: t, dir: t.TempDir()}
	var err error
	b.srv, err = embedded.Start(b.dir, -1, maxPayload)
	require.NoError(t, err)
	t.Cleanup(func() { b.srv.Shutdown(); b.srv.WaitForShutdown() })
	b.url = b.srv.ClientURL()
	b.makeStreams()
	return b
}

// makeStreams connects to the server and makes the streams of
// startBroker.
func (b *broker) makeStreams() {
	t := b.t
	b.nc, b.js = b.connect()
	for name, subject := range map[string]string{"IN": "in.>", "OUT": "out", "DEAD": "dead"} {
		_, err := b.js.CreateStream(context.Background(), streamConfig(name, subject))
		require.NoError(t, err)
	}
}

// streamConfig is the configuration of a stream of the tests: on file,
// each message id kept ten minutes to refuse duplicates.
func streamConfig(name, subject string) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:       name,
		Subjects:   []string{subject},
		Storage:    jetstream.FileStorage,
		Duplicates: 10 * time.Minute,
	}
}

// stop closes the client and stops the server, before the test's end;
// the cleanups that would do it then find it done.
func (b *broker) stop() {
	b.nc.Close()
	if b.proc != nil {
		b.proc.Stop()
		return
	}
	b.srv.Shutdown()
	b.srv.WaitForShutdown()
}

// connect returns a new client of the server, which reconnects for ever.
func (b *broker) connect() (*natsgo.Conn, jetstream.JetStream) {
	return connect(b.t, b.url)
}

// connect returns a new client of the server at url, closed when the
// test ends, which reconnects for ever, with options added.
func connect(t testing.TB, url string, options ...natsgo.Option) (*natsgo.Conn, jetstream.JetStream) {
	nc, err := natsgo.Connect(url, append([]natsgo.Option{natsgo.MaxReconnects(-1), natsgo.ReconnectWait(50 * time.Millisecond)}, options...)...)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4096), jetstream.WithPublishAsyncTimeout(5*time.Second))
	require.NoError(t, err)
	return nc, js
}

// restart stops the server and starts another over the same store and
// port.
func (b *broker) restart() {
	b.startAgain(b.shutdown(), 0)
}

// shutdown stops the server, and returns its port.
func (b *broker) shutdown() int {
	port := embedded.Port(b.srv)
	b.srv.Shutdown()
	b.srv.WaitForShutdown()
	return port
}

// startAgain starts a server over the store of the one stopped, on port,
// taking messages of up to maxPayload bytes.
func (b *broker) startAgain(port, maxPayload int) {
	var err error
	b.srv, err = embedded.Start(b.dir, port, maxPayload)
	require.NoError(b.t, err)
}

// durable makes a durable consumer of subject.
func (b *broker) durable(name, subject string, edit ...func(*jetstream.ConsumerConfig)) jetstream.Consumer {
	cfg := DurableConfig(name, subject)
	for _, e := range edit {
		e(&cfg)
	}
	c, err := b.js.CreateOrUpdateConsumer(context.Background(), "IN", cfg)
	require.NoError(b.t, err)
	return c
}

// publishValid publishes n valid messages of g to in.x, each with its
// headers, as a Publisher does.
func (b *broker) publishValid(g *gen, n int) {
	for range n {
		m, err := newMsg("in.x", g.valid())
		require.NoError(b.t, err)
		_, err = b.js.PublishMsg(context.Background(), m)
		require.NoError(b.t, err)
	}
}

// stream returns a stream, which must exist.
func (b *broker) stream(name string) jetstream.Stream {
	s, err := b.js.Stream(context.Background(), name)
	require.NoError(b.t, err)
	return s
}

// incarnation returns the incarnation of a stream, as the ids of its
// dead letters name it.
func (b *broker) incarnation(stream string) string {
	return incarnation(b.stream(stream).CachedInfo())
}

// all reads every message of a stream.
func (b *broker) all(stream string) []*jetstream.RawStreamMsg {
	return messagesOf(b.t, b.stream(stream))
}

// messagesOf reads every message of stream s, one request each, each
// waited for up to answerWait.
func messagesOf(t testing.TB, s jetstream.Stream) []*jetstream.RawStreamMsg {
	ctx, cancel := context.WithTimeout(context.Background(), answerWait)
	info, err := s.Info(ctx)
	cancel()
	require.NoError(t, err)
	var out []*jetstream.RawStreamMsg
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		ctx, cancel := context.WithTimeout(context.Background(), answerWait)
		m, err := s.GetMsg(ctx, seq)
		cancel()
		require.NoError(t, err, "message %d of %d", seq, info.State.LastSeq)
		out = append(out, m)
	}
	return out
}

// answerWait is how long a test waits for one answer of the server
// before it fails. jetstream's default, 5 s a request, was too little on
// a loaded machine with the server in the process under the race
// detector: of the thousands of requests reading back
// TestGateContract's streams, one went unanswered for 5 s and failed the
// test with "context deadline exceeded". A server that answers nothing
// for a minute still fails it.
const answerWait = time.Minute

// count returns the number of messages in a stream.
func (b *broker) count(stream string) uint64 {
	info, err := b.stream(stream).Info(context.Background())
	require.NoError(b.t, err)
	return info.State.Msgs
}

// corpus returns the non-blank lines of the sample stream, with their
// line numbers.
func corpus(t testing.TB) (lines [][]byte, numbers []int) {
	return sample.Lines(t, "../testdata/messages.ndjson")
}

// gen makes random messages of the four schemas.
type gen struct {
	src *rand.ChaCha8 // r's source, and the uuids' reader
	r   *rand.Rand
}

func newGen(seed uint64) *gen {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	src := rand.NewChaCha8(key)
	return &gen{src, rand.New(src)}
}

// uuid returns a random version 4 uuid.
func (g *gen) uuid() uuid.UUID { return uuid.Must(uuid.NewRandomFromReader(g.src)) }

func (g *gen) word(prefix string) string { return fmt.Sprintf("%s-%d", prefix, g.r.IntN(10000)) }

func (g *gen) time() time.Time {
	zones := []*time.Location{time.UTC, time.FixedZone("", 2*3600), time.FixedZone("", -5*3600-1800)}
	return time.Unix(1.7e9+g.r.Int64N(1e8), g.r.Int64N(1e9)).In(zones[g.r.IntN(len(zones))])
}

// imeis are valid IMEIs.
var imeis = []string{"490154203237518", "356938035643809", ""}

// valid returns a valid message of a random schema.
func (g *gen) valid() catalogue.Message {
	switch g.r.IntN(4) {
	case 0:
		d := device.New()
		d.MessageID, d.DeviceID = g.uuid(), g.uuid()
		d.SourceID, d.SourceType, d.TenantID = g.word("dev"), "tracker", g.word("club")
		d.Time = g.time()
		d.ExternalID = g.word("ext")
		d.IMEI = imeis[g.r.IntN(len(imeis))]
		d.Model, d.Allowed = g.word("FMB"), g.r.IntN(2) == 0
		return d
	case 1:
		v := vehicle.New()
		v.MessageID, v.SourceID, v.VehicleID = g.uuid(), g.uuid(), g.uuid()
		v.SourceType, v.TenantID, v.Time = "CORE", g.word("club"), g.time()
		v.Make = msg.Of(g.word("make"))
		v.SeedOdo = g.r.Int64N(1e6)
		v.ConsentStatus = msg.Of(vehicle.ConsentStatusApproved)
		return v
	case 2:
		a := association.New()
		a.MessageID, a.AssociationID, a.DeviceID = g.uuid(), g.uuid(), g.uuid()
		a.SourceID, a.TenantID, a.Time = g.word("dev"), g.word("club"), g.time()
		if g.r.IntN(2) == 0 {
			a.SourceType = msg.Of("tracker")
		}
		a.Tags = []string{g.word("fleet")}
		return a
	default:
		e := event.New()
		e.ID, e.Type, e.OccurredAt = g.uuid(), event.TypeCreated, g.time()
		p := g.r.Int64N(10)
		e.Priority = &p
		return e
	}
}

// invalid returns a message that must be dead-lettered, in one of several
// ways, with a unique key for its Nats-Msg-Id.
func (g *gen) invalid(t testing.TB, key string) *natsgo.Msg {
	m, err := newMsg("in.x", g.valid())
	require.NoError(t, err)
	m.Header.Set(jetstream.MsgIDHeader, key)
	switch g.r.IntN(5) {
	case 0: // a body that breaks its schema: the id not a uuid
		m.Data = bytes.Replace(m.Data, []byte(`id":"`), []byte(`id":"x`), 1)
	case 1: // not JSON
		m.Data = m.Data[:len(m.Data)/2]
	case 2: // a header that contradicts the body
		m.Header.Set("ce-id", g.uuid().String())
	case 3: // a header naming another schema
		if m.Header.Get("ce-type") == device.Name {
			m.Header.Set("ce-dataschema", vehicle.ID)
		} else {
			m.Header.Set("ce-dataschema", device.ID)
		}
		m.Header.Del("ce-type")
	default: // no headers, and an event has no message_type
		m.Header = natsgo.Header{jetstream.MsgIDHeader: {key}}
		e := event.New()
		e.ID, e.Type, e.OccurredAt = g.uuid(), event.TypeDeleted, g.time()
		m.Data, err = e.MarshalJSON()
		require.NoError(t, err)
	}
	return m
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func jsonOf(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// rawPublish publishes body to subject with the header block block as it
// is, through the NATS protocol itself: nats.go refuses to send header
// names it does not allow, and a producer need not use it.
func rawPublish(t testing.TB, serverURL, subject, block string, body []byte) {
	u, err := url.Parse(serverURL)
	require.NoError(t, err)
	c, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer c.Close()
	r := bufio.NewReader(c)
	_, err = r.ReadString('\n') // INFO
	require.NoError(t, err)
	fmt.Fprintf(c, "CONNECT {\"headers\":true,\"verbose\":false,\"pedantic\":false,\"protocol\":1}\r\n")
	fmt.Fprintf(c, "HPUB %s %d %d\r\n%s%s\r\nPING\r\n", subject, len(block), len(block)+len(body), block, body)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "PONG\r\n", line)
}
