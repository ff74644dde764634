package catalogue_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/vehicle"
)

// parsers are each package's Parse, as one signature.
var parsers = map[string]func([]byte) (catalogue.Message, error){
	device.Name:      func(b []byte) (catalogue.Message, error) { return nilOr(device.Parse(b)) },
	vehicle.Name:     func(b []byte) (catalogue.Message, error) { return nilOr(vehicle.Parse(b)) },
	association.Name: func(b []byte) (catalogue.Message, error) { return nilOr(association.Parse(b)) },
	event.Name:       func(b []byte) (catalogue.Message, error) { return nilOr(event.Parse(b)) },
}

// nilOr turns a typed nil into an untyped one, so that a nil message
// compares as nil.
func nilOr[M interface {
	*T
	catalogue.Message
}, T any](m M, err error) (catalogue.Message, error) {
	if m == nil {
		return nil, err
	}
	return m, err
}

// TestParseErrorsAreAlwaysViolations pins the README's first example: on
// any input, Parse returns a message and nil, or no message and an
// *msg.Error, so that errors.As on the result always finds a *Violation.
// json.Unmarshal, which checks the syntax itself first, gives a
// *json.SyntaxError on some of the same inputs.
func TestParseErrorsAreAlwaysViolations(t *testing.T) {
	inputs := []string{
		``, `{`, `{"message_id":`, `[]`, `null`, `"x"`, `{}`, "\xef\xbb\xbf{}",
		strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001),
		`{"meta":` + strings.Repeat(`{"a":`, 10001) + `1` + strings.Repeat(`}`, 10001) + `}`,
		`{"a":1,"a":2}`, "{\"\xff\":1}", `{"tags":[1,2]}`,
	}
	syntax := 0
	for name, parse := range parsers {
		for _, in := range inputs {
			m, err := parse([]byte(in))
			require.Error(t, err, "%s %q", name, in)
			assert.Nil(t, m, "%s %q", name, in)
			var e *msg.Error
			require.True(t, errors.As(err, &e), "%s %q: %T %v", name, in, err, err)
			var v *msg.Violation
			require.True(t, errors.As(err, &v), "%s %q", name, in)
			assert.NotEmpty(t, e.Violations)

			var into json.RawMessage // what encoding/json does with the same input
			if _, ok := errors.AsType[*json.SyntaxError](json.Unmarshal([]byte(in), &into)); ok {
				syntax++
			}
		}
	}
	// The point of the README's warning: json.Unmarshal does not get as far
	// as the library on some of these.
	assert.Positive(t, syntax)
}

// TestParseIsUnmarshalJSON pins that Parse accepts exactly what
// UnmarshalJSON accepts, into the same value, over the corpus.
func TestParseIsUnmarshalJSON(t *testing.T) {
	n := 0
	for _, c := range loadCorpus(t) {
		parse, ok := parsers[c.schema]
		if !ok {
			continue
		}
		m, err := parse(c.data)
		want, wantErr := catalogue.DecodeAs(c.schema, "", c.data)
		if wantErr != nil {
			assert.Nil(t, m, c.name)
			assert.Equal(t, wantErr.Error(), err.Error(), c.name)
		} else {
			require.NoError(t, err, c.name)
			assert.Equal(t, want, m, c.name)
		}
		n++
	}
	require.Positive(t, n)
}

// TestAppendJSONIsMarshalJSON pins that AppendJSON writes what
// MarshalJSON writes, after what the buffer holds, and leaves the buffer
// as it was on error.
func TestAppendJSONIsMarshalJSON(t *testing.T) {
	n := 0
	for _, c := range loadCorpus(t) {
		m, err := catalogue.DecodeAs(c.schema, "", c.data)
		if err != nil {
			continue
		}
		want, err := m.MarshalJSON()
		require.NoError(t, err)
		got, err := m.AppendJSON([]byte("prefix"))
		require.NoError(t, err)
		assert.Equal(t, "prefix"+string(want), string(got), c.name)
		n++
	}
	require.Positive(t, n)

	d := device.New()
	d.TenantID = "\xff"
	buf := []byte("prefix")
	got, err := d.AppendJSON(buf)
	require.Error(t, err)
	assert.Equal(t, "prefix", string(got))
}

func TestUnsetListsTheRequiredMembersStillAtTheirZero(t *testing.T) {
	d := device.New()
	assert.NoError(t, d.Validate(), "the schema accepts the zero values")
	assert.Equal(t, []string{"/message_id", "/source_id", "/source_type", "/tenant_id", "/time", "/device_id", "/external_id"}, d.Unset())

	d.MessageID, d.DeviceID = uuid.New(), uuid.New()
	d.SourceID, d.SourceType, d.TenantID, d.ExternalID = "s", "t", "acme", "x"
	d.Time = time.Now()
	assert.Nil(t, d.Unset())
	assert.Zero(t, testing.AllocsPerRun(100, func() { d.Unset() }))

	d.MessageType = ""
	assert.Equal(t, []string{"/message_type"}, d.Unset())

	e := event.New()
	assert.Equal(t, []string{"/id", "/type", "/occurred_at"}, e.Unset())
	e.ID, e.Type, e.OccurredAt = uuid.New(), event.TypeCreated, time.Now()
	assert.Nil(t, e.Unset())

	// Optional members, numbers and booleans are not reported.
	v := vehicle.New()
	assert.NotContains(t, v.Unset(), "/seed_odo")
	assert.NotContains(t, v.Unset(), "/make")
	a := association.New()
	assert.Equal(t, []string{"/message_id", "/source_id", "/tenant_id", "/time", "/association_id", "/device_id"}, a.Unset())
}

func TestEnumValuesListTheSchemasEnum(t *testing.T) {
	assert.Equal(t, []event.Type{event.TypeCreated, event.TypeUpdated, event.TypeDeleted}, event.TypeValues())
	assert.Equal(t, []vehicle.ConsentStatus{"approved", "suspended", "revoked"}, vehicle.ConsentStatusValues())
	// A new slice each time: the caller may change it.
	event.TypeValues()[0] = "x"
	assert.Equal(t, event.TypeCreated, event.TypeValues()[0])
}

func TestMessagesPrintAsJSON(t *testing.T) {
	e := event.New()
	e.ID = uuid.MustParse("0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f")
	e.Type = event.TypeCreated
	e.OccurredAt = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	want := `{"id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","type":"created","occurred_at":"2026-11-23T08:00:00Z"}`
	assert.Equal(t, want, fmt.Sprint(e))
	assert.Equal(t, want, fmt.Sprintf("%v", *e))
	assert.Equal(t, want+"!", fmt.Sprintf("%s!", e))

	e.Actor = &event.Actor{Name: new("Ada")}
	assert.Equal(t, `{"name":"Ada"}`, fmt.Sprint(e.Actor))

	d := device.New()
	d.TenantID = "\xff"
	assert.Contains(t, fmt.Sprint(d), "Device(cannot be encoded: ")
}

// corpusCase is one message of the corpus the typed tests range over: the
// case table of each schema and mutations of its richest messages.
type corpusCase struct {
	schema, name string
	data         []byte
}

func loadCorpus(t *testing.T) []corpusCase {
	var list []corpusCase
	for _, name := range names() {
		for i, c := range loadCases(t, name) {
			list = append(list, corpusCase{name, fmt.Sprintf("%s case %d", name, i), c.Message})
		}
		for _, seed := range richestSeeds(t, name, 2) {
			for i, m := range mutations(seed) {
				list = append(list, corpusCase{name, fmt.Sprintf("%s mutation %d", name, i), m})
			}
		}
	}
	return list
}
