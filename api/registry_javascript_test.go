package api

// Pins of what JavaScript's schema-registry clients ask the registry
// (kafka/registry_javascript_test.go runs the clients themselves).

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRegistryAnswersATopicsAssociations: Confluent's serializers
// (AssociatedNameStrategy, the default of its JavaScript client) first
// ask which subject a topic is associated with, by
// GET /associations/resources/{namespace}/{topic}, which Confluent's
// registry answers 200 with the list, empty when there is none. The
// subjects given to Subjects are the topics' explicit associations, in
// any namespace; writing one is read-only.
func TestRegistryAnswersATopicsAssociations(t *testing.T) {
	h := Handler(Subjects(map[string]string{"telemetry-value": "core.device", "telemetry-key": "core.vehicle", "fleet-value": "core.device"}))
	value := `{"subject":"telemetry-value","resourceName":"telemetry","resourceNamespace":"-","resourceType":"topic","associationType":"value","lifecycle":"WEAK","frozen":false}`
	key := `{"subject":"telemetry-key","resourceName":"telemetry","resourceNamespace":"-","resourceType":"topic","associationType":"key","lifecycle":"WEAK","frozen":false}`
	for target, want := range map[string]string{
		// As the JavaScript serializer asks, and variations.
		"/associations/resources/-/telemetry?resourceType=topic&associationType=value":                         "[" + value + "]",
		"/associations/resources/-/telemetry?resourceType=topic&associationType=key":                           "[" + key + "]",
		"/associations/resources/-/telemetry":                                                                  "[" + key + "," + value + "]",
		"/associations/resources/-/telemetry?associationType=key&associationType=value":                        "[" + key + "," + value + "]",
		"/associations/resources/-/telemetry?offset=1":                                                         "[" + value + "]",
		"/associations/resources/-/telemetry?limit=1":                                                          "[" + key + "]",
		"/associations/resources/-/telemetry?lifecycle=WEAK&associationType=value":                             "[" + value + "]",
		"/associations/resources/-/telemetry?lifecycle=STRONG":                                                 "[]",
		"/associations/resources/-/telemetry?resourceType=topic&associationType=value&lifecycle=WEAK&limit=-1": "[" + value + "]",
		"/associations/resources/lkc-1/fleet?associationType=value":                                            `[{"subject":"fleet-value","resourceName":"fleet","resourceNamespace":"lkc-1","resourceType":"topic","associationType":"value","lifecycle":"WEAK","frozen":false}]`,
		// None: a topic not mapped, or a resource that is not a topic.
		"/associations/resources/-/other?resourceType=topic&associationType=value": "[]",
		"/associations/resources/-/core.device":                                    "[]",
		"/associations/resources/-/telemetry?resourceType=group":                   "[]",
		"/associations/resources/lkc-1":                                            "[]",
		// By subject.
		"/associations/subjects/telemetry-value": "[" + value + "]",
		"/associations/subjects/core.device":     "[]",
		"/associations/subjects/nothing":         "[]",
	} {
		rec := do(h, http.MethodGet, RegistryPath+target, "")
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", target, rec.Body)
		assert.Equal(t, registryContentType, rec.Header().Get("Content-Type"), target)
		assert.JSONEq(t, want, rec.Body.String(), target)
	}
	wantError(t, do(h, http.MethodGet, RegistryPath+"/associations/resources/-/telemetry?offset=x", ""), http.StatusBadRequest)

	for _, write := range []struct{ method, target string }{
		{http.MethodPost, "/associations"},
		{http.MethodPost, "/associations:batch"},
		{http.MethodPut, "/associations/resources/lkc-1"},
		{http.MethodDelete, "/associations/resources/lkc-1"},
	} {
		body := `{"resourceName":"telemetry","resourceNamespace":"-","resourceType":"topic","associations":[{"subject":"core.device","associationType":"value"}]}`
		wantError(t, do(h, write.method, RegistryPath+write.target, body), ErrorReadOnly)
	}
}
