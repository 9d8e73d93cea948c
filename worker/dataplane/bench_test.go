package dataplane

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/worker/store"
)

// BenchmarkFetch fetches a 64 MiB object of an unpaced tier (on tmpfs where
// there is one) over loopback: sendfile on the server, 512 KiB reads on the
// client.
func BenchmarkFetch(b *testing.B) {
	cfg := store.TierConfig{Kind: cluster.Mem}
	if d, err := os.MkdirTemp("/dev/shm", "dataplane-bench-"); err == nil {
		defer os.RemoveAll(d)
		cfg.Dir = d
	}
	ts := newTestServer(b, cfg)
	const size = 64 << 20
	if _, err := ts.st.Generate(cluster.Mem, "obj", size, 1); err != nil {
		b.Fatal(err)
	}
	c := NewClient(time.Second)
	defer c.Close()
	g := NewGroup(Input)
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		n, err := c.Fetch(context.Background(), g, ts.addr, cluster.Mem, "obj", 0, -1, io.Discard)
		if err != nil || n != size {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkPush pushes 64 MiB to an unpaced tier over loopback.
func BenchmarkPush(b *testing.B) {
	cfg := store.TierConfig{Kind: cluster.Mem}
	if d, err := os.MkdirTemp("/dev/shm", "dataplane-bench-"); err == nil {
		defer os.RemoveAll(d)
		cfg.Dir = d
	}
	ts := newTestServer(b, cfg)
	const size = 64 << 20
	c := NewClient(time.Second)
	defer c.Close()
	g := NewGroup(Output)
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		if err := c.Push(context.Background(), g, ts.addr, cluster.Mem, "obj", io.LimitReader(zeroReader{}, size), size); err != nil {
			b.Fatal(err)
		}
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { return len(p), nil }
