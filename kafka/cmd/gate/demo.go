package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
)

// sample is the repository's sample stream, testdata/messages.ndjson, so
// that the demonstration runs wherever the command is (a test holds the
// copy to the original).
//
//go:embed sample.ndjson
var sample []byte

// demoTopics are the topics of the demonstration's cluster, the gate's
// defaults: its input first.
var demoTopics = []string{"fleet.in", "fleet.valid", "fleet.dead"}

// demo serves, until ctx is done, a Kafka-protocol cluster of one broker
// in the process (franz-go's kfake, which keeps everything in memory)
// for trying the gate by hand: the topics fleet.in, fleet.valid and
// fleet.dead, of three partitions each, and the sample stream in
// fleet.in, each valid message as kafka.Record makes it (every other
// one framed) and each invalid one as its bare line, as a producer that
// knows nothing of the catalogue would send it. It returns the command's
// exit status: 0, or 2 for a usage error or a cluster that cannot start.
func demo(ctx context.Context, args []string, stderr io.Writer) int {
	flags := flag.NewFlagSet("gate demo", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", "127.0.0.1:9092", "the broker's address, on 127.0.0.1 (port 0: any free port)")
	flags.Usage = func() {
		fmt.Fprint(stderr, "usage: gate demo [-addr 127.0.0.1:port]\n\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	host, port, err := net.SplitHostPort(*addr)
	n, perr := strconv.ParseUint(port, 10, 16)
	if flags.NArg() > 0 || err != nil || host != "127.0.0.1" || perr != nil {
		fmt.Fprintf(stderr, "gate demo: -addr must be 127.0.0.1:PORT, got %s\n", msg.Escape(*addr))
		flags.Usage()
		return 2
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(int(n)), kfake.SeedTopics(3, demoTopics...))
	if err != nil {
		fmt.Fprintf(stderr, "gate demo: %s (give another address with -addr)\n", msg.Escape(err.Error()))
		return 2
	}
	defer c.Close()
	listening := c.ListenAddrs()[0]
	produced, err := produceSample(ctx, listening, demoTopics[0])
	if err != nil {
		fmt.Fprintf(stderr, "gate demo: %s\n", msg.Escape(err.Error()))
		return 2
	}
	fmt.Fprintf(stderr, "gate demo: Kafka cluster (kfake, in memory) on %s: topics %s (3 partitions each); %d messages of %s produced to %s\n",
		listening, strings.Join(demoTopics, ", "), produced, sampleName, demoTopics[0])
	fmt.Fprintf(stderr, "gate demo: serving until interrupted; in another terminal: %s -brokers %s -until-idle\n", self, listening)
	<-ctx.Done()
	return 0
}

// sampleName is the name of the sample stream in the repository.
const sampleName = "testdata/messages.ndjson"

// produceSample produces the sample stream's messages, one a line, to
// topic on the broker at addr, and returns how many it produced.
func produceSample(ctx context.Context, addr, topic string) (int, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	var records []*kgo.Record
	for line := range bytes.Lines(sample) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		r := &kgo.Record{Topic: topic, Value: line}
		if m, err := catalogue.Decode(line); err == nil {
			if r, err = kafka.Record(topic, m, len(records)%2 == 0); err != nil {
				return 0, err
			}
		}
		records = append(records, r)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return len(records), cl.ProduceSync(ctx, records...).FirstErr()
}
