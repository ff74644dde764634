package gate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/msg"
)

// reflected is a Verdict that msg.MarshalHeader writes with encoding/json,
// as it wrote every Verdict before Verdict.AppendHeader: the field shadows
// the method, and encoding/json leaves the field out.
type reflected struct {
	gate.Verdict
	AppendHeader struct{} `json:"-"`
}

// encodeByReflection is Verdict.Encode written by encoding/json, as it
// was before Verdict.AppendHeader, cutting the violations as Encode does:
// msg.MarshalHeader cuts a holder it writes by encoding/json the same way.
func encodeByReflection(v gate.Verdict, limit int) ([]byte, error) {
	b, err := msg.MarshalHeader(&reflected{Verdict: v}, limit)
	if err == nil && len(b) > limit { // the cuts of a long Error and Subject are not modelled: checkEncode gives none
		return nil, gate.ErrTooLarge
	}
	return b, err
}

// text returns a string of up to n characters, JSON's hardest among them.
func text(r *rand.Rand, n int) string {
	const hard = "\x00\x01\b\t\n\f\r\x1b\x1f\x7f\"\\<>&/\xff\x80\xe2\x80\xe2\x80\xa8\xe2\x80\xa9é😀 abc"
	var b strings.Builder
	for range r.IntN(n + 1) {
		i := r.IntN(len(hard))
		b.WriteString(hard[i : i+1+r.IntN(min(3, len(hard)-i))])
	}
	return b.String()
}

// randomVerdict returns a verdict with every field set or not.
func randomVerdict(r *rand.Rand) gate.Verdict {
	v := gate.Verdict{Place: gate.Place{Subject: text(r, 5), Sequence: r.Uint64N(1 << 20)}}
	if r.IntN(2) == 0 {
		v.Stream = text(r, 5)
	}
	if r.IntN(2) == 0 {
		v.Partition = r.Int32() - 1<<30
	}
	v.Schema, v.Valid = text(r, 5), r.IntN(2) == 0
	if r.IntN(2) == 0 {
		v.Version = text(r, 3)
	}
	if r.IntN(4) > 0 {
		v.Violations = []*msg.Violation{}
	}
	for range r.IntN(3) * r.IntN(60) {
		if r.IntN(30) == 0 {
			v.Violations = append(v.Violations, nil)
			continue
		}
		v.Violations = append(v.Violations, &msg.Violation{Path: text(r, 8), Rule: msg.Rule(text(r, 3)), Message: text(r, 40), Value: text(r, 40)})
	}
	if r.IntN(2) == 0 {
		v.Omitted = r.IntN(5000)
	}
	v.Deliveries = r.Uint64N(3) * r.Uint64()
	if r.IntN(2) == 0 {
		v.Error = text(r, 5)
	}
	v.Truncated, v.HeadersDropped = r.IntN(2) == 0, r.IntN(2) == 0
	if r.IntN(2) == 0 {
		v.BodySize = r.IntN(1 << 21)
	}
	return v
}

// checkEncode fails t unless v's JSON is encoding/json's, whole and as
// Encode cuts it to limit. The cuts of an Error or a Subject longer than
// 16 bytes are left to TestEncodeCutsALongSubjectAndError: with one,
// the limit is raised to leave it whole.
func checkEncode(t *testing.T, v gate.Verdict, limit int) {
	t.Helper()
	if len(v.Error) > 16 || len(v.Subject) > 16 {
		limit = max(limit, len(v.AppendHeader(nil)))
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	if got := v.AppendHeader(nil); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte{'\n'})) {
		t.Fatalf("AppendHeader wrote\n%q\nencoding/json\n%q", got, want.Bytes())
	}
	got, err := v.Encode(limit)
	old, oldErr := encodeByReflection(v, limit)
	require.Equal(t, oldErr == nil, err == nil, "Encode(%d): %v, by reflection %v", limit, err, oldErr)
	if !bytes.Equal(got, old) {
		t.Fatalf("Encode(%d) wrote\n%q\nby reflection\n%q", limit, got, old)
	}
	if err != nil {
		return
	}
	require.LessOrEqual(t, len(got), limit)
	back, err := gate.ParseVerdict(got)
	require.NoError(t, err)
	require.Equal(t, len(v.Violations)+v.Omitted, len(back.Violations)+back.Omitted, "every violation listed or counted")
}

// The verdict's JSON is encoding/json's, byte for byte, with every field
// set or not; and Encode cuts it as msg.MarshalHeader cuts the same
// written by encoding/json, within its limit.
func TestVerdictJSONIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		checkEncode(t, randomVerdict(r), 200+r.IntN(msg.MaxVerdictBytes))
	}
}

func FuzzEncode(f *testing.F) {
	f.Add("fleet.in.x", "IN", int32(0), uint64(6), "core.device", "1.0", false, "/imei", "imei", "not an IMEI", `"1"`, uint8(3), 0, uint64(1), "", false, 0, false, 1000)
	f.Add("<&>\u2028", "", int32(-3), uint64(0), "", "", true, "\x00\xff", "\x7f", "\"\\\b\f", "\xe2\x80", uint8(200), -7, uint64(1<<63), "boom", true, 99, true, 300)
	f.Fuzz(func(t *testing.T, subject, stream string, partition int32, sequence uint64, schema, version string, valid bool,
		path, rule, message, value string, n uint8, omitted int, deliveries uint64, handler string, truncated bool, bodySize int, dropped bool, limit int) {
		v := gate.Verdict{
			Place:      gate.Place{Subject: subject, Stream: stream, Partition: partition, Sequence: sequence},
			Verdict:    msg.Verdict{Schema: schema, Version: version, Valid: valid, Omitted: omitted},
			Deliveries: deliveries, Error: handler, Truncated: truncated, BodySize: bodySize, HeadersDropped: dropped,
		}
		for i := range int(n) {
			if i%7 == 6 {
				v.Violations = append(v.Violations, nil)
				continue
			}
			v.Violations = append(v.Violations, &msg.Violation{Path: fmt.Sprint(path, i), Rule: msg.Rule(rule), Message: message, Value: value})
		}
		checkEncode(t, v, limit)
	})
}

// BenchmarkEncode compares Encode with the same by encoding/json,
// on a dead letter's verdict of three violations, and on one of
// msg.MaxViolations long violations cut to a 4 KiB limit.
func BenchmarkEncode(b *testing.B) {
	long := strings.Repeat("v", 300)
	for _, c := range []struct {
		name  string
		v     gate.Verdict
		limit int
	}{
		{"three", verdict(3), msg.MaxVerdictBytes},
		{"cut", func() gate.Verdict {
			v := verdict(msg.MaxViolations)
			for _, x := range v.Violations {
				x.Value = long
			}
			return v
		}(), 4096},
	} {
		b.Run(c.name+"/encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encodeByReflection(c.v, c.limit); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/by-hand", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.v.Encode(c.limit); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
