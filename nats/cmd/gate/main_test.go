package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/cmdtest"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/nats/internal/embedded"
	"github.com/fleetkit/catalogue/ndjson"
)

// The README's one command: the sample stream, published, gated, and
// split into valid messages and dead letters, each dead letter printed as
// msgcheck check prints the message.
func TestDemoSplitsTheSampleStream(t *testing.T) {
	const file = "../../../testdata/messages.ndjson"
	var stdout, stderr bytes.Buffer
	status := run(context.Background(), []string{"demo", "-publish", file}, &stdout, &stderr)
	require.Equal(t, 1, status, "stderr: %s", stderr.String())

	// What msgcheck says of each line, as published (without its newline).
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var want []string
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		_, err := ndjson.Check(context.Background(), bytes.NewReader(line), ndjson.Options{}, func(r ndjson.Result) error {
			if !r.Valid() {
				schema := r.Schema
				if schema == "" {
					schema = "?"
				}
				want = append(want, file+":"+strconv.Itoa(i+1)+": "+schema+": "+(&msg.Error{Violations: r.Violations()}).Error())
			}
			return nil
		})
		require.NoError(t, err)
	}
	want = append(want,
		"stream IN (fleet.in.>): 37 messages",
		"stream VALID (fleet.valid): 23 messages",
		"stream DEAD (fleet.dead): 14 messages")
	assert.Equal(t, strings.Join(want, "\n")+"\n", stdout.String())
	assert.Contains(t, stderr.String(), "gate: 37 messages, 23 forwarded to fleet.valid, 14 dead letters to fleet.dead; 0 redeliveries, 0 retries")
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-batch", "0"},
		{"-creds", "x.creds"},
		{"-server", "nats://127.0.0.1:1", "-publish", "x"},
		{}, // no -server: the demonstration is a subcommand
		{"demo", "-server", "nats://127.0.0.1:1"},
		{"extra"},
		{"-nope"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), args, &stdout, &stderr), "%q", args)
		assert.Contains(t, stderr.String(), "usage: gate", "%q", args)
	}
}

// Nothing from a message, nor its headers, starts a line of its own.
func TestDeadLetterLinesCannotBeForged(t *testing.T) {
	var out bytes.Buffer
	h := natsgo.Header{}
	h.Set("Catalogue-Verdict", `{"subject":"s","stream":"IN","sequence":3,"schema":"core.device","valid":false,"violations":[{"path":"/a\nb","rule":"type","message":"x\r\ny"}]}`)
	h.Set("Catalogue-Original-Nats-Msg-Id", "id\x1b[2J")
	writeDeadLetter(&out, h)
	assert.Equal(t, 1, strings.Count(out.String(), "\n"), out.String())
	assert.NotContains(t, out.String(), "\x1b")
}

// TestMain runs the command itself when the tests start the test binary
// as it (cmdtest.Start), so that they send it real signals.
func TestMain(m *testing.M) {
	cmdtest.Main(main)
	os.Exit(m.Run())
}

// server is a NATS server for the command to gate: streams IN (fleet.in.>),
// VALID (fleet.valid) and DEAD (fleet.dead), unless told otherwise.
type server struct {
	dir  string
	port int
	srv  *natsserver.Server
	js   jetstream.JetStream
}

// freePort returns a port nothing listens on.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (s *server) url() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

// up starts the server, and makes its streams the first time.
func (s *server) up(t *testing.T, streams ...string) {
	var err error
	s.srv, err = embedded.Start(s.dir, s.port, 0)
	require.NoError(t, err)
	t.Cleanup(s.srv.Shutdown)
	if s.js != nil {
		return
	}
	nc, err := natsgo.Connect(s.url(), natsgo.MaxReconnects(-1), natsgo.ReconnectWait(20*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	s.js, err = jetstream.New(nc)
	require.NoError(t, err)
	for _, name := range streams {
		subject := map[string]string{"IN": "fleet.in.>", "VALID": "fleet.valid", "DEAD": "fleet.dead"}[name]
		_, err := s.js.CreateStream(context.Background(), jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Storage: jetstream.FileStorage})
		require.NoError(t, err)
	}
}

func (s *server) down() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
}

// publish publishes the sample's lines to fleet.in.x.
func (s *server) publish(t *testing.T) int {
	n := 0
	for line := range bytes.Lines(sample) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			_, err := s.js.Publish(context.Background(), "fleet.in.x", line)
			require.NoError(t, err)
			n++
		}
	}
	return n
}

// count returns the number of messages in a stream.
func (s *server) count(t *testing.T, stream string) int {
	st, err := s.js.Stream(context.Background(), stream)
	require.NoError(t, err)
	info, err := st.Info(context.Background())
	require.NoError(t, err)
	return int(info.State.Msgs)
}

// waitGated waits until the gate run by c has gated n messages in all:
// stored in VALID and DEAD, and their inputs acknowledged, so that it has
// counted them (a copy stored whose acknowledgement a lost connection or
// server kept from the gate would come again, as a redelivery).
func (s *server) waitGated(t *testing.T, c *cmdtest.Command, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); s.count(t, "VALID")+s.count(t, "DEAD") < n || !s.acked(t); {
		require.True(t, time.Now().Before(deadline), "gated %d of %d; the gate logged:\n%s", s.count(t, "VALID")+s.count(t, "DEAD"), n, c.Log())
		time.Sleep(20 * time.Millisecond)
	}
}

// acked reports whether the gates' durable consumer of IN has been
// given every message and has had each acknowledged.
func (s *server) acked(t *testing.T) bool {
	c, err := s.js.Consumer(context.Background(), "IN", "gate")
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		return false
	}
	require.NoError(t, err)
	info, err := c.Info(context.Background())
	require.NoError(t, err)
	return info.NumPending == 0 && info.NumAckPending == 0
}

// An operator's gate: started before its server, it waits for it; it logs
// losing the server and finding it again; SIGTERM and SIGINT both stop it
// with its summary and status 0.
func TestGateWaitsLogsAndStopsOnSignals(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			// The streams are made, and stored, before the gate starts:
			// made once the server is up, a gate retrying all the while
			// could find them missing and refuse to start.
			s := &server{dir: t.TempDir(), port: freePort(t)}
			s.up(t, "IN", "VALID", "DEAD")
			s.down()
			c := cmdtest.Start(t, t.TempDir(), "-server", s.url())
			c.WaitLog(t, "cannot start yet")
			s.up(t)
			s.waitGated(t, c, s.publish(t))
			s.down()
			c.WaitLog(t, "lost the server")
			s.up(t)
			c.WaitLog(t, "reconnected")
			c.Signal(t, sig)
			assert.Equal(t, 0, c.Exit(t), c.Log())
			assert.Contains(t, c.Log(), "gate: 37 messages, 23 forwarded to fleet.valid, 14 dead letters to fleet.dead; 0 redeliveries, 0 retries")
			// Its own closing at the end is not losing the server.
			assert.Equal(t, 1, strings.Count(c.Log(), "lost the server"), c.Log())
		})
	}
}

// A gate that cannot store its output stops at once, saying why, with a
// status that says it failed.
func TestGateRefusesToStartWithoutItsOutput(t *testing.T) {
	s := &server{dir: t.TempDir(), port: freePort(t)}
	s.up(t, "IN", "DEAD")
	c := cmdtest.Start(t, t.TempDir(), "-server", s.url())
	assert.Equal(t, 2, c.Exit(t))
	assert.Contains(t, c.Log(), "no stream stores the output subject fleet.valid")
}

// The demonstration runs wherever the command is: its sample is built in,
// and is the repository's.
func TestDemoRunsAnywhere(t *testing.T) {
	want, err := os.ReadFile("../../../testdata/messages.ndjson")
	require.NoError(t, err)
	require.Equal(t, string(want), string(sample), "sample.ndjson is a copy of testdata/messages.ndjson")
	c := cmdtest.Start(t, t.TempDir(), "demo")
	assert.Equal(t, 1, c.Exit(t), c.Log())
	assert.Contains(t, c.Stdout(), "stream DEAD (fleet.dead): 14 messages")
	assert.Contains(t, c.Stdout(), "testdata/messages.ndjson:6: core.device: /imei")
}

// A gate whose input stream is deleted under it stops, saying why, with a
// status that says it stopped on an error.
func TestGateStopsWhenItsInputIsDeleted(t *testing.T) {
	s := &server{dir: t.TempDir(), port: freePort(t)}
	s.up(t, "IN", "VALID", "DEAD")
	c := cmdtest.Start(t, t.TempDir(), "-server", s.url())
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if cons, err := s.js.Consumer(context.Background(), "IN", "gate"); err == nil && cons.CachedInfo().NumWaiting > 0 {
			break // it has started, and waits for messages
		}
		require.True(t, time.Now().Before(deadline), "the gate never started; it logged:\n%s", c.Log())
	}
	require.NoError(t, s.js.DeleteStream(context.Background(), "IN"))
	assert.Equal(t, 2, c.Exit(t), c.Log())
	assert.Contains(t, c.Log(), "the input consumer is gone")
	assert.Contains(t, c.Log(), "gate: 0 messages", "the summary, still")
}

// A gate whose connection nats.go closes for good (as it does when a
// server restarted with a smaller max_payload refuses a message the
// client kept through the reconnection) connects again, logs it, and
// gates on, its counts going on: it fetched in vain for ever.
func TestGateConnectsAgainWhenItsConnectionIsClosed(t *testing.T) {
	s := &server{dir: t.TempDir(), port: freePort(t)}
	s.up(t, "IN", "VALID", "DEAD")
	p := startProxy(t, s.url())
	c := cmdtest.Start(t, t.TempDir(), "-server", p.url())
	n := s.publish(t)
	s.waitGated(t, c, n)
	p.refuse("-ERR 'Maximum Payload Violation'\r\n")
	c.WaitLog(t, "the connection was closed; connecting again")
	// The same messages again: the valid ones' copies are in the output
	// already (redeliveries), the invalid ones are dead letters again.
	s.publish(t)
	s.waitGated(t, c, n+14)
	c.Signal(t, syscall.SIGTERM)
	assert.Equal(t, 0, c.Exit(t), c.Log())
	assert.Contains(t, c.Log(), "gate: 51 messages, 23 forwarded to fleet.valid, 28 dead letters to fleet.dead; 23 redeliveries", c.Log())
}

// A proxy passes a client's connections on to a NATS server.
type proxy struct {
	l      net.Listener
	target string
	mu     sync.Mutex
	conns  []proxied
}

// proxied is a client's connection and the server's it is passed on to;
// done is closed when nothing more is passed from the server to the
// client.
type proxied struct {
	client, server net.Conn
	done           chan struct{}
}

// startProxy starts a proxy to the server at target (a nats:// URL).
func startProxy(t *testing.T, target string) *proxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &proxy{l: l, target: strings.TrimPrefix(target, "nats://")}
	t.Cleanup(func() {
		l.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.client.Close()
			c.server.Close()
		}
	})
	go func() {
		for {
			client, err := l.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", p.target)
			if err != nil {
				client.Close()
				continue
			}
			c := proxied{client, server, make(chan struct{})}
			p.mu.Lock()
			p.conns = append(p.conns, c)
			p.mu.Unlock()
			go io.Copy(server, client)
			go func() {
				defer close(c.done)
				io.Copy(client, server)
			}()
		}
	}()
	return p
}

func (p *proxy) url() string { return "nats://" + p.l.Addr().String() }

// refuse ends every connection as a server ends one it will not serve:
// it sends the client line, an error of the protocol, and closes it.
func (p *proxy) refuse(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.server.Close()
		<-c.done
		io.WriteString(c.client, line)
		c.client.Close()
	}
	p.conns = nil
}
