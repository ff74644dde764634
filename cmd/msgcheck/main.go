// Command msgcheck works with the message-schema catalogue from the command
// line.
//
// Usage:
//
//	msgcheck check [-schema NAME[@VERSION]] [-default NAME] [-json] [-max-line BYTES] [FILE ...]  judge newline-delimited messages
//	msgcheck schemas                                                                              print the catalogue: name, version and $id
//	msgcheck serve [-addr HOST:PORT] [-catalogue DIR] [-subject TOPIC-value=NAME ...]             serve the catalogue API, the registry protocol and the pages over HTTP
//	msgcheck serve [...] -tls-cert FILE -tls-key FILE [-tls-client-ca FILE]                      the same over HTTPS
//	msgcheck pages -o DIR [-catalogue DIR]                                                        write the catalogue's pages as a static site
//	msgcheck version                                                                              print the version and the schemas it judges by
//	msgcheck compat [-mode M] [-strict] [-json] OLD NEW                                           check a new version of a schema against an old
//	msgcheck compat [-mode M] [-strict] [-json] -catalogue DIR                                    check every version of a catalogue folder
//
// check reads one JSON message a line (blank lines are skipped) from the
// files, one after the other, or from standard input when there are none or
// a file is "-". It judges each message by the -schema named, or else by
// the schema its message_type names, with exactly the library's rules
// (package ndjson), using every core. -schema NAME@VERSION judges by
// exactly that version's schema file (decision 13); a name alone, and
// message_type, judge by the schema's latest version: the latest minor of
// its latest major. -default NAME judges the messages that have no
// message_type member, such as every example.event, by the schema NAME at
// its latest version; without it such a message is invalid, its schema
// unknown. For each invalid message it prints, in input order,
//
//	FILE:LINE: SCHEMA: violation; violation; ...
//
// where FILE is the path as given ("-" for standard input), SCHEMA is the
// schema judged by or "?" if none could be chosen (an absent or unknown
// message_type), and each violation is "/json/pointer: message", the
// document itself being "(root)". At most 100 violations are listed
// (msg.MaxViolations), then "... and N more violations". Control
// characters, line and paragraph separators, bidirectional controls and
// bytes that are not UTF-8, in file names, member names and values, are
// printed as escapes such as \x1b, so that each invalid message is one
// line whatever it holds. A line that is not JSON is an invalid message
// like any other, and the stream goes on; so is a line longer than
// -max-line bytes (default 64 MiB), "(root): line longer than N bytes",
// which is skipped without being held. With -json it prints instead one
// object per message, valid ones included:
//
//	{"file":"-","line":3,"schema":"core.device","version":"1.0","valid":false,"violations":[{"path":"/imei","rule":"imei","message":"...","value":"..."}]}
//
// which is the library's verdict (msg.Verdict) after where the message
// was: "violations" is absent when the message is valid, "schema" is ""
// and "version" absent when none could be chosen, "value" is absent where
// no value is at fault (a missing member), and "omitted", absent when
// zero, counts the violations beyond those listed. At the end check prints a summary to stderr (messages,
// valid, invalid, bytes and throughput) and, while a long stream runs on a
// terminal, a progress line there, which it never prints into a pipe or
// file. Its exit status is 0 if every message is valid, 1 if any is invalid,
// and 2 for a usage error, a file that cannot be read (reported, the other
// files are still judged), or an interruption.
//
// compat compares two schema files, or (-catalogue) every minor version of
// a catalogue folder with every earlier minor of its major, by decision 13
// (package compat). It prints one line per finding,
//
//	NEW: /properties/kind: backward: enum-value-removed: <sentence>; witness: <message>
//
// where NEW is the new file (with -catalogue, followed by "against" and
// the version it is checked against), and a summary per pair on stderr;
// -json prints one object per pair instead. -mode is full (the default, the rule for minors), backward or
// forward; -strict counts open content as a break. Its exit status is 0
// if compatible, 1 if anything breaks, 2 for a usage error or a schema it
// cannot read.
//
// serve serves the API (package api) under /api/ and the catalogue's pages
// (package pages) at every other path: an index at /, a page per version
// of each schema and a page comparing any two versions, whose "try a
// message" form judges a posted message with the library. With -catalogue
// DIR the pages show that folder's schemas (a fixture, a proposed
// version); the library's types judge the versions whose files are the
// published ones, and the API serves the published catalogue. pages -o
// DIR writes the same pages as a static site, whose version pages have
// no form, since no server is there to judge.
//
// serve listens on 127.0.0.1:8080 unless -addr says otherwise (port 0 picks
// a free port), serves the schema-registry protocol under /api/registry
// (package api), each -subject mapping a topic's subject to a schema for
// serializers that name subjects after topics, logs the address it
// listens on to stderr, and shuts down
// gracefully on SIGINT or SIGTERM: it answers every request in flight,
// however slowly its body arrives (each is bounded by the server's
// time-outs), and then exits 0.
//
// With -tls-cert and -tls-key, PEM files of a certificate (its chain
// after it) and its private key, serve serves HTTPS instead, TLS 1.2 or
// later, and logs https:// URLs, for registry clients configured with
// url = https://HOST:PORT/api/registry and the CA that signed the
// certificate (HOST is the certificate's first name that is not a
// wildcard when serve listens on every address, 0.0.0.0 or [::]). Each
// needs the other (a usage error, exit 2); a file that cannot be read or
// is larger than 1 MiB, that holds no PEM certificate
// or key, or a key that is not the certificate's, is an error at start
// (exit 1), its one line naming the file, never what the key holds; so is
// an encrypted key. The TLS handshake is bounded by the header
// time-out, like the request's headers: a client that connects and sends nothing, or half a
// ClientHello, is disconnected then, and keeps nobody else waiting.
// HTTPS serves HTTP/1.1 alone, so that every time-out and limit works as
// over HTTP. When the certificate's files change (a renewal, by a tool
// that writes them in place or a Kubernetes secret's update), serve
// reads them again, looking at most once a second, as a client connects;
// a pair that does not load, such as a new certificate whose key is not
// yet written, is logged once and the certificate served so far kept
// until the files change again. A file that is not a regular file (a
// pipe) is read once. -tls-client-ca FILE requires every client to
// present a certificate signed by a CA of that PEM file (mutual TLS);
// that file is read once, at start.
//
// Otherwise the exit status is 0 on success, 2 for a usage error, 1 for any
// other error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/fleetkit/catalogue/schemas"
)

// A command is one subcommand of msgcheck. Its run takes the arguments after
// its name and returns the exit status.
type command struct {
	name    string
	summary string // one line for the usage text
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands lists the subcommands, in the order the usage text shows them.
// To add one, write its function and add a line here.
var commands = []command{
	{"check", "judge newline-delimited JSON messages from files or standard input", check},
	{"schemas", "print the catalogue: name, version and $id of every schema", listSchemas},
	{"serve", "serve the catalogue API and its pages over HTTP, or HTTPS (-addr, default " + defaultAddr + "; -tls-cert, -tls-key)", serve},
	{"pages", "write the catalogue's pages as a static site (-o DIR)", pagesCmd},
	{"version", "print msgcheck's version and the catalogue's schemas it was built with", version},
	{"compat", "check that a new version of a schema is compatible with the old (or a whole -catalogue folder)", compatCmd},
}

func main() {
	// The first signal cancels ctx for a graceful shutdown; stop then
	// restores the default, so that a second one ends the process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the subcommand args names and returns the exit status: 2 for a
// usage error, with the usage on stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "msgcheck: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, "usage: msgcheck <command> [arguments]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'msgcheck <command> -h' for the flags of a command.\n")
}

// A flagSet is the flag set of a subcommand, with the text its usage
// shows before the flags.
type flagSet struct {
	*flag.FlagSet
	usage string // the synopsis and what the command does
}

// newFlagSet returns the flag set of a subcommand; usage is its synopsis,
// "usage: msgcheck NAME ...", and what it does, one paragraph.
func newFlagSet(name, usage string) *flagSet {
	fs := flag.NewFlagSet("msgcheck "+name, flag.ContinueOnError)
	fs.Usage = func() {} // parse prints it, where it belongs
	return &flagSet{fs, usage}
}

// printUsage writes the usage text and the flags to w.
func (fs *flagSet) printUsage(w io.Writer) {
	fmt.Fprint(w, fs.usage)
	if strings.HasSuffix(fs.usage, "\n") {
		fmt.Fprintln(w)
	}
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// parse parses the arguments of a subcommand, its flags and operands in
// any order until "--", after which every argument is an operand, and
// returns the operands. When it returns false, the subcommand must exit
// with code: 0 for -h, whose usage parse has printed on stdout, or 2 for a
// usage error, whose message and usage it has printed on stderr.
func (fs *flagSet) parse(args []string, stdout, stderr io.Writer) (operands []string, code int, ok bool) {
	fs.SetOutput(stderr)
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.printUsage(stdout)
				return nil, 0, false
			}
			fs.printUsage(stderr)
			return nil, 2, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return operands, 0, true
		}
		if i := len(args) - len(rest); i > 0 && args[i-1] == "--" {
			return append(operands, rest...), 0, true
		}
		operands = append(operands, rest[0])
		args = rest[1:]
	}
}

// parseNone parses the arguments of a subcommand that takes no operands,
// like parse.
func (fs *flagSet) parseNone(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	operands, code, ok := fs.parse(args, stdout, stderr)
	if ok && len(operands) > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), operands[0])
		fs.printUsage(stderr)
		return 2, false
	}
	return code, ok
}

// version prints the module's version, as the build recorded it ("(devel)"
// for a build from a checkout), the version of Go it was built with, and
// the schemas of the catalogue it judges by.
func version(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "usage: msgcheck version\n\nPrint msgcheck's version, the Go it was built with, and the schemas it judges by.\n")
	if code, ok := fs.parseNone(args, stdout, stderr); !ok {
		return code
	}
	v, goVersion := "(unknown)", "(unknown)"
	if info, ok := debug.ReadBuildInfo(); ok {
		v, goVersion = info.Main.Version, info.GoVersion
		if v == "" {
			v = "(devel)"
		}
	}
	fmt.Fprintf(stdout, "msgcheck %s (%s)\n", v, goVersion)
	for _, s := range schemas.All() {
		fmt.Fprintf(stdout, "  %s %s\n", s.Name, s.Version)
	}
	return 0
}
