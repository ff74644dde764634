package ce_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/msg"
)

// A body whose decoding stopped (cut short, null, no object) has no
// value for the members it did not reach: a header is not compared with
// them, as the message's zero values. Every prefix of a valid body, with
// the headers written for the whole message, is judged with no header
// violation, in every mode of decoding.
func TestDecodeComparesHeadersOnlyWithMembersRead(t *testing.T) {
	modes := map[string]ce.Binding{"Decode": ce.NATS, "Borrowing": ce.NATS.Borrowing(), "Judging": ce.NATS.Judging()}
	for name, v := range valid(t) {
		bodies := [][]byte{nil, []byte("null"), []byte("[]"), []byte(`"x"`)}
		for n := range len(v.body) {
			bodies = append(bodies, v.body[:n])
		}
		for mode, b := range modes {
			for _, body := range bodies {
				_, _, err := b.DecodeIdentity(catalogue.Kinds, v.h, body)
				e, ok := errors.AsType[*msg.Error](err)
				require.True(t, ok, "%s %s %q: %v", name, mode, body, err)
				for _, viol := range e.Violations {
					assert.NotEqual(t, msg.RuleHeader, viol.Rule, "%s %s %q: %v", name, mode, body, err)
				}
			}
		}
	}
}

// A member read before decoding stopped is still compared with its
// header: a ce-id that contradicts the message_id the body gave is
// reported beside the body's syntax error.
func TestDecodeComparesMembersReadBeforeTheBodyStopped(t *testing.T) {
	v := valid(t)[device.Name]
	v.h.Set("ce-id", "00000000-0000-4000-8000-000000000000")
	v.h.Set("ce-time", "2020-01-01T00:00:00Z")
	cut := v.body[:len(`{"message_id":"1c2e7b63-4d58-4a1f-9f2e-8b7d6c5f4a32","message_type":"core.device",`)]
	_, err := ce.NATS.Decode(catalogue.Kinds, v.h, cut)
	e, ok := errors.AsType[*msg.Error](err)
	require.True(t, ok, "%v", err)
	require.Len(t, e.Violations, 2, "%v", err)
	assert.Equal(t, msg.RuleSyntax, e.Violations[0].Rule)
	assert.Equal(t, "/message_id", e.Violations[1].Path)
	assert.Contains(t, e.Violations[1].Message, "ce-id contradicts")
}
