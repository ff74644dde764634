package catalogue_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/internal/hostile"
	"github.com/fleetkit/catalogue/msg"
)

// maxReport is the most a report on one message of about a mebibyte may
// take, in JSON or as text (issue 12): a small part of the message, however
// many violations it has or however long its values are.
const maxReport = 64 << 10

func TestHostileMessagesGiveBoundedReports(t *testing.T) {
	for _, m := range hostile.Messages() {
		t.Run(m.Name, func(t *testing.T) {
			_, err := catalogue.DecodeAs(m.Schema, "", m.Body)
			var e *msg.Error
			require.True(t, errors.As(err, &e), "%v", err)
			assert.NotEmpty(t, e.Violations)
			assert.LessOrEqual(t, len(e.Violations), msg.MaxViolations)
			js, jerr := json.Marshal(e.Violations)
			require.NoError(t, jerr)
			assert.LessOrEqual(t, len(js), maxReport, "the violations in JSON")
			assert.LessOrEqual(t, len(e.Error()), maxReport, "the error's text")
			for _, v := range e.Violations {
				assert.LessOrEqual(t, len(v.Value), 80, "a value is shortened")
				assert.LessOrEqual(t, len(v.Path), 200, "a path is shortened")
			}
		})
	}
}

func TestViolationsBeyondTheCapAreCounted(t *testing.T) {
	const items = 5000
	body := `{"message_id":"3e4a9d85-6f7a-4c3b-9b4a-ad9f8e7b6c54","source_id":"dev-1","tenant_id":"club-1","time":"2026-03-01T08:00:15Z","association_id":"8c3f6d8b-1c8e-4f4b-8d6c-3a5e0f2b4d77","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","tags":[1` +
		strings.Repeat(",1", items-1) + `],"offset":1.5}`
	_, err := catalogue.DecodeAs("core.association", "", []byte(body))
	var e *msg.Error
	require.True(t, errors.As(err, &e), "%v", err)
	require.Len(t, e.Violations, msg.MaxViolations)
	assert.Equal(t, "/tags/0", e.Violations[0].Path, "the first found are listed")
	assert.Equal(t, "/tags/99", e.Violations[99].Path)
	assert.Equal(t, items-msg.MaxViolations+1, e.Omitted, "the rest of the tags and the offset")
	assert.True(t, strings.HasSuffix(e.Error(), "; ... and 4901 more violations"), "%.80s...", e.Error()[len(e.Error())-80:])

	// A syntax error after the cap is still found, and listed, last.
	_, err = catalogue.DecodeAs("core.association", "", []byte(strings.TrimSuffix(body, "}")))
	require.True(t, errors.As(err, &e), "%v", err)
	require.Len(t, e.Violations, msg.MaxViolations)
	assert.Equal(t, msg.RuleSyntax, e.Violations[99].Rule, "%v", e.Violations[99])
	assert.Equal(t, "/tags/98", e.Violations[98].Path)
	assert.Equal(t, items-msg.MaxViolations+2, e.Omitted, "the tags from /tags/99 and the offset")
}

func TestValidateCapsViolationsToo(t *testing.T) {
	a := association.New()
	a.Tags = make([]string, 1000)
	for i := range a.Tags {
		a.Tags[i] = "\xff"
	}
	var e *msg.Error
	require.True(t, errors.As(a.Validate(), &e))
	assert.Len(t, e.Violations, msg.MaxViolations)
	assert.Equal(t, "/tags/99", e.Violations[99].Path)
	assert.Equal(t, 1000-msg.MaxViolations, e.Omitted)
}
