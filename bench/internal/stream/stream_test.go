package stream

import (
	"bytes"
	"context"
	"testing"

	"github.com/fleetkit/catalogue/ndjson"
)

// TestWriteAdvertisesWhatItWrites pins that Write stops at the first line
// end at or past the size asked for, that its Stats count the lines it
// wrote, and that the library finds invalid exactly the lines Write says
// it broke, one in eight.
func TestWriteAdvertisesWhatItWrites(t *testing.T) {
	const longest = 2048 // longer than any realistic message, broken or not
	for _, size := range []int64{0, 1, 4096, 1 << 20} {
		var buf bytes.Buffer
		s, err := Write(&buf, "../../testdata", size)
		if err != nil {
			t.Fatal(err)
		}
		if s.Bytes != int64(buf.Len()) {
			t.Errorf("size %d: Stats.Bytes is %d, wrote %d", size, s.Bytes, buf.Len())
		}
		if s.Bytes < size || s.Bytes >= size+longest {
			t.Errorf("size %d: wrote %d bytes, want from %d to %d", size, s.Bytes, size, size+longest-1)
		}
		if n := bytes.Count(buf.Bytes(), []byte("\n")); s.Messages != n {
			t.Errorf("size %d: Stats.Messages is %d, wrote %d lines", size, s.Messages, n)
		}
		if s.Bytes > 0 && !bytes.HasSuffix(buf.Bytes(), []byte("\n")) {
			t.Errorf("size %d: last line unterminated", size)
		}
		if want := s.Messages / 8; s.Invalid != want {
			t.Errorf("size %d: %d of %d lines broken, want %d", size, s.Invalid, s.Messages, want)
		}
		got, err := ndjson.Check(context.Background(), bytes.NewReader(buf.Bytes()), ndjson.Options{},
			func(ndjson.Result) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if got.Messages != s.Messages || got.Invalid() != s.Invalid || got.Bytes != s.Bytes {
			t.Errorf("size %d: ndjson.Check found %d messages, %d invalid, %d bytes; Write said %d, %d, %d",
				size, got.Messages, got.Invalid(), got.Bytes, s.Messages, s.Invalid, s.Bytes)
		}
	}
}

// TestWriteIsDeterministic pins that the same size gives the same bytes,
// so that timings of one stream can be compared with another's.
func TestWriteIsDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if _, err := Write(&a, "../../testdata", 64<<10); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(&b, "../../testdata", 64<<10); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two streams of the same size differ")
	}
}
