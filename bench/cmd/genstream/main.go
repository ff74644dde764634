// Command genstream writes a stream of newline-delimited messages for
// timing msgcheck check on a large input:
//
//	go run ./cmd/genstream -mb 128 > /tmp/stream.ndjson
//	go build -o /tmp/msgcheck ../cmd/msgcheck
//	/usr/bin/time -v /tmp/msgcheck check /tmp/stream.ndjson > /dev/null
//
// The stream repeats the realistic message of every schema in testdata/,
// each line made unique by its message_id (or id), and makes one line in
// eight invalid in one of several ways (a wrong type, a bad format, a bad
// IMEI, a missing member, malformed JSON), so that both verdicts are timed.
// Events carry a message_type member, which their schema allows, so that
// every line is judged by its message_type. The output is the same for the
// same flags.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

func main() {
	mb := flag.Int("mb", 128, "megabytes to write, at least")
	dir := flag.String("testdata", "testdata", "directory of the realistic messages")
	flag.Parse()
	if err := run(*mb, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "genstream:", err)
		os.Exit(1)
	}
}

func run(mb int, dir string) error {
	var messages [][]byte
	for _, name := range []string{"device", "vehicle", "association", "event"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".json"))
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, data); err != nil {
			return fmt.Errorf("%s.json: %v", name, err)
		}
		m := buf.Bytes()
		if name == "event" {
			m = append([]byte(`{"message_type":"example.event",`), m[1:]...)
		}
		messages = append(messages, m)
	}
	breakages := [][2]string{
		{`"tenant_id":"`, `"tenant_id":7,"x":"`},
		{`"time":"`, `"time":"yesterday","x":"`},
		{`"imei":"490154203237518"`, `"imei":"490154203237519"`},
		{`"seed_odo":`, `"seed_odo":-`},
		{`"type":"`, `"type":"archived","x":"`},
		{`"association_id":`, `"association":`},
		{`}`, `,}`},
	}

	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for n, written := 0, 0; written < mb<<20; n++ {
		line := messages[n%len(messages)]
		// Make the line's identifier unique: the first eight hex digits
		// of its message_id, or of an event's id.
		for _, key := range []string{`"message_id":"`, `"id":"`} {
			if i := bytes.Index(line, []byte(key)); i >= 0 {
				line = bytes.Clone(line)
				copy(line[i+len(key):], fmt.Sprintf("%08x", uint32(n)))
				break
			}
		}
		if n%8 == 7 {
			// The first breakage, from a random one on, that applies to
			// this line.
			for k, first := 0, rng.IntN(len(breakages)); k < len(breakages); k++ {
				b := breakages[(first+k)%len(breakages)]
				if bytes.Contains(line, []byte(b[0])) {
					line = bytes.Replace(line, []byte(b[0]), []byte(b[1]), 1)
					break
				}
			}
		}
		w.Write(line)
		w.WriteByte('\n')
		written += len(line) + 1
	}
	return w.Flush()
}
