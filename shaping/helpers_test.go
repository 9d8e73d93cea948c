package shaping

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/racklab/racklab/worker/dataplane"
	"golang.org/x/sys/unix"
)

var (
	netnsOnce sync.Once
	netnsErr  error
)

// needNetns skips the test unless we are root and can make namespaces.
func needNetns(tb testing.TB) {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("needs root")
	}
	netnsOnce.Do(func() {
		name := fmt.Sprintf("sz%d-core", os.Getpid()%10000)
		h, err := newNamedNetns(name)
		if err != nil {
			netnsErr = err
			return
		}
		h.Close()
		netnsErr = deleteNamedNetns(name)
	})
	if netnsErr != nil {
		tb.Skipf("cannot create network namespaces: %v", netnsErr)
	}
}

// testPrefix returns a prefix unique to this process: tag (two letters,
// starting with "s" in this package so as not to meet other packages' test
// clusters) and the pid.
func testPrefix(tag string) string { return fmt.Sprintf("%s%d", tag, os.Getpid()%10000) }

// upCluster builds a cluster that is taken down, and checked for leftovers,
// when the test ends.
func upCluster(tb testing.TB, spec ClusterSpec) *Cluster {
	tb.Helper()
	needNetns(tb)
	tb.Cleanup(func() {
		if err := Cleanup(spec.Prefix); err != nil {
			tb.Errorf("Cleanup(%s): %v", spec.Prefix, err)
		}
		if left, err := Leftovers(spec.Prefix); err != nil || len(left) > 0 {
			tb.Errorf("Leftovers(%s) = %v, %v", spec.Prefix, left, err)
		}
	})
	c, err := Up(spec)
	if err != nil {
		tb.Fatalf("Up: %v", err)
	}
	tb.Cleanup(func() {
		if err := c.Down(); err != nil {
			tb.Errorf("Down: %v", err)
		}
	})
	return c
}

func racks(n, hosts int, upBps, downBps float64) []RackSpec {
	out := make([]RackSpec, n)
	for i := range out {
		out[i] = RackSpec{Hosts: hosts, UplinkBps: upBps, DownlinkBps: downBps}
	}
	return out
}

// sink is a TCP server in a namespace that counts what it receives.
type sink struct {
	ln    net.Listener
	bytes atomic.Int64
	done  chan struct{}
}

func newSink(tb testing.TB, nsName string, ip net.IP) *sink {
	tb.Helper()
	s := &sink{done: make(chan struct{})}
	err := Do(nsName, func() (err error) {
		s.ln, err = net.Listen("tcp4", net.JoinHostPort(ip.String(), "0"))
		return err
	})
	if err != nil {
		tb.Fatalf("listen in %s: %v", nsName, err)
	}
	tb.Cleanup(func() { s.ln.Close() })
	go func() {
		defer close(s.done)
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		buf := make([]byte, 256<<10)
		for {
			n, err := conn.Read(buf)
			s.bytes.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	return s
}

// dial connects from a namespace to addr.
func dial(tb testing.TB, nsName string, addr net.Addr) net.Conn {
	tb.Helper()
	var conn net.Conn
	err := Do(nsName, func() (err error) {
		conn, err = net.DialTimeout("tcp4", addr.String(), 5*time.Second)
		return err
	})
	if err != nil {
		tb.Fatalf("dial %v from %s: %v", addr, nsName, err)
	}
	return conn
}

// xfer is the outcome of a transfer.
type xfer struct {
	took time.Duration
	// sent is the payload the sender's TCP put on the wire, retransmissions
	// included (tcpi_bytes_sent): what the kernel's link counters must show.
	sent uint64
}

// transfer sends n bytes over one TCP connection from src to dst and waits
// until dst has read them all and the sender has seen every ACK.
func transfer(tb testing.TB, src, dst HostNet, n int) xfer {
	tb.Helper()
	return transferPrio(tb, src, dst, n, -1)
}

// transferPrio is transfer with the connection marked with priority p
// (p < 0: unmarked).
func transferPrio(tb testing.TB, src, dst HostNet, n int, p Priority) xfer {
	tb.Helper()
	s := newSink(tb, dst.Netns, dst.DataIP)
	start := time.Now()
	conn := dial(tb, src.Netns, s.ln.Addr()).(*net.TCPConn)
	defer conn.Close()
	if p >= 0 {
		if err := SetPriority(conn, p); err != nil {
			tb.Fatal(err)
		}
	}
	buf := make([]byte, 64<<10)
	for left := n; left > 0; {
		k := min(left, len(buf))
		if _, err := conn.Write(buf[:k]); err != nil {
			tb.Fatalf("write: %v", err)
		}
		left -= k
	}
	if err := conn.CloseWrite(); err != nil {
		tb.Fatalf("close write: %v", err)
	}
	// The sink closes after EOF; its FIN follows its last ACK.
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.Copy(io.Discard, conn); err != nil {
		tb.Fatalf("wait for the sink: %v", err)
	}
	<-s.done
	took := time.Since(start)
	if got := s.bytes.Load(); got != int64(n) {
		tb.Fatalf("received %d bytes, sent %d", got, n)
	}
	return xfer{took: took, sent: tcpBytesSent(tb, conn)}
}

func tcpBytesSent(tb testing.TB, conn *net.TCPConn) uint64 {
	tb.Helper()
	rc, err := conn.SyscallConn()
	if err != nil {
		tb.Fatal(err)
	}
	var info *unix.TCPInfo
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		info, ierr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	}); err != nil || ierr != nil {
		tb.Fatalf("TCP_INFO: %v %v", err, ierr)
	}
	return info.Bytes_sent
}

func linkCounters(tb testing.TB, c *Cluster) []LinkCounters {
	tb.Helper()
	lc, err := c.RackLinkCounters()
	if err != nil {
		tb.Fatalf("RackLinkCounters: %v", err)
	}
	return lc
}

// payload is the TCP payload implied by bytes and packets counters.
func payload(bytes, packets uint64) int64 { return int64(bytes) - 66*int64(packets) }

// checkPayload checks that a counter delta carries the payload of x, a
// transfer of n bytes: at least n bytes, and a payload within 1% of what the
// sender's TCP sent (n plus retransmissions; TCP's loss probes make a few).
func checkPayload(tb testing.TB, what string, bytes, packets uint64, n int, x xfer) {
	tb.Helper()
	p := payload(bytes, packets)
	if bytes < uint64(n) {
		tb.Errorf("%s: %d bytes counted, fewer than the %d sent", what, bytes, n)
	}
	if d := float64(p-int64(x.sent)) / float64(x.sent); d > 0.01 || d < -0.01 {
		tb.Errorf("%s: payload %d (bytes %d - 66 x %d packets) is %.2f%% off the %d sent (%d retransmitted)",
			what, p, bytes, packets, 100*d, x.sent, x.sent-uint64(n))
	}
}

// stream is a TCP stream that sends as fast as it can until stopped.
type stream struct {
	sink *sink
	stop chan struct{}
	done chan struct{}
}

// startStream starts a stream from src to dst marked with priority p
// (p < 0: unmarked), using congestion control cc or, if cc is empty, the
// workers' data plane's (dataplane.DefaultCongestion), whatever this
// machine's default: the shaping is tested with the TCP racklab sends.
func startStream(tb testing.TB, src, dst HostNet, p Priority, cc string) *stream {
	tb.Helper()
	if cc == "" {
		cc = dataplane.DefaultCongestion
	}
	s := &stream{sink: newSink(tb, dst.Netns, dst.DataIP), stop: make(chan struct{}), done: make(chan struct{})}
	conn := dial(tb, src.Netns, s.sink.ln.Addr())
	if p >= 0 {
		if err := SetPriority(conn.(*net.TCPConn), p); err != nil {
			tb.Fatal(err)
		}
	}
	if err := dataplane.SetCongestion(conn.(*net.TCPConn), cc); err != nil {
		tb.Fatal(err)
	}
	go func() {
		defer close(s.done)
		defer conn.Close()
		buf := make([]byte, 256<<10)
		for {
			select {
			case <-s.stop:
				return
			default:
			}
			if _, err := conn.Write(buf); err != nil {
				return
			}
		}
	}()
	tb.Cleanup(s.Stop)
	return s
}

// Stop stops the stream and waits until the sink has seen its end.
func (s *stream) Stop() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	<-s.sink.done
}
