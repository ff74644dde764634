// Command gate keeps invalid messages out of a NATS JetStream stream: it
// reads a subject through a shared durable consumer and republishes each
// message, valid ones to an output subject and invalid ones, with their
// violations, to a dead-letter subject (see the Gate type of package
// github.com/fleetkit/catalogue/nats). Run as many as the load needs, on
// as many machines: they share the durable consumer's messages.
//
//	gate -server nats://nats.example:4222 -creds gate.creds -in 'fleet.in.>' -out fleet.valid -dead fleet.dead
//
// It refuses to start, saying why, when it cannot keep its promise: no
// stream stores the output or the dead-letter subject, the input subject
// covers either, its durable consumer or its streams would drop or
// double messages (see the Gate's Check, and the README). It
// waits for a server that is down, and logs losing it and finding it
// again; a connection the client closes for good (on an error of the
// server it cannot go on from) is logged, and made again. SIGINT and SIGTERM stop it gracefully: it settles the messages
// it holds and prints its summary. Its exit status is 0 when it stopped
// so, or with -until-idle once nothing was left, and 2 when it stopped on
// an error (or for a usage error).
//
// gate demo demonstrates the whole path on one machine: it starts a NATS
// server with JetStream on loopback, its store in a temporary folder,
// publishes the messages of a file (by default the sample stream,
// built into the command) as an untrusted producer would, gates them,
// prints each dead letter as msgcheck check prints an invalid message,
// and counts what came out where. Its exit status is 1 when any message
// was dead-lettered.
//
//	go run ./cmd/gate demo
package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fleetkit/catalogue/internal/gatecmd"
	"github.com/fleetkit/catalogue/msg"
	catnats "github.com/fleetkit/catalogue/nats"
	"github.com/fleetkit/catalogue/nats/internal/embedded"
)

// sample is the repository's sample stream, testdata/messages.ndjson, so
// that the demonstration runs wherever the command is.
//
//go:embed sample.ndjson
var sample []byte

// sampleName is the name the demonstration gives the sample.
const sampleName = "testdata/messages.ndjson"

func main() {
	ctx, stop := notifyContext()
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// notifyContext returns a context done on SIGINT or SIGTERM, the signals
// an operator or a service manager stops the gate with.
func notifyContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// options are the command's flags.
type options struct {
	server, creds string
	in, out, dead string
	durable       string
	batch         int
	untilIdle     bool
	publish       string
	retryMax      time.Duration // the longest wait between attempts to connect
}

// run runs the command and returns its exit status: 0; 1 when the demo
// dead-lettered messages; 2 for a usage error, or when it stopped on an
// error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	demoMode := len(args) > 0 && args[0] == "demo"
	if demoMode {
		args = args[1:]
	}
	flags := flag.NewFlagSet("gate", flag.ContinueOnError)
	flags.SetOutput(stderr)
	var o options
	if demoMode {
		flags.StringVar(&o.publish, "publish", "", "file of newline-delimited messages to publish (default: the sample stream, "+sampleName+")")
	} else {
		flags.StringVar(&o.server, "server", "", "NATS server URL, or several, comma separated (required)")
		flags.StringVar(&o.creds, "creds", "", "NATS credentials file")
		flags.StringVar(&o.durable, "durable", "gate", "name of the durable consumer the gates share")
		flags.BoolVar(&o.untilIdle, "until-idle", false, "exit once the consumer has nothing left")
	}
	flags.StringVar(&o.in, "in", "fleet.in.>", "subject to read")
	flags.StringVar(&o.out, "out", "fleet.valid", "subject of valid messages")
	flags.StringVar(&o.dead, "dead", "fleet.dead", "subject of dead letters")
	flags.IntVar(&o.batch, "batch", 256, "messages to fetch and republish at a time")
	flags.Usage = func() {
		fmt.Fprint(stderr, "usage: gate -server url [-creds file] [-in subject] [-out subject] [-dead subject] [-durable name] [-batch n] [-until-idle]\n"+
			"       gate demo [-publish file] [-in subject] [-out subject] [-dead subject] [-batch n]\n\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if flags.NArg() > 0 || o.batch < 1 || !demoMode && o.server == "" {
		if !demoMode && o.server == "" && flags.NArg() == 0 {
			fmt.Fprintln(stderr, "gate: -server is required (gate demo runs the demonstration on an embedded server)")
		}
		flags.Usage()
		return 2
	}
	o.retryMax = 10 * time.Second
	log := slog.New(slog.NewTextHandler(stderr, nil))
	var err error
	status := 0
	if demoMode {
		status, err = demo(ctx, o, stdout, stderr, log)
	} else {
		err = serve(ctx, o, stderr, log)
	}
	if err != nil {
		fmt.Fprintf(stderr, "gate: %v\n", err)
		return 2
	}
	return status
}

// backoff returns how long to wait before the nth attempt (from 1) to
// reach a server: 100 ms doubling up to max, with a random part so that
// many gates do not come back at the same instant.
func backoff(n int, max time.Duration) time.Duration {
	d := min(max, 100*time.Millisecond<<min(n, 16))
	return d/2 + rand.N(d/2+1)
}

// serve runs a gate against a server until ctx is done. A server down at
// start is waited for; one lost on the way is logged, reconnected to with
// back-off, and logged again when found.
func serve(ctx context.Context, o options, stderr io.Writer, log *slog.Logger) error {
	// The server last connected to, for the log line of losing it: by
	// then the connection no longer names it.
	var last atomic.Value
	connected := func(what string) natsgo.ConnHandler {
		return func(nc *natsgo.Conn) {
			last.Store(nc.ConnectedUrlRedacted())
			log.Info(what, "server", nc.ConnectedUrlRedacted())
		}
	}
	opts := []natsgo.Option{
		natsgo.Name("catalogue gate"),
		natsgo.MaxReconnects(-1),
		natsgo.RetryOnFailedConnect(true),
		natsgo.CustomReconnectDelay(func(n int) time.Duration { return backoff(n, o.retryMax) }),
		natsgo.DisconnectErrHandler(func(nc *natsgo.Conn, err error) {
			if nc.IsClosed() {
				return // closed by the gate itself, as it stops
			}
			log.Warn("lost the server; reconnecting", "server", last.Load(), "error", err)
		}),
		natsgo.ErrorHandler(func(_ *natsgo.Conn, _ *natsgo.Subscription, err error) {
			// Such as a message whose headers nats.go cannot read: the gate
			// dead-letters it, and this says why nats.go complained.
			log.Warn("the NATS client reports", "error", err)
		}),
		natsgo.ReconnectHandler(connected("reconnected")),
		natsgo.ConnectHandler(connected("connected")),
	}
	if o.creds != "" {
		opts = append(opts, natsgo.UserCredentials(o.creds))
	}
	var nc *natsgo.Conn
	defer func() {
		if nc != nil {
			nc.Close()
		}
	}()
	_, err := gate(ctx, o, stderr, log, func() (*natsgo.Conn, error) {
		if nc != nil {
			nc.Close()
		}
		var err error
		nc, err = natsgo.Connect(o.server, opts...)
		return nc, err
	})
	return err
}

// gate gates o.in until ctx is done (or, with untilIdle, nothing is left)
// and reports on stderr, on the connection that connect returns. It
// waits for the server (see catnats.Gate's Run); a connection nats.go
// closes for good while the gate runs (on an error of the server it
// cannot go on from) is logged, and connect is called again, after a
// back-off, for a new one, the counts going on.
func gate(ctx context.Context, o options, stderr io.Writer, log *slog.Logger, connect func() (*natsgo.Conn, error)) (catnats.GateStats, error) {
	g := &catnats.Gate{Input: o.in, Durable: o.durable, Output: o.out, DeadLetter: o.dead,
		Batch: o.batch, UntilIdle: o.untilIdle, Log: log}
	var (
		total    catnats.GateStats // of the connections before this one
		progress func(catnats.GateStats)
	)
	g.Progress = func(s catnats.GateStats) {
		if progress != nil {
			s.Add(total)
			progress(s)
		}
	}
	return gatecmd.Run(stderr, o.out, o.dead, &progress, func() (catnats.GateStats, error) {
		for try := 1; ; try++ {
			nc, err := connect()
			if err != nil {
				return total, err
			}
			g.JetStream, err = jetstream.New(nc) // the gate publishes through nc, not jetstream's asynchronous publisher
			if err != nil {
				return total, err
			}
			g.From = nil // found again through the new connection
			st, err := g.Run(ctx)
			total.Add(st)
			if !errors.Is(err, natsgo.ErrConnectionClosed) || ctx.Err() != nil {
				return total, err
			}
			if st.Messages > 0 {
				try = 1
			}
			wait := backoff(try, o.retryMax)
			log.Warn("the connection was closed; connecting again", "in", wait.Round(time.Millisecond), "error", err)
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return total, nil
			}
		}
	})
}

// demo publishes a file's messages to an embedded server, gates them, and
// prints the dead letters and the count of each stream. Its status is 1
// if any message was dead-lettered, as msgcheck check's is when any is
// invalid.
func demo(ctx context.Context, o options, stdout, stderr io.Writer, log *slog.Logger) (int, error) {
	data := sample
	if o.publish == "" {
		o.publish = sampleName
	} else {
		var err error
		if data, err = os.ReadFile(o.publish); err != nil {
			return 0, err
		}
	}
	dir, err := os.MkdirTemp("", "gate-demo-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	srv, err := embedded.Start(dir, -1, 0)
	if err != nil {
		return 0, err
	}
	defer srv.Shutdown()
	fmt.Fprintf(stderr, "gate: NATS server with JetStream on %s, store in %s\n", srv.ClientURL(), dir)
	nc, err := natsgo.Connect(srv.ClientURL())
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return 0, err
	}
	streams := []jetstream.StreamConfig{
		{Name: "IN", Subjects: []string{o.in}},
		{Name: "VALID", Subjects: []string{o.out}},
		{Name: "DEAD", Subjects: []string{o.dead}},
	}
	for _, cfg := range streams {
		if _, err := js.CreateStream(ctx, cfg); err != nil {
			return 0, err
		}
	}

	// Publish each line as it is, as a producer that knows nothing of the
	// catalogue would, with its place in the file as Nats-Msg-Id.
	subject := strings.ReplaceAll(strings.ReplaceAll(o.in, ">", "sample"), "*", "sample")
	published := 0
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		m := &natsgo.Msg{Subject: subject, Data: line, Header: natsgo.Header{}}
		m.Header.Set(jetstream.MsgIDHeader, o.publish+":"+strconv.Itoa(i+1))
		if _, err := js.PublishMsg(ctx, m); err != nil {
			return 0, err
		}
		published++
	}
	fmt.Fprintf(stderr, "gate: published %s of %s to %s\n", gatecmd.Count(published, "message", "messages"), o.publish, subject)

	o.untilIdle, o.server, o.durable = true, srv.ClientURL(), "gate"
	once := func() (*natsgo.Conn, error) {
		if nc.IsClosed() {
			return nil, natsgo.ErrConnectionClosed
		}
		return nc, nil
	}
	if _, err := gate(ctx, o, stderr, log, once); err != nil {
		return 0, err
	}

	// What came out where: every dead letter, then the counts.
	cons, err := js.OrderedConsumer(ctx, "DEAD", jetstream.OrderedConsumerConfig{})
	if err != nil {
		return 0, err
	}
	out := bufio.NewWriter(stdout)
	dead := count(ctx, js, "DEAD")
	for seen := 0; seen < dead; {
		batch, err := cons.Fetch(dead-seen, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return 0, err
		}
		n := 0
		for m := range batch.Messages() {
			n++
			writeDeadLetter(out, m.Headers())
		}
		if n == 0 {
			return 0, fmt.Errorf("reading the dead letters: %w", batch.Error())
		}
		seen += n
	}
	for _, cfg := range streams {
		fmt.Fprintf(out, "stream %s (%s): %s\n", cfg.Name, cfg.Subjects[0], gatecmd.Count(count(ctx, js, cfg.Name), "message", "messages"))
	}
	if err := out.Flush(); err != nil {
		return 0, err
	}
	if dead > 0 {
		return 1, nil
	}
	return 0, nil
}

// count returns the number of messages in a stream, -1 if it cannot tell.
func count(ctx context.Context, js jetstream.JetStream, name string) int {
	s, err := js.Stream(ctx, name)
	if err != nil {
		return -1
	}
	info, err := s.Info(ctx)
	if err != nil {
		return -1
	}
	return int(info.State.Msgs)
}

// writeDeadLetter writes a dead letter as msgcheck check writes an
// invalid message: "ID: SCHEMA: violation; violation", ID being the
// original's Nats-Msg-Id, or its stream and sequence.
func writeDeadLetter(w io.Writer, h natsgo.Header) {
	v, err := catnats.ParseVerdict(h)
	if err != nil {
		fmt.Fprintf(w, "?: %s\n", printable(err.Error()))
		return
	}
	id := h.Get(catnats.OriginalPrefix + jetstream.MsgIDHeader)
	if id == "" {
		id = v.Stream + ":" + strconv.FormatUint(v.Sequence, 10)
	}
	schema := v.Schema
	if schema == "" {
		schema = "?"
	}
	report := (&msg.Error{Violations: v.Violations, Omitted: v.Omitted}).Error()
	if v.Truncated {
		report += fmt.Sprintf(" (its body, %d bytes, cut to fit)", v.BodySize)
	}
	if v.Error != "" {
		report += "handler: " + v.Error
	}
	fmt.Fprintf(w, "%s: %s: %s\n", printable(id), printable(schema), printable(report))
}

// printable returns s, quoted if it holds anything but printable
// characters, so that no value from a message can start a line of its
// own or drive the terminal.
func printable(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
