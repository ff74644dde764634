package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/msg"
)

const defaultAddr = "127.0.0.1:8080"

// serverTimeouts bounds every phase of a request, so that slow or idle
// clients cannot hold connections open.
type serverTimeouts struct {
	readHeader time.Duration // the request line and headers
	read       time.Duration // the whole request, body included
	write      time.Duration // from the end of the headers to the end of the answer
	idle       time.Duration // between requests on a connection
}

// timeouts are serve's time-outs. Tests shorten them.
var timeouts = serverTimeouts{
	readHeader: 5 * time.Second,
	read:       10 * time.Second,
	write:      30 * time.Second,
	idle:       2 * time.Minute,
}

// shutdown is how long serve waits, once told to stop, for the requests
// in flight: longer than any of them can take, since each is bounded by
// the time-outs (its headers by readHeader, then its answer by write, its
// body within both), so that every request in flight is answered, even
// one whose body is still arriving slowly, and a clean stop exits 0. A
// deadline equal to the read time-out raced with it and lost.
func (t serverTimeouts) shutdown() time.Duration {
	return t.readHeader + max(t.read, t.write) + 5*time.Second
}

// serve serves api.Handler, and the catalogue's pages beside it, until ctx
// is done, then shuts down gracefully.
func serve(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "usage: msgcheck serve [-addr host:port] [-catalogue DIR] [-subject TOPIC-value=NAME ...] [-tls-cert FILE -tls-key FILE [-tls-client-ca FILE]]\n\n"+
		"Serve the catalogue over HTTP, or HTTPS with -tls-cert and -tls-key, until SIGINT or SIGTERM:\n"+
		"the API under /api/, the schema-registry protocol under "+api.RegistryPath+", and the pages at\n"+
		"every other path, from / on. The certificate is read again when its files change.\n")
	addr := fs.String("addr", defaultAddr, "listen on `host:port`; port 0 picks a free port")
	dir := fs.String("catalogue", "", "show the pages of the schema files in `folder` rather than the published catalogue's; the API under /api/ serves the published catalogue, by which the library judges")
	subjects := map[string]string{}
	fs.Func("subject", "serve the registry `subject` (such as TOPIC-value=core.device) as the named schema, for clients that name subjects after topics; repeatable", func(v string) error {
		subject, name, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("%q is not SUBJECT=NAME", v)
		}
		if _, dup := subjects[subject]; dup {
			return fmt.Errorf("subject %q given twice", subject)
		}
		subjects[subject] = name
		return api.CheckSubjects(map[string]string{subject: name})
	})
	var tlsf tlsFiles
	fs.StringVar(&tlsf.cert, "tls-cert", "", "serve HTTPS (TLS 1.2 or later) with the certificate in the PEM `file`, its chain after it; with -tls-key")
	fs.StringVar(&tlsf.key, "tls-key", "", "the PEM `file` of the private key of -tls-cert")
	fs.StringVar(&tlsf.clientCA, "tls-client-ca", "", "require a client certificate signed by a CA in the PEM `file` (mutual TLS)")
	if code, ok := fs.parseNone(args, stdout, stderr); !ok {
		return code
	}
	if why := tlsf.usage(); why != "" {
		fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), why)
		fs.printUsage(stderr)
		return 2
	}
	errorLog := log.New(stderr, "msgcheck: ", 0)
	scheme := "http"
	var tlsConfig *tls.Config
	var leaf *x509.Certificate
	if tlsf.enabled() {
		var err error
		if tlsConfig, leaf, err = tlsf.config(errorLog); err != nil {
			fmt.Fprintf(stderr, "msgcheck: %s\n", err)
			return 1
		}
		scheme = "https"
		fmt.Fprintf(stderr, "msgcheck: HTTPS with the certificate %s, from %s\n", describe(leaf), msg.Escape(tlsf.cert))
		if now := time.Now(); now.After(leaf.NotAfter) || now.Before(leaf.NotBefore) {
			fmt.Fprintln(stderr, "msgcheck: warning: the certificate is not valid now: clients will refuse it")
		}
	}
	site, _, err := siteOf(*dir, "/api")
	if err != nil {
		fmt.Fprintf(stderr, "msgcheck: %v\n", err)
		return 1
	}

	// Listen before logging, so that the log names the port actually bound.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "msgcheck: %s (serve another address with -addr HOST:PORT)\n", msg.Escape(err.Error()))
		return 1
	}
	srv := &http.Server{
		Handler:           api.Handler(api.Fallback(site), api.Subjects(subjects)),
		ReadHeaderTimeout: timeouts.readHeader,
		ReadTimeout:       timeouts.read,
		WriteTimeout:      timeouts.write,
		IdleTimeout:       timeouts.idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          errorLog,
		// Its handshake is bounded by the shortest of the time-outs
		// above. HTTP/1.1 alone, over TLS as over plain HTTP, so that
		// every time-out and limit above works as it does there.
		TLSConfig: tlsConfig,
		Protocols: new(http.Protocols),
	}
	srv.Protocols.SetHTTP1(true)
	// What a serializer is configured with, so that nobody guesses it;
	// before the line that says the service is up, which tools wait for.
	topics := "none (serve one with -subject TOPIC-value=NAME)"
	if len(subjects) > 0 {
		var list []string
		for _, subject := range slices.Sorted(maps.Keys(subjects)) {
			list = append(list, subject+" ("+subjects[subject]+")")
		}
		topics = strings.Join(list, ", ")
	}
	fmt.Fprintf(stderr, "msgcheck: schema-registry clients use url = %s://%s%s; topic subjects: %s\n", scheme, msg.Escape(clientHost(ln.Addr(), leaf)), api.RegistryPath, msg.Escape(topics))
	fmt.Fprintf(stderr, "msgcheck: serving the catalogue on %s://%s\n", scheme, ln.Addr())

	served := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			served <- srv.ServeTLS(ln, "", "")
			return
		}
		served <- srv.Serve(ln)
	}()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "msgcheck: %v\n", err)
		return 1
	case <-ctx.Done():
	}

	shutdownCtx, cancel := context.WithTimeout(context.Background(), timeouts.shutdown())
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
		fmt.Fprintf(stderr, "msgcheck: shutting down: %v\n", err)
		return 1
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "msgcheck: %v\n", err)
		return 1
	}
	fmt.Fprintln(stderr, "msgcheck: stopped")
	return 0
}

// clientHost is the host and port of the URL serve gives registry
// clients: the address it listens on, unless that is every address of
// the machine (0.0.0.0, ::), which no client can be given; then the
// first name of the certificate leaf (nil over HTTP) that is not a
// wildcard, which a client checks the certificate against, or else the
// machine's name.
func clientHost(addr net.Addr, leaf *x509.Certificate) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return addr.String()
	}
	port := strconv.Itoa(tcp.Port)
	if leaf != nil {
		for _, name := range leaf.DNSNames {
			if !strings.Contains(name, "*") {
				return net.JoinHostPort(name, port)
			}
		}
	}
	if host, err := os.Hostname(); err == nil && host != "" {
		return net.JoinHostPort(host, port)
	}
	return addr.String()
}
