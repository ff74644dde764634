package gate_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/msg"
)

// verdict returns the verdict on an invalid device with n violations.
func verdict(n int) gate.Verdict {
	e := &msg.Error{}
	for i := range n {
		e.Violations = append(e.Violations, &msg.Violation{Path: fmt.Sprintf("/x%d", i), Rule: msg.RuleType, Message: "want a string, got a number", Value: "1"})
	}
	v := gate.VerdictOf(device.New(), e)
	v.Place = gate.Place{Subject: "in.x", Stream: "IN", Sequence: 7}
	v.Deliveries = 1
	return v
}

// The verdict's JSON is msg.Verdict's with, around it, where the message
// was; the flags of a cut dead letter only when it was cut.
func TestVerdictJSON(t *testing.T) {
	v := verdict(1)
	j, err := v.Encode(msg.MaxVerdictBytes)
	require.NoError(t, err)
	assert.JSONEq(t, `{"subject":"in.x","stream":"IN","sequence":7,"schema":"core.device","version":"1.0","valid":false,`+
		`"violations":[{"path":"/x0","rule":"type","message":"want a string, got a number","value":"1"}],"deliveries":1}`, string(j))
	v.Truncated, v.BodySize = true, 9
	j, err = v.Encode(msg.MaxVerdictBytes)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(j, &m))
	assert.Equal(t, true, m["truncated"])
	assert.EqualValues(t, 9, m["body_size"])
}

func TestEncodeStaysWithinItsLimit(t *testing.T) {
	v := verdict(2000)
	j, err := v.Encode(4096)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(j), 4096)
	got, err := gate.ParseVerdict(j)
	require.NoError(t, err)
	assert.Equal(t, 2000, len(got.Violations)+got.Omitted)
	_, err = v.Encode(10)
	assert.True(t, errors.Is(err, gate.ErrTooLarge))
}

// Encode lists the most violations that fit its limit, to the byte: a
// cut leaves out no more of them than it must, and counts them.
func TestEncodeListsTheMostViolationsThatFit(t *testing.T) {
	v := verdict(40)
	for k := range len(v.Violations) + 1 {
		w := v
		w.Violations, w.Omitted = v.Violations[:k], len(v.Violations)-k
		size := len(w.AppendHeader(nil))
		for listed, limit := range map[int]int{k: size, k - 1: size - 1} {
			if listed < 0 {
				continue
			}
			j, err := v.Encode(limit)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(j), limit)
			got, err := gate.ParseVerdict(j)
			require.NoError(t, err)
			assert.Len(t, got.Violations, listed, "within %d bytes", limit)
			assert.Equal(t, len(v.Violations)-listed, got.Omitted)
		}
	}
}

// A subject a producer chose, or a handler's error, as long as it likes,
// is cut before a dead letter is given up: no message is held because its
// verdict is too long.
func TestEncodeCutsALongSubjectAndError(t *testing.T) {
	v := verdict(3)
	v.Subject = "in." + strings.Repeat("s", 5000)
	v.Error = strings.Repeat("e", 5000)
	j, err := v.Encode(1024)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(j), 1024)
	got, err := gate.ParseVerdict(j)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(v.Subject, strings.TrimSuffix(got.Subject, "...")))
	assert.True(t, strings.HasSuffix(got.Error, "..."))
	assert.Equal(t, uint64(7), got.Sequence, "where it was, still")
}
