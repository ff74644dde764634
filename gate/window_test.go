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
	assert.Len(t, w.sums, 3)
	assert.Len(t, w.order, 3)
}
