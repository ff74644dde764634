package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedPeersAreUpToDate pins the generator's output: the committed
// baseline structs in peers/plain are exactly what it writes today, so a
// change in either is a reviewable diff (run ../../generate.sh).
func TestCommittedPeersAreUpToDate(t *testing.T) {
	for _, tc := range []struct{ pkg, typ, file string }{
		{"device", "Device", "core.device-1.0.json"},
		{"vehicle", "Vehicle", "core.vehicle-1.0.json"},
		{"association", "Association", "core.association-1.0.json"},
		{"event", "Event", "example.event-1.0.json"},
	} {
		schema, err := os.ReadFile(filepath.Join("..", "..", "..", "schemas", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Generate(schema, tc.file, tc.pkg, tc.typ)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		committed := filepath.Join("..", "..", "peers", "plain", tc.pkg, tc.pkg+"_gen.go")
		want, err := os.ReadFile(committed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what plaingen writes for %s: run generate.sh", committed, tc.file)
		}
	}
}

func TestGenerateRejectsAmbiguousTypes(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"x":{"type":["string","integer"]}}}`)
	if _, err := Generate(schema, "x.json", "x", "X"); err == nil {
		t.Error("Generate accepted a member of two non-null types; want an error")
	}
}
