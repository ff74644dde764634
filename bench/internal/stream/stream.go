// Package stream writes the stream of newline-delimited messages that
// msgcheck check is timed on, for cmd/genstream and BenchmarkCheckCommand
// alike, so that the README's figures and the benchmark judge the same
// bytes.
//
// The stream repeats the realistic message of every schema in the bench
// module's testdata, each line made unique by its message_id (or id), and
// makes one line in eight invalid, so that both verdicts are timed. Events
// carry a message_type member, which their schema allows, so that every
// line is judged by its message_type. The output depends only on the size
// asked for.
//
// The schemas take turns, shifted by one every eight lines, so that the
// line made invalid is of each schema in turn and every breakage below
// occurs.
package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Stats says what Write wrote.
type Stats struct {
	Messages int   // lines written
	Invalid  int   // lines made invalid
	Bytes    int64 // bytes written, newlines included
}

// breakages are the ways a line is made invalid: the first occurrence of
// each pair's first string is replaced by its second.
var breakages = [][2]string{
	{`"tenant_id":"`, `"tenant_id":7,"x":"`},
	{`"time":"`, `"time":"yesterday","x":"`},
	{`"imei":"490154203237518"`, `"imei":"490154203237519"`},
	{`"seed_odo":`, `"seed_odo":-`},
	{`"type":"updated"`, `"type":"archived"`}, // the event's; a device's type is free
	{`"association_id":`, `"association":`},
	{`}`, `,}`},
}

// Write writes whole lines to w until at least size bytes are written,
// made from the realistic messages in dir (device.json, vehicle.json,
// association.json and event.json).
func Write(w io.Writer, dir string, size int64) (Stats, error) {
	messages, err := realistic(dir)
	if err != nil {
		return Stats{}, err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	var s Stats
	for ; s.Bytes < size; s.Messages++ {
		n := s.Messages
		line := messages[(n+n/8)%len(messages)]
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
					s.Invalid++
					break
				}
			}
		}
		bw.Write(line)
		bw.WriteByte('\n')
		s.Bytes += int64(len(line)) + 1
	}
	// bufio.Writer keeps its first error, so Flush reports any write's.
	return s, bw.Flush()
}

// realistic reads the realistic messages from dir, compacted as on the
// wire, an event with a message_type member.
func realistic(dir string) ([][]byte, error) {
	var messages [][]byte
	for _, name := range []string{"device", "vehicle", "association", "event"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".json"))
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, data); err != nil {
			return nil, fmt.Errorf("%s.json: %v", name, err)
		}
		m := buf.Bytes()
		if name == "event" {
			m = append([]byte(`{"message_type":"example.event",`), m[1:]...)
		}
		messages = append(messages, m)
	}
	return messages, nil
}
