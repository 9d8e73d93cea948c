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
	"syscall"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"golang.org/x/sys/unix"
)

const (
	maxIdlePerAddr = 4
	clientIdleTime = 60 * time.Second // < serverIdleTimeout
	pushFrame      = 256 << 10        // DATA frame payload a Push sends
)

// Group is the set of sockets of one task attempt. Its DSCP starts as its
// class's default; SetDSCP re-marks every open socket of the group at both
// ends, and sockets that join later start with the current value.
type Group struct {
	class Class
	setMu sync.Mutex // serialises SetDSCP, so re-marks arrive in order

	mu    sync.Mutex
	dscp  uint8
	conns map[*cconn]struct{}
}

// NewGroup returns an empty group of a class, marked with DSCP(class).
func NewGroup(class Class) *Group {
	return &Group{class: class, dscp: DSCP(class), conns: make(map[*cconn]struct{})}
}

// Class returns the group's traffic class.
func (g *Group) Class() Class { return g.class }

// DSCP returns the group's current DSCP.
func (g *Group) DSCP() uint8 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.dscp
}

// SetDSCP re-marks the group: the client end of each of its open sockets at
// once, and the server end by a REMARK frame the server applies as soon as
// it reads it. During a PUT the frame waits for the DATA frame being sent
// (256 KiB), so SetDSCP may block for that long.
func (g *Group) SetDSCP(d uint8) error {
	if d > MaxDSCP {
		return fmt.Errorf("dscp %d out of range 0-%d", d, MaxDSCP)
	}
	g.setMu.Lock()
	defer g.setMu.Unlock()
	g.mu.Lock()
	g.dscp = d
	ccs := make([]*cconn, 0, len(g.conns))
	for cc := range g.conns {
		ccs = append(ccs, cc)
	}
	g.mu.Unlock()
	var errs []error
	for _, cc := range ccs {
		if err := cc.remark(g, d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// cconn is one client connection.
type cconn struct {
	c    *net.TCPConn
	addr string
	br   *bufio.Reader
	idle time.Time // when it went back to the pool

	wmu   sync.Mutex // serialises frames; guards owner
	owner *Group
}

// abort closes the connection with a reset, dropping unsent data, so the
// server notices at once even if it has a backlog to read.
func (cc *cconn) abort() {
	cc.c.SetLinger(0)
	cc.c.Close()
}

// remark re-marks the connection if it still belongs to g.
func (cc *cconn) remark(g *Group, d uint8) error {
	cc.wmu.Lock()
	defer cc.wmu.Unlock()
	if cc.owner != g {
		return nil // done with g's transfer meanwhile
	}
	if err := SetDSCP(cc.c, d); err != nil {
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		return fmt.Errorf("re-mark connection to %s: %w", cc.addr, err)
	}
	// A failed write means the connection is failing; its transfer will
	// say so.
	frame := appendRequest(make([]byte, 0, reqFixed+reqTail), &request{Op: opRemark, Class: g.class, DSCP: d})
	cc.c.Write(frame)
	return nil
}

// join makes cc g's, marks it with g's DSCP and sends the request header
// carrying that DSCP, all in one step with respect to g.SetDSCP.
func (cc *cconn) join(g *Group, req *request) error {
	g.mu.Lock()
	g.conns[cc] = struct{}{}
	g.mu.Unlock()
	cc.wmu.Lock()
	defer cc.wmu.Unlock()
	cc.owner = g
	req.DSCP = g.DSCP()
	if err := SetDSCP(cc.c, req.DSCP); err != nil {
		return err
	}
	_, err := cc.c.Write(appendRequest(make([]byte, 0, reqFixed+len(req.Key)+reqTail), req))
	return err
}

func (cc *cconn) leave(g *Group) {
	cc.wmu.Lock()
	cc.owner = nil
	cc.wmu.Unlock()
	g.mu.Lock()
	delete(g.conns, cc)
	g.mu.Unlock()
}

// alive reports whether a pooled connection is still open, without
// blocking: a server that closed it has sent a FIN (recv returns 0).
func (cc *cconn) alive() bool {
	if cc.br.Buffered() > 0 {
		return false
	}
	rc, err := cc.c.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		_, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		ok = err == unix.EAGAIN || err == unix.EWOULDBLOCK
		return true
	})
	return err == nil && ok
}

// ReadIdleTimeout is how long a fetch waits for the next bytes before it
// fails.
var ReadIdleTimeout = 30 * time.Second

// Client fetches from and pushes to data-plane servers, keeping a few idle
// connections per server for reuse. It is safe for concurrent use.
type Client struct {
	dialTimeout time.Duration

	mu         sync.Mutex
	idle       map[string][]*cconn
	closed     bool
	congestion string // of the sockets it dials ("": the system's)

	fetched [NumClasses]atomic.Int64
	pushed  [NumClasses]atomic.Int64
}

// ClientStats are a client's byte counters, by class.
type ClientStats struct {
	Fetched [NumClasses]int64
	Pushed  [NumClasses]int64
}

// NewClient returns a client whose dials give up after dialTimeout (0: no
// limit other than the context's).
func NewClient(dialTimeout time.Duration) *Client {
	return &Client{dialTimeout: dialTimeout, idle: make(map[string][]*cconn)}
}

// UseCongestion makes the sockets the client dials from now on use the
// named TCP congestion control ("": the system's default; see
// CheckCongestion). It returns the client.
func (c *Client) UseCongestion(name string) *Client {
	c.mu.Lock()
	c.congestion = name
	c.mu.Unlock()
	return c
}

// Stats returns the bytes fetched and pushed so far.
func (c *Client) Stats() ClientStats {
	var st ClientStats
	for k := range NumClasses {
		st.Fetched[k] = c.fetched[k].Load()
		st.Pushed[k] = c.pushed[k].Load()
	}
	return st
}

// Close closes the idle connections; later transfers do not pool theirs.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	idle := c.idle
	c.idle = make(map[string][]*cconn)
	c.mu.Unlock()
	for _, ccs := range idle {
		for _, cc := range ccs {
			cc.c.Close()
		}
	}
	return nil
}

// get returns a pooled connection to addr (reused=true) or dials one,
// marking its SYN with dscp.
func (c *Client) get(ctx context.Context, addr string, dscp uint8) (cc *cconn, reused bool, err error) {
	for {
		c.mu.Lock()
		ccs := c.idle[addr]
		if len(ccs) == 0 {
			c.mu.Unlock()
			break
		}
		cc = ccs[len(ccs)-1]
		c.idle[addr] = ccs[:len(ccs)-1]
		c.mu.Unlock()
		if time.Since(cc.idle) < clientIdleTime && cc.alive() {
			return cc, true, nil
		}
		cc.c.Close()
	}
	c.mu.Lock()
	congestion := c.congestion
	c.mu.Unlock()
	d := net.Dialer{
		Timeout: c.dialTimeout,
		Control: func(_, _ string, rc syscall.RawConn) error {
			var serr error
			if err := rc.Control(func(fd uintptr) {
				if serr = setTOS(int(fd), dscp); serr == nil {
					serr = setCongestion(int(fd), congestion)
				}
			}); err != nil {
				return err
			}
			return serr
		},
	}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	tc, ok := conn.(*net.TCPConn)
	if !ok {
		conn.Close()
		return nil, false, errNotTCP
	}
	return &cconn{c: tc, addr: addr, br: bufio.NewReaderSize(tc, 64<<10)}, false, nil
}

// put returns a healthy connection to the pool.
func (c *Client) put(cc *cconn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || len(c.idle[cc.addr]) >= maxIdlePerAddr {
		cc.c.Close()
		return
	}
	cc.idle = time.Now()
	c.idle[cc.addr] = append(c.idle[cc.addr], cc)
}

// Fetch GETs bytes [off, off+n) (n < 0: to the end) of key on tier from the
// server at addr and writes them to dst, returning the bytes received. The
// socket carries g's DSCP (a nil g is a fresh Input group). Cancelling ctx
// closes the connection and aborts the transfer.
func (c *Client) Fetch(ctx context.Context, g *Group, addr string, tier cluster.TierKind, key string, off, n int64, dst io.Writer) (int64, error) {
	if g == nil {
		g = NewGroup(Input)
	}
	if err := checkKey(key); err != nil {
		return 0, fmt.Errorf("dataplane: fetch %s from %s: %w", tier, addr, err)
	}
	wrap := func(err error) error {
		return fmt.Errorf("dataplane: fetch %s %q [%d, +%d) from %s: %w", tier, key, off, n, addr, err)
	}
	if n < -1 {
		n = -1
	}
	for attempt := 0; ; attempt++ {
		cc, reused, err := c.get(ctx, addr, g.DSCP())
		if err != nil {
			return 0, wrap(err)
		}
		req := request{Op: opGet, Class: g.class, Tier: tier, Key: key, Off: off, Len: n}
		stop := context.AfterFunc(ctx, cc.abort)
		got, stale, err := c.fetchOn(cc, g, &req, dst)
		if !stop() {
			// ctx closed the connection; a transfer it cut short fails
			// with ctx's error.
			if err != nil {
				return got, wrap(ctx.Err())
			}
			return got, nil
		}
		if err == nil {
			c.put(cc)
			return got, nil
		}
		cc.c.Close()
		if stale && reused && attempt == 0 {
			continue // the server had closed the pooled connection: redial once
		}
		return got, wrap(err)
	}
}

// fetchOn runs a GET on cc. stale reports a failure before any response
// byte arrived, as on a pooled connection the server had closed.
func (c *Client) fetchOn(cc *cconn, g *Group, req *request, dst io.Writer) (got int64, stale bool, err error) {
	defer cc.leave(g)
	if err := cc.join(g, req); err != nil {
		return 0, true, err
	}
	resp, err := parseResponse(cc.br)
	if err != nil {
		return 0, isStale(err), fmt.Errorf("reading response: %w", err)
	}
	if resp.Status != StatusOK {
		return 0, false, &RemoteError{Status: resp.Status, Msg: resp.Msg}
	}
	if req.Len >= 0 && resp.Len != req.Len {
		return 0, false, fmt.Errorf("server sends %d bytes, asked for %d", resp.Len, req.Len)
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	// a server whose host vanished without a reset sends nothing more:
	// give up after a silence no paced tier comes near, rather than after
	// TCP's minutes
	defer cc.c.SetReadDeadline(time.Time{})
	for got < resp.Len {
		k := min(int64(len(buf)), resp.Len-got)
		_ = cc.c.SetReadDeadline(time.Now().Add(ReadIdleTimeout))
		m, rerr := cc.br.Read(buf[:k])
		if m > 0 {
			w, werr := dst.Write(buf[:m])
			got += int64(w)
			c.fetched[g.class].Add(int64(w))
			if werr == nil && w < m {
				werr = io.ErrShortWrite
			}
			if werr != nil {
				return got, false, fmt.Errorf("writing after %d of %d bytes: %w", got, resp.Len, werr)
			}
		}
		if rerr != nil {
			if rerr == io.EOF {
				rerr = io.ErrUnexpectedEOF
			}
			return got, false, fmt.Errorf("after %d of %d bytes: %w", got, resp.Len, rerr)
		}
	}
	return got, false, nil
}

// isStale reports whether reading a response failed as it does on a pooled
// connection the server had closed: nothing came, or the connection was
// reset.
func isStale(err error) bool {
	return err == io.EOF || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// Push sends n bytes from src to the server at addr, to be stored under key
// on tier; the server commits the object only when all n bytes have
// arrived, and Push returns nil only once it has. The socket carries g's
// DSCP (a nil g is a fresh Output group). Cancelling ctx, a short src or an
// error from the server (no space, say, which it may report before all the
// bytes are sent) aborts the transfer, and nothing is stored.
//
// With hops, the push is HDFS's write pipeline: the server at addr
// forwards the bytes to the first hop as it writes them, that one to the
// next, and Push returns nil only once every replica has committed the
// object (an error names the replica that failed).
func (c *Client) Push(ctx context.Context, g *Group, addr string, tier cluster.TierKind, key string, src io.Reader, n int64, hops ...Hop) (err error) {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("dataplane: push %s to %s: %w", tier, addr, err)
	}
	if g == nil {
		g = NewGroup(Output)
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("dataplane: push %s %q (%d bytes) to %s: %w", tier, key, n, addr, err)
		}
	}()
	if n < 0 {
		return fmt.Errorf("negative length")
	}
	if err := checkHops(hops); err != nil {
		return err
	}
	cc, _, err := c.get(ctx, addr, g.DSCP())
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if ok {
			c.put(cc)
		} else {
			cc.abort()
		}
	}()
	stop := context.AfterFunc(ctx, cc.abort)
	defer func() {
		if !stop() {
			// ctx closed the connection. A push it cut short fails with
			// ctx's error; one the server had committed succeeded.
			ok = false
			if err != nil {
				err = ctx.Err()
			}
		}
	}()
	defer cc.leave(g)
	req := request{Op: opPut, Class: g.class, Tier: tier, Key: key, Len: n}
	if len(hops) > 0 {
		req.Op, req.Hops = opPipe, hops
	}
	if err := cc.join(g, &req); err != nil {
		return err
	}
	type result struct {
		resp response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		r, err := parseResponse(cc.br)
		done <- result{r, err}
	}()
	// remote turns the server's early answer into the error to return.
	remote := func(r result) error {
		cc.abort()
		if r.err != nil {
			return fmt.Errorf("reading response: %w", r.err)
		}
		if r.resp.Status != StatusOK {
			return &RemoteError{Status: r.resp.Status, Msg: r.resp.Msg}
		}
		return fmt.Errorf("server answered before all bytes were sent")
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := (*bp)[:pushFrame]
	hdr := make([]byte, 0, reqFixed+reqTail)
	for sent := int64(0); sent < n; {
		k := min(int64(len(buf)), n-sent)
		m, rerr := io.ReadFull(src, buf[:k])
		if rerr != nil {
			cc.abort()
			<-done
			if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
				return fmt.Errorf("source ended after %d bytes", sent+int64(m))
			}
			return fmt.Errorf("reading source after %d bytes: %w", sent+int64(m), rerr)
		}
		select {
		case r := <-done:
			return remote(r)
		default:
		}
		hdr = appendRequest(hdr[:0], &request{Op: opData, Class: g.class, Len: k})
		bufs := net.Buffers{hdr, buf[:k]}
		cc.wmu.Lock()
		_, werr := bufs.WriteTo(cc.c)
		cc.wmu.Unlock()
		if werr != nil {
			// The server may have said why before closing.
			select {
			case r := <-done:
				return remote(r)
			case <-time.After(lingerTimeout):
				cc.abort()
				<-done
			}
			return fmt.Errorf("after %d bytes: %w", sent, werr)
		}
		sent += k
		c.pushed[g.class].Add(k)
	}
	r := <-done
	if r.err != nil {
		return fmt.Errorf("reading response: %w", r.err)
	}
	if r.resp.Status != StatusOK {
		return &RemoteError{Status: r.resp.Status, Msg: r.resp.Msg}
	}
	ok = true
	return nil
}

// checkKey refuses a key the protocol cannot carry: its length is a
// 16-bit field, and a longer key would be framed with its length modulo
// 65,536, the rest of it read by the server as further requests; the
// server refuses one over MaxKeyLen, but only if it reads its length right.
// Its error quotes only the key's start: a key refused for its length
// would fill a log line with 64 KiB.
func checkKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("empty key")
	case len(key) > MaxKeyLen:
		return fmt.Errorf("key %q… of %d bytes (at most %d)", key[:32], len(key), MaxKeyLen)
	}
	return nil
}

// checkHops refuses a hop list the protocol cannot carry.
func checkHops(hops []Hop) error {
	if len(hops) > MaxHops {
		return fmt.Errorf("%d hops (at most %d)", len(hops), MaxHops)
	}
	for i, h := range hops {
		switch {
		case h.Addr == "" || len(h.Addr) > MaxAddrLen:
			return fmt.Errorf("hop %d: address of %d bytes (1 to %d)", i, len(h.Addr), MaxAddrLen)
		case checkKey(h.Key) != nil:
			return fmt.Errorf("hop %d: %w", i, checkKey(h.Key))
		case int(h.Tier) >= cluster.NumTierKinds:
			return fmt.Errorf("hop %d: unknown tier %d", i, h.Tier)
		}
	}
	return nil
}
