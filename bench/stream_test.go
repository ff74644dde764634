package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fleetkit/catalogue/ndjson"
)

// stream is a stream of newline-delimited messages, as msgcheck check
// reads them: the realistic message of every schema in turn, one in eight
// made invalid, so that both verdicts are timed. Events carry a
// message_type member (allowed, as an extra member) so that every line is
// judged by its message_type.
var stream, streamLines = mustStream(4000)

func mustStream(n int) ([]byte, int) {
	var realistic [][]byte
	for _, in := range inputs {
		if in.name != "realistic" {
			continue
		}
		data := in.data
		if in.schema == "event" {
			data = append([]byte(`{"message_type":"example.event",`), data[1:]...)
		}
		realistic = append(realistic, data)
	}
	var b bytes.Buffer
	for i := range n {
		line := realistic[i%len(realistic)]
		if i%8 == 7 {
			line = bytes.Replace(line, []byte(`":"`), []byte(`":7`), 1) // a string member becomes a bad value
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), n
}

// BenchmarkStream compares judging a stream the way msgcheck check does
// (ndjson.Check, on GOMAXPROCS cores: run with -cpu 1,2 for one core and
// two) with santhosh-tekuri/jsonschema judging the same lines one by one,
// each by the schema its message_type names, on one core whatever -cpu
// says. It reports messages per second.
func BenchmarkStream(b *testing.B) {
	b.Run("impl=catalogue", func(b *testing.B) { benchCheck(b, 0) })
	b.Run("impl=santhosh", func(b *testing.B) {
		compiled := map[string]*jsonschema.Schema{}
		for _, name := range []string{"core.device", "core.vehicle", "core.association", "example.event"} {
			sch, err := compile(name)
			if err != nil {
				b.Fatal(err)
			}
			compiled[name] = sch
		}
		judge := func(line []byte) bool {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
			if err != nil {
				return false
			}
			obj, _ := v.(map[string]any)
			typ, _ := obj["message_type"].(string)
			sch := compiled[typ]
			return sch != nil && sch.Validate(v) == nil
		}
		valid := 0
		for line := range bytes.Lines(stream) {
			if judge(line) {
				valid++
			}
		}
		wantValid(b, valid)
		b.SetBytes(int64(len(stream)))
		b.ReportAllocs()
		for b.Loop() {
			sc := bufio.NewScanner(bytes.NewReader(stream))
			for sc.Scan() {
				judge(sc.Bytes())
			}
		}
		b.ReportMetric(float64(streamLines)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
}

func benchCheck(b *testing.B, workers int) {
	check := func() ndjson.Stats {
		stats, err := ndjson.Check(context.Background(), bytes.NewReader(stream), ndjson.Options{Workers: workers},
			func(ndjson.Result) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		return stats
	}
	wantValid(b, check().Valid)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		check()
	}
	b.ReportMetric(float64(streamLines)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// wantValid checks, untimed, that an impl finds the stream's valid lines
// valid and its invalid ones invalid.
func wantValid(b *testing.B, valid int) {
	if want := streamLines - streamLines/8; valid != want {
		b.Fatalf("%d valid messages, want %d", valid, want)
	}
}

// TestStreamIsJudgedAlike pins that the two ways of judging the stream
// agree, so that the benchmark compares the same work.
func TestStreamIsJudgedAlike(t *testing.T) {
	stats, err := ndjson.Check(context.Background(), bytes.NewReader(stream), ndjson.Options{}, func(ndjson.Result) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if want := streamLines - streamLines/8; stats.Valid != want || stats.Messages != streamLines {
		t.Fatalf("%+v, want %d of %d valid", stats, want, streamLines)
	}
	var m map[string]any
	if err := json.Unmarshal(bytes.SplitN(stream, []byte("\n"), 2)[0], &m); err != nil {
		t.Fatal(err)
	}
}
