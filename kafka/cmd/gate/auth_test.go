package main

// The gate against brokers that want TLS and SASL, as nearly every
// production Kafka does: kfake serving TLS with a certificate authority
// made here, and SASL PLAIN and SCRAM.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/internal/cmdtest"
	"github.com/fleetkit/catalogue/internal/testpki"
)

// The user the secured clusters know, and its password.
const (
	authUser     = "gate"
	authPassword = "s3cret-Pässword" // not ASCII: SCRAM normalizes it
)

// pki is a certificate authority made for a test, the broker's
// certificate, for 127.0.0.1, and a client's, in PEM files.
type pki struct {
	dir                       string
	ca, clientCert, clientKey string // PEM files
	roots                     *x509.CertPool
	server, client            tls.Certificate
	otherCA                   string // a PEM file of a CA that signed nothing here
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	ca := testpki.NewCA(t, "test CA")
	p := &pki{dir: t.TempDir(), roots: ca.Pool()}
	p.ca = p.write(t, "ca.pem", ca.PEM)
	p.otherCA = p.write(t, "other-ca.pem", testpki.NewCA(t, "other CA").PEM)
	p.server = ca.Issue(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "broker"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:    []string{"broker.test"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}).Pair
	client := ca.Issue(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: authUser},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	p.client = client.Pair
	p.clientCert = p.write(t, "client.pem", client.CertPEM)
	p.clientKey = p.write(t, "client-key.pem", client.KeyPEM)
	return p
}

func (p *pki) write(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// secured is a kfake cluster of one broker with the topics in (three
// partitions), out and dead, and the options a client needs to reach it.
type secured struct {
	c    *kfake.Cluster
	addr string
	opts []kgo.Opt
}

// brokerTLS is the TLS a broker of p serves, asking for a client
// certificate when mutual.
func (p *pki) brokerTLS(mutual bool) *tls.Config {
	c := &tls.Config{Certificates: []tls.Certificate{p.server}, MinVersion: tls.VersionTLS12}
	if mutual {
		c.ClientAuth, c.ClientCAs = tls.RequireAndVerifyClientCert, p.roots
	}
	return c
}

// clientTLS is the TLS a test's own client uses with a broker of p.
func (p *pki) clientTLS() kgo.Opt {
	return kgo.DialTLSConfig(&tls.Config{RootCAs: p.roots, Certificates: []tls.Certificate{p.client}, MinVersion: tls.VersionTLS12})
}

func startSecured(t *testing.T, clientOpts []kgo.Opt, opts ...kfake.Opt) *secured {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(3, "in", "out", "dead"),
		kfake.GroupMinSessionTimeout(500 * time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return &secured{c: c, addr: c.ListenAddrs()[0], opts: clientOpts}
}

func (s *secured) client(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append(append([]kgo.Opt{kgo.SeedBrokers(s.addr)}, s.opts...), opts...)...)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// publish produces the sample stream to in, as main_test.go's cluster
// does, and returns the values of its valid and invalid messages.
func (s *secured) publish(t *testing.T) input {
	t.Helper()
	in, records := sampleRecords(t, 1)
	require.NoError(t, s.client(t).ProduceSync(context.Background(), records...).FirstErr())
	return in
}

// read returns the values a read_committed consumer finds in topic.
func (s *secured) read(t *testing.T, topic string) [][]byte {
	t.Helper()
	var values [][]byte
	for _, r := range readTopic(t, s.client, topic) {
		values = append(values, r.Value)
	}
	return values
}

// gateUntilIdle runs the command with args on s's topics until idle,
// and returns its status and log.
func (s *secured) gateUntilIdle(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	status := run(ctx, append([]string{"-brokers", s.addr, "-in", "in", "-out", "out", "-dead", "dead", "-until-idle"}, args...), &stderr)
	require.NoError(t, ctx.Err(), "the gate never ended:\n%s", stderr.String())
	return status, stderr.String()
}

// checkGated checks that a reader finds every valid input in out and
// every other in dead, each once, and that the gate's summary says so.
func (s *secured) checkGated(t *testing.T, in input, log string) {
	t.Helper()
	out, dead := s.read(t, "out"), s.read(t, "dead")
	assert.ElementsMatch(t, in.valid, out, "the output")
	assert.ElementsMatch(t, in.invalid, dead, "the dead letters")
	assert.Equal(t, counts{messages: len(out) + len(dead), forwarded: len(out), dead: len(dead)}, summaryOf(t, log), log)
}

// The gate gates the sample over TLS with each SASL mechanism, and
// with SCRAM without TLS (which never sends the password), its password
// from the environment or a file; over mutual TLS with no SASL too.
func TestAuthGateOverTLSAndSASL(t *testing.T) {
	p := newPKI(t)
	passwordFile := p.write(t, "password", []byte(authPassword+"\n"))
	for _, tc := range []struct {
		name     string
		tls      bool
		mutual   bool
		sasl     string // mechanism, or "" for none
		fromFile bool
		args     []string
	}{
		{name: "TLS and SCRAM-SHA-512", tls: true, sasl: "SCRAM-SHA-512", args: []string{"-tls-ca", p.ca}},
		{name: "TLS and PLAIN", tls: true, sasl: "PLAIN", fromFile: true, args: []string{"-tls-ca", p.ca}},
		{name: "SCRAM-SHA-256 without TLS", sasl: "SCRAM-SHA-256", args: nil},
		{name: "TLS by server name", tls: true, sasl: "scram-sha-512", fromFile: true, args: []string{"-tls-ca", p.ca, "-tls-server-name", "broker.test"}},
		{name: "PLAIN without TLS, told it is safe", sasl: "PLAIN", args: []string{"-sasl-plain-insecure"}},
		{name: "mutual TLS", tls: true, mutual: true, args: []string{"-tls-ca", p.ca, "-tls-cert", p.clientCert, "-tls-key", p.clientKey}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var client []kgo.Opt
			var kopts []kfake.Opt
			if tc.tls {
				kopts = append(kopts, kfake.TLS(p.brokerTLS(tc.mutual)))
				client = append(client, p.clientTLS())
			}
			args := tc.args
			if tc.sasl != "" {
				mechanism := strings.ToUpper(tc.sasl)
				kopts = append(kopts, kfake.EnableSASL(), kfake.Superuser(mechanism, authUser, authPassword))
				client = append(client, saslOpt(mechanism))
				args = append(args, "-sasl-mechanism", tc.sasl, "-sasl-user", authUser)
				if tc.fromFile {
					args = append(args, "-sasl-password-file", passwordFile)
				} else {
					t.Setenv(passwordEnv, authPassword)
				}
			}
			s := startSecured(t, client, kopts...)
			in := s.publish(t)
			status, log := s.gateUntilIdle(t, args...)
			require.Equal(t, 0, status, log)
			s.checkGated(t, in, log)
			assert.NotContains(t, log, authPassword)
		})
	}
}

// saslOpt is the SASL a test's own client authenticates with.
func saslOpt(mechanism string) kgo.Opt {
	switch mechanism {
	case "PLAIN":
		return kgo.SASL(plain.Auth{User: authUser, Pass: authPassword}.AsMechanism())
	case "SCRAM-SHA-256":
		return kgo.SASL(scram.Auth{User: authUser, Pass: authPassword}.AsSha256Mechanism())
	}
	return kgo.SASL(scram.Auth{User: authUser, Pass: authPassword}.AsSha512Mechanism())
}

// A gate that cannot talk to its brokers as configured refuses to
// start, with status 2, saying why, and never echoes the password: it
// does not wait for brokers that are up but refuse it, or speak
// otherwise.
func TestAuthGateRefusesToStartWhenItCannotTalkToItsBrokers(t *testing.T) {
	p := newPKI(t)
	// A plaintext broker takes a TLS handshake for the start of a
	// request, and waits for the rest: the gate waits this long.
	defer func(d time.Duration) { handshakeTimeout = d }(handshakeTimeout)
	handshakeTimeout = time.Second
	const wrong = "not-the-password"
	overTLS := kfake.TLS(p.brokerTLS(false))
	scram512 := []kfake.Opt{overTLS, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", authUser, authPassword)}
	plainTLS := []kfake.Opt{overTLS, kfake.EnableSASL(), kfake.Superuser("PLAIN", authUser, authPassword)}
	authFailed := func(user, mechanism string) string {
		return "authentication failed for user " + user + " with mechanism " + mechanism + " "
	}
	certificate := "TLS with the brokers failed (see -tls-ca, -tls-cert and -tls-key, -tls-server-name): "
	for _, tc := range []struct {
		name     string
		broker   []kfake.Opt
		asKafka  bool // the broker answers a wrong PLAIN password as Kafka does
		args     []string
		password string
		why      []string
	}{
		// kfake closes the connection on a wrong password; Kafka
		// answers SASL_AUTHENTICATION_FAILED first.
		{name: "a wrong password", broker: scram512, args: []string{"-tls-ca", p.ca, "-sasl-mechanism", "SCRAM-SHA-512", "-sasl-user", authUser}, password: wrong,
			why: []string{authFailed("gate", "SCRAM-SHA-512"), "the broker closed the connection as the gate authenticated"}},
		{name: "a wrong password, answered as Kafka does", broker: plainTLS, asKafka: true,
			args: []string{"-tls-ca", p.ca, "-sasl-mechanism", "PLAIN", "-sasl-user", authUser}, password: wrong,
			why: []string{authFailed("gate", "PLAIN"), "SASL_AUTHENTICATION_FAILED", "Invalid username or password"}},
		{name: "a wrong mechanism", broker: scram512, args: []string{"-tls-ca", p.ca, "-sasl-mechanism", "scram-sha-256", "-sasl-user", authUser}, password: authPassword,
			why: []string{authFailed("gate", "SCRAM-SHA-256")}},
		{name: "a wrong PLAIN password", broker: plainTLS, args: []string{"-tls-ca", p.ca, "-sasl-mechanism", "PLAIN", "-sasl-user", authUser}, password: wrong,
			why: []string{authFailed("gate", "PLAIN")}},
		{name: "an unknown user", broker: scram512, args: []string{"-tls-ca", p.ca, "-sasl-mechanism", "SCRAM-SHA-512", "-sasl-user", "nobody"}, password: authPassword,
			why: []string{authFailed("nobody", "SCRAM-SHA-512")}},
		{name: "no SASL to a broker that wants it", broker: scram512, args: []string{"-tls-ca", p.ca},
			why: []string{"they may want SASL (-sasl-mechanism)", "is SASL missing?"}},
		{name: "TLS to a plaintext broker", args: []string{"-tls-ca", p.ca},
			why: []string{"TLS with the brokers failed: 127.0.0.1:", "took no TLS handshake (within 1s): it may not speak TLS"}},
		{name: "plaintext to a TLS broker", broker: []kfake.Opt{overTLS},
			why: []string{"they may want TLS (-tls) or SASL (-sasl-mechanism)", "is TLS missing?"}},
		{name: "a certificate of an authority not trusted", broker: []kfake.Opt{overTLS}, args: []string{"-tls"},
			why: []string{certificate, "x509: certificate signed by unknown authority"}},
		{name: "a certificate of another authority", broker: []kfake.Opt{overTLS}, args: []string{"-tls-ca", p.otherCA},
			why: []string{certificate, "x509: certificate signed by unknown authority"}},
		{name: "a certificate for another name", broker: []kfake.Opt{overTLS}, args: []string{"-tls-ca", p.ca, "-tls-server-name", "other.test"},
			why: []string{certificate, "x509: certificate is valid for broker.test, not other.test"}},
		{name: "no client certificate to a broker that wants one", broker: []kfake.Opt{kfake.TLS(p.brokerTLS(true))}, args: []string{"-tls-ca", p.ca},
			why: []string{certificate, "tls: certificate required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startSecured(t, nil, tc.broker...)
			if tc.asKafka {
				s.answerAsKafka()
			}
			t.Setenv(passwordEnv, tc.password)
			status, log := s.gateUntilIdle(t, tc.args...)
			assert.Equal(t, 2, status, log)
			assert.Contains(t, log, "gate: kafka gate: making a session: "+gate.ErrRefused.Error()+": ")
			for _, why := range tc.why {
				assert.Contains(t, log, why)
			}
			assert.NotContains(t, log, "messages,", "no summary: it never started")
			if tc.password != "" {
				assert.NotContains(t, log, tc.password)
			}
		})
	}
}

// answerAsKafka makes the cluster answer a SASL PLAIN authentication
// that is not authUser's as Kafka does, with SASL_AUTHENTICATION_FAILED
// and a message, where kfake closes the connection.
func (s *secured) answerAsKafka() { s.answerAsKafkaUntil(new(atomic.Bool)) }

// answerAsKafkaUntil is answerAsKafka, refusing authUser's password too
// once revoked is set.
func (s *secured) answerAsKafkaUntil(revoked *atomic.Bool) {
	s.c.ControlKey(kmsg.SASLAuthenticate.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		s.c.KeepControl()
		req := kreq.(*kmsg.SASLAuthenticateRequest)
		if string(req.SASLAuthBytes) == "\x00"+authUser+"\x00"+authPassword && !revoked.Load() {
			return nil, nil, false
		}
		resp := req.ResponseKind().(*kmsg.SASLAuthenticateResponse)
		resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
		resp.ErrorMessage = kmsg.StringPtr("Authentication failed: Invalid username or password")
		return resp, nil, true
	})
}

// Security flags that cannot work together, or files that cannot be
// read, are usage errors, found before any broker is asked; a password
// given is never echoed.
func TestAuthUsageErrors(t *testing.T) {
	p := newPKI(t)
	passwordFile := p.write(t, "password", []byte(authPassword+"\n"))
	empty := p.write(t, "empty", []byte("\n"))
	notPEM := p.write(t, "not.pem", []byte("not a certificate\n"))
	missing := filepath.Join(p.dir, "missing")
	other := p.write(t, "other-key.pem", otherKey(t))
	encrypted := p.write(t, "encrypted-key.pem", []byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nU0VDUkVULUtFWS1CWVRFUw==\n-----END ENCRYPTED PRIVATE KEY-----\n"))
	scram := []string{"-sasl-mechanism", "SCRAM-SHA-512", "-sasl-user", authUser}
	for _, tc := range []struct {
		name     string
		args     []string
		password string // in the environment
		why      string
	}{
		{"a mechanism without user", []string{"-sasl-mechanism", "SCRAM-SHA-512"}, authPassword, "-sasl-mechanism SCRAM-SHA-512 needs -sasl-user"},
		{"a mechanism without password", scram, "", "-sasl-mechanism SCRAM-SHA-512 needs a password, in $KAFKA_SASL_PASSWORD or the file -sasl-password-file names"},
		{"an empty password file", append(scram, "-sasl-password-file", empty), "", "-sasl-mechanism SCRAM-SHA-512 needs a password"},
		{"a password without mechanism", nil, authPassword, "the SASL password in $KAFKA_SASL_PASSWORD needs -sasl-mechanism"},
		{"a password file without mechanism", []string{"-sasl-password-file", passwordFile}, "", "the SASL password in -sasl-password-file needs -sasl-mechanism"},
		{"a user without mechanism", []string{"-sasl-user", authUser}, "", "-sasl-user needs -sasl-mechanism"},
		{"two passwords", append(scram, "-sasl-password-file", passwordFile), authPassword, "the SASL password is in both $KAFKA_SASL_PASSWORD and -sasl-password-file: give one"},
		{"PLAIN without TLS", []string{"-sasl-mechanism", "PLAIN", "-sasl-user", authUser}, authPassword, "-sasl-mechanism PLAIN sends the password in the clear: give -tls too"},
		{"-sasl-plain-insecure with SCRAM", append(scram, "-sasl-plain-insecure"), authPassword, "-sasl-plain-insecure is for -sasl-mechanism PLAIN"},
		{"-sasl-plain-insecure alone", []string{"-sasl-plain-insecure"}, "", "-sasl-plain-insecure is for -sasl-mechanism PLAIN"},
		{"an unknown mechanism", []string{"-sasl-mechanism", "GSSAPI", "-sasl-user", authUser}, authPassword, "-sasl-mechanism must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, not GSSAPI"},
		{"a password file missing", append(scram, "-sasl-password-file", missing), "", "-sasl-password-file: open " + missing + ": no such file or directory"},
		{"a password file without end", append(scram, "-sasl-password-file", "/dev/zero"), "", "-sasl-password-file: /dev/zero holds more than 1048576 bytes"},
		{"a CA file missing", []string{"-tls-ca", missing}, "", "-tls-ca: open " + missing},
		{"a CA file without certificate", []string{"-tls-ca", notPEM}, "", "-tls-ca: " + notPEM + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)"},
		{"a key without certificate", []string{"-tls-key", p.clientKey}, "", "-tls-key needs -tls-cert"},
		{"a certificate without key", []string{"-tls-cert", p.clientCert}, "", "-tls-cert needs -tls-key"},
		{"a key file missing", []string{"-tls-cert", p.clientCert, "-tls-key", missing}, "", "-tls-key: open " + missing},
		{"a key of another certificate", []string{"-tls-cert", p.clientCert, "-tls-key", other}, "", "-tls-cert " + p.clientCert + " and -tls-key " + other + ": tls: private key does not match public key"},
		{"certificate and key swapped", []string{"-tls-cert", p.clientKey, "-tls-key", p.clientCert}, "", "-tls-cert: " + p.clientKey + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)"},
		{"a key encrypted", []string{"-tls-cert", p.clientCert, "-tls-key", encrypted}, "", "-tls-key: " + encrypted + " holds an encrypted key: give it decrypted (openssl pkey -in KEY -out KEY.decrypted)"},
		{"a key file without end", []string{"-tls-cert", p.clientCert, "-tls-key", "/dev/zero"}, "", "-tls-key: /dev/zero holds more than 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(passwordEnv, tc.password)
			var stderr bytes.Buffer
			// No broker listens there: a usage error is found first.
			status := run(context.Background(), append([]string{"-brokers", "127.0.0.1:1"}, tc.args...), &stderr)
			assert.Equal(t, 2, status, stderr.String())
			assert.Contains(t, stderr.String(), "gate: "+tc.why)
			assert.Contains(t, stderr.String(), "usage: gate")
			assert.NotContains(t, stderr.String(), authPassword)
		})
	}
}

// otherKey returns a PEM private key of no certificate here.
func otherKey(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// The gate's helper that warns of a missing input topic reaches its
// brokers as the gate does.
func TestAuthGateWarnsOfAMissingInputOverTLSAndSASL(t *testing.T) {
	p := newPKI(t)
	s := startSecured(t, []kgo.Opt{p.clientTLS(), saslOpt("SCRAM-SHA-512")},
		kfake.TLS(p.brokerTLS(false)), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", authUser, authPassword))
	passwordFile := p.write(t, "password", []byte(authPassword))
	cmd := cmdtest.Start(t, t.TempDir(), "-brokers", s.addr, "-in", "missing", "-out", "out", "-dead", "dead",
		"-tls-ca", p.ca, "-sasl-mechanism", "SCRAM-SHA-512", "-sasl-user", authUser, "-sasl-password-file", passwordFile)
	cmd.WaitLog(t, `msg="the input topic does not exist; waiting for it" topic=missing`)
	cmd.Signal(t, syscall.SIGTERM)
	assert.Equal(t, 0, cmd.Exit(t), cmd.Log())
}

// kcat (librdkafka), a client nobody here wrote, produces the sample's
// lines over TLS and SCRAM-SHA-512, configured as its users configure it,
// to the input of a gate that reaches the same broker so: the gate
// forwards every valid line, byte for byte, and dead-letters the rest,
// each once.
func TestAuthKcatProducesOverTLSAndSCRAMIntoTheGate(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v: CI installs kcat", err)
		}
		t.Skipf("%v: apt-get install kcat", err)
	}
	p := newPKI(t)
	s := startSecured(t, []kgo.Opt{p.clientTLS(), saslOpt("SCRAM-SHA-512")},
		kfake.TLS(p.brokerTLS(false)), kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-512", authUser, authPassword))
	config := p.write(t, "kcat.conf", []byte("security.protocol=SASL_SSL\nsasl.mechanisms=SCRAM-SHA-512\n"+
		"sasl.username="+authUser+"\nsasl.password="+authPassword+"\nssl.ca.location="+p.ca+"\n"))
	data, err := os.ReadFile(sampleFile)
	require.NoError(t, err)
	var in input
	for line := range bytes.Lines(data) {
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		// Without headers, only a message that names its schema is
		// valid.
		if _, err := catalogue.Decode(line); err == nil {
			in.valid = append(in.valid, line)
		} else {
			in.invalid = append(in.invalid, line)
		}
	}
	require.NotEmpty(t, in.valid)
	s.advertiseSASLHandshakeV0(t)
	produce := exec.Command(kcat, "-F", config, "-P", "-b", s.addr, "-t", "in")
	produce.Stdin = bytes.NewReader(data)
	out, err := produce.CombinedOutput()
	require.NoError(t, err, "%s", out)

	t.Setenv(passwordEnv, authPassword)
	status, log := s.gateUntilIdle(t, "-tls-ca", p.ca, "-sasl-mechanism", "SCRAM-SHA-512", "-sasl-user", authUser)
	require.Equal(t, 0, status, log)
	s.checkGated(t, in, log)
}

// advertiseSASLHandshakeV0 makes the cluster advertise SASLHandshake
// versions 0 and 1, as Kafka 3 brokers do, rather than 1 alone, as
// kfake does: librdkafka 2.0 (Debian's) authenticates only with a
// broker that advertises version 0, though it then uses 1 ("SASL
// Handshake not supported by broker", librdkafka pull request 4983).
func (s *secured) advertiseSASLHandshakeV0(t *testing.T) {
	t.Helper()
	versions, err := kmsg.NewPtrApiVersionsRequest().RequestWith(context.Background(), s.client(t))
	require.NoError(t, err)
	keys := versions.ApiKeys
	found := false
	for i := range keys {
		if keys[i].ApiKey == kmsg.SASLHandshake.Int16() {
			keys[i].MinVersion, found = 0, true
		}
	}
	require.True(t, found, "kfake advertises SASLHandshake")
	s.c.ControlKey(kmsg.ApiVersions.Int16(), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		s.c.KeepControl()
		resp := kreq.ResponseKind().(*kmsg.ApiVersionsResponse)
		resp.ApiKeys = slices.Clone(keys)
		return resp, nil, true
	})
}

// A gate started before its brokers waits for them; brokers that then
// refuse its password, with Kafka's SASL_AUTHENTICATION_FAILED, stop it
// with status 2, saying so, rather than be asked again for ever.
func TestAuthGateStopsWhenBrokersUpLaterRefuseItsPassword(t *testing.T) {
	p := newPKI(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	t.Setenv(passwordEnv, "not-the-password")
	cmd := cmdtest.Start(t, t.TempDir(), "-brokers", l.Addr().String(), "-in", "in", "-out", "out", "-dead", "dead",
		"-tls-ca", p.ca, "-sasl-mechanism", "PLAIN", "-sasl-user", authUser)
	cmd.WaitLog(t, "cannot start yet")
	s := startSecured(t, nil, kfake.Ports(port), kfake.TLS(p.brokerTLS(false)), kfake.EnableSASL(), kfake.Superuser("PLAIN", authUser, authPassword))
	s.answerAsKafka()
	assert.Equal(t, 2, cmd.Exit(t), cmd.Log())
	assert.Contains(t, cmd.Log(), "authentication failed for user gate with mechanism PLAIN")
	assert.Contains(t, cmd.Log(), "SASL_AUTHENTICATION_FAILED")
	assert.NotContains(t, cmd.Log(), "not-the-password")
}

// A running gate whose password is revoked (rotated, or its user
// deleted) stops with status 2 once the brokers refuse it again, as
// they do when it authenticates anew (connections.max.reauth.ms), with
// its summary, saying so: it is not asked again for ever.
func TestAuthGateStopsWhenItsPasswordIsRevokedWhileItRuns(t *testing.T) {
	p := newPKI(t)
	s := startSecured(t, []kgo.Opt{p.clientTLS(), saslOpt("PLAIN")}, kfake.TLS(p.brokerTLS(false)), kfake.EnableSASL(),
		kfake.Superuser("PLAIN", authUser, authPassword), kfake.BrokerConfigs(map[string]string{"connections.max.reauth.ms": "1000"}))
	var revoked atomic.Bool
	s.answerAsKafkaUntil(&revoked)
	in := s.publish(t)
	t.Setenv(passwordEnv, authPassword)
	cmd := cmdtest.Start(t, t.TempDir(), "-brokers", s.addr, "-in", "in", "-out", "out", "-dead", "dead",
		"-tls-ca", p.ca, "-sasl-mechanism", "PLAIN", "-sasl-user", authUser)
	for deadline := time.Now().Add(cmdtest.Wait); len(s.read(t, "out")) < len(in.valid); {
		require.True(t, time.Now().Before(deadline), "the gate never forwarded the sample; it logged:\n%s", cmd.Log())
	}
	revoked.Store(true)
	assert.Equal(t, 2, cmd.Exit(t), cmd.Log())
	assert.Contains(t, cmd.Log(), "gate: authentication failed for user gate with mechanism PLAIN")
	assert.Contains(t, cmd.Log(), "SASL_AUTHENTICATION_FAILED")
	assert.Equal(t, len(in.valid)+len(in.invalid), summaryOf(t, cmd.Log()).messages, "the summary, of what it gated")
}
