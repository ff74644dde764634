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
// (Port(s)). The server takes messages of up to maxPayload bytes, headers
// included; 0 means 2 MiB, room for messages up to the library's largest
// plus their dead letter's verdict. Each of edit, if any, changes the
// server's options before it starts (its users, say).
func Start(dir string, port, maxPayload int, edit ...func(*server.Options)) (*server.Server, error) {
	if maxPayload == 0 {
		maxPayload = 2 << 20
	}
	opts := &server.Options{
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   dir,
		NoSigs:     true,
		NoLog:      true,
		MaxPayload: int32(maxPayload),
	}
	for _, e := range edit {
		e(opts)
	}
	s, err := server.NewServer(opts)
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
