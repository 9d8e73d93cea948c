package dataplane

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/worker/store"
)

// DELETE removes a stored object and frees its space; deleting what is not
// there succeeds, and the connection goes on being used.
func TestDeleteRemoves(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.Mem})
	c := NewClient(time.Second)
	defer c.Close()
	ctx := context.Background()
	if err := c.Push(ctx, nil, ts.addr, cluster.Mem, "out/a", strings.NewReader("hello"), 5); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, ts.addr, cluster.Mem, "out/a"); err != nil {
		t.Fatalf("delete: %v", err)
	}
	waitNothingStored(t, ts, cluster.Mem, "out/a")
	if err := c.Delete(ctx, ts.addr, cluster.Mem, "out/never"); err != nil {
		t.Errorf("delete of an object that is not there: %v", err)
	}
	if err := c.Delete(ctx, ts.addr, cluster.HDD, "out/a"); !errors.Is(err, store.ErrNoTier) {
		t.Errorf("delete on a tier the server lacks: %v, want no such tier", err)
	}
	ts.srv.deletedMu.Lock()
	remembered := ts.srv.deleted.has(deletedKey{cluster.HDD, "out/a"}, time.Now())
	ts.srv.deletedMu.Unlock()
	if remembered {
		t.Error("a refused DELETE left its key remembered")
	}
	if err := c.Delete(ctx, ts.addr, cluster.Mem, ""); err == nil {
		t.Error("delete of an empty key succeeded")
	}
	if err := c.Push(ctx, nil, ts.addr, cluster.Mem, "out/b", strings.NewReader("still"), 5); err != nil {
		t.Errorf("push after deletes: %v", err)
	}
	if st := ts.srv.Stats(); st.Errors != 1 {
		t.Errorf("server counted %d errors, want 1 (the absent tier)", st.Errors)
	}
}

// A copy still arriving when its writer deletes it is not stored: the
// DELETE lands while the PUT's bytes flow (the last replica of a pipeline
// whose writer gave up), and the PUT fails at its end; a PUT of the key
// after the DELETE fails at once.
func TestDeleteKeepsALateCopyOut(t *testing.T) {
	ts := newTestServer(t, store.TierConfig{Kind: cluster.Mem})
	c := NewClient(time.Second)
	defer c.Close()
	ctx := context.Background()
	const size = 3 << 20
	pr, pw := io.Pipe()
	pushed := make(chan error, 1)
	go func() { pushed <- c.Push(ctx, nil, ts.addr, cluster.Mem, "out/late", pr, size) }()
	if _, err := pw.Write(make([]byte, size/2)); err != nil {
		t.Fatal(err)
	}
	waitReceived(t, ts, size/2)
	if err := c.Delete(ctx, ts.addr, cluster.Mem, "out/late"); err != nil {
		t.Fatalf("delete during the push: %v", err)
	}
	go func() { pw.Write(make([]byte, size-size/2)); pw.Close() }()
	if err := <-pushed; !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "deleted") {
		t.Errorf("push of a key deleted meanwhile: %v, want deleted", err)
	}
	waitNothingStored(t, ts, cluster.Mem, "out/late")
	err := c.Push(ctx, nil, ts.addr, cluster.Mem, "out/late", strings.NewReader("again"), 5)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("push of a deleted key: %v, want deleted", err)
	}
	waitNothingStored(t, ts, cluster.Mem, "out/late")
}

// The last replica of a pipeline takes the DELETE of a copy that arrived
// through it like any other.
func TestDeleteAfterPipe(t *testing.T) {
	c, ts := pipeline(t)
	hops := []Hop{{Addr: ts[1].addr, Tier: cluster.HDD, Key: "out/d"}, {Addr: ts[2].addr, Tier: cluster.HDD, Key: "out/d"}}
	ctx := context.Background()
	if err := c.Push(ctx, nil, ts[0].addr, cluster.SSD, "out/d", strings.NewReader("piped"), 5, hops...); err != nil {
		t.Fatal(err)
	}
	for _, h := range hops {
		if err := c.Delete(ctx, h.Addr, h.Tier, h.Key); err != nil {
			t.Fatal(err)
		}
	}
	waitNothingStored(t, ts[1], cluster.HDD, "out/d")
	waitNothingStored(t, ts[2], cluster.HDD, "out/d")
}

// waitReceived waits for a server to have received n bytes of output.
func waitReceived(t *testing.T, ts *testServer, n int64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ts.srv.Stats().Received[Output] < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("server received %d bytes, want %d", ts.srv.Stats().Received[Output], n)
		}
	}
}

// Deleted keys are remembered for deletedTTL, then forgotten.
func TestTombstonesExpire(t *testing.T) {
	var tb tombstones
	t0 := time.Unix(1000, 0)
	a, b := deletedKey{cluster.Mem, "a"}, deletedKey{cluster.Mem, "b"}
	tb.add(a, t0)
	if !tb.has(a, t0) || tb.has(b, t0) {
		t.Fatal("a deleted key is not remembered, or another is")
	}
	// forgotten after deletedTTL, even with nothing deleted since
	if late := t0.Add(deletedTTL + time.Second); tb.has(a, late) {
		t.Error("a deleted key is remembered past deletedTTL")
	}
	// and dropped from the map by a later deletion
	tb.add(b, t0.Add(deletedTTL+time.Second))
	if _, kept := tb.at[a]; kept || !tb.has(b, t0.Add(deletedTTL+time.Second)) {
		t.Errorf("after deletedTTL: a kept %v, b remembered %v; want false, true", kept, tb.has(b, t0.Add(deletedTTL+time.Second)))
	}
}
