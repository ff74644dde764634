package kafka_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
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

	cmd := exec.Command(python, "testdata/confluent_client.py", registryURL)
	cmd.Stdin = bytes.NewReader(request)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s", stderr.String())

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
	id, body, framed, err := kafka.Unframe(value)
	require.NoError(t, err)
	require.True(t, framed)
	assert.Equal(t, dev.RegistryID, id)
	got, err := catalogue.DecodeAs("core.device", "1.0", body)
	require.NoError(t, err)
	assert.Equal(t, d, got)

	// What the catalogue framed, their deserializer read as the message.
	again, err := json.Marshal(answer.Deserialized)
	require.NoError(t, err)
	back, err := device.Parse(again)
	require.NoError(t, err)
	assert.Equal(t, d, back)
}
