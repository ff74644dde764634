package msg_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/msg"
)

func TestVerdictOfAValidMessage(t *testing.T) {
	v := msg.VerdictOf(device.New(), nil)
	assert.Equal(t, msg.Verdict{Schema: "core.device", Version: "1.0", Valid: true}, v)
	assert.NoError(t, v.Err())
	got, err := json.Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, `{"schema":"core.device","version":"1.0","valid":true}`, string(got))
}

func TestVerdictOfAnInvalidMessage(t *testing.T) {
	d, err := device.Parse([]byte(`{"imei":"1"}`))
	require.Error(t, err)
	require.Nil(t, d)
	v := msg.VerdictOf(device.New(), fmt.Errorf("wrapped: %w", err))
	assert.False(t, v.Valid)
	assert.Equal(t, "core.device", v.Schema)
	e, _ := errors.AsType[*msg.Error](err)
	assert.Equal(t, e.Violations, v.Violations)
	assert.Equal(t, err.Error(), v.Err().Error())
}

func TestVerdictOfAnErrorOfNoMessage(t *testing.T) {
	cause := errors.New(`ce-type: unknown schema "x"`)
	v := msg.VerdictOf(nil, cause)
	assert.Equal(t, "", v.Schema)
	require.Len(t, v.Violations, 1)
	assert.Equal(t, msg.RuleSchema, v.Violations[0].Rule)
	assert.Equal(t, "", v.Violations[0].Path)
	assert.Equal(t, cause.Error(), v.Violations[0].Message)
	assert.ErrorIs(t, v.Err(), cause, "the verdict's error still names its cause")
	got, err := json.Marshal(v)
	require.NoError(t, err)
	assert.JSONEq(t, `{"schema":"","valid":false,"violations":[{"path":"","rule":"schema","message":"ce-type: unknown schema \"x\""}]}`, string(got))
}

func TestVerdictKeepsOmitted(t *testing.T) {
	err := &msg.Error{Violations: []*msg.Violation{{Path: "/a", Rule: msg.RuleType, Message: "bad"}}, Omitted: 7}
	v := msg.VerdictOf(nil, err)
	assert.Equal(t, 7, v.Omitted)
	got, _ := json.Marshal(v)
	assert.Contains(t, string(got), `"omitted":7`)
	assert.Equal(t, "/a: bad; ... and 7 more violations", v.Err().Error())
}

// located is how a binding adds where a message was: embedding a Verdict.
type located struct {
	Subject string `json:"subject"`
	msg.Verdict
	Deliveries int `json:"deliveries"`
}

func TestMarshalHeaderCapsTheViolationsOnly(t *testing.T) {
	long := strings.Repeat("<x>", 200)
	var list []*msg.Violation
	for i := range msg.MaxViolations {
		list = append(list, &msg.Violation{Path: fmt.Sprintf("/a/%d", i), Rule: msg.RuleType, Message: long, Value: `"` + long + `"`})
	}
	x := &located{Subject: "in.1", Verdict: msg.Verdict{Schema: "core.device", Violations: list, Omitted: 5}, Deliveries: 2}
	whole, err := json.Marshal(x)
	require.NoError(t, err)
	require.Greater(t, len(whole), msg.MaxVerdictBytes, "the test must need a cut")

	b, err := msg.MarshalHeader(x, 1<<30)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(b), msg.MaxVerdictBytes, "never more than MaxVerdictBytes")
	assert.NotContains(t, string(b), "\n")
	assert.Contains(t, string(b), "<x>", "no HTML escapes")
	var back located
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, "in.1", back.Subject)
	assert.Equal(t, 2, back.Deliveries)
	assert.NotEmpty(t, back.Violations)
	assert.Equal(t, len(list)+5, len(back.Violations)+back.Omitted, "every violation is listed or counted")
	checkHeader(t, x, &x.Verdict, msg.MaxVerdictBytes, b)

	assert.Len(t, x.Violations, msg.MaxViolations, "x is left as it was")
	assert.Equal(t, 5, x.Omitted)
}

func TestMarshalHeaderOfASmallVerdictIsItsJSON(t *testing.T) {
	v := msg.Verdict{Schema: "core.device", Valid: true}
	b, err := msg.MarshalHeader(&v, msg.MaxVerdictBytes)
	require.NoError(t, err)
	assert.Equal(t, `{"schema":"core.device","valid":true}`, string(b))
}

func TestMarshalWritesHTMLCharactersAsTheyAre(t *testing.T) {
	x := map[string]any{"value": "<b>&amp;</b>", "sep": "\u2028", "n": []int{1}}
	got, err := msg.Marshal(x)
	require.NoError(t, err)
	assert.Equal(t, `{"n":[1],"sep":"\u2028","value":"<b>&amp;</b>"}`, string(got), "no newline after it either")
	escaped, err := json.Marshal(x)
	require.NoError(t, err)
	assert.Contains(t, string(escaped), `\u003cb\u003e`, "what json.Marshal writes instead")

	_, err = msg.Marshal(func() {})
	var unsupported *json.UnsupportedTypeError
	assert.ErrorAs(t, err, &unsupported)
}

func ExampleMarshalHeader() {
	v := msg.Verdict{Schema: "core.device", Version: "1.0"}
	for i := range 5 {
		v.Violations = append(v.Violations, &msg.Violation{Path: fmt.Sprintf("/tags/%d", i), Rule: msg.RuleType, Message: "want a string, got a number"})
	}
	b, _ := msg.MarshalHeader(&v, 256) // the room a header has
	fmt.Println(len(b), string(b))
	// Output:
	// 227 {"schema":"core.device","version":"1.0","valid":false,"violations":[{"path":"/tags/0","rule":"type","message":"want a string, got a number"},{"path":"/tags/1","rule":"type","message":"want a string, got a number"}],"omitted":3}
}
