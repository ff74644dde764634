// Command genstream writes a stream of newline-delimited messages for
// timing msgcheck check on a large input:
//
//	go run ./cmd/genstream -mb 128 > /tmp/stream.ndjson
//	go build -o /tmp/msgcheck ../cmd/msgcheck
//	/usr/bin/time -v /tmp/msgcheck check /tmp/stream.ndjson > /dev/null
//
// BenchmarkCheckCommand does the same from go test. The stream, written by
// package internal/stream, repeats the realistic message of every schema in
// testdata/, each line made unique by its message_id (or id), and makes one
// line in eight invalid, so that both verdicts are timed. The output is the
// same for the same flags.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/fleetkit/catalogue/bench/internal/stream"
)

func main() {
	mb := flag.Int("mb", 128, "megabytes to write, at least")
	dir := flag.String("testdata", "testdata", "directory of the realistic messages")
	flag.Parse()
	if _, err := stream.Write(os.Stdout, *dir, int64(*mb)<<20); err != nil {
		fmt.Fprintln(os.Stderr, "genstream:", err)
		os.Exit(1)
	}
}
