package kafka_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/schemas"
)

// systemPython is Debian's Python, for which Debian's
// python3-confluent-kafka is built; it is not the first python3 on PATH
// on these machines.
const systemPython = "/usr/bin/python3"

// needPython returns systemPython if it has Confluent's client, and
// otherwise skips the test, or fails it in CI, which installs it.
func needPython(t *testing.T) string {
	t.Helper()
	err := exec.Command(systemPython, "-c", "import confluent_kafka.schema_registry.json_schema").Run()
	if err != nil {
		missing(t, "python3-confluent-kafka", fmt.Errorf("%s cannot import confluent_kafka: %w", systemPython, err))
	}
	return systemPython
}

func TestConfluentPythonClientUsesTheCatalogue(t *testing.T) {
	python := needPython(t)
	registryURL := serveRegistry(t)

	d, data := sampleDevice(t)
	dev, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	vehicle, err := schemas.Lookup("core.vehicle", "1.0")
	require.NoError(t, err)
	var message map[string]any
	require.NoError(t, json.Unmarshal(data, &message))
	request, err := json.Marshal(map[string]any{
		"topic":        "telemetry",
		"subject":      "telemetry-value",
		"message":      message,
		"framed":       append(kafka.AppendFrame(nil, dev.RegistryID), data...),
		"other_schema": string(vehicle.JSON()),
	})
	require.NoError(t, err)

	out := output(t, exec.Command(python, "testdata/confluent_client.py", registryURL), request)

	var answer struct {
		LatestID      int32          `json:"latest_id"`
		LatestVersion int            `json:"latest_version"`
		LatestSchema  string         `json:"latest_schema"`
		Subjects      []string       `json:"subjects"`
		Serialized    string         `json:"serialized"`
		Deserialized  map[string]any `json:"deserialized"`
		RegisterOther any            `json:"register_other"`
	}
	require.NoError(t, json.Unmarshal(out, &answer), "%s", out)
	assert.Equal(t, dev.RegistryID, answer.LatestID)
	assert.Equal(t, 1, answer.LatestVersion)
	assert.Equal(t, string(dev.JSON()), answer.LatestSchema)
	assert.Contains(t, answer.Subjects, "telemetry-value")
	assert.EqualValues(t, api.ErrorReadOnly, answer.RegisterOther)

	// What their serializer framed, the catalogue reads exactly.
	value, err := base64.StdEncoding.DecodeString(answer.Serialized)
	require.NoError(t, err)
	requireFramedDevice(t, value, d)

	// What the catalogue framed, their deserializer read as the message.
	again, err := json.Marshal(answer.Deserialized)
	require.NoError(t, err)
	back, err := device.Parse(again)
	require.NoError(t, err)
	assert.Equal(t, d, back)
}

// TestConfluentPythonClientCallsEveryRoute: every call of Debian's
// Confluent Python client, and its serializer under each subject name
// strategy, registering and looking up, gets what Confluent's registry
// would answer for a read-only catalogue: the catalogue's ids for its
// schemas however they are spelt, and the registry's error codes
// otherwise.
func TestConfluentPythonClientCallsEveryRoute(t *testing.T) {
	python := needPython(t)
	subjects := map[string]string{"telemetry-value": "core.device"}
	for _, s := range schemas.All() {
		subjects["telemetry-"+s.Name] = s.Name // TopicRecordNameStrategy's
	}
	srv := httptest.NewServer(api.Handler(api.Subjects(subjects)))
	t.Cleanup(srv.Close)

	ms, _ := samples(t)
	messages := map[string]json.RawMessage{}
	for _, m := range ms {
		if _, ok := messages[m.SchemaName()]; !ok {
			data, err := json.Marshal(m)
			require.NoError(t, err)
			messages[m.SchemaName()] = data
		}
	}
	request, err := json.Marshal(messages)
	require.NoError(t, err)
	out := output(t, exec.Command(python, "testdata/confluent_calls.py", srv.URL+api.RegistryPath), request)
	var answer map[string]struct {
		OK    any     `json:"ok"`
		Error *[2]int `json:"error"`
	}
	require.NoError(t, json.Unmarshal(out, &answer), "%s", out)

	want := map[string]string{ // by call: "ok VALUE" or "error STATUS CODE"
		"get_subjects":                                 `ok ["core.association","core.device","core.vehicle","example.event","telemetry-core.association","telemetry-core.device","telemetry-core.vehicle","telemetry-example.event","telemetry-value"]`,
		"get_compatibility":                            `ok "FULL_TRANSITIVE"`,
		"get_compatibility telemetry-value":            `ok "FULL_TRANSITIVE"`,
		"test_compatibility 128 at once":               "ok 128",
		"get_compatibility other-value":                "error 404 40408",
		"get_versions :.:core.device":                  "ok [1]",
		"get_latest_version :.:telemetry-value":        "ok 2",
		"lookup_schema :.:core.device":                 "ok 2",
		"test_compatibility core.device not an object": "error 422 42201",
		"get_schema 5":                                 "error 404 40403",
		"get_schema 0":                                 "error 404 40403",
		"register_schema core.device vehicle":          "error 422 42205",
		"register_schema other-value device":           "error 422 42205",
		"register_schema core.device avro":             "error 422 42201",
		"lookup_schema core.device vehicle":            "error 404 40403",
		"test_compatibility core.device vehicle":       "error 422 42201",
		"set_compatibility":                            "error 422 42205",
		"set_compatibility as it is":                   `ok {"compatibility":"FULL_TRANSITIVE"}`,
		"set_compatibility of the registry as it is":   `ok {"compatibility":"FULL_TRANSITIVE"}`,
		"delete_subject":                               "error 422 42205",
		"delete_version":                               "error 422 42205",
	}
	for id := 1; id <= 4; id++ {
		want[fmt.Sprintf("get_schema %d", id)] = `ok "JSON"`
	}
	for _, subject := range []string{"core.device", "telemetry-value"} {
		want["get_versions "+subject] = "ok [1]"
		want["get_latest_version "+subject] = "ok 2"
		for version, w := range map[string]string{"1": "ok 2", "-1": "ok 2", "latest": "ok 2", "0": "error 422 42202", "2": "error 404 40402", "2147483648": "error 422 42202", "x": "error 422 42202"} {
			want["get_version "+subject+" "+version] = w
		}
		for _, spelling := range []string{"as published", "compact", "members sorted", "indented by 4"} {
			want["lookup_schema "+subject+" "+spelling] = "ok 2"
			want["register_schema "+subject+" "+spelling] = "ok 2"
			want["test_compatibility "+subject+" "+spelling] = "ok true"
		}
	}
	want["get_versions core.nothing"] = "error 404 40401"
	want["get_latest_version core.nothing"] = "error 404 40401"
	for _, version := range []string{"1", "-1", "latest", "0", "2", "2147483648", "x"} {
		want["get_version core.nothing "+version] = "error 404 40401"
	}
	for _, s := range schemas.All() {
		for _, auto := range []string{"True", "False"} {
			framed := fmt.Sprintf("ok [%d,true]", s.RegistryID)
			want[fmt.Sprintf("serialize %d record auto=%s", s.RegistryID, auto)] = framed
			want[fmt.Sprintf("serialize %d topic_record auto=%s", s.RegistryID, auto)] = framed
			topic := framed // telemetry-value is core.device's subject
			if s.Name != "core.device" {
				topic = map[string]string{"True": "error 422 42205", "False": "error 404 40403"}[auto]
			}
			want[fmt.Sprintf("serialize %d topic auto=%s", s.RegistryID, auto)] = topic
		}
	}

	got := map[string]string{}
	for call, a := range answer {
		if a.Error != nil {
			got[call] = fmt.Sprintf("error %d %d", a.Error[0], a.Error[1])
			continue
		}
		v, err := json.Marshal(a.OK)
		require.NoError(t, err)
		got[call] = "ok " + string(v)
	}
	assert.Equal(t, want, got)
}
