package task

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/worker/dataplane"
	"github.com/racklab/racklab/worker/store"
)

type host struct {
	env  *Env
	addr string
}

// newHost is a worker's store and data server on loopback.
func newHost(t *testing.T, name, rack string) host {
	t.Helper()
	st, err := store.Open([]store.TierConfig{{Kind: cluster.Mem, Dir: filepath.Join(t.TempDir(), name)}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := dataplane.NewServer(st, t.Logf)
	go srv.Serve(ln)
	client := dataplane.NewClient(time.Second)
	t.Cleanup(func() { srv.Close(); client.Close(); st.Wipe() })
	return host{env: &Env{Host: name, Rack: rack, Store: st, Client: client}, addr: ln.Addr().String()}
}

func (h host) object(key string) wire.Object {
	return wire.Object{Host: h.env.Host, Rack: h.env.Rack, Addr: h.addr, Tier: "mem", Key: key}
}

func wait(t *testing.T, a *Attempt) wire.AttemptEnded {
	t.Helper()
	select {
	case rep := <-a.Done():
		return rep
	case <-time.After(10 * time.Second):
		t.Fatal("attempt did not end")
	}
	return wire.AttemptEnded{}
}

func TestMapReadsRemoteBlockAndWritesOutput(t *testing.T) {
	a, b := newHost(t, "a", "r0"), newHost(t, "b", "r1")
	if _, err := a.env.Store.Generate(cluster.Mem, "ds/in/000000", 3<<20, 7); err != nil {
		t.Fatal(err)
	}
	l := wire.Launch{Attempt: 1, Kind: wire.KindMap, Class: "input", InputBytes: 3 << 20,
		Input:     &wire.Range{Object: a.object("ds/in/000000"), Task: "input", Length: 3 << 20},
		OutputKey: "out/a1", OutputTier: "mem", OutputBytes: 1 << 20, Replicas: []wire.Object{b.object("out/a1"), a.object("out/a1")}}
	att, err := Start(context.Background(), b.env, l)
	if err != nil {
		t.Fatal(err)
	}
	rep := wait(t, att)
	if !rep.OK {
		t.Fatal(rep.Reason)
	}
	if got := rep.Bytes["input"][wire.LevelCross]; got != 3<<20 {
		t.Fatalf("cross-rack input bytes %d, want %d (%v)", got, 3<<20, rep.Bytes)
	}
	if got := rep.Bytes["output"][wire.LevelCross]; got != 1<<20 {
		t.Fatalf("replica bytes %d, want %d", got, 1<<20)
	}
	for _, h := range []host{a, b} {
		if n, err := h.env.Store.Size(cluster.Mem, "out/a1"); err != nil || n != 1<<20 {
			t.Fatalf("output on %s: %d bytes, %v", h.env.Host, n, err)
		}
	}
}

// A reduce starts before its sources exist, takes them as they are
// announced, survives a source whose host is gone once a replacement is
// announced, and finishes only when told the list is complete.
func TestReduceTakesSourcesAsTheyCome(t *testing.T) {
	a, b, c := newHost(t, "a", "r0"), newHost(t, "b", "r0"), newHost(t, "c", "r1")
	for _, h := range []host{a, c} {
		if _, err := h.env.Store.Generate(cluster.Mem, "out/m", 2<<20, 1); err != nil {
			t.Fatal(err)
		}
	}
	l := wire.Launch{Attempt: 2, Kind: wire.KindReduce, Class: "shuffle", OutputKey: "out/r", OutputTier: "mem"}
	att, err := Start(context.Background(), b.env, l)
	if err != nil {
		t.Fatal(err)
	}
	att.AddSources(wire.Sources{Attempt: 2, Sources: []wire.Range{{Object: a.object("out/m"), Task: "m0", Offset: 1 << 20, Length: 1 << 20}}})
	// m1's first copy is on a host that is gone
	gone := wire.Object{Host: "d", Rack: "r1", Addr: "127.0.0.1:1", Tier: "mem", Key: "out/m"}
	att.AddSources(wire.Sources{Attempt: 2, Sources: []wire.Range{{Object: gone, Task: "m1", Length: 1 << 20}}})
	select {
	case rep := <-att.Done():
		t.Fatalf("reduce ended before its sources were complete: %+v", rep)
	case <-time.After(300 * time.Millisecond):
	}
	att.AddSources(wire.Sources{Attempt: 2, Sources: []wire.Range{{Object: c.object("out/m"), Task: "m1", Length: 1 << 20}},
		Complete: true, InputBytes: 2 << 20, OutputBytes: 512 << 10})
	rep := wait(t, att)
	if !rep.OK {
		t.Fatal(rep.Reason)
	}
	if rep.Bytes["shuffle"][wire.LevelRack] != 1<<20 || rep.Bytes["shuffle"][wire.LevelCross] != 1<<20 {
		t.Fatalf("shuffle bytes %v, want 1 MiB in-rack and 1 MiB cross-rack", rep.Bytes)
	}
	if n, err := b.env.Store.Size(cluster.Mem, "out/r"); err != nil || n != 512<<10 {
		t.Fatalf("reduce output %d bytes, %v", n, err)
	}
}

func TestKillStopsComputeAndLeavesNoOutput(t *testing.T) {
	a := newHost(t, "a", "r0")
	if _, err := a.env.Store.Generate(cluster.Mem, "ds/in/0", 1<<20, 1); err != nil {
		t.Fatal(err)
	}
	l := wire.Launch{Attempt: 3, Kind: wire.KindMap, Class: "input", ComputeNsPerByte: 1e5, // 100 s of CPU
		Input: &wire.Range{Object: a.object("ds/in/0"), Task: "input", Length: 1 << 20}, OutputKey: "out/a3", OutputTier: "mem", OutputBytes: 10}
	att, err := Start(context.Background(), a.env, l)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	att.Kill()
	rep := wait(t, att)
	if rep.OK || rep.Reason == "" {
		t.Fatalf("killed attempt reported %+v", rep)
	}
	if _, err := a.env.Store.Size(cluster.Mem, "out/a3"); err == nil {
		t.Fatal("a killed attempt left its output")
	}
}

func TestUnknownClassIsRefused(t *testing.T) {
	a := newHost(t, "a", "r0")
	if _, err := Start(context.Background(), a.env, wire.Launch{Attempt: 4, Kind: wire.KindMap, Class: "bogus"}); err == nil {
		t.Fatal("a launch with an unknown class was accepted")
	}
}
