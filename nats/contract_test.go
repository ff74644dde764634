package nats

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/gate/gatetest"
	"github.com/fleetkit/catalogue/nats/internal/embedded"
)

// The NATS gate keeps decision 16: package gatetest's contract, against a
// real server in the process.
func TestGateContract(t *testing.T) {
	large := 20_000
	if raceEnabled {
		large = 2_000 // the race detector slows the server too
	}
	gatetest.Run(t, gatetest.Binding{CE: ce.NATS, Start: startContract, Large: large})
}

// contract is a server for gatetest: streams IN (in.>), OUT (out) and
// DEAD (dead), as its Config says.
type contract struct {
	t    testing.TB
	cfg  gatetest.Config
	dir  string
	port int
	url  string
	mu   sync.Mutex
	srv  *server.Server
	nc   *natsgo.Conn
	js   jetstream.JetStream
}

// maxPayload is the limit of a server whose Config says none: NATS's
// default.
const maxPayload = 1 << 20

func startContract(t testing.TB, cfg gatetest.Config) gatetest.Broker {
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = maxPayload
	}
	c := &contract{t: t, cfg: cfg, dir: t.TempDir(), port: -1}
	c.Start(t)
	c.port, c.url = embedded.Port(c.srv), c.srv.ClientURL()
	c.nc, c.js = connect(t, c.url)
	streams := map[string]string{"IN": "in.>", "OUT": "out", "DEAD": "dead"}
	if cfg.NoOutput {
		delete(streams, "OUT")
	}
	if cfg.NoDeadLetter {
		delete(streams, "DEAD")
	}
	for name, subject := range streams {
		c.makeStream(name, subject)
	}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.srv != nil {
			c.srv.Shutdown()
			c.srv.WaitForShutdown()
		}
	})
	return c
}

func (c *contract) makeStream(name, subject string) {
	_, err := c.js.CreateStream(context.Background(), streamConfig(name, subject))
	require.NoError(c.t, err)
	if name == "IN" {
		cfg := DurableConfig("gate", subject)
		if c.cfg.AckWait > 0 {
			cfg.AckWait = c.cfg.AckWait
		}
		cfg.MaxAckPending = 4096
		_, err = c.js.CreateOrUpdateConsumer(context.Background(), name, cfg)
		require.NoError(c.t, err)
	}
}

func (c *contract) Publish(t testing.TB, msgs []gatetest.Message) []gate.Place {
	places := make([]gate.Place, len(msgs))
	for i, m := range msgs {
		out := &natsgo.Msg{Subject: "in.x", Header: natsgo.Header(m.Header.Clone()), Data: m.Body}
		out.Header.Set(jetstream.MsgIDHeader, m.Key)
		ack, err := c.js.PublishMsg(context.Background(), out)
		require.NoError(t, err)
		require.False(t, ack.Duplicate, m.Key)
		places[i] = gate.Place{Subject: "in.x", Stream: ack.Stream, Sequence: ack.Sequence}
	}
	return places
}

func (c *contract) read(t testing.TB, stream string) []gatetest.Stored {
	s, err := c.js.Stream(context.Background(), stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil
	}
	require.NoError(t, err)
	var out []gatetest.Stored
	for _, m := range messagesOf(t, s) {
		st := gatetest.Stored{Header: m.Header, Body: m.Data}
		if stream == "DEAD" {
			v, err := ParseVerdict(m.Header)
			require.NoError(t, err)
			st.Verdict = &v
		}
		out = append(out, st)
	}
	return out
}

func (c *contract) Output(t testing.TB) []gatetest.Stored      { return c.read(t, "OUT") }
func (c *contract) DeadLetters(t testing.TB) []gatetest.Stored { return c.read(t, "DEAD") }

func (c *contract) Stop(t testing.TB) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.srv.Shutdown()
	c.srv.WaitForShutdown()
}

func (c *contract) Start(t testing.TB) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var err error
	c.srv, err = embedded.Start(c.dir, c.port, c.cfg.MaxBytes)
	require.NoError(t, err)
	if c.nc != nil {
		// Wait for the test's own client, so that the test reads the
		// streams at once.
		for deadline := time.Now().Add(10 * time.Second); !c.nc.IsConnected() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func (c *contract) RecreateInput(t testing.TB) {
	require.NoError(t, c.js.DeleteStream(context.Background(), "IN"))
	time.Sleep(10 * time.Millisecond) // a stream made in the same instant would be the same incarnation
	c.makeStream("IN", "in.>")
}

func (c *contract) StartGate(t testing.TB, o gatetest.GateOptions) gatetest.Gate {
	nc, js := connect(t, c.url, natsgo.RetryOnFailedConnect(true))
	// A gate whose output or dead letters the input would read.
	out, dead := "out", "dead"
	if c.cfg.InputCoversOutput {
		out = "in.valid"
	}
	if c.cfg.InputCoversDeadLetter {
		dead = "in.dead"
	}
	g := &Gate{JetStream: js, Input: "in.>", Durable: "gate", Output: out, DeadLetter: dead,
		Batch: o.Batch, UntilIdle: o.UntilIdle, MaxWait: 200 * time.Millisecond, Progress: o.Progress}
	return gatetest.Go(t, func(ctx context.Context) (gate.Stats, error) {
		st, err := g.Run(ctx)
		nc.Flush() // the last acknowledgements
		return st, err
	}, nc.Close)
}

// The operator's gate, the command itself, keeps the contract too: each
// gate a process of its own (cmd/gate, built for the test), stopped by
// SIGTERM as a service manager stops it, killed by SIGKILL, its counts
// read from its summary, its refusals from its exit status and its log.
func TestCommandContract(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "gate")
	build := exec.Command("go", "build", "-o", bin, "./cmd/gate")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	// Large is larger than the library's 2,000: a command signalled from
	// another process, and watched through the streams' counts, finished
	// 2,000 messages before its SIGTERM landed once it awaited its own
	// acknowledgements, and "stopped midway" found nothing midway.
	gatetest.Run(t, gatetest.Binding{CE: ce.NATS, Large: 10_000, Start: func(t testing.TB, cfg gatetest.Config) gatetest.Broker {
		return &command{contract: startContract(t, cfg).(*contract), bin: bin}
	}})
}

// command is a contract whose gates are processes of the command bin.
type command struct {
	*contract
	bin string
}

// summary is the command's summary line, its counts in order.
var summary = regexp.MustCompile(`gate: (\d+) messages?, (\d+) forwarded to \S+, (\d+) dead letters? to \S+; (\d+) redeliver(?:y|ies), (\d+) retr(?:y|ies)`)

func (c *command) StartGate(t testing.TB, o gatetest.GateOptions) gatetest.Gate {
	out, dead := "out", "dead"
	if c.cfg.InputCoversOutput {
		out = "in.valid"
	}
	if c.cfg.InputCoversDeadLetter {
		dead = "in.dead"
	}
	args := []string{"-server", c.url, "-in", "in.>", "-out", out, "-dead", dead, "-durable", "gate", "-batch", strconv.Itoa(cmp.Or(o.Batch, 256))}
	if o.UntilIdle {
		args = append(args, "-until-idle")
	}
	var log bytes.Buffer // written by the process, read once it is done
	cmd := exec.Command(c.bin, args...)
	cmd.Stderr = &log
	require.NoError(t, cmd.Start())
	var err error // the process's, once exited is closed
	exited := make(chan struct{})
	go func() {
		err = cmd.Wait()
		close(exited)
	}()
	if o.Progress != nil {
		// What the gates stored, as the streams count it: enough for a
		// check to know that one got going.
		go func() {
			for {
				select {
				case <-exited:
					return
				case <-time.After(10 * time.Millisecond):
				}
				o.Progress(gate.Stats{Messages: c.stored()})
			}
		}()
	}
	run := func(ctx context.Context) (gate.Stats, error) {
		select {
		case <-exited:
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
			<-exited
		}
		text := log.String()
		var st gate.Stats
		if m := summary.FindStringSubmatch(text); m != nil {
			n := make([]int, len(m))
			for i := 1; i < len(m); i++ {
				n[i], _ = strconv.Atoi(m[i])
			}
			st = gate.Stats{Messages: n[1], Forwarded: n[2], DeadLetters: n[3], Redeliveries: n[4], Retries: n[5]}
		}
		switch {
		case err == nil:
			return st, nil
		case strings.Contains(text, gate.ErrRefused.Error()):
			return st, fmt.Errorf("%w: the command logged:\n%s", gate.ErrRefused, text)
		}
		return st, fmt.Errorf("%w; the command logged:\n%s", err, text)
	}
	return gatetest.Go(t, run, func() { cmd.Process.Kill() })
}

// stored returns how many messages the output and the dead letters hold.
func (c *command) stored() int {
	n := 0
	for _, name := range []string{"OUT", "DEAD"} {
		if s, err := c.js.Stream(context.Background(), name); err == nil {
			n += int(s.CachedInfo().State.Msgs)
		}
	}
	return n
}
