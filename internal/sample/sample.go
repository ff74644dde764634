// Package sample reads the sample stream, testdata/messages.ndjson at the
// root of the repository, for the tests of every package and module that
// carry its messages (ce, the NATS and Kafka bindings): one message a
// line, of all four schemas, valid and invalid, with a blank line.
package sample

import (
	"bufio"
	"bytes"
	"os"
	"testing"
)

// Lines returns the lines of the ndjson file at path that are not blank,
// each with its number in the file, from 1. It fails t if the file cannot
// be read.
func Lines(t testing.TB, path string) (lines [][]byte, numbers []int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		if line := s.Bytes(); len(bytes.TrimSpace(line)) > 0 {
			lines = append(lines, bytes.Clone(line))
			numbers = append(numbers, n)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, numbers
}
