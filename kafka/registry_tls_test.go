package kafka_test

// The registry protocol over HTTPS, as schema-registry clients reach it
// in production (schema.registry.url = https://..., with the CA that
// signed the registry's certificate): msgcheck serve itself, built here,
// with -tls-cert and -tls-key, and clients nobody here wrote, Debian's
// python3-confluent-kafka and Confluent's @confluentinc/schemaregistry.

import (
	"bufio"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/testpki"
	"github.com/fleetkit/catalogue/schemas"
)

// httpsRegistry is msgcheck serve running over HTTPS.
type httpsRegistry struct {
	url    string // what it logged for clients: https://127.0.0.1:PORT/api/registry
	caFile string // the PEM file of the CA that signed its certificate
	// A client certificate the CA signed, and its key, PEM files.
	clientCert, clientKey string
}

var registryURLLine = regexp.MustCompile(`^msgcheck: schema-registry clients use url = (\S+);`)

// serveHTTPS builds msgcheck and runs msgcheck serve with a certificate
// for 127.0.0.1 made here, the subject telemetry-value mapped to
// core.device, requiring client certificates of the CA (-tls-client-ca)
// if mutual; it stops it with SIGTERM once the test ends, and checks that
// it exits 0.
func serveHTTPS(t *testing.T, mutual bool) *httpsRegistry {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, data, 0o600))
		return path
	}
	ca := testpki.NewCA(t, "registry CA")
	server := ca.Issue(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "registry"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:    []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	client := ca.Issue(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "a producer"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	r := &httpsRegistry{caFile: write("ca.pem", ca.PEM), clientCert: write("client.pem", client.CertPEM), clientKey: write("client-key.pem", client.KeyPEM)}
	args := []string{"serve", "-addr", "127.0.0.1:0", "-subject", "telemetry-value=core.device",
		"-tls-cert", write("cert.pem", server.CertPEM), "-tls-key", write("key.pem", server.KeyPEM)}
	if mutual {
		args = append(args, "-tls-client-ca", r.caFile)
	}

	msgcheck := filepath.Join(dir, "msgcheck")
	out, err := exec.Command("go", "build", "-o", msgcheck, "github.com/fleetkit/catalogue/cmd/msgcheck").CombinedOutput()
	require.NoError(t, err, "building msgcheck: %s", out)
	cmd := exec.Command(msgcheck, args...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	urls := make(chan string, 1)
	var log []string
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			log = append(log, s.Text())
			if m := registryURLLine.FindStringSubmatch(s.Text()); m != nil {
				urls <- m[1]
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			assert.NoError(t, err, "msgcheck serve: %q", log)
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("msgcheck serve did not stop on SIGTERM, killed: %q", log)
		}
	})
	select {
	case r.url = <-urls:
	case err := <-exited:
		require.FailNow(t, "msgcheck serve exited", "%v: %q", err, log)
	case <-time.After(30 * time.Second):
		require.FailNow(t, "msgcheck serve did not log its URL in time")
	}
	require.True(t, strings.HasPrefix(r.url, "https://127.0.0.1:"), r.url)
	return r
}

// fetchedOverHTTPS is what a client script prints: the schema it fetched
// by id, and the error it got from a client that does not trust the CA.
type fetchedOverHTTPS struct {
	Latest    int32  `json:"latest"`    // the id of telemetry-value's latest version
	Schema    string `json:"schema"`    // the schema fetched by that id
	Untrusted string `json:"untrusted"` // the error without the CA, or the client's certificate
}

func (f *fetchedOverHTTPS) check(t *testing.T, out []byte, untrusted string) {
	t.Helper()
	require.NoError(t, json.Unmarshal(out, f), "%s", out)
	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	assert.Equal(t, device.RegistryID, f.Latest, "the latest version of telemetry-value")
	assert.Equal(t, string(device.JSON()), f.Schema)
	// Without the CA the client refuses the registry, and without its
	// certificate the registry refuses the client: TLS is checked.
	assert.Contains(t, f.Untrusted, untrusted)
}

// TestConfluentPythonClientFetchesOverHTTPS: Debian's
// python3-confluent-kafka SchemaRegistryClient, configured with the
// registry's https:// URL and ssl.ca.location, fetches a schema by id;
// and, from a registry that requires client certificates, with its own
// in ssl.certificate.location and ssl.key.location.
func TestConfluentPythonClientFetchesOverHTTPS(t *testing.T) {
	python := needPython(t)
	const script = `
import json, sys
from confluent_kafka.schema_registry import SchemaRegistryClient
url, ca, cert, key = sys.argv[1:]
conf = {"url": url, "ssl.ca.location": ca}
if cert:
    conf["ssl.certificate.location"], conf["ssl.key.location"] = cert, key
client = SchemaRegistryClient(conf)
latest = client.get_latest_version("telemetry-value")
schema = client.get_schema(latest.schema_id)
try:
    # Without the CA; or, where a client certificate is required, without it.
    SchemaRegistryClient({"url": url, "ssl.ca.location": ca} if cert else {"url": url}).get_schema(latest.schema_id)
    untrusted = "fetched"
except Exception as e:
    untrusted = str(e)
json.dump({"latest": latest.schema_id, "schema": schema.schema_str, "untrusted": untrusted}, sys.stdout)
`
	for _, mutual := range []bool{false, true} {
		t.Run(map[bool]string{false: "server certificate", true: "client certificate"}[mutual], func(t *testing.T) {
			r := serveHTTPS(t, mutual)
			cert, key, refused := "", "", "CERTIFICATE_VERIFY_FAILED"
			if mutual {
				// Without its certificate, TLS 1.3's alert.
				cert, key, refused = r.clientCert, r.clientKey, "certificate required"
			}
			cmd := exec.Command(python, "-c", script, r.url, r.caFile, cert, key)
			// requests, under the client, prefers these to the session's
			// own CA (ssl.ca.location), which it would then ignore.
			cmd.Env = slices.DeleteFunc(os.Environ(), func(v string) bool {
				return strings.HasPrefix(v, "REQUESTS_CA_BUNDLE=") || strings.HasPrefix(v, "CURL_CA_BUNDLE=")
			})
			var f fetchedOverHTTPS
			f.check(t, output(t, cmd, nil), refused)
		})
	}
}

// TestConfluentJavaScriptClientFetchesOverHTTPS: Confluent's
// @confluentinc/schemaregistry SchemaRegistryClient, in Node trusting
// the registry's CA by NODE_EXTRA_CA_CERTS, fetches a schema by id from
// the registry's https:// URL.
func TestConfluentJavaScriptClientFetchesOverHTTPS(t *testing.T) {
	node := needNode(t)
	r := serveHTTPS(t, false)
	const script = `
const { SchemaRegistryClient } = require('@confluentinc/schemaregistry');
const [url, untrusted] = process.argv.slice(1);
(async () => {
  const client = new SchemaRegistryClient({ baseURLs: [url], maxRetries: 0 });
  if (untrusted === 'untrusted') {
    try {
      await client.getLatestSchemaMetadata('telemetry-value');
      process.stdout.write('fetched');
    } catch (e) {
      process.stdout.write(String(e.message));
    }
    return;
  }
  const latest = await client.getLatestSchemaMetadata('telemetry-value');
  const schema = await client.getBySubjectAndId('telemetry-value', latest.id);
  process.stdout.write(JSON.stringify({ latest: latest.id, schema: schema.schema }));
})().catch((e) => { console.error(e); process.exit(1); });
`
	run := func(ca, mode string) []byte {
		cmd := exec.Command(node, "-e", script, r.url, mode)
		cmd.Dir = jsDir
		cmd.Env = append(os.Environ(), "NODE_EXTRA_CA_CERTS="+ca)
		return output(t, cmd, nil)
	}
	out := run(r.caFile, "trusted")
	untrusted := run("", "untrusted")
	var f fetchedOverHTTPS
	require.NoError(t, json.Unmarshal(out, &f), "%s", out)
	f.Untrusted = string(untrusted)
	out, err := json.Marshal(f)
	require.NoError(t, err)
	f.check(t, out, "certificate")
}
