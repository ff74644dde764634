package kafka_test

import (
	"encoding/base64"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/device"
)

// TestREADMEJavaScriptProducersRun runs the README's two JavaScript
// snippets as a user pastes them, with the clients jsDir installs,
// against the registry msgcheck serve -subject fleet.in-value=core.device
// serves: each function serializes the device of the README's Python
// producer, and what it returns is that device framed with its registry
// id, as the consumer reads it. Found by a new user: the snippets awaited
// at the top of a CommonJS script, which Node refuses to run.
func TestREADMEJavaScriptProducersRun(t *testing.T) {
	node := needNode(t)
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	python := fenced(t, readme, "python", "SerializationContext")
	_, object, ok := strings.Cut(python, "\ndevice = ")
	require.True(t, ok, "the README's Python producer has no device")
	object, _, _ = strings.Cut(object, "\nvalue = ")
	d, err := device.Parse([]byte(object))
	require.NoError(t, err, "the README's Python device is a valid message in JSON")

	const readmeRegistry = "http://127.0.0.1:8080/api/registry"
	srv := httptest.NewServer(api.Handler(api.Subjects(map[string]string{"fleet.in-value": "core.device"})))
	t.Cleanup(srv.Close)
	modules, err := filepath.Abs(filepath.Join(jsDir, "node_modules"))
	require.NoError(t, err)
	for _, tc := range []struct{ client, call string }{
		{"@confluentinc/schemaregistry", "serialize"},
		{"@kafkajs/confluent-schema-registry", "encode"},
	} {
		t.Run(tc.call, func(t *testing.T) {
			snippet := fenced(t, readme, "js", "require('"+tc.client+"')")
			require.Contains(t, snippet, readmeRegistry)
			script := strings.ReplaceAll(snippet, readmeRegistry, srv.URL+api.RegistryPath) +
				"\n" + tc.call + "(" + object + ").then(v => process.stdout.write(Buffer.from(v).toString('base64')))" +
				".catch(e => { console.error(e); process.exit(1); });\n"
			cmd := exec.Command(node, "-e", script)
			cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
			out := output(t, cmd, nil)
			value, err := base64.StdEncoding.DecodeString(string(out))
			require.NoError(t, err, "%s", out)
			requireFramedDevice(t, value, d)
		})
	}
}

// fenced returns the text of the README's one fenced block of lang that
// holds marker.
func fenced(t *testing.T, readme []byte, lang, marker string) string {
	t.Helper()
	var found []string
	for _, block := range strings.Split(string(readme), "\n```"+lang+"\n")[1:] {
		block, _, _ = strings.Cut(block, "\n```")
		if strings.Contains(block, marker) {
			found = append(found, block)
		}
	}
	require.Len(t, found, 1, "README.md's %s blocks holding %s", lang, marker)
	return found[0]
}
