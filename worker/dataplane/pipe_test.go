package dataplane

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/internal/stallnet"
	"github.com/racklab/racklab/worker/store"
)

// pipeline is three servers that forward, as a worker's does, and a
// client: a push to the first with the other two as hops is HDFS's write
// pipeline.
func pipeline(t *testing.T, last ...store.TierConfig) (*Client, [3]*testServer) {
	t.Helper()
	if len(last) == 0 {
		last = []store.TierConfig{{Kind: cluster.HDD}}
	}
	var ts [3]*testServer
	ts[0] = newTestServer(t, store.TierConfig{Kind: cluster.SSD})
	ts[1] = newTestServer(t, store.TierConfig{Kind: cluster.HDD, WriteBps: 200e6})
	ts[2] = newTestServer(t, last...)
	for _, s := range ts {
		fc := NewClient(time.Second)
		t.Cleanup(func() { fc.Close() })
		s.srv.ForwardWith(fc)
	}
	c := NewClient(time.Second)
	t.Cleanup(func() { c.Close() })
	return c, ts
}

// A PIPE stores the object on every replica of the pipeline, each byte
// arriving once at each, and answers only once all have committed.
func TestPipeStoresOnEveryReplica(t *testing.T) {
	c, ts := pipeline(t)
	const size = 5<<20 + 3
	hops := []Hop{{Addr: ts[1].addr, Tier: cluster.HDD, Key: "out/p"}, {Addr: ts[2].addr, Tier: cluster.HDD, Key: "out/p"}}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(store.GenContent(pw, "out/p", size, 3)) }()
	if err := c.Push(context.Background(), NewGroup(Output), ts[0].addr, cluster.SSD, "out/p", pr, size, hops...); err != nil {
		t.Fatal(err)
	}
	want := store.GenChecksum("out/p", size, 3)
	for i, k := range []cluster.TierKind{cluster.SSD, cluster.HDD, cluster.HDD} {
		if sum, err := ts[i].st.Checksum(k, "out/p"); err != nil || sum != want {
			t.Errorf("replica %d: checksum %x, %v; want %x", i, sum, err, want)
		}
		if got := ts[i].srv.Stats().Received[Output]; got != size {
			t.Errorf("replica %d received %d bytes, want %d", i, got, size)
		}
	}
	if got := c.Stats().Pushed[Output]; got != size {
		t.Errorf("the writer sent %d bytes, want one copy, %d", got, size)
	}
}

// A replica down the pipeline that cannot store the object fails the
// push, naming it, and nothing is stored anywhere.
func TestPipeFailureNamesTheReplica(t *testing.T) {
	c, ts := pipeline(t, store.TierConfig{Kind: cluster.HDD, Capacity: 1 << 20})
	hops := []Hop{{Addr: ts[1].addr, Tier: cluster.HDD, Key: "out/f"}, {Addr: ts[2].addr, Tier: cluster.HDD, Key: "out/f"}}
	err := c.Push(context.Background(), nil, ts[0].addr, cluster.SSD, "out/f", io.LimitReader(zeros{}, 4<<20), 4<<20, hops...)
	if !errors.Is(err, store.ErrNoSpace) || !strings.Contains(err.Error(), ts[2].addr) {
		t.Fatalf("push past the last replica's capacity: %v; want no space, naming %s", err, ts[2].addr)
	}
	waitNothingStored(t, ts[0], cluster.SSD, "out/f")
	waitNothingStored(t, ts[1], cluster.HDD, "out/f")
	waitNothingStored(t, ts[2], cluster.HDD, "out/f")
	// the pipeline still works
	if err := c.Push(context.Background(), nil, ts[0].addr, cluster.SSD, "out/ok", strings.NewReader("fine"), 4, hops[0], Hop{Addr: ts[2].addr, Tier: cluster.HDD, Key: "out/ok"}); err != nil {
		t.Errorf("push after a failure: %v", err)
	}
}

// A writer that gives up mid-push leaves nothing on any replica.
func TestPipeCancelledLeavesNothing(t *testing.T) {
	c, ts := pipeline(t)
	hops := []Hop{{Addr: ts[1].addr, Tier: cluster.HDD, Key: "out/c"}, {Addr: ts[2].addr, Tier: cluster.HDD, Key: "out/c"}}
	ctx, cancel := context.WithCancel(context.Background())
	src := io.LimitReader(zeros{}, 3<<20)
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	// a source that holds back its last megabyte until cancelled
	err := c.Push(ctx, nil, ts[0].addr, cluster.SSD, "out/c", io.MultiReader(src, blockUntil{ctx}), 4<<20, hops...)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled push: %v", err)
	}
	waitNothingStored(t, ts[0], cluster.SSD, "out/c")
	waitNothingStored(t, ts[1], cluster.HDD, "out/c")
	waitNothingStored(t, ts[2], cluster.HDD, "out/c")
}

// blockUntil blocks reads until its context ends.
type blockUntil struct{ ctx context.Context }

func (b blockUntil) Read([]byte) (int, error) {
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

// Bad hop lists are refused before anything is sent; a list as long as an
// output's replicas allow is not.
func TestPipeRefusesBadHops(t *testing.T) {
	long := make([]Hop, MaxHops)
	for i := range long {
		long[i] = Hop{Addr: "h:1", Tier: cluster.HDD, Key: "k"}
	}
	if err := checkHops(long); err != nil {
		t.Errorf("%d hops, an output of workload.MaxReplicas replicas: %v", len(long), err)
	}
	q := request{Op: opPipe, Class: Output, Tier: cluster.HDD, Key: "k", Len: 1, Hops: long}
	if got, err := parseRequest(bytes.NewReader(appendRequest(nil, &q))); err != nil || len(got.Hops) != MaxHops {
		t.Errorf("a PIPE of %d hops parsed as %d hops, %v", MaxHops, len(got.Hops), err)
	}
	c := NewClient(time.Second)
	defer c.Close()
	for _, hops := range [][]Hop{
		{{Addr: "", Tier: cluster.HDD, Key: "k"}},
		{{Addr: strings.Repeat("a", MaxAddrLen+1), Tier: cluster.HDD, Key: "k"}},
		{{Addr: "h:1", Tier: cluster.HDD, Key: ""}},
		{{Addr: "h:1", Tier: cluster.TierKind(cluster.NumTierKinds), Key: "k"}},
		make([]Hop, MaxHops+1),
	} {
		if err := c.Push(context.Background(), nil, "127.0.0.1:1", cluster.HDD, "k", strings.NewReader("x"), 1, hops...); err == nil || !strings.Contains(err.Error(), "hop") {
			t.Errorf("hops %.60v: %v", hops, err)
		}
	}
}

// A writer that gives up while a replica down the pipeline stalls (it
// accepts and never reads) leaves nothing on the replica before it: that
// one's forward, blocked behind the stall, sees the writer gone.
func TestPipeStalledHopReleasesTheOneBefore(t *testing.T) {
	c, ts := pipeline(t)
	stalled := stallnet.Listen(t)
	hops := []Hop{{Addr: ts[1].addr, Tier: cluster.HDD, Key: "out/s"}, {Addr: stalled, Tier: cluster.HDD, Key: "out/s"}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := c.Push(ctx, nil, ts[0].addr, cluster.SSD, "out/s", io.LimitReader(zeros{}, 64<<20), 64<<20, hops...)
	if err == nil {
		t.Fatal("a push through a stalled replica succeeded")
	}
	waitNothingStored(t, ts[0], cluster.SSD, "out/s")
	waitNothingStored(t, ts[1], cluster.HDD, "out/s")
}
