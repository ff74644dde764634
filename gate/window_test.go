package gate

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
)

// TestWindowKeepsTheLastIDs pins the duplicate window's size: it keeps
// the last n ids forwarded, each with its body's digest, forgetting the
// oldest, although it grows only as ids come.
func TestWindowKeepsTheLastIDs(t *testing.T) {
	w := newWindow(3)
	ids := make([]uuid.UUID, 5)
	for i := range ids {
		ids[i] = uuid.New()
		w.add(ids[i], digest{byte(i)})
		w.add(ids[i], digest{0xff}) // again: the first digest stays, and the id counts once
	}
	for i, id := range ids {
		sum, ok := w.get(id)
		if i < 2 {
			assert.False(t, ok, "id %d of 5, in a window of 3", i)
			continue
		}
		assert.True(t, ok, "id %d of 5, in a window of 3", i)
		assert.Equal(t, digest{byte(i)}, sum)
	}
	assert.Len(t, w.at, 3)
	assert.Len(t, w.ring, 3)
}

// BenchmarkWindow is the duplicate window's work for a record a gate
// forwards, once the window is full, as a gate's is after its first
// 100,000: looked up when the copy is stored, added when it is
// confirmed, the oldest forgotten. A gate's caches hold little of the
// window between the two, so that what counts is how much of memory
// each touches (the ns/rec it reports: the time a record).
func BenchmarkWindow(b *testing.B) {
	const n, batch = 100_000, 20_000
	w := newWindow(n)
	for range n {
		w.add(uuid.New(), digest{})
	}
	ids := make([]uuid.UUID, batch)
	for i := range ids {
		ids[i] = uuid.New()
	}
	for b.Loop() {
		for _, id := range ids {
			if _, ok := w.get(id); ok {
				b.Fatal("a new id is in the window")
			}
		}
		for _, id := range ids {
			w.add(id, digest{})
		}
		for i := range ids {
			ids[i][0]++ // new ids for the next round
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/batch, "ns/rec")
}
