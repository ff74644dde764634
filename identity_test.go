package catalogue_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/internal/fixture"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// TestKindsNameTheIdentityMembers pins the members each generated type
// names for a broker (decisions 14 and 15): the id and time members, the
// source members, and the record key, the entity's own id or an event's
// id. demo.sensor's key is its sensor_id, and, having no source members,
// its source is fixed, as an event's is.
func TestKindsNameTheIdentityMembers(t *testing.T) {
	source := []string{"/tenant_id", "/source_type", "/source_id"}
	want := map[string]msg.Kind{
		"core.device":      {IDMember: "/message_id", TimeMember: "/time", TypeMember: "/message_type", SourceMembers: source, KeyMember: "/device_id"},
		"core.vehicle":     {IDMember: "/message_id", TimeMember: "/time", TypeMember: "/message_type", SourceMembers: source, KeyMember: "/vehicle_id"},
		"core.association": {IDMember: "/message_id", TimeMember: "/time", TypeMember: "/message_type", SourceMembers: source, KeyMember: "/association_id"},
		"example.event":    {IDMember: "/id", TimeMember: "/occurred_at", Source: "/events", KeyMember: "/id"},
		"demo.sensor":      {IDMember: "/message_id", TimeMember: "/time", TypeMember: "/message_type", Source: "/sensors", KeyMember: "/sensor_id"},
	}
	n := 0
	for _, k := range append(catalogue.Kinds.All(), fixture.Kinds.All()...) {
		w, ok := want[k.Name]
		require.True(t, ok, k.Name)
		assert.Equal(t, w.IDMember, k.IDMember, k.Name)
		assert.Equal(t, w.TimeMember, k.TimeMember, k.Name)
		assert.Equal(t, w.TypeMember, k.TypeMember, k.Name)
		assert.Equal(t, w.SourceMembers, k.SourceMembers, k.Name)
		assert.Equal(t, w.Source, k.Source, k.Name)
		assert.Equal(t, w.KeyMember, k.KeyMember, k.Name)
		n++
	}
	assert.Equal(t, 7, n, "four published schemas, three fixture versions")
}

// TestIdentityIsTheMembersValues pins that a decoded message's Identity
// holds the values of the members its kind names, a uuid as its value.
func TestIdentityIsTheMembersValues(t *testing.T) {
	m, err := catalogue.Decode([]byte(`{"message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","message_type":"core.vehicle",` +
		`"source_id":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8","source_type":"fleet","tenant_id":"acme","time":"2024-05-01T12:00:00+02:00",` +
		`"vehicle_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}`))
	require.NoError(t, err)
	id := m.Identity()
	assert.Same(t, m.SchemaKind(), id.Kind)
	assert.Equal(t, "0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f", id.ID.String())
	assert.Equal(t, "2024-05-01T10:00:00Z", id.Time.UTC().Format("2006-01-02T15:04:05Z07:00"))
	assert.Equal(t, "core.vehicle", id.Type)
	assert.Equal(t, "acme", id.Tenant.String())
	assert.Equal(t, "fleet", id.SourceType.String())
	assert.True(t, id.SourceID.Equal("6BA7B810-9DAD-11D1-80B4-00C04FD430C8"))
	assert.Equal(t, "6ba7b810-9dad-11d1-80b4-00c04fd430c8", id.SourceID.String(), "a uuid's canonical text")
	assert.Equal(t, "7c9e6679-7425-40de-944b-e07fc1f90ae7", id.Key.String())

	a, err := catalogue.Decode([]byte(`{"message_id":"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f","message_type":"core.association",` +
		`"source_id":"s","tenant_id":"t","time":"2024-05-01T12:00:00Z","source_type":null,` +
		`"association_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7","device_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"}`))
	require.NoError(t, err)
	assert.True(t, a.Identity().SourceType.IsAbsent(), "a null source_type is no source type")
}

// TestIdentityAllocatesNothing pins what the generated Identity methods
// promise: a gate reads it for every message.
func TestIdentityAllocatesNothing(t *testing.T) {
	for _, k := range append(catalogue.Kinds.All(), fixture.Kinds.All()...) {
		m := k.New()
		var id msg.Identity
		allocs := testing.AllocsPerRun(100, func() { id = m.Identity() })
		assert.Zero(t, allocs, k.Name+"@"+k.Version)
		assert.Same(t, k, id.Kind)
	}
}

func TestKindsCarryTheRegistryIDsOfTheCatalogue(t *testing.T) {
	for _, s := range schemas.All() {
		k := catalogue.Kinds.Lookup(s.Name, s.Version)
		require.NotNil(t, k, s.Name)
		assert.Equal(t, s.RegistryID, k.RegistryID, s.Name)
		assert.Same(t, k, catalogue.Kinds.LookupRegistryID(s.RegistryID), s.Name)
	}
	assert.Nil(t, catalogue.Kinds.LookupRegistryID(0))
	assert.Nil(t, catalogue.Kinds.LookupRegistryID(99))
	assert.Zero(t, testing.AllocsPerRun(100, func() { catalogue.Kinds.LookupRegistryID(2) }))
}
