package main

// msgcheck serve over HTTPS: -tls-cert, -tls-key and -tls-client-ca, with
// a certificate authority made here, and clients that trust it.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/internal/credfile"
	"github.com/fleetkit/catalogue/internal/testpki"
	"github.com/fleetkit/catalogue/schemas"
)

// servePKI is a certificate authority made for a test, serve's
// certificate for 127.0.0.1 and localhost, and a client's, in PEM files.
type servePKI struct {
	dir            string
	ca             *testpki.CA
	caFile         string
	cert, key      string // serve's
	server, client *testpki.Leaf
}

func newServePKI(t *testing.T) *servePKI {
	t.Helper()
	p := &servePKI{dir: t.TempDir(), ca: testpki.NewCA(t, "test CA")}
	p.caFile = p.write(t, "ca.pem", p.ca.PEM)
	p.server = p.issue(t)
	p.cert = p.write(t, "cert.pem", p.server.CertPEM)
	p.key = p.write(t, "key.pem", p.server.KeyPEM)
	p.client = p.ca.Issue(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "a client"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	return p
}

// issue makes another certificate for serve.
func (p *servePKI) issue(t *testing.T) *testpki.Leaf {
	t.Helper()
	return p.ca.Issue(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "msgcheck"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:    []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
}

func (p *servePKI) write(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// args are serve's flags for HTTPS with p's certificate.
func (p *servePKI) args(more ...string) []string {
	return append([]string{"-tls-cert", p.cert, "-tls-key", p.key}, more...)
}

// httpsClient returns a client that trusts p's authority, one connection
// a request (so that each request has its handshake), with c's
// certificate if c is not nil.
func (p *servePKI) httpsClient(c *testpki.Leaf) *http.Client {
	config := &tls.Config{RootCAs: p.ca.Pool()}
	if c != nil {
		config.Certificates = []tls.Certificate{c.Pair}
	}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: config, DisableKeepAlives: true, ForceAttemptHTTP2: true}}
}

// fetch gets u with client, and returns the answer with its body read.
func fetch(t *testing.T, client *http.Client, u string) (*http.Response, []byte) {
	t.Helper()
	resp, err := client.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

// TestServeTLSServesTheAPIThePagesAndTheRegistry: with -tls-cert and
// -tls-key, serve answers a client that trusts the certificate's
// authority over HTTPS, TLS 1.2 or later and HTTP/1.1, on every part of
// the service, and logs the https:// URL clients use.
func TestServeTLSServesTheAPIThePagesAndTheRegistry(t *testing.T) {
	p := newServePKI(t)
	s := serveLogging(t, p.args("-subject", "telemetry-value=core.device")...)
	require.True(t, strings.HasPrefix(s.base, "https://127.0.0.1:"), s.base)
	require.Len(t, s.before, 2, "%q", s.before)
	assert.Regexp(t, `^msgcheck: HTTPS with the certificate for localhost, 127\.0\.0\.1, valid until \S+, from `+p.cert+`$`, s.before[0])
	assert.Equal(t, "msgcheck: schema-registry clients use url = "+s.base+api.RegistryPath+"; topic subjects: telemetry-value (core.device)", s.before[1])

	client := p.httpsClient(nil)
	resp, body := fetch(t, client, s.base+"/api/schemas")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var list []struct{ Name string }
	require.NoError(t, json.Unmarshal(body, &list))
	assert.Len(t, list, len(schemas.All()))
	// HTTP/1.1 although the client offers HTTP/2: every time-out and
	// limit of serve works over TLS as it does without.
	assert.Equal(t, "HTTP/1.1", resp.Proto)
	require.NotNil(t, resp.TLS)
	assert.GreaterOrEqual(t, resp.TLS.Version, uint16(tls.VersionTLS12))

	resp, body = fetch(t, client, s.base+"/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Content-Type"), "text/html")
	assert.Contains(t, string(body), "core.device")

	device, err := schemas.Lookup("core.device", "1.0")
	require.NoError(t, err)
	for _, u := range []string{
		fmt.Sprintf("%s%s/schemas/ids/%d", s.base, api.RegistryPath, device.RegistryID),
		strings.Replace(s.base, "127.0.0.1", "localhost", 1) + api.RegistryPath + "/subjects/telemetry-value/versions/latest",
	} {
		resp, body = fetch(t, client, u)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", u, body)
		var v struct{ Schema string }
		require.NoError(t, json.Unmarshal(body, &v))
		assert.Equal(t, string(device.JSON()), v.Schema, u)
	}

	// A client that will not go past TLS 1.1 is refused.
	old := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.ca.Pool(), MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}}}
	_, err = old.Get(s.base + "/api/schemas")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "protocol version")
	// A client that does not trust the authority refuses serve.
	_, err = (&http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}).Get(s.base + "/api/schemas")
	var unknown x509.UnknownAuthorityError
	assert.ErrorAs(t, err, &unknown)

	assert.Equal(t, 0, s.stop())
}

// TestServeTLSWarnsOfACertificateNotValidNow: serve starts with an
// expired certificate, as Confluent's registry does, but says at once
// that clients will refuse it, rather than leave the operator to find
// out from each client's error.
func TestServeTLSWarnsOfACertificateNotValidNow(t *testing.T) {
	p := newServePKI(t)
	expired := p.ca.Issue(t, &x509.Certificate{
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		NotBefore:   time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour),
	})
	p.write(t, "cert.pem", expired.CertPEM)
	p.write(t, "key.pem", expired.KeyPEM)
	s := serveLogging(t, p.args()...)
	require.Len(t, s.before, 3, "%q", s.before)
	assert.Regexp(t, `^msgcheck: HTTPS with the certificate for 127\.0\.0\.1, valid until \S+, from \S+$`, s.before[0])
	assert.Equal(t, "msgcheck: warning: the certificate is not valid now: clients will refuse it", s.before[1])
	_, err := p.httpsClient(nil).Get(s.base + "/api/schemas")
	var invalid x509.CertificateInvalidError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, x509.Expired, invalid.Reason)
	go func() {
		for range s.log { // the refused handshake
		}
	}()
	assert.Equal(t, 0, s.stop())
}

// TestServeTLSAnswersPlainHTTPWith400: a client speaking plain HTTP to
// the HTTPS port gets Go's 400 and the connection closed, and the others
// are answered as before.
func TestServeTLSAnswersPlainHTTPWith400(t *testing.T) {
	p := newServePKI(t)
	base, stop := serveInProcess(t, p.args()...)
	client := p.httpsClient(nil)
	plain := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for range 3 {
		resp, body := fetch(t, plain, "http://"+strings.TrimPrefix(base, "https://")+"/api/schemas")
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		assert.Equal(t, "Client sent an HTTP request to an HTTPS server.\n", string(body))
		resp, _ = fetch(t, client, base+"/api/schemas")
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	}
	assert.Equal(t, 0, stop())
}

// shortTimeouts gives serve, for the test, time-outs of d and 2d, and
// restores them after it (once the serve the test started has stopped,
// since its cleanups run first).
func shortTimeouts(t *testing.T, d time.Duration) {
	saved := timeouts
	timeouts = serverTimeouts{readHeader: d, read: d, write: 2 * d, idle: d}
	t.Cleanup(func() { timeouts = saved })
}

// TestServeTLSClosesHandshakesThatStall: clients that connect and send
// nothing, or half a ClientHello, hold no connection beyond the header
// time-out, which bounds the handshake, and keep no other client from
// being answered meanwhile.
func TestServeTLSClosesHandshakesThatStall(t *testing.T) {
	const timeout = 3 * time.Second
	shortTimeouts(t, timeout)
	p := newServePKI(t)
	s := serveLogging(t, p.args()...)
	defer s.stop()
	addr := strings.TrimPrefix(s.base, "https://")

	// A ClientHello's record header announcing 512 bytes, and a few of
	// them: the server waits for the rest.
	halfHello := []byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03}
	var stalled []net.Conn
	defer func() {
		for _, c := range stalled {
			c.Close()
		}
	}()
	start := time.Now()
	for i := range 20 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		stalled = append(stalled, c)
		if i%2 == 1 {
			_, err = c.Write(halfHello)
			require.NoError(t, err)
		}
	}
	// And one that goes on sending it, a byte every 100ms, far slower
	// than its announced length needs: the time-out is for the whole
	// handshake, not between bytes.
	dribbler, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	stalled = append(stalled, dribbler)
	go func() {
		for _, b := range append(halfHello, make([]byte, 512)...) {
			if _, err := dribbler.Write([]byte{b}); err != nil {
				return // closed
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()

	// Answered while they stall: they are still open once it is.
	resp, _ := fetch(t, p.httpsClient(nil), s.base+"/api/registry/schemas/ids/2")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	for i, c := range stalled {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(time.Millisecond)))
		_, err := c.Read(make([]byte, 64))
		var ne net.Error
		require.True(t, errors.As(err, &ne) && ne.Timeout(), "connection %d was closed before the other client was answered: %v", i, err)
	}

	// Each is closed by serve at the time-out: read returns EOF (or a
	// reset), not the test's own deadline, long after it.
	for i, c := range stalled {
		require.NoError(t, c.SetReadDeadline(start.Add(timeout+10*time.Second)))
		n, err := c.Read(make([]byte, 64))
		var ne net.Error
		require.False(t, errors.As(err, &ne) && ne.Timeout(), "connection %d still open 10s after the time-out", i)
		assert.Zero(t, n, "connection %d", i)
		assert.Error(t, err, "connection %d", i)
	}
	assert.GreaterOrEqual(t, time.Since(start), timeout, "closed at the time-out, not before")
	// Each is logged, on a line of its own.
	for range stalled {
		line := nextLine(t, s.log)
		assert.True(t, strings.HasPrefix(line, "msgcheck: http: TLS handshake error from 127.0.0.1:"), line)
	}
}

// nextLine returns the next line of log, failing the test if none comes
// within seconds.
func nextLine(t *testing.T, log <-chan string) string {
	t.Helper()
	select {
	case line, ok := <-log:
		require.True(t, ok, "serve ended")
		return line
	case <-time.After(5 * time.Second):
		require.FailNow(t, "serve logged nothing more")
		return ""
	}
}

// TestServeTLSRequiresClientCertificates: with -tls-client-ca, a client
// without a certificate its authority signed is refused in the
// handshake; one with it is answered.
func TestServeTLSRequiresClientCertificates(t *testing.T) {
	p := newServePKI(t)
	other := testpki.NewCA(t, "other CA")
	stranger := other.Issue(t, &x509.Certificate{ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	s := serveLogging(t, p.args("-tls-client-ca", p.caFile)...)
	defer s.stop()
	go func() { // the refused handshakes are logged
		for range s.log {
		}
	}()

	for _, c := range []*testpki.Leaf{nil, stranger} {
		_, err := p.httpsClient(c).Get(s.base + "/api/schemas")
		require.Error(t, err, "a client without a certificate of the authority")
	}
	resp, _ := fetch(t, p.httpsClient(p.client), s.base+"/api/schemas")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotNil(t, resp.TLS)
}

// checkCertificateAlways makes serve look at its certificate's files on
// every connection, for the test.
func checkCertificateAlways(t *testing.T) {
	saved := certCheckEvery
	certCheckEvery = 0
	t.Cleanup(func() { certCheckEvery = saved })
}

// serial returns the serial number of the certificate serve at base
// presents to a new connection.
func serial(t *testing.T, p *servePKI, base string) string {
	t.Helper()
	resp, _ := fetch(t, p.httpsClient(nil), base+"/api/schemas")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotNil(t, resp.TLS)
	return resp.TLS.PeerCertificates[0].SerialNumber.String()
}

// TestServeTLSReloadsTheCertificateWhenItsFilesChange: a renewed
// certificate written over the files is served to the next connections
// without a restart; a pair that does not load keeps the one served, and
// is reported once.
func TestServeTLSReloadsTheCertificateWhenItsFilesChange(t *testing.T) {
	checkCertificateAlways(t)
	p := newServePKI(t)
	s := serveLogging(t, p.args()...)
	defer s.stop()
	first := serial(t, p, s.base)
	assert.Equal(t, p.server.Pair.Leaf.SerialNumber.String(), first)

	// Renewed: the key first, then its certificate, as a renewal may
	// write them (between the two, the pair does not match).
	renewed := p.issue(t)
	p.write(t, "key.pem", renewed.KeyPEM)
	assert.Equal(t, first, serial(t, p, s.base), "a key without its certificate is not served")
	assert.Regexp(t, `^msgcheck: keeping the certificate for localhost, 127\.0\.0\.1, valid until \S+: -tls-cert \S+ and -tls-key \S+: tls: private key does not match public key$`, nextLine(t, s.log))
	p.write(t, "cert.pem", renewed.CertPEM)
	assert.Equal(t, renewed.Pair.Leaf.SerialNumber.String(), serial(t, p, s.base))
	assert.Regexp(t, `^msgcheck: reloaded the certificate for localhost, 127\.0\.0\.1, valid until \S+ from `+p.cert+`$`, nextLine(t, s.log))

	// A key that is not PEM: the renewed certificate is still served,
	// and the failure reported once however many clients connect.
	p.write(t, "key.pem", []byte("not a key\n"))
	for range 3 {
		assert.Equal(t, renewed.Pair.Leaf.SerialNumber.String(), serial(t, p, s.base))
	}
	assert.Regexp(t, `^msgcheck: keeping the certificate .*: -tls-key: \S+ holds no PEM private key`, nextLine(t, s.log))
	// A file gone, as while a tool replaces it: the same.
	require.NoError(t, os.Remove(p.key))
	for range 3 {
		assert.Equal(t, renewed.Pair.Leaf.SerialNumber.String(), serial(t, p, s.base))
	}
	assert.Regexp(t, `^msgcheck: keeping the certificate .*: stat \S+key.pem: no such file or directory$`, nextLine(t, s.log))
	select {
	case line := <-s.log:
		assert.Fail(t, "reported more than once", line)
	default:
	}
}

// TestServeTLSReloadsASecretSwappedBySymlink: a Kubernetes secret
// mounted as a volume is updated by writing the new files in a new
// folder and renaming a symbolic link over the old one (..data); the
// files named keep their names and the certificate served follows.
func TestServeTLSReloadsASecretSwappedBySymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on windows")
	}
	checkCertificateAlways(t)
	p := newServePKI(t)
	mount := filepath.Join(p.dir, "secret")
	require.NoError(t, os.Mkdir(mount, 0o700))
	version := func(name string, l *testpki.Leaf) {
		dir := filepath.Join(mount, name)
		require.NoError(t, os.Mkdir(dir, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.crt"), l.CertPEM, 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.key"), l.KeyPEM, 0o600))
		require.NoError(t, os.Symlink(name, filepath.Join(mount, "..data_tmp")))
		require.NoError(t, os.Rename(filepath.Join(mount, "..data_tmp"), filepath.Join(mount, "..data")))
	}
	version("..2026_11_24_01", p.server)
	for _, name := range []string{"tls.crt", "tls.key"} {
		require.NoError(t, os.Symlink(filepath.Join("..data", name), filepath.Join(mount, name)))
	}
	s := serveLogging(t, "-tls-cert", filepath.Join(mount, "tls.crt"), "-tls-key", filepath.Join(mount, "tls.key"))
	defer s.stop()
	assert.Equal(t, p.server.Pair.Leaf.SerialNumber.String(), serial(t, p, s.base))

	renewed := p.issue(t)
	version("..2026_11_24_02", renewed)
	assert.Equal(t, renewed.Pair.Leaf.SerialNumber.String(), serial(t, p, s.base))
	assert.Contains(t, nextLine(t, s.log), "msgcheck: reloaded the certificate")
}

// TestServeTLSRefusesBadFlagsAndFiles: one of -tls-cert and -tls-key
// without the other is a usage error (2); a file that cannot be read, is
// not PEM, or a key not the certificate's, an error at start (1), in one
// line that never shows the key.
func TestServeTLSRefusesBadFlagsAndFiles(t *testing.T) {
	p := newServePKI(t)
	other := p.issue(t)
	otherKey := p.write(t, "other-key.pem", other.KeyPEM)
	secret := bytes.Repeat([]byte("SECRET-KEY-BYTES"), 8)
	garbledKey := p.write(t, "garbled-key.pem", []byte("-----BEGIN PRIVATE KEY-----\n"+base64.StdEncoding.EncodeToString(secret)+"\n-----END PRIVATE KEY-----\n"))
	notPEM := p.write(t, "schema.json", []byte(`{"type":"object"}`))
	encrypted := p.write(t, "encrypted-key.pem", []byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\n"+base64.StdEncoding.EncodeToString(secret)+"\n-----END ENCRYPTED PRIVATE KEY-----\n"))
	legacy := p.write(t, "legacy-key.pem", []byte("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00000000000000000000000000000000\n\n"+base64.StdEncoding.EncodeToString(secret)+"\n-----END RSA PRIVATE KEY-----\n"))
	big := p.write(t, "big.pem", append(bytes.Repeat([]byte("#"), credfile.MaxBytes), p.server.KeyPEM...))
	missing := filepath.Join(p.dir, "missing.pem")

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"cert without key", []string{"-tls-cert", p.cert}, 2, "msgcheck serve: -tls-cert needs -tls-key, the certificate's private key"},
		{"key without cert", []string{"-tls-key", p.key}, 2, "msgcheck serve: -tls-key needs -tls-cert, the certificate of the key"},
		{"client CA alone", []string{"-tls-client-ca", p.caFile}, 2, "msgcheck serve: -tls-client-ca needs -tls-cert and -tls-key"},
		{"missing cert", []string{"-tls-cert", missing, "-tls-key", p.key}, 1, "msgcheck: -tls-cert: open " + missing + ": no such file or directory"},
		{"missing key", []string{"-tls-cert", p.cert, "-tls-key", missing}, 1, "msgcheck: -tls-key: open " + missing + ": no such file or directory"},
		{"a folder", []string{"-tls-cert", p.dir, "-tls-key", p.key}, 1, "msgcheck: -tls-cert: " + p.dir + ": read " + p.dir + ": is a directory"},
		{"cert not PEM", []string{"-tls-cert", notPEM, "-tls-key", p.key}, 1, "msgcheck: -tls-cert: " + notPEM + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)"},
		{"key not PEM", []string{"-tls-cert", p.cert, "-tls-key", notPEM}, 1, "msgcheck: -tls-key: " + notPEM + " holds no PEM private key (-----BEGIN PRIVATE KEY-----)"},
		{"swapped", []string{"-tls-cert", p.key, "-tls-key", p.cert}, 1, "msgcheck: -tls-cert: " + p.key + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)"},
		{"another's key", []string{"-tls-cert", p.cert, "-tls-key", otherKey}, 1, "msgcheck: -tls-cert " + p.cert + " and -tls-key " + otherKey + ": tls: private key does not match public key"},
		{"garbled key", []string{"-tls-cert", p.cert, "-tls-key", garbledKey}, 1, "msgcheck: -tls-cert " + p.cert + " and -tls-key " + garbledKey + ": tls: failed to parse private key"},
		{"encrypted key", []string{"-tls-cert", p.cert, "-tls-key", encrypted}, 1, "msgcheck: -tls-key: " + encrypted + " holds an encrypted key: give it decrypted"},
		{"legacy encrypted key", []string{"-tls-cert", p.cert, "-tls-key", legacy}, 1, "msgcheck: -tls-key: " + legacy + " holds an encrypted key: give it decrypted"},
		{"endless key", []string{"-tls-cert", p.cert, "-tls-key", "/dev/zero"}, 1, "msgcheck: -tls-key: /dev/zero holds more than 1048576 bytes"},
		{"large key", []string{"-tls-cert", p.cert, "-tls-key", big}, 1, "msgcheck: -tls-key: " + big + " holds more than 1048576 bytes"},
		{"client CA not PEM", p.args("-tls-client-ca", notPEM), 1, "msgcheck: -tls-client-ca: " + notPEM + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)"},
		{"client CA missing", p.args("-tls-client-ca", missing), 1, "msgcheck: -tls-client-ca: open " + missing + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.args[len(tc.args)-1] == "/dev/zero" && runtime.GOOS == "windows" {
				t.Skip("no /dev/zero")
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"serve", "-addr", "127.0.0.1:0"}, tc.args...), nil, &stdout, &stderr)
			assert.Equal(t, tc.code, code)
			assert.Empty(t, stdout.String())
			out := stderr.String()
			first, rest, _ := strings.Cut(out, "\n")
			assert.True(t, strings.HasPrefix(first, tc.want), "%q", first)
			if tc.code == 2 {
				assert.True(t, strings.HasPrefix(rest, "usage: msgcheck serve"), "%q", rest)
			} else {
				assert.Empty(t, rest, "one line")
			}
			for _, key := range []string{string(p.server.KeyPEM), string(other.KeyPEM)} {
				body := strings.Split(key, "\n")[1]
				assert.NotContains(t, out, body[:20])
			}
			assert.NotContains(t, out, "SECRET")
			assert.NotContains(t, out, base64.StdEncoding.EncodeToString(secret)[:20])
		})
	}
}

// TestServeTLSStopsGracefullyOnSIGTERM: the command itself, in a process
// of its own, serves HTTPS, and SIGTERM stops it as over HTTP, exit 0.
func TestServeTLSStopsGracefullyOnSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on windows")
	}
	p := newServePKI(t)
	s := startServer(t, exec.Command(binary, append([]string{"serve", "-addr", "127.0.0.1:0"}, p.args()...)...))
	u, err := url.Parse(s.base)
	require.NoError(t, err)
	require.Equal(t, "https", u.Scheme)

	// A request in flight when the signal comes is answered.
	conn, err := tls.Dial("tcp", u.Host, &tls.Config{RootCAs: p.ca.Pool(), ServerName: "localhost"})
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /api/schemas/core.device/versions/1.0/validate HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{")
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond) // the request is in flight
	s.signal(t, syscall.SIGTERM)
	time.Sleep(100 * time.Millisecond)
	_, err = io.WriteString(conn, "}")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)

	rest, err := s.wait(t, 10*time.Second)
	require.NoError(t, err, "%q", rest)
	assert.Equal(t, []string{"msgcheck: stopped"}, rest)
}
