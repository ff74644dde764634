// Package embedded runs a NATS server with JetStream inside the process,
// on loopback only, for the tests and for the gate's demonstration.
package embedded

import (
	"errors"
	"net"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start starts a NATS server with JetStream on 127.0.0.1, storing its
// streams in dir. A port of -1 picks a free one; to restart a server over
// the same store, start again with the same dir and the port it had
// (Port(s)).
func Start(dir string, port int) (*server.Server, error) {
	s, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      port,
		JetStream: true,
		StoreDir:  dir,
		NoSigs:    true,
		NoLog:     true,
		// Messages up to the library's largest plus their dead letter's
		// verdict.
		MaxPayload: 2 << 20,
	})
	if err != nil {
		return nil, err
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, errors.New("embedded: the NATS server did not start within 10s")
	}
	return s, nil
}

// Port returns the port s listens on.
func Port(s *server.Server) int {
	return s.Addr().(*net.TCPAddr).Port
}
