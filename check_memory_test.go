package catalogue_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/internal/hostile"
)

// hostileShapes returns messages of about a mebibyte that cost a decoder
// the most memory for their size, each valid or not: free objects of many
// members, many short tags, long strings, escapes, and many undeclared
// members, with names plain or escaped.
func hostileShapes() []hostile.Message {
	const size = 1 << 20
	vehicle := `{"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","message_type":"core.vehicle","source_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","source_type":"CORE","tenant_id":"club-1","time":"2026-03-01T08:00:00Z","vehicle_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44"`
	event := `{"id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","type":"created","occurred_at":"2026-03-01T08:00:00Z"`
	members := func(n int, prefix string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%s%x":0`, prefix, i)
		}
		return b.String()
	}
	repeat := func(head, item, tail string) []byte {
		n := (size - len(head) - len(tail)) / len(item)
		return []byte(head + strings.Repeat(item, n) + strings.TrimSuffix(tail, ","))
	}
	// A free object's names past a few thousand are gathered by the
	// scanner at 8 bytes a name, and checked when the object ends: less
	// than the object, unless its members are shorter than 8 bytes, as
	// a name repeated to the end is, `"":0,` being 5 bytes.
	shapes := []hostile.Message{
		{Name: "meta of many members", Schema: "core.vehicle", Body: []byte(vehicle + `,"meta":{` + members(size/9, "") + `}}`)},
		{Name: "meta of many members with escaped names", Schema: "core.vehicle", Body: []byte(vehicle + `,"meta":{` + members(size/15, `\n`) + `}}`)},
		{Name: "meta of many short members", Schema: "core.vehicle", Body: repeat(vehicle+`,"meta":{`+members(1<<12, "")+`,"":0`, `,"":0`, `}}`)},
		{Name: "meta of escaped characters", Schema: "core.vehicle", Body: repeat(vehicle+`,"meta":{"a":"`, `<&\u2028`, `"}}`)},
		{Name: "many tags", Schema: "example.event", Body: repeat(event+`,"tags":["t"`, `,"t"`, `]}`)},
		{Name: "many empty tags", Schema: "example.event", Body: repeat(event+`,"tags":[""`, `,""`, `]}`)},
		{Name: "many escaped tags", Schema: "example.event", Body: repeat(event+`,"tags":["\n"`, `,"\n"`, `]}`)},
		{Name: "a long string", Schema: "core.vehicle", Body: repeat(vehicle+`,"make":"`, `a`, `"}`)},
		{Name: "a long string of escapes", Schema: "core.vehicle", Body: repeat(vehicle+`,"make":"`, `\n`, `"}`)},
		{Name: "many undeclared members", Schema: "example.event", Body: []byte(event + `,` + members(size/9, "") + `}`)},
		{Name: "many undeclared members with escaped names", Schema: "example.event", Body: []byte(event + `,` + members(size/15, `\n`) + `}`)},
		{Name: "many undeclared members, each an object", Schema: "example.event", Body: repeat(event+`,"a":{}`, `,"b":{}`, `}`)},
	}
	return append(shapes, hostile.Messages()...)
}

// allocated returns the bytes f allocates, on average over a few calls
// after a first, which fills the pools a long-running judge keeps.
func allocated(f func()) uint64 {
	f()
	const runs = 4
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / runs
}

// within holds the shapes that Check must judge in less than their own
// size, twice being the bound of any: a free object's names past a few
// thousand cost 8 bytes a name, which is more than the message only
// where its members are shorter than that.
var within = map[string]float64{
	"meta of many members":                    1,
	"meta of many members with escaped names": 1,
}

// TestCheckAllocatesLessThanTheMessage pins the bound of issue 20: a
// message judged without being decoded costs at most twice its size in
// memory, whatever it holds, where decoding it may cost ten times.
func TestCheckAllocatesLessThanTheMessage(t *testing.T) {
	for _, h := range hostileShapes() {
		t.Run(h.Name, func(t *testing.T) {
			k := catalogue.Kinds.Lookup(h.Schema, "")
			check := allocated(func() { _ = k.Check(h.Body) })
			decode := allocated(func() { _ = k.New().UnmarshalJSON(h.Body) })
			t.Logf("%d bytes: Check allocates %d (%.2fx), UnmarshalJSON %d (%.2fx)", len(h.Body),
				check, float64(check)/float64(len(h.Body)), decode, float64(decode)/float64(len(h.Body)))
			// Under the race detector sync.Pool drops a share of what is
			// put in it, on purpose, so that the scratch space a judge
			// reuses is at times made afresh.
			limit := 2.0
			if within[h.Name] != 0 {
				limit = within[h.Name]
			}
			if raceEnabled {
				limit = 10
			}
			if float64(check) > limit*float64(len(h.Body)) {
				t.Errorf("Check allocates %d bytes for a message of %d, more than %gx", check, len(h.Body), limit)
			}
		})
	}
}
