package msg_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"

	"github.com/fleetkit/catalogue/msg"
)

// TestTextComparesByMeaning pins that a uuid member's value equals its
// text in either case, and nothing that is not its 8-4-4-4-12 form
// (decision 1), while a string equals only itself.
func TestTextComparesByMeaning(t *testing.T) {
	u := uuid.MustParse("0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f")
	id := msg.UUIDText(u)
	assert.True(t, id.Equal("0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f"))
	assert.True(t, id.Equal("0B7F3C52-1a8e-4C9D-9f0e-2D6A4B8C1E3F"))
	for _, s := range []string{
		"{0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f}",
		"urn:uuid:0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f",
		"0b7f3c521a8e4c9d9f0e2d6a4b8c1e3f",
		"0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e30",
		"",
	} {
		assert.False(t, id.Equal(s), s)
	}
	assert.Equal(t, "0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f", id.String())
	assert.Equal(t, "x/0b7f3c52-1a8e-4c9d-9f0e-2d6a4b8c1e3f", string(id.Append([]byte("x/"))))

	s := msg.StringText("Abc")
	assert.True(t, s.Equal("Abc"))
	assert.False(t, s.Equal("abc"), "a string is compared as it is")
	assert.Equal(t, "Abc", s.String())

	var absent msg.Text
	assert.True(t, absent.IsAbsent())
	assert.False(t, absent.Equal(""))
	assert.False(t, s.IsAbsent())
}

// TestKindsLookUp pins the lookups of a table of kinds: by name and
// version, the latest by default, and by $id in either scheme with the
// scheme and host in any case, the path as it is.
func TestKindsLookUp(t *testing.T) {
	const base = "https://catalogue.fleetkit.dev/api/schemas/"
	a10 := &msg.Kind{Name: "a", Version: "1.0", ID: base + "a/versions/1.0"}
	a19 := &msg.Kind{Name: "a", Version: "1.9", ID: base + "a/versions/1.9"}
	a110 := &msg.Kind{Name: "a", Version: "1.10", ID: base + "a/versions/1.10"}
	b := &msg.Kind{Name: "b", Version: "1.0", ID: base + "b/versions/1.0"}
	kinds := msg.NewKinds(nil, a10, a19, a110, b)

	assert.Same(t, a110, kinds.Lookup("a", ""), "the table's order is the versions' numeric order")
	assert.Same(t, a19, kinds.Lookup("a", "1.9"))
	assert.Nil(t, kinds.Lookup("a", "2.0"))
	assert.Nil(t, kinds.Lookup("c", ""))
	assert.Equal(t, []*msg.Kind{a10, a19, a110, b}, kinds.All())

	assert.Same(t, b, kinds.LookupID(base+"b/versions/1.0"))
	assert.Same(t, b, kinds.LookupID("http://catalogue.fleetkit.dev/api/schemas/b/versions/1.0"))
	assert.Same(t, b, kinds.LookupID("HTTP://Catalogue.FleetKit.dev/api/schemas/b/versions/1.0"))
	assert.Nil(t, kinds.LookupID("https://catalogue.fleetkit.dev/API/schemas/b/versions/1.0"))
	assert.Nil(t, kinds.LookupID("ftp://catalogue.fleetkit.dev/api/schemas/b/versions/1.0"))
	assert.Nil(t, kinds.LookupID("b"))

	// A kind whose own $id has its host in capitals is found by any case.
	c := &msg.Kind{Name: "c", Version: "1.0", ID: "https://Catalogue.FleetKit.dev/api/schemas/c/versions/1.0"}
	kinds = msg.NewKinds(nil, c)
	assert.Same(t, c, kinds.LookupID(c.ID))
	assert.Same(t, c, kinds.LookupID("http://catalogue.fleetkit.dev/api/schemas/c/versions/1.0"))

	_, err := kinds.Decode([]byte(`{}`))
	assert.ErrorIs(t, err, msg.ErrNoDecode)
	assert.False(t, kinds.CanDecode())
}

func TestKindsLookUpRegistryIDs(t *testing.T) {
	a := &msg.Kind{Name: "demo.a", Version: "1.0", ID: "https://x/api/schemas/demo.a/versions/1.0", RegistryID: 7}
	b := &msg.Kind{Name: "demo.b", Version: "1.0", ID: "https://x/api/schemas/demo.b/versions/1.0"}
	kinds := msg.NewKinds(nil, a, b)
	assert.Same(t, a, kinds.LookupRegistryID(7))
	assert.Nil(t, kinds.LookupRegistryID(0), "a kind without an id is not found by 0")
	assert.Nil(t, kinds.LookupRegistryID(8))
}

// TestCanonicalID pins the one rule by which $ids compare (decision 9),
// which msg, schemas and compat all apply: scheme and host in any case,
// http as https, the path as it is.
func TestCanonicalID(t *testing.T) {
	const want = "https://catalogue.fleetkit.dev/api/schemas/a/versions/1.0"
	for _, id := range []string{
		want,
		"http://catalogue.fleetkit.dev/api/schemas/a/versions/1.0",
		"HTTP://Catalogue.FleetKit.DEV/api/schemas/a/versions/1.0",
		"Https://CATALOGUE.fleetkit.dev/api/schemas/a/versions/1.0",
	} {
		assert.Equal(t, want, msg.CanonicalID(id), id)
	}
	for _, id := range []string{
		"https://catalogue.fleetkit.dev/API/schemas/A/versions/1.0", // the path keeps its case
		"ftp://catalogue.fleetkit.dev/api/schemas/a/versions/1.0",
		"https://catalogue.fleetkit.dev", // no path
		"HTTPS://Catalogue.fleetkit.dev", // no path: as it is
		"catalogue.fleetkit.dev/api",     // no scheme
		"",
	} {
		assert.Equal(t, id, msg.CanonicalID(id), id)
	}
	assert.Equal(t, "https://h/", msg.CanonicalID("HTTP://H/"))
}
