package jsonobject

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMembersKeepTheOrderWrittenAndEveryName(t *testing.T) {
	ms, err := Members([]byte(` {"b": 1, "a": {"x": [null]}, "b": "two"} `))
	require.NoError(t, err)
	assert.Equal(t, []Member{
		{"b", json.RawMessage(`1`)},
		{"a", json.RawMessage(`{"x": [null]}`)},
		{"b", json.RawMessage(`"two"`)},
	}, ms)

	ms, err = Members([]byte(`{}`))
	require.NoError(t, err)
	assert.Empty(t, ms)
}

func TestMembersRefuseWhatIsNotAnObject(t *testing.T) {
	for _, in := range []string{`[1]`, `"a"`, `null`, `3`} {
		_, err := Members([]byte(in))
		assert.ErrorIs(t, err, ErrNotObject, in)
	}
	for _, in := range []string{``, `{"a":1`, `{"a":}`, `{"a" 1}`, `{1:2}`} {
		_, err := Members([]byte(in))
		if assert.Error(t, err, in) {
			assert.False(t, errors.Is(err, ErrNotObject), in)
		}
	}
}
