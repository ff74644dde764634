package jsontext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// benchInputs are the messages BenchmarkCheck times: the realistic
// messages of the bench module, compacted, and a vehicle whose meta has
// 1,000 members, as the bench module makes it.
func benchInputs(tb testing.TB) []struct {
	name string
	data []byte
} {
	var ins []struct {
		name string
		data []byte
	}
	for _, schema := range []string{"device", "vehicle", "association", "event"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "bench", "testdata", schema+".json"))
		if err != nil {
			tb.Fatal(err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, data); err != nil {
			tb.Fatal(err)
		}
		ins = append(ins, struct {
			name string
			data []byte
		}{schema, buf.Bytes()})
	}
	vehicle := ins[1].data
	i := bytes.Index(vehicle, []byte(`"meta":`))
	j := bytes.Index(vehicle, []byte(`,"specification":`))
	meta := append(append(append([]byte(nil), vehicle[:i+len(`"meta":`)]...), bigMeta(1000)...), vehicle[j:]...)
	ins = append(ins, struct {
		name string
		data []byte
	}{"meta1000", meta})
	return ins
}

// bigMeta is the bench module's meta of n members, of eight kinds of value
// in turn.
func bigMeta(n int) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", fmt.Sprintf("attr_%04d", i))
		switch i % 8 {
		case 0:
			fmt.Fprintf(&b, "%q", fmt.Sprintf("fleet note %d: checked at depot", i))
		case 1:
			b.WriteString(strconv.Itoa(i * 37))
		case 2:
			b.WriteString(strconv.FormatFloat(float64(i)/8+0.25, 'f', -1, 64))
		case 3:
			b.WriteString(strconv.FormatBool(i%16 < 8))
		case 4:
			b.WriteString("null")
		case 5:
			fmt.Fprintf(&b, `{"unit":"km","value":%d}`, i*11)
		case 6:
			fmt.Fprintf(&b, `["a-%d","b-%d"]`, i, i+1)
		case 7:
			b.WriteString(`"2026-03-14T09:27:01+01:00"`)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// BenchmarkCheck times Check on each of benchInputs, for profiling the
// scanner alone; the bench module compares it with its peers.
func BenchmarkCheck(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			if _, reason := Check(in.data); reason != "" {
				b.Fatal(reason)
			}
			b.SetBytes(int64(len(in.data)))
			for b.Loop() {
				Check(in.data)
			}
		})
	}
}
