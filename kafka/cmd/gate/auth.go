package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/internal/credfile"
	"github.com/fleetkit/catalogue/msg"
)

// passwordEnv is the environment variable that may hold the SASL
// password: never a flag, which any user of the machine reads in ps.
const passwordEnv = "KAFKA_SASL_PASSWORD"

// security is how the command's clients reach their brokers: the TLS
// and SASL flags.
type security struct {
	tls                           bool
	caFile, certFile, keyFile     string
	serverName                    string
	mechanism, user, passwordFile string
	plainInsecure                 bool

	// opts are the client options the flags make (see resolve), given
	// to every client of the gate, and tlsConfig their TLS, if any.
	opts      []kgo.Opt
	tlsConfig *tls.Config
}

// register adds the security flags to flags.
func (s *security) register(flags *flag.FlagSet) {
	flags.BoolVar(&s.tls, "tls", false, "connect to the brokers over TLS (1.2 or later), trusting the system's roots")
	flags.StringVar(&s.caFile, "tls-ca", "", "PEM `file` of the roots to trust instead of the system's (implies -tls)")
	flags.StringVar(&s.certFile, "tls-cert", "", "PEM `file` of the client certificate, for brokers that ask for one (mutual TLS; with -tls-key; implies -tls)")
	flags.StringVar(&s.keyFile, "tls-key", "", "PEM `file` of the client certificate's private key")
	flags.StringVar(&s.serverName, "tls-server-name", "", "`name` the brokers' certificates must hold (default: the host each is reached at; implies -tls)")
	flags.StringVar(&s.mechanism, "sasl-mechanism", "", "SASL `mechanism`: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (with -sasl-user, and the password in $"+passwordEnv+" or -sasl-password-file)")
	flags.StringVar(&s.user, "sasl-user", "", "SASL user `name`")
	flags.StringVar(&s.passwordFile, "sasl-password-file", "", "`file` holding the SASL password (its trailing newline ignored), instead of $"+passwordEnv)
	flags.BoolVar(&s.plainInsecure, "sasl-plain-insecure", false, "allow SASL PLAIN without TLS, which sends the password in the clear")
}

// with returns the security's client options and then opts, in a
// slice of their own.
func (s *security) with(opts ...kgo.Opt) []kgo.Opt { return slices.Concat(s.opts, opts) }

// enabled reports whether any TLS flag asks for TLS.
func (s *security) enabled() bool {
	return s.tls || s.caFile != "" || s.certFile != "" || s.keyFile != "" || s.serverName != ""
}

// resolve checks the flags, reads the files they name and the password
// (from getenv's passwordEnv or -sasl-password-file), and sets s.opts.
// It returns a usage error, or "".
func (s *security) resolve(getenv func(string) string) string {
	tlsConfig, usage := s.makeTLS()
	if usage != "" {
		return usage
	}
	mechanism, usage := s.sasl(getenv, tlsConfig != nil)
	if usage != "" {
		return usage
	}
	s.opts, s.tlsConfig = nil, tlsConfig
	if tlsConfig != nil {
		s.opts = append(s.opts, kgo.DialTLSConfig(tlsConfig))
	}
	if mechanism != nil {
		s.opts = append(s.opts, kgo.SASL(mechanism))
	}
	return ""
}

// makeTLS returns the TLS configuration the flags ask for, nil for
// none, or a usage error.
func (s *security) makeTLS() (*tls.Config, string) {
	switch {
	case !s.enabled():
		return nil, ""
	case s.keyFile != "" && s.certFile == "":
		return nil, "-tls-key needs -tls-cert, the certificate of the key"
	case s.certFile != "" && s.keyFile == "":
		return nil, "-tls-cert needs -tls-key, the certificate's private key"
	}
	// The host each broker is reached at is the name its certificate
	// must hold, unless -tls-server-name says otherwise (kgo sets it).
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: s.serverName}
	if s.caFile != "" {
		pool, err := credfile.CertPool(s.caFile)
		if err != nil {
			return nil, "-tls-ca: " + err.Error()
		}
		c.RootCAs = pool
	}
	if s.certFile != "" {
		pair, err := credfile.KeyPair(s.certFile, s.keyFile)
		if err != nil {
			return nil, err.Error()
		}
		c.Certificates = []tls.Certificate{*pair}
	}
	return c, ""
}

// sasl returns the SASL mechanism the flags ask for, nil for none, or a
// usage error.
func (s *security) sasl(getenv func(string) string, overTLS bool) (sasl.Mechanism, string) {
	password, from := getenv(passwordEnv), "$"+passwordEnv
	if s.passwordFile != "" {
		if password != "" {
			return nil, "the SASL password is in both $" + passwordEnv + " and -sasl-password-file: give one"
		}
		data, err := credfile.Read(s.passwordFile)
		if err != nil {
			return nil, "-sasl-password-file: " + err.Error()
		}
		// The newline an editor or echo ends the file with is not the
		// password's.
		password, from = strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r"), "-sasl-password-file"
	}
	mechanism := strings.ToUpper(strings.TrimSpace(s.mechanism))
	if mechanism == "" {
		switch {
		case password != "":
			return nil, "the SASL password in " + from + " needs -sasl-mechanism"
		case s.user != "":
			return nil, "-sasl-user needs -sasl-mechanism"
		case s.plainInsecure:
			return nil, "-sasl-plain-insecure is for -sasl-mechanism PLAIN"
		}
		return nil, ""
	}
	var auth func(user, password string) sasl.Mechanism
	switch mechanism {
	case "PLAIN":
		auth = func(u, p string) sasl.Mechanism { return plain.Auth{User: u, Pass: p}.AsMechanism() }
	case "SCRAM-SHA-256":
		auth = func(u, p string) sasl.Mechanism { return scram.Auth{User: u, Pass: p}.AsSha256Mechanism() }
	case "SCRAM-SHA-512":
		auth = func(u, p string) sasl.Mechanism { return scram.Auth{User: u, Pass: p}.AsSha512Mechanism() }
	default:
		return nil, "-sasl-mechanism must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, not " + msg.Escape(s.mechanism)
	}
	switch {
	case s.user == "":
		return nil, "-sasl-mechanism " + mechanism + " needs -sasl-user"
	case password == "":
		return nil, "-sasl-mechanism " + mechanism + " needs a password, in $" + passwordEnv + " or the file -sasl-password-file names (never on the command line)"
	case s.plainInsecure && mechanism != "PLAIN":
		return nil, "-sasl-plain-insecure is for -sasl-mechanism PLAIN"
	case mechanism == "PLAIN" && !overTLS && !s.plainInsecure:
		// SCRAM proves the password without sending it; PLAIN sends
		// it as it is, for anyone on the way to read.
		return nil, "-sasl-mechanism PLAIN sends the password in the clear: give -tls too (or -sasl-plain-insecure, on a network nobody else can read)"
	}
	return auth(s.user, password), ""
}

// checkTimeout bounds checkBrokers' request: kgo's dial timeout, TLS
// handshake included, is 10 s.
const checkTimeout = 15 * time.Second

// handshakeTimeout bounds the TLS handshake checkBrokers tries: a
// broker that does not speak TLS may wait for more of what it takes for
// a request, and never answer.
var handshakeTimeout = 10 * time.Second

// errAuthClosed is the error of a broker that closed the connection as
// the client authenticated, as some do (and kfake) for a wrong password
// rather than answer SASL_AUTHENTICATION_FAILED.
var errAuthClosed = errors.New("the broker closed the connection as the gate authenticated")

// checkBrokers connects to the brokers as the gate's clients do, and
// returns an error, saying what is wrong, when they cannot talk: TLS on
// one side only, a certificate not trusted, or SASL refused. A broker
// that cannot be reached (down, or not yet up) is no error here: the
// gate waits for it.
func checkBrokers(ctx context.Context, o options) error {
	if o.security.tlsConfig != nil {
		if err := checkHandshake(ctx, o.brokers, o.security.tlsConfig); err != nil {
			return fmt.Errorf("%w: %w", gate.ErrRefused, o.security.explain(err))
		}
	}
	var auth authWatch
	cl, err := kgo.NewClient(o.security.with(kgo.SeedBrokers(o.brokers...), kgo.RequestRetries(0), kgo.WithHooks(&auth))...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	// A request that needs SASL done, as ApiVersions does not; for no
	// topic.
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	_, err = req.RequestWith(ctx, cl)
	switch {
	case err == nil || unreached(err):
		return nil
	case auth.failed.Load() && !errors.Is(err, kerr.SaslAuthenticationFailed):
		err = fmt.Errorf("%w: %w", errAuthClosed, err)
	}
	return fmt.Errorf("%w: %w", gate.ErrRefused, o.security.explain(err))
}

// authWatch is a kgo hook that notes a SASL request whose response
// never came.
type authWatch struct{ failed atomic.Bool }

// OnBrokerRead implements kgo.HookBrokerRead.
func (a *authWatch) OnBrokerRead(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err != nil && (key == kmsg.SASLAuthenticate.Int16() || key == kmsg.SASLHandshake.Int16()) {
		a.failed.Store(true)
	}
}

// checkHandshake makes a TLS connection to the first of brokers that
// answers, and returns the error of its handshake, if any: a
// certificate not trusted, or a broker that does not speak TLS.
func checkHandshake(ctx context.Context, brokers []string, c *tls.Config) error {
	for _, addr := range brokers {
		ctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
		conn, err := new(net.Dialer).DialContext(ctx, "tcp", addr)
		if err != nil {
			cancel()
			continue // down: the gate waits for it
		}
		c := c.Clone()
		if c.ServerName == "" {
			c.ServerName, _, _ = net.SplitHostPort(addr)
		}
		tc := tls.Client(conn, c)
		err = tc.HandshakeContext(ctx)
		tc.Close()
		cancel()
		switch {
		case err == nil:
			return nil
		case isTLS(err):
			return fmt.Errorf("%s: %w", addr, err)
		case ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("%w: %s took no TLS handshake (within %v): it may not speak TLS: %w", errNoTLS, addr, handshakeTimeout, err)
		}
		return fmt.Errorf("%s: %w", addr, err)
	}
	return nil
}

// errNoTLS is the error of a broker that does not answer TLS.
var errNoTLS = errors.New("TLS with the brokers failed")

// unreached reports whether err says only that no broker answered:
// none listening, or none in time.
func unreached(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" && !isTLS(err) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// isTLS reports whether err is an error of TLS: a certificate not
// trusted, a record that is not TLS, or an alert from the broker (a
// client certificate it wants, say).
func isTLS(err error) bool {
	var (
		record  tls.RecordHeaderError
		alert   tls.AlertError
		verify  *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		op      *net.OpError
	)
	return errors.As(err, &record) || errors.As(err, &alert) || errors.As(err, &verify) ||
		errors.As(err, &unknown) || errors.As(err, &host) || errors.As(err, &invalid) ||
		errors.As(err, &op) && op.Op == "remote error"
}

// explain returns err with what it means for the command's flags: which
// user and mechanism the brokers refused, or which side of a
// connection spoke TLS. It never holds the password.
func (s *security) explain(err error) error {
	mechanism := strings.ToUpper(strings.TrimSpace(s.mechanism))
	var (
		eof  *kgo.ErrFirstReadEOF
		done *explained
	)
	switch {
	case errors.As(err, &done):
		return err
	case errors.Is(err, kerr.SaslAuthenticationFailed) || errors.Is(err, errAuthClosed):
		return &explained{fmt.Errorf("authentication failed for user %s with mechanism %s (check the user, the password and the mechanism): %w", msg.Escape(s.user), mechanism, err)}
	case errors.Is(err, kerr.UnsupportedSaslMechanism) || errors.Is(err, kerr.IllegalSaslState):
		return &explained{fmt.Errorf("the brokers do not take SASL mechanism %s for user %s: %w", mechanism, msg.Escape(s.user), err)}
	case errors.Is(err, errNoTLS):
		return &explained{err}
	case isTLS(err):
		return &explained{fmt.Errorf("TLS with the brokers failed (see -tls-ca, -tls-cert and -tls-key, -tls-server-name): %w", err)}
	case errors.As(err, &eof) && s.tlsConfig == nil:
		return &explained{fmt.Errorf("the brokers closed the connection at once: they may want TLS (-tls) or SASL (-sasl-mechanism): %w", err)}
	case errors.As(err, &eof) && mechanism == "":
		return &explained{fmt.Errorf("the brokers closed the connection at once: they may want SASL (-sasl-mechanism): %w", err)}
	}
	return err
}

// explained is an error explain has explained.
type explained struct{ error }

func (e *explained) Unwrap() error { return e.error }
