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
// picks one) that admits the coordinator and one user per worker host.
// A worker's user may publish only its own registrations, heartbeats and
// events, and hear only its own commands, its own replies and the
// coordinator's hello: it can neither hear another host's commands nor
// speak as another host. Only the coordinator may launch anything.
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
	if err := creds.Check(); err != nil {
		return nil, fmt.Errorf("the embedded NATS server: %w", err)
	}
	users := []*server.User{{Username: wire.CoordinatorUser, Password: creds.Coordinator}}
	for h, pw := range creds.Workers {
		if err := wire.CheckHostName(h); err != nil {
			return nil, fmt.Errorf("credentials: %w", err)
		}
		users = append(users, &server.User{Username: wire.WorkerUser(h), Password: pw, Permissions: workerPermissions(subj, h)})
	}
	opts := &server.Options{
		Host:          host,
		Port:          port,
		NoSigs:        true,
		NoLog:         true,
		MaxPayload:    wire.MaxMessageBytes,
		MaxPending:    256 << 20,
		WriteDeadline: 10 * time.Second,
		Users:         users,
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

// workerPermissions are what host's user may do: publish its reports
// and hear its commands, its replies and the hello; nothing else.
func workerPermissions(subj wire.Subjects, host string) *server.Permissions {
	return &server.Permissions{
		Publish: &server.SubjectPermission{Allow: []string{subj.Register(host), subj.Heartbeat(host), subj.Events(host)}},
		Subscribe: &server.SubjectPermission{Allow: []string{subj.Worker(host), subj.Hello(),
			// nats.go's requests wait on INBOX.token.*, INBOX being the
			// prefix the worker sets (Subjects.Inbox)
			subj.Inbox(host) + ".>"}},
	}
}

// URL is where clients connect.
func (s *EmbeddedServer) URL() string { return s.srv.ClientURL() }

// Close stops the server.
func (s *EmbeddedServer) Close() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
}
