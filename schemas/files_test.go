package schemas_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/oracle"
	"github.com/fleetkit/catalogue/schemas"
)

const (
	draft07 = "http://json-schema.org/draft-07/schema#"
	draft12 = "https://json-schema.org/draft/2020-12/schema"
)

// dialects are the $schema of each schema (decision 8).
var dialects = map[string]string{
	"core.association": draft07,
	"core.device":      draft07,
	"core.vehicle":     draft07,
	"example.event":    draft12,
}

func parseFile(t *testing.T, s schemas.Schema) map[string]any {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.JSON()))
	require.NoError(t, err, s.File())
	obj, ok := doc.(map[string]any)
	require.True(t, ok, "%s is not an object", s.File())
	return obj
}

func TestSchemaFilesValidateAgainstTheirMetaSchema(t *testing.T) {
	for _, s := range schemas.All() {
		doc := parseFile(t, s)
		meta, err := oracle.NewCompiler().Compile(strings.TrimSuffix(s.Dialect, "#"))
		require.NoError(t, err, "%s: meta-schema %s", s.Name, s.Dialect)
		assert.NoError(t, meta.Validate(doc), s.Name)
	}
}

func TestSchemaFilesCompileWithFormatsAsserted(t *testing.T) {
	c := oracle.NewCompiler()
	for _, s := range schemas.All() {
		require.NoError(t, c.AddResource(s.ID, parseFile(t, s)), s.Name)
	}
	for _, s := range schemas.All() {
		_, err := c.Compile(s.ID)
		assert.NoError(t, err, s.Name)
		assert.NotNil(t, oracle.Schema(s.Name), s.Name)
	}
}

func TestSchemaFilesDeclareTheirDialectIDAndTitle(t *testing.T) {
	for _, s := range schemas.All() {
		doc := parseFile(t, s)
		assert.Equal(t, dialects[s.Name], doc["$schema"], "%s: $schema (decision 8)", s.Name)
		assert.Equal(t, dialects[s.Name], s.Dialect, s.Name)
		assert.Equal(t, schemas.ID(s.Name, "1.0"), doc["$id"], "%s: $id (decision 9)", s.Name)
		assert.True(t, strings.HasPrefix(doc["$id"].(string), schemas.BaseURL+"/"), "%s: $id under BaseURL (decision 9)", s.Name)
		assert.Equal(t, s.Name, doc["title"], "%s: title is the name (spec 1)", s.Name)
		assert.Equal(t, "object", doc["type"], "%s: messages are objects (spec 2)", s.Name)
		assert.Equal(t, s.Description, doc["description"], s.Name)
		assert.NotContains(t, doc, "additionalProperties", "%s: unknown properties are allowed (decision 3)", s.Name)
	}
}

// specRequired is the Required line of each table of spec section 2.
var specRequired = map[string][]string{
	"core.device":      {"device_id", "external_id", "message_id", "message_type", "source_id", "source_type", "tenant_id", "time"},
	"core.vehicle":     {"message_id", "message_type", "source_id", "source_type", "tenant_id", "time", "vehicle_id"},
	"core.association": {"association_id", "device_id", "message_id", "source_id", "tenant_id", "time"},
	"example.event":    {"id", "type", "occurred_at"},
}

func TestSchemaFilesRequireExactlyWhatTheSpecRequires(t *testing.T) {
	for _, s := range schemas.All() {
		doc := parseFile(t, s)
		var required []string
		for _, r := range doc["required"].([]any) {
			required = append(required, r.(string))
		}
		assert.ElementsMatch(t, specRequired[s.Name], required, s.Name)
		assert.Equal(t, required, s.Required, s.Name)
		sorted := slices.Sorted(slices.Values(required))
		assert.Equal(t, len(sorted), len(slices.Compact(sorted)), "%s: required repeats a name", s.Name)
	}
}

// specProperties is every row of the field tables of spec section 2 (and
// the limits of section 8), as JSON Schema keywords. "type" lists are
// compared as sets; descriptions are checked to exist, not compared.
var specProperties = map[string]map[string]string{
	"core.device": envelopeSpec("core.device", map[string]string{
		"device_id":       `{"type":"string","format":"uuid"}`,
		"external_id":     `{"type":"string"}`,
		"type":            `{"type":["string","null"]}`,
		"model":           `{"type":"string","default":""}`,
		"firmware":        `{"type":"string","default":""}`,
		"configuration":   `{"type":"string","default":""}`,
		"imei":            `{"type":"string","default":""}`,
		"iccid":           `{"type":"string","default":""}`,
		"carrier":         `{"type":"string","default":""}`,
		"allowed":         `{"type":"boolean","default":false}`,
		"data_provider":   `{"type":"string"}`,
		"created":         `{"type":"string","format":"date-time"}`,
		"first_connected": `{"type":["string","null"],"format":"date-time","default":null}`,
	}),
	"core.vehicle": envelopeSpec("core.vehicle", map[string]string{
		"vehicle_id":        `{"type":"string","format":"uuid"}`,
		"make":              `{"type":["string","null"]}`,
		"model":             `{"type":["string","null"]}`,
		"year":              `{"type":["string","null"],"format":"date-time"}`,
		"fuel_type":         `{"type":["string","null"],"minLength":1}`,
		"vin":               `{"type":["string","null"]}`,
		"licence_plate":     `{"type":["string","null"]}`,
		"seed_odo":          `{"type":"integer","minimum":0,"default":0}`,
		"seed_odo_time":     `{"type":["string","null"],"format":"date-time"}`,
		"meta":              `{"type":"object"}`,
		"specification":     `{"type":"object"}`,
		"consent_status":    `{"type":["string","null"],"enum":["approved","suspended","revoked",null]}`,
		"data_provider_key": `{"type":["string","null"]}`,
		"allowed":           `{"type":["boolean","null"]}`,
		"created":           `{"type":"string","format":"date-time"}`,
	}),
	"core.association": envelopeSpec("core.association", map[string]string{
		"association_id": `{"type":"string","format":"uuid"}`,
		"device_id":      `{"type":"string","format":"uuid"}`,
		"driver_id":      `{"type":["string","null"],"format":"uuid","default":null}`,
		"vehicle_id":     `{"type":["string","null"],"format":"uuid","default":null}`,
		"battery_id":     `{"type":["string","null"],"format":"uuid","default":null}`,
		"tags":           `{"type":["array","null"],"items":{"type":"string"},"default":[]}`,
		"external_id":    `{"type":["string","null"]}`,
		"offset":         `{"type":"integer"}`,
	}),
	"example.event": {
		"id":          `{"type":"string","format":"uuid"}`,
		"type":        `{"type":"string","enum":["created","updated","deleted"]}`,
		"occurred_at": `{"type":"string","format":"date-time"}`,
		"priority":    `{"type":"integer","minimum":0,"maximum":9}`,
		"tags":        `{"type":"array","items":{"type":"string"}}`,
		"actor":       `{"type":"object","properties":{"id":{"type":"string","format":"uuid"},"name":{"type":"string"}}}`,
	},
}

// envelopeSpec adds the rows of spec section 2.1 as they apply to name.
func envelopeSpec(name string, own map[string]string) map[string]string {
	m := map[string]string{
		"message_id":          `{"type":"string","format":"uuid"}`,
		"message_type":        `{"type":"string","default":"` + name + `"}`,
		"source_id":           `{"type":"string"}`,
		"source_type":         `{"type":"string"}`,
		"source_message_type": `{"type":"string"}`,
		"tenant_id":           `{"type":"string"}`,
		"time":                `{"type":"string","format":"date-time"}`,
	}
	switch name {
	case "core.vehicle":
		m["source_id"] = `{"type":"string","format":"uuid"}`
		m["source_type"] = `{"type":"string","default":"CORE"}`
	case "core.association":
		m["source_type"] = `{"type":["string","null"]}`
	}
	for k, v := range own {
		m[k] = v
	}
	return m
}

func TestSchemaFilesDeclareEachPropertyAsTheSpecStates(t *testing.T) {
	for _, s := range schemas.All() {
		doc := parseFile(t, s)
		props, ok := doc["properties"].(map[string]any)
		require.True(t, ok, s.Name)
		want := specProperties[s.Name]
		assert.ElementsMatch(t, slices.Collect(mapKeys(want)), slices.Collect(mapKeys(props)), "%s: properties", s.Name)
		for name, spec := range want {
			got, ok := props[name]
			if !ok {
				continue
			}
			var w any
			require.NoError(t, json.Unmarshal([]byte(spec), &w), "%s.%s", s.Name, name)
			assert.Equal(t, normalise(t, w, s.Name+"."+name, false), normalise(t, got, s.Name+"."+name, true), "%s.%s", s.Name, name)
		}
	}
}

// normalise makes a property schema comparable: descriptions dropped (after
// checking the file has one), type always a sorted list, numbers float64.
func normalise(t *testing.T, v any, where string, fromFile bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		if fromFile {
			d, _ := v["description"].(string)
			assert.NotEmpty(t, d, "%s has no description", where)
		}
		for k, e := range v {
			switch k {
			case "description":
			case "type":
				var types []string
				switch tv := e.(type) {
				case string:
					types = []string{tv}
				case []any:
					for _, x := range tv {
						types = append(types, x.(string))
					}
				}
				slices.Sort(types)
				out[k] = types
			case "properties":
				props := map[string]any{}
				for name, p := range e.(map[string]any) {
					props[name] = normalise(t, p, where+"."+name, fromFile)
				}
				out[k] = props
			case "items":
				out[k] = normalise(t, e, where+"[]", false)
			default:
				out[k] = normalise(t, e, where, false)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalise(t, e, where, false)
		}
		return out
	case json.Number:
		f, err := v.Float64()
		require.NoError(t, err)
		return f
	}
	return v
}
