package catalogue_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
	"github.com/fleetkit/catalogue/vehicle"
)

// TestDecodeRoutesByMessageType pins that Decode picks the type its
// message_type names, that an absent message_type gives ErrNoType, and a
// null, non-string or unknown one ErrUnknownType, each naming every known
// type and not wrapping the other sentinel.
func TestDecodeRoutesByMessageType(t *testing.T) {
	assoc := `"message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","source_id":"s","tenant_id":"t","time":"2026-11-23T08:00:00Z",` +
		`"association_id":"5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a","device_id":"9e8d7c6b-5a49-4382-b1a0-f9e8d7c6b5a4"`
	for _, tc := range []struct {
		name    string
		data    string
		want    catalogue.Message // its type, when decoded
		unknown string            // in the error, when not
		absent  bool              // the error is ErrNoType
	}{
		{"association", `{"message_type":"core.association",` + assoc + `}`, new(association.Association), "", false},
		{"escaped name", `{"message_\u0074ype":"core.association",` + assoc + `}`, new(association.Association), "", false},
		{"absent", `{` + assoc + `}`, nil, "no message_type member", true},
		{"null", `{"message_type":null,` + assoc + `}`, nil, "message_type is null", false},
		{"number", `{"message_type":7,` + assoc + `}`, nil, "message_type is 7, not a string", false},
		{"unknown", `{"message_type":"core.driver",` + assoc + `}`, nil, `"core.driver"`, false},
		{"unknown after an id", `{"message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","message_type":"core.driver"}`, nil, `"core.driver"`, false},
		{"case differs", `{"message_type":"Core.Association",` + assoc + `}`, nil, `"Core.Association"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := catalogue.Decode([]byte(tc.data))
			if tc.want != nil {
				require.NoError(t, err)
				assert.IsType(t, tc.want, m)
				return
			}
			sentinel, other := catalogue.ErrUnknownType, catalogue.ErrNoType
			if tc.absent {
				sentinel, other = other, sentinel
			}
			require.ErrorIs(t, err, sentinel)
			assert.NotErrorIs(t, err, other)
			assert.Nil(t, m)
			e, ok := errors.AsType[*msg.Error](err)
			require.True(t, ok, "every error of Decode is an *msg.Error")
			require.Len(t, e.Violations, 1)
			assert.Equal(t, "/message_type", e.Violations[0].Path)
			assert.Equal(t, msg.RuleMessageType, e.Violations[0].Rule)
			assert.ErrorIs(t, e.Violations[0], sentinel, "the violation unwraps to the sentinel")
			assert.Contains(t, err.Error(), tc.unknown)
			for _, known := range catalogue.Types() {
				assert.Contains(t, err.Error(), known)
			}
		})
	}
}

// TestDecodeRejectsWhatIsNotAnObject pins that a document that is not an
// object, or not JSON, gives the violations, not ErrUnknownType.
func TestDecodeRejectsWhatIsNotAnObject(t *testing.T) {
	for _, data := range []string{``, `null`, `[]`, `"core.device"`, `{"message_type":"core.device"`, `{"message_type":"core.device","message_type":"core.device"}`, `{"a":1}x`, `{"a":1}{}`} {
		_, err := catalogue.Decode([]byte(data))
		var e *msg.Error
		require.ErrorAs(t, err, &e, "%q", data)
		assert.False(t, errors.Is(err, catalogue.ErrUnknownType), "%q", data)
		assert.False(t, errors.Is(err, catalogue.ErrNoType), "%q", data)
	}
}

// TestDecodeOrTakesTheDefaultOnlyWithoutAMessageType pins that DecodeOr
// judges a message without message_type by the default schema, and any
// other exactly as Decode does.
func TestDecodeOrTakesTheDefaultOnlyWithoutAMessageType(t *testing.T) {
	ev := `{"id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","type":"created","occurred_at":"2026-11-23T08:00:00Z"}`
	m, err := catalogue.DecodeOr([]byte(ev), event.Name)
	require.NoError(t, err)
	assert.IsType(t, new(event.Event), m)

	m, err = catalogue.DecodeOr([]byte(`{"type":"archived"}`), event.Name)
	assert.IsType(t, new(event.Event), m)
	var e *msg.Error
	require.ErrorAs(t, err, &e)
	assert.Len(t, e.Violations, 3) // the enum, and two required members

	_, err = catalogue.DecodeOr([]byte(`{"message_type":"core.driver"}`), event.Name)
	assert.ErrorIs(t, err, catalogue.ErrUnknownType)
	_, err = catalogue.DecodeOr([]byte(`{"message_type":null}`), event.Name)
	assert.ErrorIs(t, err, catalogue.ErrUnknownType)
	_, err = catalogue.DecodeOr([]byte(ev), "core.driver")
	assert.ErrorIs(t, err, schemas.ErrUnknown)
	_, err = catalogue.DecodeOr([]byte(ev), "")
	assert.ErrorIs(t, err, catalogue.ErrNoType)
}

func TestNewAndDecodeAsKnowTheCatalogue(t *testing.T) {
	for name, want := range map[string]catalogue.Message{
		device.Name: new(device.Device), vehicle.Name: new(vehicle.Vehicle),
		association.Name: new(association.Association), event.Name: new(event.Event),
	} {
		for _, version := range []string{"", "1.0"} {
			m, err := catalogue.New(name, version)
			require.NoError(t, err)
			assert.IsType(t, want, m)
			assert.Equal(t, name, m.SchemaName())
			assert.Equal(t, "1.0", m.SchemaVersion())
		}
	}

	// New fills in the defaults, as each package's New does.
	for name, want := range map[string]catalogue.Message{
		device.Name: device.New(), vehicle.Name: vehicle.New(),
		association.Name: association.New(), event.Name: event.New(),
	} {
		m, err := catalogue.New(name, "")
		require.NoError(t, err)
		assert.Equal(t, want, m, name)
	}
	m, err := catalogue.New(device.Name, "")
	require.NoError(t, err)
	assert.Equal(t, device.Name, m.(*device.Device).MessageType)
	assert.Equal(t, []string{"core.association", "core.device", "core.vehicle", "example.event"}, catalogue.Types())

	for _, tc := range [][2]string{{"core.driver", ""}, {"core.device", "9.9"}, {"", ""}} {
		_, err := catalogue.New(tc[0], tc[1])
		assert.ErrorIs(t, err, schemas.ErrUnknown, "%q %q", tc[0], tc[1])
		m, err := catalogue.DecodeAs(tc[0], tc[1], []byte(`{}`))
		assert.ErrorIs(t, err, schemas.ErrUnknown, "%q %q", tc[0], tc[1])
		assert.Nil(t, m)
	}

	// DecodeAs returns the message with its violations.
	m, err = catalogue.DecodeAs(event.Name, "", []byte(`{"id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","type":"archived","occurred_at":"2026-11-23T08:00:00Z"}`))
	var v *msg.Violation
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "/type", v.Path)
	assert.Equal(t, msg.RuleEnum, v.Rule)
	assert.IsType(t, new(event.Event), m)
}

// TestEveryErrorOfDecodeIsAnMsgError pins that Decode, DecodeOr and
// DecodeAs return only *msg.Error, whatever went wrong, so that
// msg.VerdictOf needs no other case.
func TestEveryErrorOfDecodeIsAnMsgError(t *testing.T) {
	for name, decode := range map[string]func() (catalogue.Message, error){
		"malformed":         func() (catalogue.Message, error) { return catalogue.Decode([]byte(`{`)) },
		"no type":           func() (catalogue.Message, error) { return catalogue.Decode([]byte(`{}`)) },
		"unknown type":      func() (catalogue.Message, error) { return catalogue.Decode([]byte(`{"message_type":"x"}`)) },
		"unknown default":   func() (catalogue.Message, error) { return catalogue.DecodeOr([]byte(`{}`), "x") },
		"unknown schema":    func() (catalogue.Message, error) { return catalogue.DecodeAs("x", "", []byte(`{}`)) },
		"unknown version":   func() (catalogue.Message, error) { return catalogue.DecodeAs(device.Name, "9.9", []byte(`{}`)) },
		"breaks its schema": func() (catalogue.Message, error) { return catalogue.Decode([]byte(`{"message_type":"core.device"}`)) },
		"breaks named one":  func() (catalogue.Message, error) { return catalogue.DecodeAs(device.Name, "1.0", []byte(`{}`)) },
	} {
		_, err := decode()
		require.Error(t, err, name)
		_, ok := err.(*msg.Error)
		assert.True(t, ok, "%s: %T", name, err)
	}
	_, err := catalogue.DecodeAs("x", "", []byte(`{}`))
	assert.ErrorIs(t, err, schemas.ErrUnknown)
	assert.Equal(t, msg.RuleSchema, msg.VerdictOf(nil, err).Violations[0].Rule)
}

// TestDecodeReturnsTheMessageItJudged pins where Decode differs from a
// typed package's Parse: with the error of a message that breaks its
// schema, Decode returns the message, of the schema that judged it, where
// Parse returns nil; when no schema could be chosen it returns nil too.
func TestDecodeReturnsTheMessageItJudged(t *testing.T) {
	data := []byte(`{"message_type":"core.device","imei":"1"}`)
	m, err := catalogue.Decode(data)
	require.Error(t, err)
	require.IsType(t, new(device.Device), m)
	assert.Equal(t, "1", m.(*device.Device).IMEI, "what could be decoded")
	v := msg.VerdictOf(m, err)
	assert.Equal(t, msg.Verdict{Schema: device.Name, Version: "1.0", Violations: v.Violations}, v)

	d, perr := device.Parse(data)
	assert.Nil(t, d)
	assert.Equal(t, err.Error(), perr.Error(), "the same verdict")

	m, err = catalogue.Decode([]byte(`{"message_type":"core.device",`))
	require.Error(t, err)
	assert.NotNil(t, m, "a schema was chosen: the syntax error is its verdict")
	m, err = catalogue.Decode([]byte(`{"message_type":"x"}`))
	require.Error(t, err)
	assert.Nil(t, m, "no schema was chosen")
}
