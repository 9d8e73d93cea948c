package task

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/internal/stallnet"
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
	srv.ForwardWith(client)
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

// inputEvents records the InputDone events of a host's attempts.
type inputEvents struct {
	mu  sync.Mutex
	evs []wire.InputDone
}

func recordInputDone(h host) *inputEvents {
	r := &inputEvents{}
	h.env.InputDone = func(ev wire.InputDone) {
		r.mu.Lock()
		r.evs = append(r.evs, ev)
		r.mu.Unlock()
	}
	return r
}

func (r *inputEvents) all() []wire.InputDone {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]wire.InputDone(nil), r.evs...)
}

// A map reports its whole block received and input done once, before it
// computes, with a time from its start.
func TestMapReportsInputDone(t *testing.T) {
	a, b := newHost(t, "a", "r0"), newHost(t, "b", "r1")
	evs := recordInputDone(b)
	if _, err := a.env.Store.Generate(cluster.Mem, "ds/in/000000", 2<<20, 7); err != nil {
		t.Fatal(err)
	}
	l := wire.Launch{Attempt: 5, Kind: wire.KindMap, Class: "input", InputBytes: 2 << 20, ComputeNsPerByte: 100, // 0.2 s of CPU
		Input:     &wire.Range{Object: a.object("ds/in/000000"), Task: "input", Length: 2 << 20},
		OutputKey: "out/a5", OutputTier: "mem", OutputBytes: 1000}
	before := time.Now()
	att, err := Start(context.Background(), b.env, l)
	if err != nil {
		t.Fatal(err)
	}
	if p := att.Progress(); p.Attempt != 5 || p.Received < 0 || p.Received > 2<<20 {
		t.Fatalf("progress at start %+v", p)
	}
	rep := wait(t, att)
	if !rep.OK {
		t.Fatal(rep.Reason)
	}
	got := evs.all()
	if len(got) != 1 {
		t.Fatalf("%d input-done events, want 1: %+v", len(got), got)
	}
	ev := got[0]
	if ev.Host != "b" || ev.Attempt != 5 || ev.Bytes != 2<<20 {
		t.Errorf("input-done %+v, want host b, attempt 5, %d bytes", ev, 2<<20)
	}
	if ev.At.Before(before) || ev.At.After(time.Now()) || ev.Seconds < 0 || ev.Seconds > rep.ReadSeconds+rep.ComputeSeconds {
		t.Errorf("input-done at %v after %g s; read %g s, compute %g s", ev.At, ev.Seconds, rep.ReadSeconds, rep.ComputeSeconds)
	}
	if p := att.Progress(); p != (wire.AttemptProgress{Attempt: 5, Received: 2 << 20, InputDone: true}) {
		t.Errorf("final progress %+v", p)
	}
	if err := ev.Validate(); err != nil {
		t.Errorf("the event does not validate: %v", err)
	}
}

// A map without input has its input at once.
func TestMapWithoutInputIsInputDoneAtOnce(t *testing.T) {
	a := newHost(t, "a", "r0")
	evs := recordInputDone(a)
	att, err := Start(context.Background(), a.env, wire.Launch{Attempt: 6, Kind: wire.KindMap, Class: "input", OutputKey: "out/a6", OutputTier: "mem", OutputBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if rep := wait(t, att); !rep.OK {
		t.Fatal(rep.Reason)
	}
	if got := evs.all(); len(got) != 1 || got[0].Bytes != 0 || got[0].Attempt != 6 {
		t.Fatalf("input-done events %+v, want one of 0 bytes", got)
	}
}

// A reduce's progress counts the partitions fetched; input is done only
// once the list is complete and all fetched, and a killed reduce never
// reports it.
func TestReduceProgressAndInputDone(t *testing.T) {
	a, b := newHost(t, "a", "r0"), newHost(t, "b", "r0")
	evs := recordInputDone(b)
	if _, err := a.env.Store.Generate(cluster.Mem, "out/m", 3<<20, 1); err != nil {
		t.Fatal(err)
	}
	part := func(task string, i int64) wire.Range {
		return wire.Range{Object: a.object("out/m"), Task: task, Offset: i << 20, Length: 1 << 20}
	}
	l := wire.Launch{Attempt: 7, Kind: wire.KindReduce, Class: "shuffle", OutputKey: "out/r7", OutputTier: "mem",
		Sources: []wire.Range{part("m0", 0)}}
	att, err := Start(context.Background(), b.env, l)
	if err != nil {
		t.Fatal(err)
	}
	waitProgress(t, att, 1<<20)
	att.AddSources(wire.Sources{Attempt: 7, Sources: []wire.Range{part("m1", 1)}})
	waitProgress(t, att, 2<<20)
	time.Sleep(50 * time.Millisecond)
	if len(evs.all()) != 0 || att.Progress().InputDone {
		t.Fatal("input done before the source list was complete")
	}
	att.AddSources(wire.Sources{Attempt: 7, Sources: []wire.Range{part("m2", 2)}, Complete: true, InputBytes: 3 << 20, OutputBytes: 100})
	rep := wait(t, att)
	if !rep.OK {
		t.Fatal(rep.Reason)
	}
	if got := evs.all(); len(got) != 1 || got[0].Bytes != 3<<20 || got[0].Attempt != 7 {
		t.Fatalf("input-done events %+v, want one of %d bytes", got, 3<<20)
	}
	if p := att.Progress(); p.Received != 3<<20 || !p.InputDone {
		t.Errorf("final progress %+v", p)
	}

	killed, err := Start(context.Background(), b.env, wire.Launch{Attempt: 8, Kind: wire.KindReduce, Class: "shuffle", OutputKey: "out/r8", OutputTier: "mem",
		Sources: []wire.Range{part("m0", 0)}})
	if err != nil {
		t.Fatal(err)
	}
	waitProgress(t, killed, 1<<20)
	killed.Kill()
	wait(t, killed)
	if got := evs.all(); len(got) != 1 {
		t.Fatalf("a killed reduce reported input done: %+v", got)
	}
}

// The bytes of a fetch that fails half-way count for nothing in the
// progress (they stay in the traffic accounting).
func TestFailedFetchCountsForNothing(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open([]store.TierConfig{{Kind: cluster.Mem, Dir: dir, ReadBps: 2e6}}) // 1 MiB in half a second
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Wipe() })
	if _, err := st.Generate(cluster.Mem, "out/m", 1<<20, 1); err != nil {
		t.Fatal(err)
	}
	env := &Env{Host: "b", Rack: "r0", Store: st, Client: dataplane.NewClient(time.Second)}
	t.Cleanup(func() { env.Client.Close() })
	src := wire.Range{Object: wire.Object{Host: "b", Rack: "r0", Tier: "mem", Key: "out/m"}, Task: "m0", Length: 1 << 20}
	att, err := Start(context.Background(), env, wire.Launch{Attempt: 9, Kind: wire.KindReduce, Class: "shuffle",
		OutputKey: "out/r9", OutputTier: "mem", Sources: []wire.Range{src}, Complete: true, InputBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer att.Kill()
	for deadline := time.Now().Add(5 * time.Second); att.Progress().Received == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the fetch did not start")
		}
	}
	// the object shrinks under the reader: the read fails part-way
	if err := os.Truncate(filepath.Join(dir, "out", "m"), 0); err != nil {
		t.Fatal(err)
	}
	waitProgress(t, att, 0)
	if p := att.Progress(); p.InputDone {
		t.Fatalf("progress %+v after the only fetch failed", p)
	}
	att.Kill()
	rep := wait(t, att)
	if rep.Bytes["shuffle"][wire.LevelLocal] == 0 {
		t.Errorf("the failed fetch's bytes left the accounting: %v", rep.Bytes)
	}
}

// waitProgress waits for an attempt to have received want bytes.
func waitProgress(t *testing.T, a *Attempt, want int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); a.Progress().Received != want; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("progress %+v, want %d bytes received", a.Progress(), want)
		}
	}
}

// A source announced again on another tier of the same host (a replica
// the coordinator moved) replaces the copy that can no longer be read,
// without waiting for the retry.
func TestSourceMovedToAnotherTierIsTaken(t *testing.T) {
	a, b := newHost(t, "a", "r0"), newHost(t, "b", "r0")
	if _, err := a.env.Store.Generate(cluster.Mem, "out/m", 1<<20, 1); err != nil {
		t.Fatal(err)
	}
	onSSD := a.object("out/m")
	onSSD.Tier = "ssd" // a has no SSD: the fetch fails
	att, err := Start(context.Background(), b.env, wire.Launch{Attempt: 10, Kind: wire.KindReduce, Class: "shuffle", OutputKey: "out/r10", OutputTier: "mem",
		Sources: []wire.Range{{Object: onSSD, Task: "m0", Length: 1 << 20}}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the first fetch fails
	start := time.Now()
	att.AddSources(wire.Sources{Attempt: 10, Sources: []wire.Range{{Object: a.object("out/m"), Task: "m0", Length: 1 << 20}},
		Complete: true, InputBytes: 1 << 20, OutputBytes: 10})
	rep := wait(t, att)
	if !rep.OK {
		t.Fatal(rep.Reason)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the moved source was taken after %v, as if by the 2 s retry", d)
	}
}

// cpuSeconds is the CPU time this process has spent, user and system.
func cpuSeconds(t *testing.T) float64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// With SleepCompute an attempt's compute phase lasts as long as with
// burning, and spends (almost) no CPU; burning spends it. The two are
// compared in one run: a busy machine gives the burner less than its 0.3
// s, but far more than the sleeper's reading and writing.
func TestSleepComputeWaitsWithoutTheCPU(t *testing.T) {
	var spent [2]float64
	for i, sleepy := range []bool{false, true} {
		a := newHost(t, "a", "r0")
		a.env.SleepCompute = sleepy
		if _, err := a.env.Store.Generate(cluster.Mem, "ds/in/0", 1<<20, 1); err != nil {
			t.Fatal(err)
		}
		l := wire.Launch{Attempt: 4, Kind: wire.KindMap, Class: "input", ComputeNsPerByte: 300e6 / (1 << 20), // 0.3 s
			Input: &wire.Range{Object: a.object("ds/in/0"), Task: "input", Length: 1 << 20}, OutputKey: "out/a4", OutputTier: "mem", OutputBytes: 10}
		cpu0 := cpuSeconds(t)
		att, err := Start(context.Background(), a.env, l)
		if err != nil {
			t.Fatal(err)
		}
		rep := wait(t, att)
		cpu := cpuSeconds(t) - cpu0
		if !rep.OK || rep.ComputeSeconds < 0.3 {
			t.Fatalf("sleep %v: %+v, want a success with 0.3 s of compute", sleepy, rep)
		}
		spent[i] = cpu
	}
	if spent[1] > spent[0]/3 {
		t.Errorf("0.3 s of compute spent %.3f s of CPU burning and %.3f s sleeping", spent[0], spent[1])
	}
}

// An output's replicas hold the bytes of the writer's copy.
func TestReplicasHoldTheWritersBytes(t *testing.T) {
	a, b, c := newHost(t, "a", "r0"), newHost(t, "b", "r0"), newHost(t, "c", "r1")
	l := wire.Launch{Attempt: 3, Kind: wire.KindMap, Class: "input",
		OutputKey: "out/m3", OutputTier: "mem", OutputBytes: 3<<20 + 5,
		Replicas: []wire.Object{a.object("out/m3"), b.object("out/m3"), c.object("out/m3")}}
	att, err := Start(context.Background(), a.env, l)
	if err != nil {
		t.Fatal(err)
	}
	if rep := wait(t, att); !rep.OK {
		t.Fatal(rep.Reason)
	} else if rep.Bytes["output"][wire.LevelRack] != 3<<20+5 || rep.Bytes["output"][wire.LevelCross] != 3<<20+5 {
		t.Fatalf("replica bytes %v, want 3 MiB + 5 in-rack and cross-rack", rep.Bytes["output"])
	}
	want, err := a.env.Store.Checksum(cluster.Mem, "out/m3")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []host{b, c} {
		if got, err := h.env.Store.Checksum(cluster.Mem, "out/m3"); err != nil || got != want {
			t.Fatalf("replica on %s: checksum %x, %v; the writer's is %x", h.env.Host, got, err, want)
		}
	}
}

// The replicas are pushed at once, as the local copy is written: one that
// stalls does not hold back the next, and a kill ends the stalled push.
func TestStalledReplicaDoesNotHoldBackTheNext(t *testing.T) {
	a, c := newHost(t, "a", "r0"), newHost(t, "c", "r1")
	// a server that accepts and never reads: a push of more than the
	// sockets buffer blocks
	stalled := wire.Object{Host: "s", Rack: "r0", Addr: stallnet.Listen(t), Tier: "mem", Key: "out/m4"}
	const size = 64 << 20
	l := wire.Launch{Attempt: 4, Kind: wire.KindMap, Class: "input",
		OutputKey: "out/m4", OutputTier: "mem", OutputBytes: size,
		Replicas: []wire.Object{a.object("out/m4"), stalled, c.object("out/m4")}}
	att, err := Start(context.Background(), a.env, l)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if n, err := c.env.Store.Size(cluster.Mem, "out/m4"); err == nil && n == size {
			break
		}
		if time.Now().After(deadline) {
			att.Kill()
			t.Fatal("the replica after a stalled one was not written")
		}
	}
	att.Kill()
	if rep := wait(t, att); rep.OK {
		t.Fatal("an attempt whose replica never got its bytes succeeded")
	}
	// the killed attempt's copy on c is deleted: nothing of it stays
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := c.env.Store.Size(cluster.Mem, "out/m4"); errors.Is(err, fs.ErrNotExist) && c.env.Store.Used(cluster.Mem) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed attempt's copy on c is still there (%d bytes in use)", c.env.Store.Used(cluster.Mem))
		}
	}
}

// With the launch's Pipeline the output goes as HDFS's write pipeline: the
// writer (rack r0) sends one copy to the second replica (r1), which
// forwards it to the third (r1): one copy across racks, one within r1,
// each replica with the writer's bytes.
func TestPipelineSendsOneCopyAcross(t *testing.T) {
	a, b, c := newHost(t, "a", "r0"), newHost(t, "b", "r1"), newHost(t, "c", "r1")
	const size = 2<<20 + 1
	l := wire.Launch{Attempt: 5, Kind: wire.KindMap, Class: "input", OutputKey: "out/m5", OutputTier: "mem", OutputBytes: size,
		Replicas: []wire.Object{a.object("out/m5"), b.object("out/m5"), c.object("out/m5")}, Pipeline: true}
	att, err := Start(context.Background(), a.env, l)
	if err != nil {
		t.Fatal(err)
	}
	if rep := wait(t, att); !rep.OK {
		t.Fatal(rep.Reason)
	} else if out := rep.Bytes["output"]; out[wire.LevelCross] != size || out[wire.LevelRack] != size {
		t.Fatalf("output bytes %v, want %d across racks and %d in-rack", out, size, size)
	}
	if got := a.env.Client.Stats().Pushed[dataplane.Output]; got != size {
		t.Errorf("the writer sent %d bytes, want one copy, %d", got, size)
	}
	want, _ := a.env.Store.Checksum(cluster.Mem, "out/m5")
	for _, h := range []host{b, c} {
		if got, err := h.env.Store.Checksum(cluster.Mem, "out/m5"); err != nil || got != want {
			t.Fatalf("replica on %s: checksum %x, %v; the writer's is %x", h.env.Host, got, err, want)
		}
	}
}

// A source replaced (AddSources with another copy) while the shuffle
// loop starts its fetch: the loop takes the range under the lock. Run
// with -race (make test does, for the worker's packages): before, the
// loop read s.r after unlocking, a data race on a struct of strings.
func TestSourceReplacedWhileItsFetchStarts(t *testing.T) {
	a, b, c := newHost(t, "a", "r0"), newHost(t, "b", "r0"), newHost(t, "c", "r1")
	for _, h := range []host{a, c} {
		if _, err := h.env.Store.Generate(cluster.Mem, "out/m", 1<<20, 1); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 200 {
		l := wire.Launch{Attempt: int64(100 + i), Kind: wire.KindReduce, Class: "shuffle", OutputKey: "out/r", OutputTier: "mem"}
		att, err := Start(context.Background(), b.env, l)
		if err != nil {
			t.Fatal(err)
		}
		att.AddSources(wire.Sources{Sources: []wire.Range{{Object: a.object("out/m"), Task: "m0", Length: 1 << 20}}})
		att.AddSources(wire.Sources{Sources: []wire.Range{{Object: c.object("out/m"), Task: "m0", Length: 1 << 20}},
			Complete: true, InputBytes: 1 << 20})
		if rep := wait(t, att); !rep.OK {
			t.Fatalf("attempt %d: %+v", l.Attempt, rep)
		}
	}
}

// Kill stops an attempt's output write: before, the attempt wrote its
// whole output (4 s at 1 MiB/s here) before it reported, taking the
// tier's write bandwidth from the attempts still running.
func TestKillStopsTheOutputWrite(t *testing.T) {
	st, err := store.Open([]store.TierConfig{{Kind: cluster.HDD, Dir: filepath.Join(t.TempDir(), "hdd"), WriteBps: 1 << 20, Cache: store.CacheKeep}})
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Host: "h", Rack: "r", Store: st, SleepCompute: true}
	l := wire.Launch{Attempt: 9, Kind: wire.KindMap, Class: "input", OutputKey: "out/k", OutputTier: "hdd", OutputBytes: 4 << 20}
	att, err := Start(context.Background(), env, l)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	t0 := time.Now()
	att.Kill()
	rep := <-att.Done()
	if took := time.Since(t0); took > 2*time.Second || rep.OK {
		t.Errorf("the killed attempt reported after %v: %+v", took, rep)
	}
	if used := st.Used(cluster.HDD); used != 0 {
		t.Errorf("used %d after the killed attempt", used)
	}
}
