package compat

import "testing"

// TestInBase pins which $ids are the catalogue's own, and so must parse as
// its schemas: those under its base in either scheme, with the scheme and
// host in any case (decision 9, as msg.CanonicalID reads it); any other
// is compared as a schema of its own.
func TestInBase(t *testing.T) {
	for id, want := range map[string]bool{
		"https://catalogue.fleetkit.dev/api/schemas/a/versions/1.0":  true,
		"http://catalogue.fleetkit.dev/api/schemas/a/versions/1.0":   true,
		"HTTP://Catalogue.FleetKit.dev/api/schemas/a/versions/1.0":   true,
		"https://catalogue.fleetkit.dev/api/schemas/":                true,
		"https://catalogue.fleetkit.dev/API/schemas/a/versions/1.0":  false,
		"ftp://catalogue.fleetkit.dev/api/schemas/a/versions/1.0":    false,
		"https://catalogue.fleetkit.dev.evil/api/schemas/a/versions": false,
		"https://example.com/schemas/thing/1":                        false,
		"catalogue.fleetkit.dev/api/schemas/a/versions/1.0":          false,
		"": false,
	} {
		if got := inBase(id); got != want {
			t.Errorf("inBase(%q) = %v, want %v", id, got, want)
		}
	}
}
