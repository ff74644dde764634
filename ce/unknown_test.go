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
	"github.com/fleetkit/catalogue/schemas"
)

// A header that names a schema the catalogue does not have leaves the
// body unjudged, but not the headers that need no schema: a content type
// that is not application/json, a spec version that is not 1.0, a
// header given twice are listed after the unknown schema, every
// violation at once, in every mode of decoding; errors.Is still finds
// schemas.ErrUnknown. Headers that break nothing else keep the error as
// it was, which a verdict lists as one violation of the same text.
func TestDecodeChecksTheHeadersBesideAnUnknownSchema(t *testing.T) {
	modes := map[string]ce.Binding{"Decode": ce.NATS, "Borrowing": ce.NATS.Borrowing(), "Judging": ce.NATS.Judging()}
	body := valid(t)[device.Name].body
	unknown := map[string]func(h header){
		"ce-dataschema": func(h header) { h.Set("ce-dataschema", "https://example.com/api/schemas/core.nope/versions/1.0") },
		"ce-type":       func(h header) { delete(h, "ce-dataschema"); h.Set("ce-type", "core.nope") },
	}
	for by, name := range unknown {
		for mode, b := range modes {
			clean := valid(t)[device.Name].h
			name(clean)
			_, _, plain := b.DecodeIdentity(catalogue.Kinds, clean, body)
			require.ErrorIs(t, plain, schemas.ErrUnknown, "%s %s", by, mode)
			_, isList := errors.AsType[*msg.Error](plain)
			assert.False(t, isList, "%s %s: %v", by, mode, plain)

			h := valid(t)[device.Name].h
			name(h)
			h.Set("Content-Type", "application/cloudevents+json")
			h.Set("ce-specversion", "0.3")
			h["ce-id"] = []string{"a", "b"}
			m, id, err := b.DecodeIdentity(catalogue.Kinds, h, body)
			assert.Nil(t, m)
			assert.Equal(t, msg.Identity{}, id)
			require.ErrorIs(t, err, schemas.ErrUnknown, "%s %s", by, mode)
			e, ok := errors.AsType[*msg.Error](err)
			require.True(t, ok, "%s %s: %v", by, mode, err)
			first := msg.VerdictOf(nil, plain).Violations[0]
			want := []struct {
				rule msg.Rule
				text string
			}{
				{first.Rule, first.Message},
				{msg.RuleHeader, "ce-id is given 2 times, want once"},
				{msg.RuleHeader, "Content-Type is not application/json"},
				{msg.RuleHeader, "ce-specversion is not 1.0"},
			}
			require.Len(t, e.Violations, len(want), "%s %s: %v", by, mode, err)
			for i, w := range want {
				assert.Equal(t, w.rule, e.Violations[i].Rule, "%s %s %d", by, mode, i)
				assert.Equal(t, w.text, e.Violations[i].Message, "%s %s %d", by, mode, i)
			}
			assert.Contains(t, e.Violations[0].Message, "core.nope", "%s %s", by, mode)
		}
	}
}
