package dataplane

import (
	"bytes"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/worker/store"
)

// otherCongestion is an available congestion control other than the
// system's default, so that a socket using it was set, not defaulted.
func otherCongestion(t *testing.T) string {
	t.Helper()
	def, err := os.ReadFile("/proc/sys/net/ipv4/tcp_congestion_control")
	if err != nil {
		t.Skipf("no congestion control sysctl: %v", err)
	}
	avail := sysctlList("net/ipv4/tcp_available_congestion_control")
	for _, cc := range []string{"reno", "cubic"} {
		if cc != strings.TrimSpace(string(def)) && slices.Contains(avail, cc) && CheckCongestion(cc) == nil {
			return cc
		}
	}
	t.Skipf("no congestion control other than %s that this process may set (available: %v)", def, avail)
	return ""
}

// Both ends of a data-plane connection use the congestion control they are
// given, whatever the system's default: the client sets it on the sockets
// it dials, and the server's accepted sockets inherit their listener's.
func TestCongestionControlOnBothEnds(t *testing.T) {
	cc := otherCongestion(t)
	st, err := store.Open([]store.TierConfig{{Kind: cluster.Mem, Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0", cc)
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(st, t.Logf)
	go srv.Serve(ln)
	defer srv.Close()
	if _, err := st.Generate(cluster.Mem, "obj", 1<<20, 1); err != nil {
		t.Fatal(err)
	}
	c := NewClient(time.Second).UseCongestion(cc)
	defer c.Close()
	var buf bytes.Buffer
	if _, err := c.Fetch(t.Context(), nil, ln.Addr().String(), cluster.Mem, "obj", 0, -1, &buf); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	idle := c.idle[ln.Addr().String()]
	c.mu.Unlock()
	if len(idle) != 1 {
		t.Fatalf("%d pooled connections, want 1", len(idle))
	}
	if got, err := Congestion(idle[0].c); err != nil || got != cc {
		t.Errorf("client socket: congestion control %q (%v), want %q", got, err, cc)
	}
	// and an open connection can be switched to another
	def := sysctlList("net/ipv4/tcp_congestion_control")[0]
	if err := SetCongestion(idle[0].c, def); err != nil {
		t.Fatal(err)
	}
	if got, err := Congestion(idle[0].c); err != nil || got != def {
		t.Errorf("client socket switched: congestion control %q (%v), want %q", got, err, def)
	}
	srv.mu.Lock()
	var server []*net.TCPConn
	for sc := range srv.conns {
		server = append(server, sc.c)
	}
	srv.mu.Unlock()
	if len(server) != 1 {
		t.Fatalf("%d server connections, want 1", len(server))
	}
	if got, err := Congestion(server[0]); err != nil || got != cc {
		t.Errorf("server socket: congestion control %q (%v), want %q", got, err, cc)
	}
}

// A congestion control the kernel lacks is refused before any transfer,
// with what the kernel has.
func TestUnknownCongestionControlIsRefused(t *testing.T) {
	err := CheckCongestion("nosuchcc")
	if err == nil || !strings.Contains(err.Error(), `"nosuchcc" is not available in this kernel (available: `) {
		t.Fatalf("CheckCongestion: %v", err)
	}
	if _, err := Listen("127.0.0.1:0", "nosuchcc"); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Fatalf("Listen: %v", err)
	}
	if err := CheckCongestion(""); err != nil {
		t.Fatalf("the system's default: %v", err)
	}
}
