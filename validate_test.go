package catalogue_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/internal/oracle"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/object"
	"github.com/fleetkit/catalogue/vehicle"
)

// edits change a decoded message the way a producer building one by hand
// might: to values its schema accepts and to values it rejects, including
// those a Go value can hold and JSON cannot carry (invalid UTF-8, years
// past 9999, offsets in seconds, malformed raw JSON).
var edits = map[string][]func(catalogue.Message){
	device.Name: {
		func(m catalogue.Message) { m.(*device.Device).IMEI = "" },
		func(m catalogue.Message) { m.(*device.Device).IMEI = "490154203237518" },
		func(m catalogue.Message) { m.(*device.Device).IMEI = "490154203237519" },
		func(m catalogue.Message) { m.(*device.Device).IMEI = "49015420323751" },
		func(m catalogue.Message) { m.(*device.Device).IMEI = "４90154203237518" },
		func(m catalogue.Message) { m.(*device.Device).TenantID = "\xff" },
		func(m catalogue.Message) { m.(*device.Device).TenantID = "ünïcode" },
		func(m catalogue.Message) { m.(*device.Device).Type = msg.Null[string]() },
		func(m catalogue.Message) { m.(*device.Device).Type = msg.Of("tracker") },
		func(m catalogue.Message) { m.(*device.Device).Type = msg.Nullable[string]{} },
		func(m catalogue.Message) { m.(*device.Device).FirstConnected = nil },
		func(m catalogue.Message) {
			t := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
			m.(*device.Device).FirstConnected = &t
		},
		func(m catalogue.Message) {
			m.(*device.Device).Time = time.Date(2024, 1, 1, 0, 0, 0, 0, time.FixedZone("LMT", -17762))
		},
		func(m catalogue.Message) {
			m.(*device.Device).Time = time.Date(2024, 1, 1, 0, 0, 0, 1, time.FixedZone("", 5*3600+1800))
		},
		func(m catalogue.Message) { s := "\xfe"; m.(*device.Device).DataProvider = &s },
		func(m catalogue.Message) { m.(*device.Device).MessageType = "anything" },
	},
	vehicle.Name: {
		func(m catalogue.Message) { m.(*vehicle.Vehicle).SeedOdo = -1 },
		func(m catalogue.Message) { m.(*vehicle.Vehicle).SeedOdo = 0 },
		func(m catalogue.Message) { m.(*vehicle.Vehicle).SeedOdo = 1 << 62 },
		func(m catalogue.Message) { m.(*vehicle.Vehicle).FuelType = msg.Of("") },
		func(m catalogue.Message) { m.(*vehicle.Vehicle).FuelType = msg.Of("é") },
		func(m catalogue.Message) { m.(*vehicle.Vehicle).FuelType = msg.Null[string]() },
		func(m catalogue.Message) { m.(*vehicle.Vehicle).ConsentStatus = msg.Of(vehicle.ConsentStatusRevoked) },
		func(m catalogue.Message) {
			m.(*vehicle.Vehicle).ConsentStatus = msg.Of(vehicle.ConsentStatus("Revoked"))
		},
		func(m catalogue.Message) { m.(*vehicle.Vehicle).ConsentStatus = msg.Null[vehicle.ConsentStatus]() },
		func(m catalogue.Message) {
			m.(*vehicle.Vehicle).Year = msg.Of(time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC))
		},
		func(m catalogue.Message) {
			m.(*vehicle.Vehicle).Year = msg.Of(time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC))
		},
		func(m catalogue.Message) { m.(*vehicle.Vehicle).Allowed = msg.Of(false) },
		func(m catalogue.Message) { m.(*vehicle.Vehicle).Make = msg.Of("\xff") },
		func(m catalogue.Message) { m.(*vehicle.Vehicle).VIN = msg.Of("WVGZZZ\xe2\x82") },
		func(m catalogue.Message) {
			o, err := object.Parse([]byte(`{"a":null,"b":{"x":[1e400]},"c":"é"}`))
			if err != nil {
				panic(err)
			}
			m.(*vehicle.Vehicle).Meta = &o
		},
		func(m catalogue.Message) {
			o, err := object.New(map[string]json.RawMessage{"z": json.RawMessage(`null`), "a": json.RawMessage(`[]`)})
			if err != nil {
				panic(err)
			}
			m.(*vehicle.Vehicle).Specification = &o
		},
		func(m catalogue.Message) { m.(*vehicle.Vehicle).Meta = &object.Object{} },
		func(m catalogue.Message) { m.(*vehicle.Vehicle).Specification = nil },
	},
	association.Name: {
		func(m catalogue.Message) { m.(*association.Association).Tags = nil },
		func(m catalogue.Message) { m.(*association.Association).Tags = []string{} },
		func(m catalogue.Message) { m.(*association.Association).Tags = []string{"a", "\xff"} },
		func(m catalogue.Message) { m.(*association.Association).SourceType = msg.Null[string]() },
		func(m catalogue.Message) { m.(*association.Association).SourceType = msg.Nullable[string]{} },
		func(m catalogue.Message) { m.(*association.Association).DriverID = nil },
		func(m catalogue.Message) { o := int64(-5); m.(*association.Association).Offset = &o },
		func(m catalogue.Message) { m.(*association.Association).MessageType = "" },
	},
	event.Name: {
		func(m catalogue.Message) { m.(*event.Event).Type = event.TypeDeleted },
		func(m catalogue.Message) { m.(*event.Event).Type = "" },
		func(m catalogue.Message) { m.(*event.Event).Type = "Created" },
		func(m catalogue.Message) { p := int64(9); m.(*event.Event).Priority = &p },
		func(m catalogue.Message) { p := int64(10); m.(*event.Event).Priority = &p },
		func(m catalogue.Message) { p := int64(-1); m.(*event.Event).Priority = &p },
		func(m catalogue.Message) { m.(*event.Event).Tags = []string{} },
		func(m catalogue.Message) { m.(*event.Event).Tags = nil },
		func(m catalogue.Message) { m.(*event.Event).Actor = &event.Actor{} },
		func(m catalogue.Message) { s := "\xc3"; m.(*event.Event).Actor = &event.Actor{Name: &s} },
		func(m catalogue.Message) {
			m.(*event.Event).Actor = &event.Actor{Extra: map[string]json.RawMessage{"name": json.RawMessage(`"x"`)}}
		},
	},
}

// commonEdits apply to every message: extra members.
var commonEdits = []func(catalogue.Message){
	func(m catalogue.Message) {
		setExtra(m, map[string]json.RawMessage{"unknown": json.RawMessage(`[1,{"a":null}]`)})
	},
	func(m catalogue.Message) {
		setExtra(m, map[string]json.RawMessage{"MESSAGE_ID": json.RawMessage(`null`)})
	},
	func(m catalogue.Message) { setExtra(m, map[string]json.RawMessage{"x": nil}) },
	func(m catalogue.Message) { setExtra(m, map[string]json.RawMessage{"x": json.RawMessage(`01`)}) },
	func(m catalogue.Message) { setExtra(m, map[string]json.RawMessage{"x": json.RawMessage("\"\xff\"")}) },
	func(m catalogue.Message) { setExtra(m, map[string]json.RawMessage{"x": json.RawMessage(`"\ud800"`)}) },
	func(m catalogue.Message) {
		setExtra(m, map[string]json.RawMessage{"tenant_id": json.RawMessage(`"x"`)})
	},
	func(m catalogue.Message) { setExtra(m, map[string]json.RawMessage{"id": json.RawMessage(`"x"`)}) },
}

func setExtra(m catalogue.Message, extra map[string]json.RawMessage) {
	switch m := m.(type) {
	case *device.Device:
		m.Extra = extra
	case *vehicle.Vehicle:
		m.Extra = extra
	case *association.Association:
		m.Extra = extra
	case *event.Event:
		m.Extra = extra
	}
}

// TestValidateAgreesWithOracle pins the property of Validate: for a Go
// value v, v.Validate() is nil exactly when v encodes (json.Marshal
// succeeds) to a message the oracle accepts; and then decoding that
// message gives back v.
func TestValidateAgreesWithOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range names() {
		t.Run(name, func(t *testing.T) {
			list := append(append([]func(catalogue.Message){}, edits[name]...), commonEdits...)
			require.NotEmpty(t, edits[name])
			seeds := validSeeds(t, name)
			check := func(m catalogue.Message, what string) {
				verr := m.Validate()
				data, merr := json.Marshal(m)
				ok := merr == nil
				var why []string
				if ok {
					ok, why = oracle.Verdict(name, data)
				}
				require.Equal(t, ok, verr == nil, "%s: Validate says %v; Marshal says %v; oracle says %v\n%s", what, verr, merr, why, data)
				if ok {
					roundTrip(t, name, m)
				}
			}
			for si, seed := range seeds {
				for ei, edit := range list {
					m, err := catalogue.DecodeAs(name, "", seed)
					require.NoError(t, err)
					edit(m)
					check(m, fmt.Sprintf("seed %d edit %d", si, ei))
				}
				// Several edits at once, so that violations combine.
				for range 20 {
					m, err := catalogue.DecodeAs(name, "", seed)
					require.NoError(t, err)
					for range 3 {
						list[rng.IntN(len(list))](m)
					}
					check(m, fmt.Sprintf("seed %d, combined edits", si))
				}
			}
		})
	}
}

// TestNewDefaults pins the defaults New fills in, and that the message they
// make is valid as soon as the members without a usable zero value are set.
func TestNewDefaults(t *testing.T) {
	d := device.New()
	require.Equal(t, "core.device", d.MessageType)
	require.NoError(t, d.Validate())

	v := vehicle.New()
	require.Equal(t, "core.vehicle", v.MessageType)
	require.Equal(t, "CORE", v.SourceType)
	require.Equal(t, int64(0), v.SeedOdo)
	require.NoError(t, v.Validate())

	a := association.New()
	require.Equal(t, "core.association", a.MessageType)
	require.NotNil(t, a.Tags)
	require.Empty(t, a.Tags)
	require.Nil(t, a.DriverID)
	require.NoError(t, a.Validate())

	e := event.New()
	require.Error(t, e.Validate(), "an event's type has no default and must be set")
	e.Type = event.TypeCreated
	require.NoError(t, e.Validate())
}

func TestValidateAllocatesNothing(t *testing.T) {
	for _, name := range names() {
		for _, seed := range validSeeds(t, name) {
			m, err := catalogue.DecodeAs(name, "", seed)
			require.NoError(t, err)
			allocs := testing.AllocsPerRun(100, func() {
				if err := m.Validate(); err != nil {
					t.Fatal(err)
				}
			})
			require.Zero(t, allocs, "%s: %s", name, seed)
		}
	}
}

// TestDecodeAllocatesWhatTheValueKeeps pins what decoding into an existing
// value allocates: one copy of the input from the first byte its strings
// and raw values keep, one block for the targets of its pointer members
// (nested objects included), and one slice per list; nothing per member,
// per string or per list item.
func TestDecodeAllocatesWhatTheValueKeeps(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		want      float64
		why       string
	}{
		{"core.device", `{"message_id":"5b3c1f0e-8a2d-4c71-9e4b-2f6d8a1c3e57","message_type":"core.device","source_id":"s","source_type":"t","source_message_type":"m","tenant_id":"c","time":"2026-03-14T09:26:53+01:00","device_id":"0c9f4e2a-7d13-4b6e-a8f5-91d2c7e04b38","external_id":"e","type":"t","model":"m","imei":"490154203237518","allowed":true,"data_provider":"p","created":"2025-11-02T14:05:11Z","first_connected":null}`,
			2, "the kept text and the pointer targets"},
		{"core.device", `{"message_id":"5b3c1f0e-8a2d-4c71-9e4b-2f6d8a1c3e57","message_type":"core.device","source_id":"s","source_type":"t","tenant_id":"c","time":"2026-03-14T09:26:53+01:00","device_id":"0c9f4e2a-7d13-4b6e-a8f5-91d2c7e04b38","external_id":"e"}`,
			1, "the kept text"},
		{"core.vehicle", `{"message_id":"5b3c1f0e-8a2d-4c71-9e4b-2f6d8a1c3e57","message_type":"core.vehicle","source_id":"0c9f4e2a-7d13-4b6e-a8f5-91d2c7e04b38","source_type":"CORE","tenant_id":"c","time":"2026-03-14T09:26:53Z","vehicle_id":"0c9f4e2a-7d13-4b6e-a8f5-91d2c7e04b38","make":"VW","meta":{"a":[1,{"b":null}]},"specification":{"c":"d"},"created":"2025-11-02T14:05:11Z"}`,
			2, "the kept text and the pointer targets"},
		{"core.association", `{"association_id":"5b3c1f0e-8a2d-4c71-9e4b-2f6d8a1c3e57","device_id":"0c9f4e2a-7d13-4b6e-a8f5-91d2c7e04b38","message_id":"0c9f4e2a-7d13-4b6e-a8f5-91d2c7e04b38","source_id":"s","tenant_id":"c","time":"2026-03-14T09:26:53Z","tags":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r"]}`,
			2, "the kept text and the list of tags"},
		{"example.event", `{"id":"5b3c1f0e-8a2d-4c71-9e4b-2f6d8a1c3e57","type":"created","occurred_at":"2026-03-14T09:26:53Z","priority":3,"tags":["a","b"],"actor":{"id":"0c9f4e2a-7d13-4b6e-a8f5-91d2c7e04b38","name":"n"}}`,
			3, "the kept text, the list of tags, and the pointer targets with the actor"},
		{"example.event", `{"id":"5b3c1f0e-8a2d-4c71-9e4b-2f6d8a1c3e57","type":"created","occurred_at":"2026-03-14T09:26:53Z"}`,
			0, "nothing: no string is kept"},
	} {
		m, err := catalogue.DecodeAs(tc.name, "", []byte(tc.msg))
		require.NoError(t, err, tc.msg)
		data := []byte(tc.msg)
		allocs := testing.AllocsPerRun(100, func() {
			if err := m.UnmarshalJSON(data); err != nil {
				t.Fatal(err)
			}
		})
		if raceEnabled {
			// The pool of name tables loses some on purpose: at most one
			// more a call. CI counts exactly in a run without -race.
			assert.LessOrEqual(t, allocs, tc.want+1, "%s: want %s: %s", tc.name, tc.why, tc.msg)
			continue
		}
		assert.Equal(t, tc.want, allocs, "%s: want %s: %s", tc.name, tc.why, tc.msg)
	}
}

// TestValidateNamesEachBadString pins that Validate, which checks all of
// a message's strings held by value for UTF-8 at once, reports each bad
// one at its own path, and none of the others, absent or null ones
// included.
func TestValidateNamesEachBadString(t *testing.T) {
	v := vehicle.New()
	v.MessageID, v.SourceID, v.VehicleID = uuid.New(), uuid.New(), uuid.New()
	v.TenantID, v.Time = "club", time.Now()
	v.Model = msg.Null[string]()
	v.Make = msg.Of("VW\xff")
	v.LicencePlate = msg.Of("AB12\xc3")
	var e *msg.Error
	require.ErrorAs(t, v.Validate(), &e)
	var paths []string
	for _, violation := range e.Violations {
		assert.Equal(t, msg.RuleSyntax, violation.Rule)
		paths = append(paths, violation.Path)
	}
	assert.Equal(t, []string{"/make", "/licence_plate"}, paths)
}
