package kafka

import (
	"maps"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/internal/sample"
)

// BenchmarkJudge does the Kafka gate's own work on a record, without the
// client's, the broker's or the gate core's: it judges the record as the
// gate does (broker.DecodeIdentity, borrowing from the value) and makes
// its copy's headers (broker.copyHeaders), over the sample's valid
// messages, each a plain record with the ce_ headers Record writes, as
// BenchmarkGate's input is. Count its instructions with the garbage
// collector off, as for BenchmarkRecord (see the README): about 9,900 a
// record. Before the README's last table of cuts it was about 12,000, of
// which judging the body exactly, for its identity, without building the
// message or allocating (msg.Kind's JudgeIdentity), took about 7,000;
// ce's reading of the headers about 900 and its checking, which tells
// whether the copy can carry them as they are (ce.WrittenHeader), about
// 1,900; and the copy's headers about 200.
func BenchmarkJudge(b *testing.B) {
	lines, _ := sample.Lines(b, "../testdata/messages.ndjson")
	var ds []delivery
	for _, line := range lines {
		m, err := catalogue.DecodeOr(line, "example.event")
		if err != nil {
			continue
		}
		r, err := Record("in", m, false)
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, delivery{r: r, body: r.Value})
	}
	var br broker
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d := &ds[i%len(ds)]
		_, id, err := br.DecodeIdentity(catalogue.Kinds, d)
		if err != nil {
			b.Fatal(err)
		}
		hs, err := br.copyHeaders(d, id)
		if err != nil || len(hs) != len(d.r.Headers) {
			b.Fatal(hs, err)
		}
	}
}

// TestVerdictHeaderFoldsInASCII pins what keptHeaders relies on to
// compare a header's name with VerdictHeader's length before its letters:
// that no letter of VerdictHeader is equal, in Unicode's simple case
// folding, to a character outside ASCII (as k is to the Kelvin sign,
// and s to the long s), so that a name that strings.EqualFold finds
// equal to it has its length.
func TestVerdictHeaderFoldsInASCII(t *testing.T) {
	for _, c := range VerdictHeader {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				t.Errorf("%q folds to %q, of another length", c, f)
			}
		}
	}
	if hs := keptHeaders([]kgo.RecordHeader{{Key: "Catalogue-VERDICT"}}); hs[0].Key != OriginalPrefix+"Catalogue-VERDICT" {
		t.Errorf("a verdict header in another case is kept as %q", hs[0].Key)
	}
}

// TestCopyHeadersAreWrittenUnlessTheInputsAre pins what the gate's judging
// notes for Forward (delivery.written): a copy carries its input's own
// headers, shared, only when they are each ce_ header once with the value
// ce.Kafka writes; headers that agree with the message but are written
// otherwise, or missing, are written anew on the copy.
func TestCopyHeadersAreWrittenUnlessTheInputsAre(t *testing.T) {
	lines, _ := sample.Lines(t, "../testdata/messages.ndjson")
	m, err := catalogue.Decode(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	r, err := Record("in", m, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, h := range r.Headers {
		want[h.Key] = string(h.Value)
	}
	with := func(key string, value func(string) string) []kgo.RecordHeader {
		var hs []kgo.RecordHeader
		for _, h := range r.Headers {
			if h.Key != key {
				hs = append(hs, h)
			} else if v := value(string(h.Value)); v != "" {
				hs = append(hs, kgo.RecordHeader{Key: key, Value: []byte(v)})
			}
		}
		return hs
	}
	for _, c := range []struct {
		name    string
		headers []kgo.RecordHeader
		written bool
	}{
		{"as Record writes them", r.Headers, true},
		{"ce_id in upper case", with("ce_id", strings.ToUpper), false},
		{"ce_time with another offset", with("ce_time", func(v string) string { return strings.Replace(v, "Z", "+00:00", 1) }), false},
		{"no ce_source", with("ce_source", func(string) string { return "" }), false},
		{"none", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := *r
			in.Headers = c.headers
			d := &delivery{r: &in, body: in.Value}
			var br broker
			_, id, err := br.DecodeIdentity(catalogue.Kinds, d)
			if err != nil {
				t.Fatal(err)
			}
			if d.written != c.written {
				t.Errorf("written is %v", d.written)
			}
			hs, err := br.copyHeaders(d, id)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, h := range hs {
				got[h.Key] = string(h.Value)
			}
			if !maps.Equal(got, want) || len(hs) != len(want) {
				t.Errorf("the copy's headers are %v, want %v", got, want)
			}
			if shared := len(hs) > 0 && len(c.headers) > 0 && &hs[0] == &c.headers[0]; shared != c.written {
				t.Errorf("the copy shares the input's headers: %v", shared)
			}
		})
	}
}
