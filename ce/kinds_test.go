package ce_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/internal/fixture"
	"github.com/fleetkit/catalogue/internal/oracle"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// TestEveryGeneratedTypeTravels walks every kind of the published table
// and of the fixture's (demo.sensor: a fifth schema, at two minors and a
// second major) through Write and Decode, with nothing written for any
// one of them: a message of the kind, built from its schema file and held
// to the oracle, gets the headers Write gives it; Decode chooses its kind
// by them and accepts it; and every header that carries a member is
// checked against it, at the member the kind names.
func TestEveryGeneratedTypeTravels(t *testing.T) {
	fixtureCatalogue, err := schemas.Load(os.DirFS("../testdata/fixture"))
	require.NoError(t, err)
	n := 0
	for _, table := range []struct {
		kinds   *msg.Kinds
		schemas *schemas.Catalogue
	}{
		{catalogue.Kinds, schemas.Published()},
		{fixture.Kinds, fixtureCatalogue},
	} {
		judge, err := oracle.New(table.schemas)
		require.NoError(t, err)
		for _, k := range table.kinds.All() {
			t.Run(k.Name+"@"+k.Version, func(t *testing.T) {
				s, err := table.schemas.Lookup(k.Name, k.Version)
				require.NoError(t, err)
				body := instance(t, s)
				ok, why := judge.Verdict(k.Name, k.Version, body)
				require.True(t, ok, "the instance built from the schema is invalid: %v\n%s", why, body)

				m := k.New()
				require.NoError(t, m.UnmarshalJSON(body))
				require.Same(t, k, m.SchemaKind())
				h := http.Header{}
				require.NoError(t, ce.HTTP.Write(h, m))
				assert.Equal(t, k.ID, h.Get("ce-dataschema"))
				assert.Equal(t, k.Name, h.Get("ce-type"))

				got, err := ce.HTTP.Decode(table.kinds, h, body)
				require.NoError(t, err)
				assert.Same(t, k, got.SchemaKind(), "Decode chooses the kind by ce-dataschema")
				assert.Equal(t, m.Identity(), got.Identity())

				// Each header that carries a member is checked against it.
				for header, member := range map[string]string{"ce-id": k.IDMember, "ce-time": k.TimeMember} {
					bad := h.Clone()
					bad.Set(header, map[string]string{"ce-id": uuid.NewString(), "ce-time": "2001-01-01T00:00:00Z"}[header])
					_, err := ce.HTTP.Decode(table.kinds, bad, body)
					var e *msg.Error
					require.ErrorAs(t, err, &e, header)
					require.Len(t, e.Violations, 1)
					assert.Equal(t, member, e.Violations[0].Path, header)
					assert.Equal(t, msg.RuleHeader, e.Violations[0].Rule)
				}
				bad := h.Clone()
				bad.Set("ce-source", "/elsewhere")
				_, err = ce.HTTP.Decode(table.kinds, bad, body)
				assert.ErrorContains(t, err, "ce-source contradicts")
				n++
			})
		}
	}
	assert.Equal(t, 7, n, "four published schemas and three fixture versions")
}

// instance returns a message that schema s accepts, built from its file
// alone: every required member, with a value of its type, format or enum.
func instance(t *testing.T, s schemas.Schema) []byte {
	t.Helper()
	var doc struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(s.JSON(), &doc))
	out := map[string]any{}
	for i, name := range doc.Required {
		var p struct {
			Type    any      `json:"type"`
			Format  string   `json:"format"`
			Enum    []any    `json:"enum"`
			Minimum *float64 `json:"minimum"`
			Default any      `json:"default"`
		}
		require.NoError(t, json.Unmarshal(doc.Properties[name], &p))
		typ := fmt.Sprint(p.Type)
		switch {
		case len(p.Enum) > 0:
			out[name] = p.Enum[0]
		case p.Default != nil:
			out[name] = p.Default
		case p.Format == "uuid":
			out[name] = uuid.NewSHA1(uuid.NameSpaceURL, []byte(s.Name+name)).String()
		case p.Format == "date-time":
			out[name] = fmt.Sprintf("2026-03-01T08:00:%02dZ", i)
		case typ == "integer" && p.Minimum != nil:
			out[name] = *p.Minimum
		case typ == "integer":
			out[name] = 0
		case typ == "boolean":
			out[name] = false
		case typ == "array":
			out[name] = []any{}
		case typ == "object":
			out[name] = map[string]any{}
		default:
			out[name] = name + "-1"
		}
	}
	data, err := json.Marshal(out)
	require.NoError(t, err)
	return data
}

// TestSourceIsComparedByMeaning pins that ce-source is compared with the
// message's source members by what they mean: a vehicle whose source_id
// is a uuid in mixed case, which its schema accepts, with a ce-source its
// producer wrote from the literal value, is accepted, as is a segment
// percent-escaped where it need not be; another uuid, or another tenant,
// still contradicts the message.
func TestSourceIsComparedByMeaning(t *testing.T) {
	body := []byte(`{"message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","message_type":"core.vehicle",` +
		`"source_id":"6BA7B810-9dad-11D1-80B4-00C04FD430C8","source_type":"fleet","tenant_id":"acme",` +
		`"time":"2026-03-01T08:00:00Z","vehicle_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}`)
	for source, ok := range map[string]bool{
		"/tenants/acme/sources/fleet/6BA7B810-9dad-11D1-80B4-00C04FD430C8":   true,
		"/tenants/acme/sources/fleet/6ba7b810-9dad-11d1-80b4-00c04fd430c8":   true,
		"/tenants/%61cme/sources/fleet/6ba7b810-9dad-11d1-80b4-00c04fd430c8": true,
		"/tenants/acme/sources/fleet/6ba7b810-9dad-11d1-80b4-00c04fd430c9":   false,
		"/tenants/ACME/sources/fleet/6ba7b810-9dad-11d1-80b4-00c04fd430c8":   false,
		"/tenants/acme/sources/6ba7b810-9dad-11d1-80b4-00c04fd430c8":         false,
		"/tenants/acme/sources/fleet/{6ba7b810-9dad-11d1-80b4-00c04fd430c8}": false,
		"/tenants/acme/sources/fleet/6ba7b810-9dad-11d1-80b4-00c04fd430c8/x": false,
		"/tenants/acme/origins/fleet/6ba7b810-9dad-11d1-80b4-00c04fd430c8":   false,
		"/tenants/acme/sources/fleet/%zz":                                    false,
	} {
		h := header{"ce-type": {"core.vehicle"}, "ce-source": {source}}
		_, err := ce.NATS.Decode(catalogue.Kinds, h, body)
		if ok {
			assert.NoError(t, err, source)
		} else {
			assert.ErrorContains(t, err, "ce-source contradicts", source)
		}
	}
}

// TestDecodeIdentityGivesWhatWriteIdentityNeeds pins the gate's path:
// DecodeIdentity returns the identity it checked the headers against, and
// WriteIdentity writes from it the headers Write writes from the message.
func TestDecodeIdentityGivesWhatWriteIdentityNeeds(t *testing.T) {
	m, id, err := ce.NATS.DecodeIdentity(catalogue.Kinds, nil, []byte(deviceLine))
	require.NoError(t, err)
	assert.Equal(t, m.Identity(), id)
	fromID, fromMessage := header{}, header{}
	require.NoError(t, ce.NATS.WriteIdentity(fromID, id))
	require.NoError(t, ce.NATS.Write(fromMessage, m))
	assert.Equal(t, fromMessage, fromID)

	_, id, err = ce.NATS.DecodeIdentity(catalogue.Kinds, nil, []byte(`{}`))
	assert.ErrorIs(t, err, catalogue.ErrNoType)
	assert.Nil(t, id.Kind)
	assert.Error(t, ce.NATS.WriteIdentity(header{}, id), "an identity without its kind")
}

// TestAFixtureTableChoosesOnlyByHeader pins that a table made without a
// decoder by message_type (the fixture's) says so, rather than guessing,
// when no header names the schema.
func TestAFixtureTableChoosesOnlyByHeader(t *testing.T) {
	_, err := ce.NATS.Decode(fixture.Kinds, nil, []byte(`{"message_type":"demo.sensor"}`))
	assert.ErrorIs(t, err, msg.ErrNoDecode)
}

// TestEventSourceIsTheEventKinds pins that the exported EventSource is the
// source the generated kind of example.event gives every event.
func TestEventSourceIsTheEventKinds(t *testing.T) {
	assert.Equal(t, ce.EventSource, catalogue.Kinds.Lookup("example.event", "").Source)
}
