package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

// TestGoldenOutput pins the generated code: the generator's output for the
// committed schemas is exactly the committed code. After a deliberate
// change to the generator or a schema, run go generate ./... and review
// the diff.
func TestGoldenOutput(t *testing.T) {
	files, err := generate()
	require.NoError(t, err)
	require.Len(t, files, len(schemas.All()))
	for name, src := range files {
		committed, err := os.ReadFile(filepath.Join("..", name))
		require.NoError(t, err, "generated file %s is not committed", name)
		assert.Equal(t, string(committed), string(src), "%s is stale: run go generate ./...", name)
	}
}

func TestOutputIsDeterministic(t *testing.T) {
	first, err := generate()
	require.NoError(t, err)
	for range 5 {
		again, err := generate()
		require.NoError(t, err)
		require.Equal(t, first, again)
	}
}

func TestGeneratedHeader(t *testing.T) {
	files, err := generate()
	require.NoError(t, err)
	for name, src := range files {
		first, _, _ := strings.Cut(string(src), "\n")
		assert.Regexp(t, `^// Code generated .* DO NOT EDIT\.$`, first, name)
	}
}

func TestExportName(t *testing.T) {
	for in, want := range map[string]string{
		"message_id":    "MessageID",
		"tenant_id":     "TenantID",
		"imei":          "IMEI",
		"iccid":         "ICCID",
		"vin":           "VIN",
		"seed_odo":      "SeedOdo",
		"seed_odo_time": "SeedOdoTime",
		"licence_plate": "LicencePlate",
		"id":            "ID",
		"occurred_at":   "OccurredAt",
	} {
		assert.Equal(t, want, exportName(in), in)
	}
}

// TestSentenceKeepsNames pins how a description continues a generated
// doc comment: lower-cased, unless it begins with a name, which keeps its
// capitals.
func TestSentenceKeepsNames(t *testing.T) {
	for in, want := range map[string]string{
		"Unique identifier of this message.":       "unique identifier of this message.",
		"Free-form information about the vehicle.": "free-form information about the vehicle.",
		"IMEI of the device.":                      "IMEI of the device.",
		"Integrated Circuit Card Identifier.":      "Integrated Circuit Card Identifier.",
		"Vehicle Identification Number.":           "Vehicle Identification Number.",
		"Kind of event.":                           "kind of event.",
		"A":                                        "a",
		"":                                         "",
	} {
		assert.Equal(t, want, sentence(in), in)
	}
}

// TestRefusesWhatItDoesNotImplement pins that a schema using a keyword or
// shape the generator does not implement is refused, not half-generated:
// the generated code would otherwise accept messages the schema rejects.
func TestRefusesWhatItDoesNotImplement(t *testing.T) {
	for name, props := range map[string]string{
		"pattern":              `{"a": {"type": "string", "pattern": "^x$"}}`,
		"maxLength":            `{"a": {"type": "string", "maxLength": 3}}`,
		"oneOf":                `{"a": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}`,
		"$ref":                 `{"a": {"$ref": "#/definitions/x"}}`,
		"two types":            `{"a": {"type": ["string", "integer"]}}`,
		"number":               `{"a": {"type": "number"}}`,
		"unknown format":       `{"a": {"type": "string", "format": "email"}}`,
		"array of integers":    `{"a": {"type": "array", "items": {"type": "integer"}}}`,
		"fractional bound":     `{"a": {"type": "integer", "minimum": 0.5}}`,
		"enum without null":    `{"a": {"type": ["string", "null"], "enum": ["x"]}}`,
		"additionalProperties": `{"a": {"type": "object", "properties": {"b": {"type": "string"}}, "additionalProperties": false}}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := testSchema(t, props)
			_, err := build(s)
			require.Error(t, err)
		})
	}
}

func TestBuildsRepresentations(t *testing.T) {
	s := testSchema(t, `{
		"req": {"type": "string"},
		"def": {"type": "string", "default": "x"},
		"opt": {"type": "string"},
		"nul": {"type": ["string", "null"]},
		"nuldef": {"type": ["string", "null"], "default": null}
	}`)
	sf, err := build(s)
	require.NoError(t, err)
	got := map[string]repr{}
	for _, f := range sf.Root.Fields {
		got[f.JSON] = f.Repr
	}
	assert.Equal(t, map[string]repr{
		"req":    reprValue,
		"def":    reprValue,
		"opt":    reprPointer,
		"nul":    reprNullable,
		"nuldef": reprPointer,
	}, got)
}

// testSchema returns a catalogue entry for a schema with the given
// properties, "req" required if declared.
func testSchema(t *testing.T, props string) input {
	t.Helper()
	doc := map[string]any{
		"$schema":    "http://json-schema.org/draft-07/schema#",
		"$id":        schemas.ID("test.thing", "1.0"),
		"title":      "test.thing",
		"type":       "object",
		"properties": json.RawMessage(props),
	}
	if strings.Contains(props, `"req"`) {
		doc["required"] = []string{"req"}
	}
	data, err := json.Marshal(doc)
	require.NoError(t, err)
	return input{Name: "test.thing", Version: "1.0", ID: schemas.ID("test.thing", "1.0"), File: "test.thing-1.0.json", Data: data}
}
