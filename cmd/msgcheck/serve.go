package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/fleetkit/catalogue/api"
)

const defaultAddr = "127.0.0.1:8080"

// The server's time-outs. Every phase of a request is bounded, so that slow
// or idle clients cannot hold connections open.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 2 * time.Minute
	shutdownTimeout   = 10 * time.Second // for requests in flight at shutdown
)

// serve serves api.Handler until ctx is done, then shuts down gracefully.
func serve(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "usage: msgcheck serve [-addr host:port]\n\nServe the catalogue API over HTTP until SIGINT or SIGTERM.\n")
	addr := fs.String("addr", defaultAddr, "listen on `host:port`; port 0 picks a free port")
	if code, ok := fs.parseNone(args, stdout, stderr); !ok {
		return code
	}

	// Listen before logging, so that the log names the port actually bound.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "msgcheck: %v\n", err)
		return 1
	}
	srv := &http.Server{
		Handler:           api.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(stderr, "msgcheck: ", 0),
	}
	fmt.Fprintf(stderr, "msgcheck: serving the catalogue on http://%s\n", ln.Addr())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "msgcheck: %v\n", err)
		return 1
	case <-ctx.Done():
	}

	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
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
