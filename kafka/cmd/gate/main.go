// Command gate keeps invalid messages out of a Kafka topic: it consumes
// its input topics as a member of a consumer group and produces each
// record, a valid message to an output topic and anything else, with its
// verdict, to a dead-letter topic, in Kafka transactions (see the Gate
// type of package github.com/fleetkit/catalogue/kafka): a read_committed
// consumer of the output and dead letters finds every input there once.
// Run as many as the load needs, on as many machines, in one group: they
// share the input's partitions.
//
//	gate -brokers kafka1:9092,kafka2:9092 -in fleet.in -out fleet.valid -dead fleet.dead -group fleet-gate
//
// Each running gate needs a transactional id of its own (-transactional-id).
// The default, catalogue-gate-HOST-PID, is unique to the process; give a
// stable one (a StatefulSet pod's name, say) to have a restarted gate
// fence at once the transaction its killed predecessor left open, rather
// than have the broker abort it when it times out.
//
// It refuses to start, saying why, when its output or dead-letter topic
// does not exist (for 2 seconds) or it may not see it, when it
// consumes either, or when its dead-letter topic is compacted (its dead
// letters would replace each other). An input
// topic deleted and made again while it runs is read anew (with
// -until-idle, one missing for 5 seconds stops it, saying so), an output or
// dead-letter topic made again is produced to anew, and partitions added
// to the input are gated within seconds. It waits for brokers that
// are down, and logs losing a broker and finding it again; a broker lost
// while it ends a transaction makes it start again on a new session,
// which aborts the transaction left open, whose records come again; so
// does a gate whose producer was fenced, once (a broker back from a
// crash may fence the producer of the transaction it aborted): fenced
// again within a minute, it stops, as another gate then shares its
// transactional id. It stops, saying why, when the brokers refuse its
// group for good (a -session-timeout out of the range they allow, or a
// right refused), and when its topics' max.message.bytes is lowered
// below -max-record-bytes, or its dead-letter topic made compacted,
// while it runs. A gate starting aborts any transaction its
// transactional id left open. SIGINT and SIGTERM stop it gracefully: it
// ends the transaction under way and prints its summary, within 10
// seconds (brokers that do not end the transaction in that time leave
// its records to come again, and it exits 2, saying so). Its exit
// status is 0 when it stopped so, or with -until-idle once its group
// had consumed everything, and 2 when it stopped on an error (or for a
// usage error).
//
// -compression (none, gzip, snappy, lz4 or zstd; snappy, franz-go's
// default, unless told) is the codec of the batches it produces:
// kafkajs's consumers read only gzip and none without plugins.
//
// -tls connects to the brokers over TLS (1.2 or later), trusting the
// system's roots; -tls-ca trusts the roots of a PEM file instead,
// -tls-cert and -tls-key give a client certificate (mutual TLS), and
// -tls-server-name the name the brokers' certificates must hold, when it
// is not the host they are reached at; each implies -tls. Their files
// are read as msgcheck serve reads its own: one over 1 MiB, one that
// holds no PEM certificate or key (the two swapped, say), or a key still
// encrypted, is a usage error naming the flag and the file.
// -sasl-mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, in any case)
// authenticates as -sasl-user, with the password in the environment
// variable KAFKA_SASL_PASSWORD or the file -sasl-password-file names
// (its trailing newline ignored): never on the command line, which any
// user of the machine reads in ps. PLAIN sends the password as it is,
// for anyone on the way to read: it is refused without TLS unless
// -sasl-plain-insecure says the network is safe; SCRAM proves the
// password without sending it. Every client of the gate uses them; gate
// demo serves plaintext only. SCRAM over TLS, as Confluent Cloud, MSK
// and Aiven take it:
//
//	KAFKA_SASL_PASSWORD=... gate -brokers kafka1:9096 -tls-ca ca.pem -sasl-mechanism SCRAM-SHA-512 -sasl-user fleet-gate
//
// Before its first session it tries its brokers once, and refuses to
// start, saying why, when they are up but cannot talk to it: a wrong
// password, user or mechanism ("authentication failed for user U with
// mechanism M"), no SASL to brokers that want it, TLS on one side only,
// a certificate not trusted or for another name, or no client
// certificate for brokers that want one. Brokers not reached at all are
// waited for, as above; brokers that refuse its password later (up only
// after it started, or once it was revoked) stop it, with status 2.
//
// gate demo serves, for trying the gate by hand, a Kafka-protocol cluster
// in memory (franz-go's kfake) on 127.0.0.1:9092 (-addr), with the
// topics fleet.in, fleet.valid and fleet.dead, the gate's defaults, and
// the repository's sample stream in fleet.in, until interrupted:
//
//	gate demo                                   # in one terminal
//	gate -brokers 127.0.0.1:9092 -until-idle    # in another
//
// Its hint names the second command as the first was run: ./gate for
// ./gate demo, go run ./cmd/gate for go run ./cmd/gate demo.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/internal/gatecmd"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/msg"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if dir, err := os.Getwd(); err == nil {
		self = invocation(os.Args[0], dir, moduleVersion())
	}
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

// options are the command's flags.
type options struct {
	brokers   []string
	in        []string
	out, dead string
	group     string
	txnID     string
	batch     int
	maxBytes  int
	untilIdle bool
	// sessionTimeout is how long the group waits for a gate that
	// vanished.
	sessionTimeout time.Duration
	// compression is the codec of the batches it produces: copies and
	// dead letters.
	compression kgo.CompressionCodec
	// security is how its clients reach the brokers: TLS and SASL.
	security security
}

// compressions are the codecs -compression names. Snappy, franz-go's
// default, is the default; kafkajs, JavaScript's pure client, reads
// GZIP alone of them unless given plugins: its consumers need gzip (or
// none).
var compressions = map[string]kgo.CompressionCodec{
	"none":   kgo.NoCompression(),
	"gzip":   kgo.GzipCompression(),
	"snappy": kgo.SnappyCompression(),
	"lz4":    kgo.Lz4Compression(),
	"zstd":   kgo.ZstdCompression(),
}

// defaultMaxBytes is the default limit on a record batch, franz-go's
// (kgo.ProducerBatchMaxBytes), below Kafka's default message.max.bytes
// (1,048,588).
const defaultMaxBytes = 1_000_012

// maxRecordBytes is the most -max-record-bytes may be: a batch that size
// must fit in a request, and the client sends and reads requests of at
// most 1 GiB (kgo.BrokerMaxWriteBytes, kgo.BrokerMaxReadBytes), of which
// a mebibyte is left for what the request holds beside the batch.
// Kafka's own sizes are 32-bit: a larger one would wrap around.
const maxRecordBytes = 1<<30 - requestRoom

// requestRoom is what a produce request or a fetch response holds beside
// the largest batch in it, at most: its header, and the names and
// offsets of its topics and partitions.
const requestRoom = 1 << 20

// decompressFactor is how many times -max-record-bytes a batch of the
// input may decompress to: more than a producer's batch of JSON
// compresses by, far less than a compression bomb.
const decompressFactor = 32

// maxSessionTimeout is the longest session timeout Kafka's protocol
// carries: milliseconds in 32 bits. Brokers allow far less (30 minutes
// by default, group.max.session.timeout.ms), and say so.
const maxSessionTimeout = math.MaxInt32 * time.Millisecond

// run runs the command and returns its exit status: 0; 2 for a usage
// error, or when it refused to start or stopped on an error.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "demo" {
		return demo(ctx, args[1:], stderr)
	}
	flags := flag.NewFlagSet("gate", flag.ContinueOnError)
	flags.SetOutput(stderr)
	var (
		o                    options
		brokers, in          string
		compression          string
		host, _              = os.Hostname()
		defaultTransactional = "catalogue-gate-" + host + "-" + strconv.Itoa(os.Getpid())
	)
	flags.StringVar(&brokers, "brokers", "", "seed brokers, host:port, comma separated (required)")
	flags.StringVar(&in, "in", "fleet.in", "topic to gate, or several, comma separated")
	flags.StringVar(&o.out, "out", "fleet.valid", "topic of valid messages")
	flags.StringVar(&o.dead, "dead", "fleet.dead", "topic of dead letters")
	flags.StringVar(&o.group, "group", "catalogue-gate", "consumer group the gates share")
	flags.StringVar(&o.txnID, "transactional-id", "", "transactional id, one per running gate (default catalogue-gate-HOST-PID)")
	flags.IntVar(&o.batch, "batch", 256, "most records in one transaction")
	flags.IntVar(&o.maxBytes, "max-record-bytes", defaultMaxBytes, "most bytes of a record batch the brokers store (message.max.bytes, or the topics' max.message.bytes)")
	flags.DurationVar(&o.sessionTimeout, "session-timeout", 45*time.Second, "how long the group waits for a gate that vanished before giving its partitions to the others")
	flags.BoolVar(&o.untilIdle, "until-idle", false, "exit once the group has consumed everything")
	flags.StringVar(&compression, "compression", "snappy", "codec of the batches it produces: none, gzip, snappy, lz4 or zstd (kafkajs consumers read gzip or none)")
	o.security.register(flags)
	flags.Usage = func() {
		fmt.Fprint(stderr, "usage: gate -brokers host:port,... [-in topic,...] [-out topic] [-dead topic] [-group name] [-transactional-id id] [-batch n] [-max-record-bytes n] [-session-timeout d] [-until-idle] [-compression codec]\n"+
			"            [-tls] [-tls-ca file] [-tls-cert file -tls-key file] [-tls-server-name name]\n"+
			"            [-sasl-mechanism PLAIN|SCRAM-SHA-256|SCRAM-SHA-512 -sasl-user name [-sasl-password-file file] [-sasl-plain-insecure]]\n"+
			"       gate demo [-addr 127.0.0.1:port]\n\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	o.brokers, o.in = split(brokers), split(in)
	codec, knownCodec := compressions[strings.ToLower(compression)]
	o.compression = codec
	if o.txnID == "" {
		o.txnID = defaultTransactional
	}
	var usage string
	switch {
	case flags.NArg() > 0:
		usage = "unexpected arguments " + msg.Escape(strings.Join(flags.Args(), " "))
	case len(o.brokers) == 0:
		usage = "-brokers is required (gate demo serves a cluster to try it on)"
	case len(o.in) == 0:
		usage = "-in names no topic"
	case strings.TrimSpace(o.group) == "":
		usage = "-group names no group"
	case o.batch < 1:
		usage = "-batch must be at least 1"
	case o.maxBytes < gate.MinLimit:
		usage = "-max-record-bytes must be at least " + strconv.Itoa(gate.MinLimit)
	case o.maxBytes > maxRecordBytes:
		usage = "-max-record-bytes must be at most " + strconv.Itoa(maxRecordBytes)
	case o.sessionTimeout < time.Second:
		usage = "-session-timeout must be at least 1s"
	case o.sessionTimeout > maxSessionTimeout:
		usage = "-session-timeout must be at most " + maxSessionTimeout.String()
	case !knownCodec:
		usage = "-compression must be none, gzip, snappy, lz4 or zstd, not " + msg.Escape(strconv.Quote(compression))
	default:
		usage = o.security.resolve(os.Getenv)
	}
	if usage != "" {
		fmt.Fprintf(stderr, "gate: %s\n", usage)
		flags.Usage()
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if err := serve(ctx, o, stderr, log); err != nil {
		fmt.Fprintf(stderr, "gate: %s\n", msg.Escape(o.security.explain(err).Error()))
		return 2
	}
	return 0
}

// split returns the comma-separated items of s, without blanks.
func split(s string) []string {
	var items []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}

// serve runs a gate until ctx is done (or, with -until-idle, its group
// has consumed everything) and writes its summary to stderr. A gate whose
// session failed on an error of the connection (a broker lost while it
// ended a transaction) starts again on a new session, with back-off, as
// kafka.Gate does with NewSession: the transaction it could not end is
// aborted when the new session takes its transactional id, and its
// records come again.
func serve(ctx context.Context, o options, stderr io.Writer, log *slog.Logger) error {
	log.Info("gate starting", "brokers", msg.Escape(strings.Join(o.brokers, ",")), "in", msg.Escape(strings.Join(o.in, ",")),
		"out", msg.Escape(o.out), "dead", msg.Escape(o.dead), "group", msg.Escape(o.group), "transactional_id", msg.Escape(o.txnID))
	links := &linkLog{log: log, links: map[string]link{}}
	var progress func(gate.Stats)
	_, err := gatecmd.Run(stderr, o.out, o.dead, &progress, func() (gate.Stats, error) {
		first := true
		g := &kafka.Gate{
			NewSession: func() (*kgo.GroupTransactSession, error) {
				if first {
					// A gate that cannot talk to its brokers as
					// configured stops at once, saying why, rather
					// than wait for them for ever.
					if err := checkBrokers(ctx, o); err != nil {
						return nil, err
					}
				}
				sess, err := newSession(o, links)
				if err == nil && first {
					first = false
					go warnMissingInput(ctx, o, log)
				}
				return sess, err
			},
			Output: o.out, DeadLetters: o.dead, Batch: o.batch,
			MaxRecordBytes: o.maxBytes, UntilIdle: o.untilIdle, Log: log,
			Progress: func(s gate.Stats) {
				if progress != nil {
					progress(s)
				}
			},
		}
		return g.Run(ctx)
	})
	return err
}

// metadataMaxAge is how often a gate reloads its brokers' metadata,
// whatever happens.
const metadataMaxAge = 5 * time.Second

// newSession makes a session for the gate.
func newSession(o options, links *linkLog) (*kgo.GroupTransactSession, error) {
	// A batch of the input decompresses to at most this, not kgo's 1
	// GiB: one past it (a compression bomb) is dead-lettered unread;
	// and a fetch to less than twice it, however many batches it holds.
	// kgo bounds a batch at 2 GiB at most.
	bounded, err := kafka.BoundedFetches(min(decompressFactor*o.maxBytes, math.MaxInt32))
	if err != nil {
		return nil, err
	}
	// A request, and a response, may hold a batch of the largest size:
	// kgo's 100 MiB would refuse to start a gate given a larger one, and
	// to read a fetch that holds one.
	requestBytes := int32(max(100<<20, o.maxBytes+requestRoom))
	return kgo.NewGroupTransactSession(append(o.security.with(
		kgo.SeedBrokers(o.brokers...),
		kgo.ClientID("catalogue-gate"),
		// Metadata that failed to load (brokers down at start) is
		// loaded again after this, not after kgo's default 5 s: a gate
		// that waited for its brokers starts within a second of them.
		kgo.MetadataMinAge(time.Second),
		// Partitions added to the input are found, and gated, within
		// this, not within kgo's default 5 minutes: a metadata request
		// a gate every few seconds.
		kgo.MetadataMaxAge(metadataMaxAge),
		// A gate that vanished (killed, or cut off from the brokers)
		// holds its partitions this long.
		kgo.SessionTimeout(o.sessionTimeout),
		kgo.HeartbeatInterval(min(3*time.Second, o.sessionTimeout/3)),
		kgo.ConsumerGroup(o.group),
		kgo.ConsumeTopics(o.in...),
		// A new group gates what its input already holds.
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.TransactionalID(o.txnID),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		// The transaction markers, which its offsets must pass.
		kgo.KeepControlRecords(),
		kgo.ProducerBatchMaxBytes(int32(o.maxBytes)),
		kgo.ProducerBatchCompression(o.compression),
		kgo.BrokerMaxWriteBytes(requestBytes),
		kgo.BrokerMaxReadBytes(requestBytes),
		kgo.WithHooks(links),
	), bounded...)...)
}

// warnMissingInput logs, once it can reach a broker, each input topic
// that does not exist: a gate given a misspelt -in would otherwise wait
// for it in silence (the consumer waits for a topic it does not find,
// which is right for one created later). It has a client of its own:
// the gate closes the sessions it makes.
func warnMissingInput(ctx context.Context, o options, log *slog.Logger) {
	in := o.in
	cl, err := kgo.NewClient(o.security.with(kgo.SeedBrokers(o.brokers...), kgo.MetadataMinAge(time.Second))...)
	if err != nil {
		return
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for try := 1; ; try++ {
		topics, err := adm.ListTopics(ctx, in...)
		if err == nil {
			for _, t := range in {
				if !topics.Has(t) {
					log.Warn("the input topic does not exist; waiting for it", "topic", msg.Escape(t))
				}
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(min(time.Duration(try)*time.Second, 10*time.Second)):
		}
	}
}

// linkLog logs, through kgo's hooks, connecting to a broker the first
// time, losing it (the first connection to it that fails after one that
// worked) and finding it again (the first that works after), once each:
// never a line per request or per record, whatever an outage lasts. A
// broker not reached yet at start is not logged here: Run logs waiting
// for it, with its back-off.
type linkLog struct {
	log   *slog.Logger
	mu    sync.Mutex
	links map[string]link // by host:port
}

// link is what linkLog knows of a broker.
type link struct {
	reached bool // a connection to it has worked
	down    bool // the last connection to it failed
}

var _ kgo.HookBrokerConnect = (*linkLog)(nil)

// OnBrokerConnect implements kgo.HookBrokerConnect.
func (l *linkLog) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	addr := msg.Escape(net.JoinHostPort(meta.Host, strconv.Itoa(int(meta.Port))))
	l.mu.Lock()
	was := l.links[addr]
	l.links[addr] = link{reached: was.reached || err == nil, down: err != nil}
	l.mu.Unlock()
	switch {
	case err == nil && !was.reached:
		l.log.Info("connected to a broker", "broker", addr)
	case err == nil && was.down:
		l.log.Info("found the broker again", "broker", addr)
	case err != nil && was.reached && !was.down:
		l.log.Warn("lost the broker; retrying with back-off", "broker", addr, "error", msg.Escape(err.Error()))
	}
}
