package dataplane

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/racklab/racklab/worker/store"
	"golang.org/x/sys/unix"
)

const (
	// serverIdleTimeout closes a connection that sends nothing between
	// requests (or within a PUT) for this long.
	serverIdleTimeout = 5 * time.Minute
	// lingerTimeout bounds how long a connection that got an error
	// response is drained before it is closed.
	lingerTimeout = 2 * time.Second
	// bufSize is the size of the bulk buffers on both ends.
	bufSize = 512 << 10
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}

// Server serves a store over the data-plane protocol.
type Server struct {
	st   *store.Store
	logf func(format string, args ...any)

	mu     sync.Mutex
	lns    map[net.Listener]struct{}
	conns  map[*sconn]struct{}
	closed bool
	wg     sync.WaitGroup

	served   [NumClasses]atomic.Int64
	received [NumClasses]atomic.Int64
	requests atomic.Int64
	errs     atomic.Int64

	fwd *Client // forwards PIPE requests; nil: they are refused

	// deleted holds the objects DELETE removed, for a while, so that a
	// PUT of one of them still under way does not commit it afterwards
	// (delete.go); deletedMu also orders such a commit with a DELETE.
	deletedMu sync.Mutex
	deleted   tombstones
}

// ServerStats are a server's counters since it was made.
type ServerStats struct {
	Served   [NumClasses]int64 // GET bytes sent, by class
	Received [NumClasses]int64 // PUT bytes received, by class
	Requests int64             // GET, PUT, PIPE and DELETE requests
	Errors   int64             // requests answered with an error, or cut short
	Conns    int               // open connections
}

// ConnInfo describes one open server connection.
type ConnInfo struct {
	Remote, Local string
	Op            string // "GET", "PUT", "PIPE", "DELETE" or "" when idle
	Class         Class  // of the current or last request
	Key           string // of the current or last request
	DSCP          uint8  // as read from the socket
}

// sconn is one server connection.
type sconn struct {
	c      *net.TCPConn
	remote string

	mu    sync.Mutex
	op    op
	class Class
	key   string
}

func (sc *sconn) setState(o op, c Class, key string) {
	sc.mu.Lock()
	sc.op, sc.class, sc.key = o, c, key
	sc.mu.Unlock()
}

// NewServer returns a server of st. logf (nil for none) gets a line per bad
// request or failed transfer.
func NewServer(st *store.Store, logf func(format string, args ...any)) *Server {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Server{st: st, logf: logf, lns: make(map[net.Listener]struct{}), conns: make(map[*sconn]struct{})}
}

// ForwardWith makes the server take PIPE requests (HDFS's write pipeline:
// a push whose bytes go on to further replicas), forwarding them with c.
// Without it the server refuses them.
func (s *Server) ForwardWith(c *Client) {
	s.mu.Lock()
	s.fwd = c
	s.mu.Unlock()
}

// Serve accepts connections on ln until Close, then returns nil.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.lns, ln)
		s.mu.Unlock()
	}()
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.logf("dataplane: accept: %v; retrying in %v", err, backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		tc, ok := c.(*net.TCPConn)
		if !ok {
			s.logf("dataplane: %s: %v", c.RemoteAddr(), errNotTCP)
			c.Close()
			continue
		}
		sc := &sconn{c: tc, remote: tc.RemoteAddr().String()}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			tc.Close()
			return nil
		}
		s.conns[sc] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.handle(sc)
	}
}

// Close stops every Serve, closes all connections (aborting their
// transfers) and waits for their handlers to finish.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	var err error
	for ln := range s.lns {
		if e := ln.Close(); e != nil && !errors.Is(e, net.ErrClosed) {
			err = e
		}
	}
	for sc := range s.conns {
		sc.c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// Stats returns the server's counters.
func (s *Server) Stats() ServerStats {
	var st ServerStats
	for c := range NumClasses {
		st.Served[c] = s.served[c].Load()
		st.Received[c] = s.received[c].Load()
	}
	st.Requests = s.requests.Load()
	st.Errors = s.errs.Load()
	s.mu.Lock()
	st.Conns = len(s.conns)
	s.mu.Unlock()
	return st
}

// Conns describes the open connections, with the DSCP each socket marks
// its packets with now.
func (s *Server) Conns() []ConnInfo {
	s.mu.Lock()
	scs := make([]*sconn, 0, len(s.conns))
	for sc := range s.conns {
		scs = append(scs, sc)
	}
	s.mu.Unlock()
	out := make([]ConnInfo, 0, len(scs))
	for _, sc := range scs {
		ci := ConnInfo{Remote: sc.remote, Local: sc.c.LocalAddr().String()}
		sc.mu.Lock()
		if sc.op != 0 {
			ci.Op = sc.op.String()
		}
		ci.Class, ci.Key = sc.class, sc.key
		sc.mu.Unlock()
		ci.DSCP, _ = GetDSCP(sc.c)
		out = append(out, ci)
	}
	return out
}

// handle runs one connection: it reads frames one after another. A GET's
// data is sent by a second goroutine, so that REMARK frames arriving while
// it runs are applied at once.
func (s *Server) handle(sc *sconn) {
	br := bufio.NewReaderSize(sc.c, 64<<10)
	var sending chan struct{} // closed when the running GET is done
	var getBusy atomic.Bool
	defer func() {
		sc.c.Close()
		if sending != nil {
			<-sending
		}
		s.mu.Lock()
		delete(s.conns, sc)
		s.mu.Unlock()
		s.wg.Done()
	}()
	for {
		// No idle timeout while a GET's data flows; the sender re-arms it
		// when done (check again in case it just did).
		if getBusy.Load() {
			sc.c.SetReadDeadline(time.Time{})
		}
		if !getBusy.Load() {
			sc.c.SetReadDeadline(time.Now().Add(serverIdleTimeout))
		}
		req, err := parseRequest(br)
		if err != nil {
			var pe *protoError
			switch {
			case errors.As(err, &pe):
				s.errs.Add(1)
				s.logf("dataplane: %s: %v", sc.remote, err)
				if getBusy.Load() {
					return // cannot answer in the middle of a GET's data
				}
				if sending != nil {
					<-sending
				}
				s.reject(sc, br, err)
			case err == io.EOF || errors.Is(err, net.ErrClosed):
			default:
				if !getBusy.Load() {
					s.logf("dataplane: %s: reading request: %v", sc.remote, err)
				}
			}
			return
		}
		switch req.Op {
		case opRemark:
			if err := SetDSCP(sc.c, req.DSCP); err != nil {
				s.logf("dataplane: %s: re-mark: %v", sc.remote, err)
			}
			continue
		case opData:
			s.errs.Add(1)
			err := badRequest("DATA outside a PUT")
			s.logf("dataplane: %s: %v", sc.remote, err)
			if getBusy.Load() {
				return
			}
			if sending != nil {
				<-sending
			}
			s.reject(sc, br, err)
			return
		}
		// GET, PUT, PIPE or DELETE. A client does not pipeline, but wait
		// for a running GET anyway.
		if sending != nil {
			<-sending
			sending = nil
		}
		s.requests.Add(1)
		sc.setState(req.Op, req.Class, req.Key)
		if err := SetDSCP(sc.c, req.DSCP); err != nil {
			s.logf("dataplane: %s: mark: %v", sc.remote, err)
		}
		if req.Op == opPut || req.Op == opPipe || req.Op == opDelete {
			ok := false
			if req.Op == opDelete {
				ok = s.remove(sc, br, &req)
			} else {
				ok = s.put(sc, br, &req)
			}
			if !ok {
				return
			}
			sc.setState(0, req.Class, req.Key)
			continue
		}
		rc, n, err := s.st.OpenRange(req.Tier, req.Key, req.Off, req.Len)
		if err != nil {
			s.errs.Add(1)
			s.logf("dataplane: %s: GET: %v", sc.remote, err)
			s.reject(sc, br, err)
			return
		}
		sending = make(chan struct{})
		getBusy.Store(true)
		go s.sendGet(sc, &req, rc, n, sending, &getBusy)
	}
}

// sendGet sends a GET's response and data, then re-arms the idle timeout.
func (s *Server) sendGet(sc *sconn, req *request, rc io.ReadCloser, n int64, done chan struct{}, busy *atomic.Bool) {
	defer close(done)
	defer rc.Close()
	hdr := appendResponse(make([]byte, 0, respFixed), &response{Status: StatusOK, Len: n})
	_, err := sc.c.Write(hdr)
	var sent int64
	if err == nil {
		// For an unpaced tier rc's WriteTo hands the file to the
		// TCPConn's ReadFrom: sendfile(2).
		sent, err = io.Copy(sc.c, rc)
		s.served[req.Class].Add(sent)
		if err == nil && sent != n {
			err = fmt.Errorf("sent %d of %d bytes", sent, n)
		}
	}
	if err != nil {
		s.errs.Add(1)
		s.logf("dataplane: %s: GET %s %q: %v", sc.remote, req.Tier, req.Key, err)
		sc.c.Close()
		return
	}
	sc.setState(0, req.Class, req.Key)
	busy.Store(false)
	sc.c.SetReadDeadline(time.Now().Add(serverIdleTimeout))
}

// put receives a PUT's DATA frames into the store and commits the object;
// a PIPE's go on to its next replica as they arrive, and the object is
// committed once the replicas after it have theirs. It reports whether the
// connection can go on.
func (s *Server) put(sc *sconn, br *bufio.Reader, req *request) bool {
	fail := func(err error) bool {
		s.errs.Add(1)
		s.logf("dataplane: %s: PUT %s %q: %v", sc.remote, req.Tier, req.Key, err)
		return false
	}
	if err := s.deletedBefore(req); err != nil {
		fail(err)
		s.reject(sc, br, err)
		return false
	}
	w, err := s.st.Create(req.Tier, req.Key)
	if err != nil {
		fail(err)
		s.reject(sc, br, err)
		return false
	}
	defer w.Abort() // no-op after Commit
	if err := w.Reserve(req.Len); err != nil {
		fail(err)
		s.reject(sc, br, err)
		return false
	}
	var fw *forward
	if len(req.Hops) > 0 {
		s.mu.Lock()
		c := s.fwd
		s.mu.Unlock()
		if c == nil {
			err := badRequest("PIPE to a server that does not forward")
			fail(err)
			s.reject(sc, br, err)
			return false
		}
		fw = startForward(c, req, sc.c)
		defer fw.abort() // no-op once it has ended
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	for got := int64(0); got < req.Len; {
		sc.c.SetReadDeadline(time.Now().Add(serverIdleTimeout))
		f, err := parseRequest(br)
		if err != nil {
			var pe *protoError
			if errors.As(err, &pe) {
				fail(err)
				s.reject(sc, br, err)
				return false
			}
			return fail(fmt.Errorf("aborted after %d of %d bytes: %w", got, req.Len, err))
		}
		switch {
		case f.Op == opRemark:
			if err := SetDSCP(sc.c, f.DSCP); err != nil {
				s.logf("dataplane: %s: re-mark: %v", sc.remote, err)
			}
			if fw != nil {
				// the pipeline's next hop carries the new mark too
				if err := fw.g.SetDSCP(f.DSCP); err != nil {
					s.logf("dataplane: %s: re-mark the forward: %v", sc.remote, err)
				}
			}
			continue
		case f.Op != opData:
			err := badRequest("%s inside a PUT", f.Op)
			fail(err)
			s.reject(sc, br, err)
			return false
		case f.Len > req.Len-got:
			err := badRequest("DATA past the PUT's %d bytes", req.Len)
			fail(err)
			s.reject(sc, br, err)
			return false
		}
		// A client that gives up closes the connection; the bytes it had
		// sent may take long to write at a paced tier's rate, so look at
		// the socket's state rather than waiting to read the FIN.
		if peerGone(sc.c) {
			return fail(fmt.Errorf("aborted by the client after %d of %d bytes", got, req.Len))
		}
		for left := f.Len; left > 0; {
			k := min(left, int64(len(buf)))
			m, err := io.ReadFull(br, buf[:k])
			s.received[req.Class].Add(int64(m))
			if err != nil {
				return fail(fmt.Errorf("aborted after %d of %d bytes: %w", got+int64(m), req.Len, err))
			}
			if _, err := w.Write(buf[:k]); err != nil {
				fail(err)
				s.reject(sc, br, err)
				return false
			}
			if fw != nil {
				if err := fw.write(buf[:k]); err != nil {
					fail(err)
					s.reject(sc, br, err)
					return false
				}
			}
			left -= k
			got += k
		}
	}
	if fw != nil {
		if err := fw.finish(); err != nil {
			fail(err)
			s.reject(sc, br, err)
			return false
		}
	}
	if err := s.commit(w, req); err != nil {
		fail(err)
		s.reject(sc, br, err)
		return false
	}
	resp := appendResponse(nil, &response{Status: StatusOK, Len: req.Len})
	if _, err := sc.c.Write(resp); err != nil {
		return fail(fmt.Errorf("committed, but: %w", err))
	}
	return true
}

// reject sends an error response, then half-closes the connection and
// drains what the client still sends for a while, so that the response is
// not lost to a reset. The caller then closes the connection.
func (s *Server) reject(sc *sconn, br *bufio.Reader, err error) {
	resp := appendResponse(nil, &response{Status: statusOf(err), Msg: err.Error()})
	sc.c.SetWriteDeadline(time.Now().Add(lingerTimeout))
	if _, err := sc.c.Write(resp); err != nil {
		return
	}
	sc.c.CloseWrite()
	sc.c.SetReadDeadline(time.Now().Add(lingerTimeout))
	io.Copy(io.Discard, br)
}

// peerGone reports whether the peer has closed or reset the connection (the
// socket is no longer ESTABLISHED), even if unread data remains.
func peerGone(c *net.TCPConn) bool {
	rc, err := c.SyscallConn()
	if err != nil {
		return true
	}
	gone := false
	rc.Control(func(fd uintptr) {
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		gone = err == nil && info.State != unix.BPF_TCP_ESTABLISHED
	})
	return gone
}

// forward is a PIPE's push to its next replica, fed as the bytes arrive.
type forward struct {
	g      *Group
	pw     *io.PipeWriter
	cancel context.CancelFunc
	done   chan error
	ended  bool
	err    error
}

// forwardWatch is how often a forward looks whether its upstream is gone.
const forwardWatch = 100 * time.Millisecond

// startForward pushes req's bytes to its first hop, with the hops after
// it, marked as req is. While a slow next hop holds the bytes back, the
// server reads nothing from upstream, so it would not see the writer give
// up: a watch stops the forward once the upstream connection is closed.
func startForward(c *Client, req *request, upstream *net.TCPConn) *forward {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	f := &forward{g: NewGroup(req.Class), pw: pw, cancel: cancel, done: make(chan error, 1)}
	f.g.SetDSCP(req.DSCP) // a parsed request's DSCP is in range
	next := req.Hops[0]
	go func() {
		err := c.Push(ctx, f.g, next.Addr, next.Tier, next.Key, pr, req.Len, req.Hops[1:]...)
		// a push that stopped early fails the writes still to come
		pr.CloseWithError(err)
		f.done <- err
	}()
	go func() {
		t := time.NewTicker(forwardWatch)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if peerGone(upstream) {
					cancel()
					return
				}
			}
		}
	}()
	return f
}

// write passes bytes on; its error is the push's.
func (f *forward) write(p []byte) error {
	if _, err := f.pw.Write(p); err != nil {
		f.pw.CloseWithError(err)
		return f.wait()
	}
	return nil
}

// finish ends the bytes and waits for the replicas after this one to
// commit.
func (f *forward) finish() error {
	f.pw.Close()
	return f.wait()
}

func (f *forward) wait() error {
	if !f.ended {
		f.err = <-f.done
		f.ended = true
	}
	return f.err
}

// abort stops a push that has not ended: nothing is stored past this
// replica.
func (f *forward) abort() {
	if !f.ended {
		f.pw.CloseWithError(errForwardAborted)
		f.cancel()
		f.wait()
	}
	f.cancel()
}

var errForwardAborted = errors.New("the pipeline's upstream stopped")
