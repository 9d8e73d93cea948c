package dataplane

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/worker/store"
)

type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

type testServer struct {
	st   *store.Store
	srv  *Server
	addr string
	log  *logBuf
	dirs map[cluster.TierKind]string
}

// newTestServer serves a store of the given tiers (Dir filled in) on
// loopback; it is closed at the end of the test.
func newTestServer(t testing.TB, tiers ...store.TierConfig) *testServer {
	t.Helper()
	base := t.TempDir()
	ts := &testServer{log: &logBuf{}, dirs: make(map[cluster.TierKind]string)}
	for i := range tiers {
		if tiers[i].Dir == "" {
			tiers[i].Dir = filepath.Join(base, tiers[i].Kind.String())
		}
		ts.dirs[tiers[i].Kind] = tiers[i].Dir
	}
	st, err := store.Open(tiers)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.st, ts.srv, ts.addr = st, NewServer(st, ts.log.logf), ln.Addr().String()
	served := make(chan error, 1)
	go func() { served <- ts.srv.Serve(ln) }()
	t.Cleanup(func() {
		ts.srv.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ts
}

func content(t testing.TB, st *store.Store, k cluster.TierKind, key string) []byte {
	t.Helper()
	r, _, err := st.OpenRange(k, key, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFetchRanges(t *testing.T) {
	ts := newTestServer(t,
		store.TierConfig{Kind: cluster.Mem},
		store.TierConfig{Kind: cluster.SSD, ReadBps: 400e6})
	c := NewClient(time.Second)
	defer c.Close()
	const size = 3<<20 + 12345
	for _, k := range []cluster.TierKind{cluster.Mem, cluster.SSD} {
		if _, err := ts.st.Generate(k, "ds/logs/000017", size, 9); err != nil {
			t.Fatal(err)
		}
		want := content(t, ts.st, k, "ds/logs/000017")
		g := NewGroup(Input)
		for _, r := range [][2]int64{{0, -1}, {0, 1}, {1, 1 << 20}, {size - 5, 5}, {size, 0}, {size, -1}, {777, -1}} {
			var b bytes.Buffer
			n, err := c.Fetch(context.Background(), g, ts.addr, k, "ds/logs/000017", r[0], r[1], &b)
			if err != nil {
				t.Fatalf("%s %v: %v", k, r, err)
			}
			end := int64(size)
			if r[1] >= 0 {
				end = r[0] + r[1]
			}
			if n != end-r[0] || !bytes.Equal(b.Bytes(), want[r[0]:end]) {
				t.Errorf("%s range %v: got %d bytes, wrong content or length", k, r, n)
			}
		}
	}
	st := servedAtLeast(ts.srv, Input, c.Stats().Fetched[Input])
	if st.Served[Input] != c.Stats().Fetched[Input] || st.Served[Input] == 0 {
		t.Errorf("served %d, fetched %d", st.Served[Input], c.Stats().Fetched[Input])
	}
	if st.Conns != 1 {
		t.Errorf("sequential fetches used %d connections, want 1 (pooled)", st.Conns)
	}
}

func TestFetchErrors(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.Mem})
	ts.st.Generate(cluster.Mem, "a", 100, 1)
	c := NewClient(time.Second)
	defer c.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		tier     cluster.TierKind
		key      string
		off, n   int64
		want     error
		wantStat Status
	}{
		{cluster.Mem, "missing/key", 0, -1, fs.ErrNotExist, StatusNotFound},
		{cluster.Mem, "a", 50, 51, store.ErrRange, StatusRange},
		{cluster.Mem, "a", 101, -1, store.ErrRange, StatusRange},
		{cluster.HDD, "a", 0, -1, store.ErrNoTier, StatusNoTier},
		{cluster.Mem, "../etc/passwd", 0, -1, store.ErrBadKey, StatusBadKey},
		{cluster.Mem, "a", -1, 1, nil, StatusBadRequest},
	} {
		_, err := c.Fetch(ctx, nil, ts.addr, tc.tier, tc.key, tc.off, tc.n, io.Discard)
		var re *RemoteError
		if !errors.As(err, &re) || re.Status != tc.wantStat || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("fetch %s %q [%d,%d): %v, want %v / %v", tc.tier, tc.key, tc.off, tc.n, err, tc.want, tc.wantStat)
			continue
		}
		if !strings.Contains(err.Error(), ts.addr) || !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.key)) {
			t.Errorf("error %q does not name the address and key", err)
		}
	}
	if _, err := c.Fetch(ctx, nil, ts.addr, cluster.Mem, "a", 0, -1, io.Discard); err != nil {
		t.Errorf("fetch after errors: %v", err)
	}
	if ts.log.String() == "" {
		t.Error("errors were not logged")
	}
	// Nothing listening.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	if _, err := c.Fetch(ctx, nil, dead, cluster.Mem, "a", 0, -1, io.Discard); err == nil || !strings.Contains(err.Error(), dead) {
		t.Errorf("fetch from a dead address: %v", err)
	}
}

func TestPushCommit(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.SSD}, store.TierConfig{Kind: cluster.HDD, WriteBps: 200e6})
	c := NewClient(time.Second)
	defer c.Close()
	for _, k := range []cluster.TierKind{cluster.SSD, cluster.HDD} {
		for _, size := range []int64{0, 1, pushFrame, 5<<20 + 3} {
			var src bytes.Buffer
			store.GenContent(&src, "out/a1234", size, 5)
			key := fmt.Sprintf("out/a1234/%d", size)
			if err := c.Push(context.Background(), NewGroup(Output), ts.addr, k, key, &src, size); err != nil {
				t.Fatalf("%s size %d: %v", k, size, err)
			}
			if sum, err := ts.st.Checksum(k, key); err != nil || sum != store.GenChecksum("out/a1234", size, 5) {
				t.Errorf("%s size %d: checksum %x, %v", k, size, sum, err)
			}
		}
	}
	st := ts.srv.Stats()
	want := 2 * (1 + pushFrame + 5<<20 + 3)
	if st.Received[Output] != int64(want) || c.Stats().Pushed[Output] != int64(want) {
		t.Errorf("received %d, pushed %d, want %d", st.Received[Output], c.Stats().Pushed[Output], want)
	}
	// Overwrite, then fetch back.
	if err := c.Push(context.Background(), nil, ts.addr, cluster.SSD, "out/x", strings.NewReader("hello"), 5); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := c.Fetch(context.Background(), nil, ts.addr, cluster.SSD, "out/x", 0, -1, &b); err != nil || b.String() != "hello" {
		t.Errorf("fetch back: %q, %v", b.String(), err)
	}
}

// failingReader returns n bytes, then an error.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("disk on fire")
	}
	k := min(len(p), r.n)
	r.n -= k
	return k, nil
}

// waitNothingStored waits for the server to drop an aborted upload: no
// object, no temporary file, and no more bytes in use than before.
func waitNothingStored(t *testing.T, ts *testServer, k cluster.TierKind, key string) {
	t.Helper()
	waitNothingStoredUsed(t, ts, k, key, 0)
}

func waitNothingStoredUsed(t *testing.T, ts *testServer, k cluster.TierKind, key string, used int64) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		_, err := ts.st.Size(k, key)
		tmp, _ := os.ReadDir(filepath.Join(ts.dirs[k], ".racklab-tmp"))
		if errors.Is(err, fs.ErrNotExist) && len(tmp) == 0 && ts.st.Used(k) == used {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after abort: Size err %v, %d temp files, %d bytes used", err, len(tmp), ts.st.Used(k))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPushAborted(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.SSD, Capacity: 4 << 20})
	c := NewClient(time.Second)
	defer c.Close()
	ctx := context.Background()

	err := c.Push(ctx, nil, ts.addr, cluster.SSD, "out/a", &failingReader{n: 1<<20 + 17}, 3<<20)
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("push from a failing source: %v", err)
	}
	waitNothingStored(t, ts, cluster.SSD, "out/a")

	err = c.Push(ctx, nil, ts.addr, cluster.SSD, "out/a", strings.NewReader("short"), 3<<20)
	if err == nil || !strings.Contains(err.Error(), "source ended") {
		t.Errorf("push from a short source: %v", err)
	}
	waitNothingStored(t, ts, cluster.SSD, "out/a")

	// Too big for the tier: refused up front.
	start := time.Now()
	err = c.Push(ctx, nil, ts.addr, cluster.SSD, "out/big", io.LimitReader(zeros{}, 64<<20), 64<<20)
	if !errors.Is(err, store.ErrNoSpace) {
		t.Errorf("push past capacity: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusal took %v", d)
	}
	waitNothingStored(t, ts, cluster.SSD, "out/big")

	// The server is still fine.
	if err := c.Push(ctx, nil, ts.addr, cluster.SSD, "out/ok", strings.NewReader("fine"), 4); err != nil {
		t.Errorf("push after aborts: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestContextCancel(t *testing.T) {
	ts := newTestServer(t,
		store.TierConfig{Kind: cluster.HDD, ReadBps: 1 << 20, WriteBps: 1 << 20})
	// Write an 8 MiB object without waiting 8 s for the paced tier.
	f, err := os.Create(filepath.Join(ts.dirs[cluster.HDD], "big"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(8 << 20)
	f.Close()
	c := NewClient(time.Second)
	defer c.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	n, err := c.Fetch(ctx, nil, ts.addr, cluster.HDD, "big", 0, -1, io.Discard)
	if !errors.Is(err, context.DeadlineExceeded) || n >= 8<<20 {
		t.Errorf("cancelled fetch: %d bytes, %v", n, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancelled fetch returned after %v", d)
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel2)
	start = time.Now()
	err = c.Push(ctx2, nil, ts.addr, cluster.HDD, "out/p", io.LimitReader(zeros{}, 8<<20), 8<<20)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled push: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancelled push returned after %v", d)
	}
	waitNothingStored(t, ts, cluster.HDD, "out/p")
}

// servedAtLeast waits, up to 5 s, for the server to have counted want
// bytes of a class and returns its stats: a GET's bytes are counted when
// its sendfile returns, which can be just after the client has read them.
func servedAtLeast(srv *Server, c Class, want int64) ServerStats {
	deadline := time.Now().Add(5 * time.Second)
	for {
		st := srv.Stats()
		if st.Served[c] >= want || time.Now().After(deadline) {
			return st
		}
		time.Sleep(time.Millisecond)
	}
}

func TestConcurrentFetches(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.Mem}, store.TierConfig{Kind: cluster.SSD, ReadBps: 300e6})
	const size = 4 << 20
	for _, k := range []cluster.TierKind{cluster.Mem, cluster.SSD} {
		ts.st.Generate(k, "obj", size, 3)
	}
	want := content(t, ts.st, cluster.Mem, "obj")
	c := NewClient(time.Second)
	defer c.Close()
	g := NewGroup(Shuffle)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Go(func() {
			k := cluster.TierKind(i % 2)
			off := int64(i) * 200_000
			for range 3 {
				var b bytes.Buffer
				n, err := c.Fetch(context.Background(), g, ts.addr, k, "obj", off, 1<<20, &b)
				if err != nil {
					errs <- err
					return
				}
				if n != 1<<20 || !bytes.Equal(b.Bytes(), want[off:off+1<<20]) {
					errs <- fmt.Errorf("fetch %d: wrong bytes", i)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := servedAtLeast(ts.srv, Shuffle, 16*3<<20).Served[Shuffle]; got != 16*3<<20 {
		t.Errorf("served %d", got)
	}
}

func TestPooledConnectionServerRestart(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.Mem})
	ts.st.Generate(cluster.Mem, "a", 1000, 1)
	c := NewClient(time.Second)
	defer c.Close()
	if _, err := c.Fetch(context.Background(), nil, ts.addr, cluster.Mem, "a", 0, -1, io.Discard); err != nil {
		t.Fatal(err)
	}
	ts.srv.Close() // closes the pooled connection's server end
	ln, err := net.Listen("tcp", ts.addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", ts.addr, err)
	}
	srv2 := NewServer(ts.st, t.Logf)
	go srv2.Serve(ln)
	defer srv2.Close()
	if _, err := c.Fetch(context.Background(), nil, ts.addr, cluster.Mem, "a", 0, -1, io.Discard); err != nil {
		t.Errorf("fetch after the server restarted: %v", err)
	}
	if err := c.Push(context.Background(), nil, ts.addr, cluster.Mem, "b", strings.NewReader("x"), 1); err != nil {
		t.Errorf("push after the server restarted: %v", err)
	}
}

// rawRequest encodes a request header field by field, so tests can break it.
func rawRequest(magic string, version byte, o op, class Class, dscp uint8, tier uint8, key string, keyLen int, off, n int64) []byte {
	b := []byte(magic)
	b = append(b, version, byte(o), byte(class), dscp, tier)
	b = binary.BigEndian.AppendUint16(b, uint16(keyLen))
	b = append(b, key...)
	b = binary.BigEndian.AppendUint64(b, uint64(off))
	return binary.BigEndian.AppendUint64(b, uint64(n))
}

func TestMalformedRequests(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.Mem})
	ts.st.Generate(cluster.Mem, "a", 100, 1)
	long := strings.Repeat("k", MaxKeyLen+1)
	for _, tc := range []struct {
		name string
		req  []byte
		want Status // 255: no response, just a close
	}{
		{"bad magic", rawRequest("HTTP", 1, opGet, 0, 0, 0, "a", 1, 0, -1), StatusBadRequest},
		{"http", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), StatusBadRequest},
		{"bad version", rawRequest(reqMagic, 9, opGet, 0, 0, 0, "a", 1, 0, -1), StatusBadRequest},
		{"unknown op", rawRequest(reqMagic, 1, 77, 0, 0, 0, "a", 1, 0, -1), StatusBadRequest},
		{"unknown class", rawRequest(reqMagic, 1, opGet, NumClasses, 0, 0, "a", 1, 0, -1), StatusBadRequest},
		{"bad dscp", rawRequest(reqMagic, 1, opGet, 0, 64, 0, "a", 1, 0, -1), StatusBadRequest},
		{"unknown tier", rawRequest(reqMagic, 1, opGet, 0, 0, 9, "a", 1, 0, -1), StatusBadRequest},
		{"absent tier", rawRequest(reqMagic, 1, opGet, 0, 0, uint8(cluster.HDD), "a", 1, 0, -1), StatusNoTier},
		{"oversize key", rawRequest(reqMagic, 1, opGet, 0, 0, 0, long, len(long), 0, -1), StatusBadRequest},
		{"bad key", rawRequest(reqMagic, 1, opGet, 0, 0, 0, "/a", 2, 0, -1), StatusBadKey},
		{"range out of bounds", rawRequest(reqMagic, 1, opGet, 0, 0, 0, "a", 1, 90, 11), StatusRange},
		{"negative offset", rawRequest(reqMagic, 1, opGet, 0, 0, 0, "a", 1, -5, 1), StatusBadRequest},
		{"unknown key", rawRequest(reqMagic, 1, opGet, 0, 0, 0, "b", 1, 0, -1), StatusNotFound},
		{"data outside put", rawRequest(reqMagic, 1, opData, 0, 0, 0, "", 0, 0, 5), StatusBadRequest},
		{"huge data frame", append(rawRequest(reqMagic, 1, opPut, 0, 0, 0, "p", 1, 0, 1<<30), rawRequest(reqMagic, 1, opData, 0, 0, 0, "", 0, 0, MaxDataFrame+1)...), StatusBadRequest},
		{"data past put", append(rawRequest(reqMagic, 1, opPut, 0, 0, 0, "p", 1, 0, 3), rawRequest(reqMagic, 1, opData, 0, 0, 0, "", 0, 0, 4)...), StatusBadRequest},
		{"get inside put", append(rawRequest(reqMagic, 1, opPut, 0, 0, 0, "p", 1, 0, 3), rawRequest(reqMagic, 1, opGet, 0, 0, 0, "a", 1, 0, 3)...), StatusBadRequest},
		{"remark with key", rawRequest(reqMagic, 1, opRemark, 0, 0, 0, "a", 1, 0, 0), StatusBadRequest},
		{"delete without key", rawRequest(reqMagic, 1, opDelete, 0, 0, 0, "", 0, 0, 0), StatusBadRequest},
		{"delete with length", rawRequest(reqMagic, 1, opDelete, 0, 0, 0, "a", 1, 0, 5), StatusBadRequest},
		{"delete of a bad key", rawRequest(reqMagic, 1, opDelete, 0, 0, 0, "/a", 2, 0, 0), StatusBadKey},
		{"delete on an absent tier", rawRequest(reqMagic, 1, opDelete, 0, 0, uint8(cluster.HDD), "a", 1, 0, 0), StatusNoTier},
		{"pipe without hops", append(rawRequest(reqMagic, 1, opPipe, 0, 0, 0, "p", 1, 0, 3), 0, 0), StatusBadRequest},
		{"pipe of too many hops", append(rawRequest(reqMagic, 1, opPipe, 0, 0, 0, "p", 1, 0, 3), 0xff, 0xff), StatusBadRequest},
		{"pipe hop of unknown tier", append(rawRequest(reqMagic, 1, opPipe, 0, 0, 0, "p", 1, 0, 3), 0, 1, 3, 'h', ':', '1', 9, 0, 1, 'p'), StatusBadRequest},
		{"pipe to a server that does not forward", append(rawRequest(reqMagic, 1, opPipe, 0, 0, 0, "p", 1, 0, 3), 0, 1, 3, 'h', ':', '1', 0, 0, 1, 'p'), StatusBadRequest},
		{"truncated header", []byte("RLDP\x01\x01"), 255},
		{"truncated key", rawRequest(reqMagic, 1, opGet, 0, 0, 0, "a", 10, 0, -1)[:14], 255},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", ts.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			conn.Write(tc.req)
			if tc.want == 255 {
				conn.(*net.TCPConn).CloseWrite()
			}
			resp, err := parseResponse(conn)
			if tc.want == 255 {
				if err == nil {
					t.Errorf("got a response %+v", resp)
				}
				return
			}
			if err != nil {
				t.Fatalf("no response: %v", err)
			}
			if resp.Status != tc.want || resp.Msg == "" {
				t.Errorf("response %+v, want status %v", resp, tc.want)
			}
			// Then the server closes the connection.
			if n, err := conn.Read(make([]byte, 1)); err != io.EOF {
				t.Errorf("after the error response: read %d, %v; want EOF", n, err)
			}
		})
	}
	if !strings.Contains(ts.log.String(), "bad magic") || !strings.Contains(ts.log.String(), "unknown op") {
		t.Errorf("log:\n%s", ts.log)
	}
	waitNothingStoredUsed(t, ts, cluster.Mem, "p", 100)
	c := NewClient(time.Second)
	defer c.Close()
	if n, err := c.Fetch(context.Background(), nil, ts.addr, cluster.Mem, "a", 0, -1, io.Discard); err != nil || n != 100 {
		t.Errorf("fetch after bad requests: %d, %v", n, err)
	}
}

func TestClassesAndDSCP(t *testing.T) {
	want := map[Class]uint8{Control: 48, Input: 10, Shuffle: 18, Dependent: 26, Output: 34, Duplicate: 8, Background: 1}
	for c := range NumClasses {
		if DSCP(c) != want[c] {
			t.Errorf("DSCP(%v) = %d", c, DSCP(c))
		}
		if p, err := ParseClass(c.String()); err != nil || p != c {
			t.Errorf("ParseClass(%q) = %v, %v", c.String(), p, err)
		}
	}
	if _, err := ParseClass("bulk"); err == nil {
		t.Error("ParseClass accepted bulk")
	}
	if NumClasses.String() != "class(7)" {
		t.Errorf("NumClasses.String() = %q", NumClasses.String())
	}
	for _, network := range []string{"tcp4", "tcp6"} {
		ln, err := net.Listen(network, map[string]string{"tcp4": "127.0.0.1:0", "tcp6": "[::1]:0"}[network])
		if err != nil {
			t.Logf("%s: %v", network, err)
			continue
		}
		go func() {
			c, err := ln.Accept()
			if err == nil {
				defer c.Close()
				io.Copy(io.Discard, c)
			}
		}()
		conn, err := net.Dial(network, ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		tc := conn.(*net.TCPConn)
		for _, d := range []uint8{0, 1, 46, 63} {
			if err := SetDSCP(tc, d); err != nil {
				t.Fatalf("%s: SetDSCP(%d): %v", network, d, err)
			}
			if got, err := GetDSCP(tc); err != nil || got != d {
				t.Errorf("%s: GetDSCP = %d, %v, want %d", network, got, err, d)
			}
		}
		if err := SetDSCP(tc, 64); err == nil {
			t.Error("SetDSCP(64) succeeded")
		}
		conn.Close()
		ln.Close()
	}
	if err := NewGroup(Input).SetDSCP(64); err == nil {
		t.Error("Group.SetDSCP(64) succeeded")
	}
}

// TestServerSurvivesGarbage throws random bytes, some behind a valid
// header prefix, at the server on many connections.
func TestServerSurvivesGarbage(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.Mem})
	ts.st.Generate(cluster.Mem, "a", 1000, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	var wg sync.WaitGroup
	for i := range 200 {
		b := make([]byte, rng.IntN(200))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		if i%2 == 0 {
			prefix := rawRequest(reqMagic, 1, op(1+rng.IntN(4)), Class(rng.IntN(8)), uint8(rng.IntN(70)), uint8(rng.IntN(4)), "a", 1, int64(rng.IntN(2000))-1, int64(rng.IntN(2000))-1)
			b = append(prefix[:rng.IntN(len(prefix)+1)], b...)
		}
		wg.Go(func() {
			conn, err := net.Dial("tcp", ts.addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			conn.Write(b)
			conn.(*net.TCPConn).CloseWrite()
			io.Copy(io.Discard, conn)
		})
	}
	wg.Wait()
	c := NewClient(time.Second)
	defer c.Close()
	if n, err := c.Fetch(context.Background(), nil, ts.addr, cluster.Mem, "a", 0, -1, io.Discard); err != nil || n != 1000 {
		t.Errorf("fetch after garbage: %d, %v", n, err)
	}
}

// The client refuses a key its 16-bit length field cannot carry, for
// every request: before, Fetch and Push sent a 65,537-byte key with the
// length 1, and the server read the rest as further requests (a GET of
// another object, whose bytes the fetch returned as its own).
func TestClientRefusesOverlongKeys(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.Mem})
	c := NewClient(time.Second)
	defer c.Close()
	ctx := context.Background()
	if err := c.Push(ctx, nil, ts.addr, cluster.Mem, "a", strings.NewReader("SECRET-A"), 8); err != nil {
		t.Fatal(err)
	}
	long := "a" + strings.Repeat("k", 1<<16)
	var out bytes.Buffer
	if _, err := c.Fetch(ctx, nil, ts.addr, cluster.Mem, long, 0, -1, &out); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("of 65537 bytes (at most %d)", MaxKeyLen)) || out.Len() > 0 {
		t.Errorf("fetch: err %v, %d bytes", err, out.Len())
	}
	if err := c.Push(ctx, nil, ts.addr, cluster.Mem, long, strings.NewReader("x"), 1); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("of 65537 bytes (at most %d)", MaxKeyLen)) {
		t.Errorf("push: err %v", err)
	}
	if err := c.Delete(ctx, ts.addr, cluster.Mem, long); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("of 65537 bytes (at most %d)", MaxKeyLen)) {
		t.Errorf("delete: err %v", err)
	}
}

// A PUT whose header claims nearly 2^63 bytes is refused for space, and
// the tier's capacity holds for the pushes after it.
func TestHugePutLeavesCapacityWhole(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.Mem, Capacity: 1 << 20})
	c := NewClient(time.Second)
	defer c.Close()
	ctx := context.Background()
	if err := c.Push(ctx, nil, ts.addr, cluster.Mem, "x/small", bytes.NewReader(make([]byte, 10)), 10); err != nil {
		t.Fatal(err)
	}
	raw, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Write(rawRequest(reqMagic, 1, opPut, Output, DSCP(Output), uint8(cluster.Mem), "x/huge", 6, 0, math.MaxInt64)); err != nil {
		t.Fatal(err)
	}
	var status [1]byte
	raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(raw, status[:]); err != nil {
		t.Fatalf("no answer to the huge PUT: %v", err)
	}
	if used := ts.st.Used(cluster.Mem); used != 10 {
		t.Errorf("used %d after the huge PUT, want 10", used)
	}
	if err := c.Push(ctx, nil, ts.addr, cluster.Mem, "x/big", bytes.NewReader(make([]byte, 2<<20)), 2<<20); err == nil {
		t.Error("a 2 MiB push into a 1 MiB tier succeeded")
	}
}
