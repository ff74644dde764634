// Package casetable reads the case tables of the published schemas,
// schemas/testdata/cases/<schema name>.ndjson, for the tests that hold the
// library, the checker and the routes to them: one case a line, a message
// and whether its schema accepts it, with a note that says why.
package casetable

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Case is one line of a case table.
type Case struct {
	Line    int             // the line's number in the file, from 1
	Valid   bool            // whether the schema accepts Message
	Note    string          // why
	Message json.RawMessage // the message's exact bytes
}

// Read returns the case table of the named schema in the folder dir. It
// reads strictly, and fails t unless every line is one case with the three
// members and nothing else.
func Read(t testing.TB, dir, name string) []Case {
	t.Helper()
	path := filepath.Join(dir, name+".ndjson")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases, err := read(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cases
}

func read(r io.Reader) ([]Case, error) {
	var cases []Case
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var c struct {
			Valid   *bool           `json:"valid"`
			Note    string          `json:"note"`
			Message json.RawMessage `json:"message"`
		}
		var err error
		switch err = dec.Decode(&c); {
		case err != nil:
		case dec.More():
			err = errors.New("more than one case")
		case c.Valid == nil:
			err = errors.New("no valid")
		case c.Note == "":
			err = errors.New("no note")
		case len(c.Message) == 0:
			err = errors.New("no message")
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		cases = append(cases, Case{n, *c.Valid, c.Note, c.Message})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(cases) == 0 {
		return nil, errors.New("no case")
	}
	return cases, nil
}
