package vocabulary_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/vocabulary/reading"
	"github.com/fleetkit/catalogue/msg"
)

// A member name repeated inside a value held as JSON text (an item of an
// array of any values, a member of any value) is the same violation
// whether decoding finds it or Validate finds it in a value built by
// hand: rule duplicate, at the repeated member; and decoding goes on past
// it, to the next.
func TestRepeatsInRawValuesAreJudgedAlikeDecodedOrBuilt(t *testing.T) {
	samples, anything := `[1,{"a":1,"a":2}]`, `{"b":[{"c":1,"c":1}]}`
	want := []string{"/samples/1/a: duplicate", "/anything/b/0/c: duplicate"}
	got := func(err error) []string {
		var e *msg.Error
		require.ErrorAs(t, err, &e)
		var short []string
		for _, v := range e.Violations {
			short = append(short, v.Path+": "+string(v.Rule))
		}
		return short
	}

	_, err := reading.Parse(corpus.With(map[string]string{"samples": samples, "anything": anything}))
	assert.Equal(t, want, got(err), "decoded")

	m, err := reading.Parse(corpus.With(nil))
	require.NoError(t, err)
	var items []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(`[1,0]`), &items))
	items[1] = json.RawMessage(`{"a":1,"a":2}`)
	m.Samples, m.Anything = items, json.RawMessage(anything)
	assert.Equal(t, want, got(m.Validate()), "built by hand")
}
