// Command gate keeps invalid messages out of a NATS JetStream stream: it
// reads a subject through a shared durable consumer and republishes each
// message, valid ones to an output subject and invalid ones, with their
// violations, to a dead-letter subject (see the Gate type of package
// github.com/fleetkit/catalogue/nats). Run as many as the load needs, on
// as many machines: they share the durable consumer's messages.
//
//	gate -server nats://nats.example:4222 -creds gate.creds -in 'fleet.in.>' -out fleet.valid -dead fleet.dead
//
// The streams must exist. Without -server, gate demonstrates the whole
// path on one machine: it starts a NATS server with JetStream on loopback,
// its store in a temporary folder, publishes the messages of a file (by
// default testdata/messages.ndjson, the sample stream) as an untrusted
// producer would, gates them, prints each dead letter as msgcheck check
// prints an invalid message, and counts what came out where.
//
//	go run ./cmd/gate
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"
	"unicode"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fleetkit/catalogue/msg"
	catnats "github.com/fleetkit/catalogue/nats"
	"github.com/fleetkit/catalogue/nats/internal/embedded"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command's flags.
type options struct {
	server, creds string
	in, out, dead string
	durable       string
	batch         int
	untilIdle     bool
	publish       string
	progress      bool
	progressEvery time.Duration
}

// run runs the command and returns its exit status: 0, 1 when the demo
// dead-lettered messages, 2 for a usage error or a failure.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("gate", flag.ContinueOnError)
	flags.SetOutput(stderr)
	var o options
	flags.StringVar(&o.server, "server", "", "NATS server URL; none: run the demonstration on an embedded server")
	flags.StringVar(&o.creds, "creds", "", "NATS credentials file")
	flags.StringVar(&o.in, "in", "fleet.in.>", "subject to read")
	flags.StringVar(&o.out, "out", "fleet.valid", "subject of valid messages")
	flags.StringVar(&o.dead, "dead", "fleet.dead", "subject of dead letters")
	flags.StringVar(&o.durable, "durable", "gate", "name of the durable consumer the gates share")
	flags.IntVar(&o.batch, "batch", 256, "messages to fetch and republish at a time")
	flags.BoolVar(&o.untilIdle, "until-idle", false, "exit once the consumer has nothing left (the demonstration always does)")
	flags.StringVar(&o.publish, "publish", "", "demonstration: file of newline-delimited messages to publish first (default testdata/messages.ndjson)")
	flags.Usage = func() {
		fmt.Fprint(stderr, "usage: gate [-server url [-creds file]] [-in subject] [-out subject] [-dead subject] [-durable name] [-batch n] [-until-idle]\n"+
			"       gate [-publish file]   (no -server: a demonstration on an embedded server)\n\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if flags.NArg() > 0 || o.batch < 1 || o.server == "" && o.creds != "" || o.server != "" && o.publish != "" {
		flags.Usage()
		return 2
	}
	o.progress = isTerminal(stderr)
	o.progressEvery = time.Second
	var err error
	status := 0
	if o.server == "" {
		status, err = demo(ctx, o, stdout, stderr)
	} else {
		err = serve(ctx, o, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "gate: %v\n", err)
		return 2
	}
	return status
}

// isTerminal reports whether w is a terminal, where progress is drawn.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// serve runs a gate against a server until interrupted.
func serve(ctx context.Context, o options, stderr io.Writer) error {
	opts := []natsgo.Option{natsgo.Name("catalogue gate"), natsgo.MaxReconnects(-1)}
	if o.creds != "" {
		opts = append(opts, natsgo.UserCredentials(o.creds))
	}
	nc, err := natsgo.Connect(o.server, opts...)
	if err != nil {
		return err
	}
	defer nc.Close()
	_, err = gate(ctx, nc, o, stderr)
	return err
}

// gate gates o.in until ctx is done (or, with untilIdle, nothing is left)
// and reports on stderr.
func gate(ctx context.Context, nc *natsgo.Conn, o options, stderr io.Writer) (catnats.GateStats, error) {
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4*o.batch))
	if err != nil {
		return catnats.GateStats{}, err
	}
	stream, err := js.StreamNameBySubject(ctx, o.in)
	if err != nil {
		return catnats.GateStats{}, fmt.Errorf("no stream holds %s: %w", o.in, err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, stream, catnats.DurableConfig(o.durable, o.in))
	if err != nil {
		return catnats.GateStats{}, err
	}
	start := time.Now()
	g := &catnats.Gate{JetStream: js, From: cons, Output: o.out, DeadLetter: o.dead, Batch: o.batch, UntilIdle: o.untilIdle}
	shown, next := 0, start.Add(o.progressEvery)
	if o.progress {
		g.Progress = func(s catnats.GateStats) {
			if now := time.Now(); now.After(next) {
				next = now.Add(o.progressEvery)
				line := "gate: " + summary(s, o, now.Sub(start)) + " ..."
				fmt.Fprintf(stderr, "\r%-*s", shown, line)
				shown = max(shown, len(line))
			}
		}
	}
	st, err := g.Run(ctx)
	if shown > 0 {
		fmt.Fprintf(stderr, "\r%*s\r", shown, "")
	}
	fmt.Fprintf(stderr, "gate: %s\n", summary(st, o, time.Since(start)))
	return st, err
}

// summary sums up what a gate did.
func summary(s catnats.GateStats, o options, elapsed time.Duration) string {
	secs := max(elapsed.Seconds(), 1e-9)
	return fmt.Sprintf("%d messages, %d valid to %s, %d invalid to %s, %s in %s (%s/s, %.0f messages/s)",
		s.Messages, s.Valid, o.out, s.Invalid, o.dead, size(float64(s.Bytes)), elapsed.Round(time.Millisecond),
		size(float64(s.Bytes)/secs), float64(s.Messages)/secs)
}

// size writes a number of bytes in B, kB, MB or GB.
func size(b float64) string {
	switch {
	case b < 1e3:
		return fmt.Sprintf("%.0f B", b)
	case b < 1e6:
		return fmt.Sprintf("%.1f kB", b/1e3)
	case b < 1e9:
		return fmt.Sprintf("%.1f MB", b/1e6)
	}
	return fmt.Sprintf("%.1f GB", b/1e9)
}

// demo publishes a file's messages to an embedded server, gates them, and
// prints the dead letters and the count of each stream. Its status is 1
// if any message was dead-lettered, as msgcheck check's is when any is
// invalid.
func demo(ctx context.Context, o options, stdout, stderr io.Writer) (int, error) {
	if o.publish == "" {
		o.publish = "testdata/messages.ndjson"
		if _, err := os.Stat(o.publish); err != nil {
			o.publish = "../testdata/messages.ndjson" // run from the nats module
		}
	}
	data, err := os.ReadFile(o.publish)
	if err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "gate-demo-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	srv, err := embedded.Start(dir, -1)
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
	fmt.Fprintf(stderr, "gate: published %d messages of %s to %s\n", published, o.publish, subject)

	o.untilIdle = true
	if _, err := gate(ctx, nc, o, stderr); err != nil {
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
		fmt.Fprintf(out, "stream %s (%s): %d messages\n", cfg.Name, cfg.Subjects[0], count(ctx, js, cfg.Name))
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
	report := (&msg.Error{Violations: v.Violations, Omitted: v.More}).Error()
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
