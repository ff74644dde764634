package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/schemas"
)

// TestREADMERegistryCompatibilityAnswersWhatTheREADMEShows runs the
// README's request to the registry's compatibility route, a core.device
// 1.1 that adds an optional member vin, against msgcheck serve, and holds
// the answer to the README's: compatible, with the warning's witness. The
// request file must be what the README says it is: the published 1.0
// with vin added, as a string, and "schemaType": "JSON".
func TestREADMERegistryCompatibilityAnswersWhatTheREADMEShows(t *testing.T) {
	const command = "curl -X POST --data-binary @testdata/proposed/core.device-1.1-vin.registry.json"
	var ex readmeExample
	for _, e := range readmeExamples(t) {
		if len(e.command) == 2 && strings.HasPrefix(e.command[0], command) {
			ex = e
		}
	}
	require.Len(t, ex.output, 1, "the README's answer of the registry's compatibility route, on one line")
	url := strings.Trim(strings.TrimSpace(ex.command[1]), "'")
	path, ok := strings.CutPrefix(url, "http://127.0.0.1:8080")
	require.True(t, ok, "README.md:%d: %s", ex.line, url)

	body, err := os.ReadFile("../../testdata/proposed/core.device-1.1-vin.registry.json")
	require.NoError(t, err)
	var request struct {
		SchemaType string `json:"schemaType"`
		Schema     string `json:"schema"`
	}
	require.NoError(t, json.Unmarshal(body, &request))
	assert.Equal(t, "JSON", request.SchemaType)
	published, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	var proposed map[string]any
	require.NoError(t, json.Unmarshal(published.JSON(), &proposed))
	proposed["$id"] = schemas.ID("core.device", "1.1")
	proposed["properties"].(map[string]any)["vin"] = map[string]any{"type": "string"}
	want, err := json.Marshal(proposed)
	require.NoError(t, err)
	require.JSONEq(t, string(want), request.Schema, "the request's schema: core.device 1.0 with an optional vin")

	s := startServer(t, exec.Command(binary, "serve", "-addr", "127.0.0.1:0"))
	res, err := http.Post(s.base+path, "application/x-www-form-urlencoded", strings.NewReader(string(body))) // curl's --data-binary
	require.NoError(t, err)
	answer, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, ex.output[0], strings.TrimSuffix(string(answer), "\n"))
}

// A new user whose port 8080 was taken got only "bind: address already
// in use" from serve, as the README gives no address: it must say how to
// serve another.
func TestServeSaysHowToServeAnotherAddress(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	var stdout, stderr strings.Builder
	status := run(context.Background(), []string{"serve", "-addr", taken.Addr().String()}, strings.NewReader(""), &stdout, &stderr)
	assert.Equal(t, 1, status)
	assert.Contains(t, stderr.String(), "address already in use (serve another address with -addr HOST:PORT)\n")
}
