package gate_test

import (
	"bytes"
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

func TestFitKeepsAWholeBodyThatFits(t *testing.T) {
	body := []byte(`{"a":1}`)
	j, cut, err := gate.Fit(verdict(2), body, 1000)
	require.NoError(t, err)
	assert.Equal(t, body, cut)
	v, err := gate.ParseVerdict(j)
	require.NoError(t, err)
	assert.False(t, v.Truncated)
	assert.Zero(t, v.BodySize)
	assert.Len(t, v.Violations, 2)
}

// A dead letter that cannot hold its verdict and its whole body holds the
// start of the body, as much as fits, and says so; its verdict gives up
// violations, counted, to leave the body at least half the room.
func TestFitCutsTheBodyAndSaysSo(t *testing.T) {
	body := bytes.Repeat([]byte("b"), 5000)
	for _, room := range []int{1000, 3000, 5000} {
		j, cut, err := gate.Fit(verdict(50), body, room)
		require.NoError(t, err, "room %d", room)
		assert.LessOrEqual(t, len(j)+len(cut), room)
		assert.GreaterOrEqual(t, len(cut), room/2, "room %d", room)
		assert.Equal(t, body[:len(cut)], cut)
		v, err := gate.ParseVerdict(j)
		require.NoError(t, err)
		assert.True(t, v.Truncated)
		assert.Equal(t, len(body), v.BodySize)
		assert.Equal(t, 50, len(v.Violations)+v.Omitted, "every violation listed or counted")
		assert.Equal(t, gate.Place{Subject: "in.x", Stream: "IN", Sequence: 7}, v.Place)
	}
}

func TestFitRefusesWhenNotEvenTheVerdictFits(t *testing.T) {
	_, _, err := gate.Fit(verdict(3), []byte("{}"), 50)
	assert.ErrorIs(t, err, gate.ErrTooLarge)
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

func ExampleFit() {
	v := gate.VerdictOf(device.New(), &msg.Error{Violations: []*msg.Violation{{Path: "/imei", Rule: msg.RuleIMEI, Message: "not an IMEI"}}})
	v.Place = gate.Place{Subject: "fleet.in.x", Stream: "IN", Sequence: 6}
	body := []byte(`{"message_type":"core.device","imei":"` + strings.Repeat("1", 800) + `"}`)
	verdict, cut, _ := gate.Fit(v, body, 700) // the room the broker's limit leaves
	fmt.Println(string(verdict))
	fmt.Println(len(cut), "of", len(body), "bytes")
	// Output:
	// {"subject":"fleet.in.x","stream":"IN","sequence":6,"schema":"core.device","version":"1.0","valid":false,"violations":[{"path":"/imei","rule":"imei","message":"not an IMEI"}],"deliveries":0,"truncated":true,"body_size":840}
	// 478 of 840 bytes
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
