package live

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/racklab/racklab/coordinator/wire"
)

// EmbeddedServer is a NATS server inside the coordinator process.
type EmbeddedServer struct {
	srv *server.Server
}

// StartServer starts an embedded NATS server on listen (host:port; port 0
// picks one) that admits only the two users. Workers may only publish
// their registrations, heartbeats and events, and hear their own
// commands; only the coordinator may launch anything.
func StartServer(listen string, subj wire.Subjects, creds wire.Credentials) (*EmbeddedServer, error) {
	host, portStr, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("NATS listen address %q: %w", listen, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("NATS listen address %q: bad port", listen)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	if creds.Coordinator == "" || creds.Worker == "" {
		return nil, fmt.Errorf("the embedded NATS server needs passwords for both users")
	}
	workerPerms := &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: []string{subj.Register(), subj.Heartbeat(), subj.Events()}},
		Subscribe: &server.SubjectPermission{Allow: []string{subj.WorkerWildcard(), subj.Hello(), "_INBOX.>"}},
	}
	opts := &server.Options{
		Host:          host,
		Port:          port,
		NoSigs:        true,
		NoLog:         true,
		MaxPayload:    wire.MaxMessageBytes,
		MaxPending:    256 << 20,
		WriteDeadline: 10 * time.Second,
		Users: []*server.User{
			{Username: wire.CoordinatorUser, Password: creds.Coordinator},
			{Username: wire.WorkerUser, Password: creds.Worker, Permissions: workerPerms},
		},
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("NATS server: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("NATS server on %s did not become ready", listen)
	}
	return &EmbeddedServer{srv: srv}, nil
}

// URL is where clients connect.
func (s *EmbeddedServer) URL() string { return s.srv.ClientURL() }

// Close stops the server.
func (s *EmbeddedServer) Close() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
}
