// Command msgcheck works with the message-schema catalogue from the command
// line.
//
// Usage:
//
//	msgcheck schemas                     print the catalogue: name, version and $id
//	msgcheck serve [-addr HOST:PORT]     serve the catalogue API over HTTP
//
// serve listens on 127.0.0.1:8080 unless -addr says otherwise (port 0 picks
// a free port), logs the address it listens on to stderr, and shuts down
// gracefully on SIGINT or SIGTERM.
//
// The exit status is 0 on success, 2 for a usage error, 1 otherwise.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
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
	{"schemas", "print the catalogue: name, version and $id of every schema", listSchemas},
	{"serve", "serve the catalogue API over HTTP (-addr, default " + defaultAddr + ")", serve},
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

// newFlagSet returns the flag set of a subcommand, which reports errors
// instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("msgcheck "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: msgcheck %s [flags]\n", name)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses the arguments of a subcommand that takes no operands. When it
// returns false, the subcommand must exit with code: 0 for -h, 2 for a usage
// error, whose message and usage parse has printed.
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return 2, false
	}
	return 0, true
}
