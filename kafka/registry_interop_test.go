package kafka_test

// Interoperability of the catalogue's registry protocol (package api,
// /api/registry) with Confluent's own Go client and JSON serializer,
// which nobody here wrote: they fetch the catalogue's schemas, frame
// messages with its registry ids, and read back what this module frames.

import (
	"bytes"
	"errors"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/rest"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/schemas"
)

// serveRegistry serves the catalogue's API, topic "telemetry" mapped to
// core.device, until the test ends, and returns the URL of its registry.
func serveRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(api.Handler(api.Subjects(map[string]string{"telemetry-value": "core.device"})))
	t.Cleanup(srv.Close)
	return srv.URL + api.RegistryPath
}

// registry serves the catalogue's API, as serveRegistry does, and
// returns a Confluent client of its registry.
func registry(t *testing.T) schemaregistry.Client {
	t.Helper()
	client, err := schemaregistry.NewClient(schemaregistry.NewConfig(serveRegistry(t)))
	require.NoError(t, err)
	return client
}

func sampleDevice(t *testing.T) (*device.Device, []byte) {
	t.Helper()
	data, err := os.ReadFile("../testdata/device.json")
	require.NoError(t, err)
	// The sample's IMEI has a wrong check digit, on purpose: mend it.
	data = bytes.Replace(data, []byte(`"490154203237519"`), []byte(`"490154203237518"`), 1)
	d, err := device.Parse(data)
	require.NoError(t, err)
	return d, data
}

func TestConfluentClientReadsTheCatalogue(t *testing.T) {
	client := registry(t)
	want, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)

	subjects, err := client.GetAllSubjects()
	require.NoError(t, err)
	assert.Equal(t, []string{"core.association", "core.device", "core.vehicle", "example.event", "telemetry-value"}, subjects)

	for _, subject := range []string{"core.device", "telemetry-value"} {
		latest, err := client.GetLatestSchemaMetadata(subject)
		require.NoError(t, err, subject)
		assert.Equal(t, int(want.RegistryID), latest.ID)
		assert.Equal(t, 1, latest.Version)
		assert.Equal(t, string(want.JSON()), latest.Schema)
		assert.Equal(t, "JSON", latest.SchemaType)

		versions, err := client.GetAllVersions(subject)
		require.NoError(t, err)
		assert.Equal(t, []int{1}, versions)

		info, err := client.GetBySubjectAndID(subject, int(want.RegistryID))
		require.NoError(t, err)
		assert.Equal(t, string(want.JSON()), info.Schema)

		// Registering the catalogue's own schema gives its id; looking it
		// up does too.
		id, err := client.Register(subject, schemaregistry.SchemaInfo{Schema: string(want.JSON()), SchemaType: "JSON"}, false)
		require.NoError(t, err)
		assert.Equal(t, int(want.RegistryID), id)
		id, err = client.GetID(subject, schemaregistry.SchemaInfo{Schema: string(want.JSON()), SchemaType: "JSON"}, false)
		require.NoError(t, err)
		assert.Equal(t, int(want.RegistryID), id)

		level, err := client.GetCompatibility(subject)
		require.NoError(t, err)
		assert.EqualValues(t, schemaregistry.FullTransitive, level)

		ok, err := client.TestCompatibility(subject, 1, schemaregistry.SchemaInfo{Schema: string(want.JSON()), SchemaType: "JSON"})
		require.NoError(t, err)
		assert.True(t, ok)
	}

	// Anything else is refused, read-only, in the registry's own error.
	vehicle, err := schemas.Lookup("core.vehicle", "1.0")
	require.NoError(t, err)
	_, err = client.Register("core.device", schemaregistry.SchemaInfo{Schema: string(vehicle.JSON()), SchemaType: "JSON"}, false)
	var restErr *rest.Error
	require.True(t, errors.As(err, &restErr), "%v", err)
	assert.Equal(t, api.ErrorReadOnly, restErr.Code)

	_, err = client.GetBySubjectAndID("core.device", 99)
	require.True(t, errors.As(err, &restErr), "%v", err)
	assert.Equal(t, api.ErrorSchemaNotFound, restErr.Code)
}

// TestConfluentSerializerFramesWhatTheCatalogueReads: their serializer,
// told to use the subject's latest version (use.latest.version) or an id
// (use.schema.id, which it fetches and looks up under the topic's
// subject), frames with the catalogue's id.
func TestConfluentSerializerFramesWhatTheCatalogueReads(t *testing.T) {
	client := registry(t)
	d, _ := sampleDevice(t)
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)

	for name, configure := range map[string]func(*jsonschema.SerializerConfig){
		"use.latest.version": func(c *jsonschema.SerializerConfig) { c.UseLatestVersion = true },
		"use.schema.id":      func(c *jsonschema.SerializerConfig) { c.UseSchemaID = int(device.RegistryID) },
	} {
		t.Run(name, func(t *testing.T) {
			conf := jsonschema.NewSerializerConfig()
			conf.AutoRegisterSchemas = false
			conf.EnableValidation = true
			configure(conf)
			ser, err := jsonschema.NewSerializer(client, serde.ValueSerde, conf)
			require.NoError(t, err)
			value, err := ser.Serialize("telemetry", d)
			require.NoError(t, err)
			requireFramedDevice(t, value, d)
		})
	}
}

// requireFramedDevice checks that value is the device d, framed with
// core.device 1.0's registry id, and that the catalogue decodes it
// exactly.
func requireFramedDevice(t *testing.T, value []byte, d *device.Device) {
	t.Helper()
	s, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	id, message, framed, err := kafka.Unframe(value)
	require.NoError(t, err)
	require.True(t, framed)
	assert.Equal(t, s.RegistryID, id)
	got, err := catalogue.DecodeAs(s.Name, s.Version, message)
	require.NoError(t, err)
	assert.Equal(t, d, got)
}

func TestConfluentDeserializerReadsWhatTheCatalogueFrames(t *testing.T) {
	client := registry(t)
	d, data := sampleDevice(t)
	s, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	value := append(kafka.AppendFrame(nil, s.RegistryID), data...)

	// Their deserializer fetches the writer's schema by the framed id,
	// then decodes into the type it is given: ours, which decodes exactly.
	// (Their validation works on maps only; their serializer's validation
	// is exercised above.)
	des, err := jsonschema.NewDeserializer(client, serde.ValueSerde, jsonschema.NewDeserializerConfig())
	require.NoError(t, err)
	var got device.Device
	require.NoError(t, des.DeserializeInto("telemetry", value, &got))
	assert.Equal(t, d, &got)

	// An id the catalogue does not have is the registry's 40403 to them.
	unknown := append(kafka.AppendFrame(nil, 99), data...)
	err = des.DeserializeInto("telemetry", unknown, &got)
	var restErr *rest.Error
	require.True(t, errors.As(err, &restErr), "%v", err)
	assert.Equal(t, api.ErrorSchemaNotFound, restErr.Code)
}

// TestConfluentClientReachesEveryReadRoute: the rest of what Confluent's
// Go client asks of a registry, against a URL given with a trailing
// slash, as operators often write it.
func TestConfluentClientReachesEveryReadRoute(t *testing.T) {
	client, err := schemaregistry.NewClient(schemaregistry.NewConfig(serveRegistry(t) + "/"))
	require.NoError(t, err)
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	info := schemaregistry.SchemaInfo{Schema: string(device.JSON()), SchemaType: "JSON"}

	contexts, err := client.GetAllContexts()
	require.NoError(t, err)
	assert.Equal(t, []string{"."}, contexts)

	pairs, err := client.GetSubjectsAndVersionsByID(int(device.RegistryID))
	require.NoError(t, err)
	assert.Equal(t, []schemaregistry.SubjectAndVersion{{Subject: "core.device", Version: 1}, {Subject: "telemetry-value", Version: 1}}, pairs)

	meta, err := client.GetSchemaMetadataIncludeDeleted("telemetry-value", 1, true)
	require.NoError(t, err)
	assert.Equal(t, int(device.RegistryID), meta.ID)

	version, err := client.GetVersion("telemetry-value", info, true)
	require.NoError(t, err)
	assert.Equal(t, 1, version)

	ok, err := client.TestSubjectCompatibility("core.device", info)
	require.NoError(t, err)
	assert.True(t, ok)

	level, err := client.GetDefaultCompatibility()
	require.NoError(t, err)
	assert.EqualValues(t, schemaregistry.FullTransitive, level)
	config, err := client.GetConfig("telemetry-value", true)
	require.NoError(t, err)
	assert.EqualValues(t, schemaregistry.FullTransitive, config.CompatibilityLevel)

	// The catalogue's versions have no metadata: none is the latest with some.
	_, err = client.GetLatestWithMetadata("core.device", map[string]string{"owner": "fleet"}, false)
	var restErr *rest.Error
	require.True(t, errors.As(err, &restErr), "%v", err)
	assert.Equal(t, api.ErrorSchemaNotFound, restErr.Code)

	// A subject in the default context, as context-aware clients name it.
	latest, err := client.GetLatestSchemaMetadata(":.:telemetry-value")
	require.NoError(t, err)
	assert.Equal(t, int(device.RegistryID), latest.ID)

	// A subject not served has no level of its own; the registry's is
	// FULL_TRANSITIVE.
	_, err = client.GetCompatibility("other-value")
	require.True(t, errors.As(err, &restErr), "%v", err)
	assert.Equal(t, api.ErrorSubjectCompatibilityNotConfigured, restErr.Code)
	config, err = client.GetConfig("other-value", true)
	require.NoError(t, err)
	assert.EqualValues(t, schemaregistry.FullTransitive, config.CompatibilityLevel)

	// The catalogue has no GUIDs: a schema by GUID is not found.
	_, err = client.GetByGUID("2c6bc1b4-8bb2-4bd1-b1f4-0e0d2c5b2a4e")
	require.True(t, errors.As(err, &restErr), "%v", err)
	assert.Equal(t, api.ErrorSchemaNotFound, restErr.Code)

	// Setting the level the registry has succeeds, as the idempotent
	// write it is; any other write is refused, read-only, in the
	// registry's error.
	level, err = client.UpdateCompatibility("core.device", schemaregistry.FullTransitive)
	require.NoError(t, err)
	assert.EqualValues(t, schemaregistry.FullTransitive, level)
	level, err = client.UpdateDefaultCompatibility(schemaregistry.FullTransitive)
	require.NoError(t, err)
	assert.EqualValues(t, schemaregistry.FullTransitive, level)
	for _, write := range []func() error{
		func() error { _, err := client.UpdateCompatibility("core.device", schemaregistry.None); return err },
		func() error { _, err := client.DeleteSubject("core.device", false); return err },
		func() error { _, err := client.DeleteSubjectVersion("core.device", 1, true); return err },
		func() error { _, err := client.Register("other-value", info, false); return err },
	} {
		require.True(t, errors.As(write(), &restErr))
		assert.Equal(t, api.ErrorReadOnly, restErr.Code)
	}
}

// TestConfluentClientsCheckingAtOnceAreAllAnswered: a burst of
// compatibility checks from many of Confluent's clients at once, as a
// CI pipeline's parallel jobs make, is answered to every one of them:
// a check that finds every place to compare taken waits for one.
func TestConfluentClientsCheckingAtOnceAreAllAnswered(t *testing.T) {
	url := serveRegistry(t)
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	info := schemaregistry.SchemaInfo{Schema: string(device.JSON()), SchemaType: "JSON"}
	const clients, checks = 32, 8
	errs := make(chan error, clients*checks)
	var start sync.WaitGroup
	start.Add(1)
	for range clients {
		client, err := schemaregistry.NewClient(schemaregistry.NewConfig(url))
		require.NoError(t, err)
		go func() {
			start.Wait()
			for range checks {
				ok, err := client.TestCompatibility("telemetry-value", 1, info)
				if err == nil && !ok {
					err = errors.New("not compatible with itself")
				}
				errs <- err
			}
		}()
	}
	start.Done()
	for range clients * checks {
		assert.NoError(t, <-errs)
	}
}
