package main

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEServeLogsWhatTheREADMEShows starts msgcheck serve as the
// README's first serve example does, on a free port rather than 8080,
// and holds what it logs as it starts to the README's lines, the address
// aside. Found by a new user: the README showed one line, as a comment,
// where serve logs two, the registry's URL first.
func TestREADMEServeLogsWhatTheREADMEShows(t *testing.T) {
	var ex readmeExample
	for _, e := range readmeExamples(t) {
		if len(e.command) == 1 && strings.HasPrefix(e.command[0], "go run ./cmd/msgcheck serve ") {
			ex = e
			break
		}
	}
	require.NotEmpty(t, ex.output, "README.md shows what msgcheck serve logs as it starts")
	require.NotEmpty(t, ex.command, "README.md shows msgcheck serve")
	args, _, _ := strings.Cut(strings.TrimPrefix(ex.command[0], "go run ./cmd/msgcheck "), "#")
	require.Equal(t, []string{"serve"}, strings.Fields(args), "README.md:%d: the example runs serve with its defaults", ex.line)

	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	cmd := exec.Command(binary, "serve", "-addr", "127.0.0.1:0")
	cmd.Stderr = w
	start(t, cmd)
	w.Close()
	base, before := servingLines(t, lines(r))
	got := append(before, "msgcheck: serving the catalogue on "+base)
	for i := range got {
		got[i] = strings.ReplaceAll(got[i], strings.TrimPrefix(base, "http://"), "127.0.0.1:8080")
	}
	assert.Equal(t, ex.output, got, "README.md:%d: msgcheck serve logs", ex.line)
}

// TestServeGivesRegistryClientsAURLTheyCanReach holds the URL serve logs
// for schema-registry clients to one they can be given: the address it
// listens on, unless that is every address of the machine (0.0.0.0, as
// the README's HTTPS example serves), which no client reaches; then the
// certificate's name, which a client checks, or else the machine's name.
// Found by a new user: the README's HTTPS example logged
// url = https://[::]:8443/api/registry.
func TestServeGivesRegistryClientsAURLTheyCanReach(t *testing.T) {
	p := newServePKI(t)
	named := p.ca.Issue(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "registry"},
		DNSNames:    []string{"*.example.com", "registry.example.com"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	cert, key := p.write(t, "named.pem", named.CertPEM), p.write(t, "named-key.pem", named.KeyPEM)
	host, err := os.Hostname()
	require.NoError(t, err)
	for _, c := range []struct {
		args []string
		want string // before the port
	}{
		{nil, "http://127.0.0.1"},
		{[]string{"-addr", "0.0.0.0:0"}, "http://" + host},
		{[]string{"-addr", "0.0.0.0:0", "-tls-cert", cert, "-tls-key", key}, "https://registry.example.com"},
		{[]string{"-addr", "0.0.0.0:0", "-tls-cert", p.cert, "-tls-key", p.key}, "https://localhost"},
		{[]string{"-tls-cert", cert, "-tls-key", key}, "https://127.0.0.1"},
	} {
		s := serveLogging(t, c.args...)
		bound, err := url.Parse(s.base)
		require.NoError(t, err)
		var got string
		for _, line := range s.before {
			if u, ok := strings.CutPrefix(line, "msgcheck: schema-registry clients use url = "); ok {
				got, _, _ = strings.Cut(u, ";")
			}
		}
		assert.Equal(t, c.want+":"+bound.Port()+"/api/registry", got, "serve %q logs\n%s", c.args, strings.Join(s.before, "\n"))
		assert.Equal(t, 0, s.stop())
	}
}
