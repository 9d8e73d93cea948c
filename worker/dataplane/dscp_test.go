package dataplane

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/worker/store"
	"golang.org/x/sys/unix"
)

// sniffer records the TOS byte of IPv4 TCP segments with a payload seen on
// the loopback interface, by source port. It needs CAP_NET_RAW.
type sniffer struct {
	fd   int
	mu   sync.Mutex
	tos  map[int][]uint8 // source port -> TOS of each data segment, in order
	done chan struct{}
	quit chan struct{}
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

func newSniffer(t *testing.T) *sniffer {
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, int(htons(unix.ETH_P_IP)))
	if err != nil {
		t.Logf("no packet capture (%v): checking the socket options only", err)
		return nil
	}
	lo, err := net.InterfaceByName("lo")
	if err == nil {
		err = unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IP), Ifindex: lo.Index})
	}
	if err != nil {
		unix.Close(fd)
		t.Logf("no packet capture (%v): checking the socket options only", err)
		return nil
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 8<<20)
	tv := unix.NsecToTimeval(int64(50 * time.Millisecond))
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	s := &sniffer{fd: fd, tos: make(map[int][]uint8), done: make(chan struct{}), quit: make(chan struct{})}
	go s.run()
	return s
}

func (s *sniffer) run() {
	defer close(s.done)
	buf := make([]byte, 128)
	for {
		select {
		case <-s.quit:
			return
		default:
		}
		n, from, err := unix.Recvfrom(s.fd, buf, unix.MSG_TRUNC)
		if err != nil || n < 14+20+20 {
			continue
		}
		if ll, ok := from.(*unix.SockaddrLinklayer); ok && ll.Pkttype == unix.PACKET_OUTGOING {
			continue // each loopback packet is seen twice
		}
		ip := buf[14:]
		if binary.BigEndian.Uint16(buf[12:]) != 0x0800 || ip[0]>>4 != 4 || ip[9] != unix.IPPROTO_TCP {
			continue
		}
		ihl := int(ip[0]&0x0f) * 4
		tcp := ip[ihl:]
		if len(tcp) < 13 {
			continue
		}
		payload := int(binary.BigEndian.Uint16(ip[2:])) - ihl - int(tcp[12]>>4)*4
		if payload <= 0 {
			continue
		}
		src := int(binary.BigEndian.Uint16(tcp[0:]))
		s.mu.Lock()
		s.tos[src] = append(s.tos[src], ip[1])
		s.mu.Unlock()
	}
}

func (s *sniffer) stop() map[int][]uint8 {
	close(s.quit)
	<-s.done
	unix.Close(s.fd)
	return s.tos
}

// signalWriter closes first on its first Write.
type signalWriter struct {
	once  sync.Once
	first chan struct{}
	n     atomic.Int64
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.first) })
	w.n.Add(int64(len(p)))
	return len(p), nil
}

// groupConns returns the client sockets of g.
func groupConns(g *Group) []*net.TCPConn {
	g.mu.Lock()
	defer g.mu.Unlock()
	var cs []*net.TCPConn
	for cc := range g.conns {
		cs = append(cs, cc.c)
	}
	return cs
}

// serverDSCP returns the DSCP of the server end of the client socket c.
func serverDSCP(t *testing.T, srv *Server, c *net.TCPConn) uint8 {
	t.Helper()
	for _, ci := range srv.Conns() {
		if ci.Remote == c.LocalAddr().String() {
			return ci.DSCP
		}
	}
	t.Fatalf("server has no connection from %s", c.LocalAddr())
	return 0
}

// waitServerDSCP waits for the server end of c to be marked d.
func waitServerDSCP(t *testing.T, srv *Server, c *net.TCPConn, d uint8) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for serverDSCP(t, srv, c) != d {
		if time.Now().After(deadline) {
			t.Fatalf("server end of %s: dscp %d, want %d", c.LocalAddr(), serverDSCP(t, srv, c), d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func clientDSCP(t *testing.T, c *net.TCPConn) uint8 {
	t.Helper()
	d, err := GetDSCP(c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDSCPOnTheWire fetches over loopback from a slow tier, re-marks the
// group in the middle, and checks both ends' sockets and, where packets can
// be captured, the TOS byte of the segments themselves.
func TestDSCPOnTheWire(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.HDD, ReadBps: 8 << 20})
	const size = 4 << 20 // 0.5 s at 8 MiB/s
	if _, err := ts.st.Generate(cluster.HDD, "blk", size, 1); err != nil {
		t.Fatal(err)
	}
	_, portStr, _ := net.SplitHostPort(ts.addr)
	srvPort, _ := net.LookupPort("tcp", portStr)
	sn := newSniffer(t)

	c := NewClient(time.Second)
	defer c.Close()
	g := NewGroup(Shuffle)
	w := &signalWriter{first: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		_, err := c.Fetch(context.Background(), g, ts.addr, cluster.HDD, "blk", 0, -1, w)
		errc <- err
	}()
	<-w.first
	conns := groupConns(g)
	if len(conns) != 1 {
		t.Fatalf("group has %d sockets", len(conns))
	}
	first := conns[0]
	if d := clientDSCP(t, first); d != 18 {
		t.Errorf("client socket dscp %d, want 18 (shuffle)", d)
	}
	if d := serverDSCP(t, ts.srv, first); d != 18 {
		t.Errorf("server socket dscp %d, want 18 (shuffle)", d)
	}

	// Re-mark while the data flows.
	if err := g.SetDSCP(46); err != nil {
		t.Fatal(err)
	}
	if g.DSCP() != 46 {
		t.Errorf("group dscp %d", g.DSCP())
	}
	if d := clientDSCP(t, first); d != 46 {
		t.Errorf("client socket after re-mark: dscp %d, want 46", d)
	}
	waitServerDSCP(t, ts.srv, first, 46)

	// A new socket of the group starts with the group's current DSCP.
	w2 := &signalWriter{first: make(chan struct{})}
	errc2 := make(chan error, 1)
	go func() {
		_, err := c.Fetch(context.Background(), g, ts.addr, cluster.HDD, "blk", 0, 1<<20, w2)
		errc2 <- err
	}()
	<-w2.first
	for _, cn := range groupConns(g) {
		if cn == first {
			continue
		}
		if d := clientDSCP(t, cn); d != 46 {
			t.Errorf("new client socket: dscp %d, want 46", d)
		}
		if d := serverDSCP(t, ts.srv, cn); d != 46 {
			t.Errorf("new server socket: dscp %d, want 46", d)
		}
	}
	if err := <-errc2; err != nil {
		t.Fatal(err)
	}
	if w.n.Load() == size {
		t.Log("warning: the first transfer ended before the checks")
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if w.n.Load() != size {
		t.Errorf("fetched %d bytes", w.n.Load())
	}
	if len(groupConns(g)) != 0 {
		t.Error("finished transfers still in the group")
	}

	if sn == nil {
		return
	}
	got := sn.stop()[srvPort]
	if len(got) < 4 {
		t.Fatalf("captured %d data segments from the server", len(got))
	}
	// Server-to-client data: AF21 (18<<2) first, EF (46<<2) at the end.
	if got[0] != 18<<2 || got[len(got)-1] != 46<<2 {
		t.Errorf("server data segments' TOS: first %#x, last %#x; want %#x then %#x", got[0], got[len(got)-1], 18<<2, 46<<2)
	}
	changes := 0
	for i := 1; i < len(got); i++ {
		if got[i] != got[i-1] {
			changes++
		}
	}
	t.Logf("captured %d server data segments; TOS %#x -> %#x, %d change(s)", len(got), got[0], got[len(got)-1], changes)
}

// TestDSCPRemarkDuringPush re-marks a group in the middle of a PUT.
func TestDSCPRemarkDuringPush(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.SSD})
	c := NewClient(time.Second)
	defer c.Close()
	g := NewGroup(Output)
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() { errc <- c.Push(context.Background(), g, ts.addr, cluster.SSD, "out/r1", pr, 2*pushFrame) }()
	pw.Write(make([]byte, pushFrame))
	var conn *net.TCPConn
	for deadline := time.Now().Add(2 * time.Second); conn == nil; time.Sleep(time.Millisecond) {
		if cs := groupConns(g); len(cs) == 1 {
			conn = cs[0]
		} else if time.Now().After(deadline) {
			t.Fatal("push has no socket")
		}
	}
	waitServerDSCP(t, ts.srv, conn, 34)
	if err := g.SetDSCP(10); err != nil {
		t.Fatal(err)
	}
	if d := clientDSCP(t, conn); d != 10 {
		t.Errorf("client socket: dscp %d, want 10", d)
	}
	waitServerDSCP(t, ts.srv, conn, 10)
	pw.Write(make([]byte, pushFrame))
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if n, err := ts.st.Size(cluster.SSD, "out/r1"); err != nil || n != 2*pushFrame {
		t.Errorf("stored %d bytes, %v", n, err)
	}
}
