package casetable

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadKeepsEachCaseWithItsLine(t *testing.T) {
	cases, err := read(strings.NewReader(`{"valid":true,"note":"a","message":{"x": 1}}` + "\n" +
		`{"valid":false,"note":"b","message":"raw"}` + "\n"))
	require.NoError(t, err)
	assert.Equal(t, []Case{
		{1, true, "a", json.RawMessage(`{"x": 1}`)},
		{2, false, "b", json.RawMessage(`"raw"`)},
	}, cases)
}

func TestReadRefusesALineThatIsNotOneCase(t *testing.T) {
	good := `{"valid":true,"note":"a","message":{}}` + "\n"
	for line, want := range map[string]string{
		`{"valid":true,"note":"a","message":{},"extra":1}`: `line 2: json: unknown field "extra"`,
		`{"valid":true,"note":"a","message":{}} {}`:        "line 2: more than one case",
		`{"note":"a","message":{}}`:                        "line 2: no valid",
		`{"valid":true,"message":{}}`:                      "line 2: no note",
		`{"valid":true,"note":"a"}`:                        "line 2: no message",
		``:                                                 "line 2: EOF",
	} {
		_, err := read(strings.NewReader(good + line + "\n"))
		assert.EqualError(t, err, want, line)
	}
	_, err := read(strings.NewReader(""))
	assert.EqualError(t, err, "no case")
}

func TestEveryPublishedTableReads(t *testing.T) {
	for _, name := range []string{"core.device", "core.vehicle", "core.association", "example.event"} {
		assert.NotEmpty(t, Read(t, "../../schemas/testdata/cases", name), name)
	}
}
