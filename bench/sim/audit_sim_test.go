package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// A transfer crosses, besides the tiers it reads and writes, the source's
// NIC out and the destination's NIC in, and across racks the source
// rack's uplink, the destination rack's downlink and the core when one is
// modelled; a read on the host itself crosses only its tier.
func TestAuditPathCrossesEveryLink(t *testing.T) {
	topo := hddCluster(t, cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 1, NICBps: 100, Oversubscription: 2}, 1e9, 1e9)
	topo.CoreBps = 50
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: "in"}}}}}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Size: mib, BlockSize: mib, Replication: 1}}}
	eng, err := engine.New(engine.Config{Seed: 1}, topo, w, ds, &pinned{host: func(engine.TaskRef) cluster.HostID { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	s := New(eng, Options{})
	if s.core < 0 || s.net.res[s.core].capacity != 50 {
		t.Fatalf("no core of 50 B/s modelled (core %d)", s.core)
	}
	rd, wr := s.tierRd[0][cluster.HDD], s.tierWr[3][cluster.HDD]
	same := func(what string, got []int32, want ...int32) {
		t.Helper()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: resources %v, want %v", what, got, want)
		}
	}
	same("on the host", s.path(0, 0, rd, -1), rd)
	same("in the rack", s.path(0, 1, rd, -1), rd, s.nicOut[0], s.nicIn[1])
	same("across racks", s.path(0, 3, rd, wr), rd, s.nicOut[0], s.nicIn[3], s.uplink[0], s.downlink[1], s.core, wr)
}

// shuffleRun runs one job, maps on host 0 and reducers as pinned says
// (SlowStart 1: reducers start when the maps are done), and returns its
// attempts' records and its result.
func shuffleRun(t *testing.T, topo *cluster.Topology, reduceTasks int, shares []float64, p *pinned) ([]engine.AttemptRecord, *Result) {
	t.Helper()
	const in = 8 * mib
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{
		{Size: in, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}}}}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1},
		{Name: "reduce", Kind: workload.Reduce, Tasks: reduceTasks, After: []string{"map"}, Shares: shares, Selectivity: 0},
	}}}}
	return runToEnd(t, engine.Config{SlowStart: 1}, topo, w, ds, p)
}

// runToEnd simulates a workload under policy p to its end and returns
// the attempts' records; a run that fails or stalls fails the test.
func runToEnd(t *testing.T, cfg engine.Config, topo *cluster.Topology, w *workload.Workload, ds *workload.Datasets, p engine.Policy) ([]engine.AttemptRecord, *Result) {
	t.Helper()
	eng, err := engine.New(cfg, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	sink := &checkingSink{t: t}
	res, err := New(eng, Options{Sink: sink}).Run()
	if err != nil || res.Stalled {
		t.Fatalf("%v %+v", err, res)
	}
	return sink.attempts, res
}

func reduceAttempt(t *testing.T, as []engine.AttemptRecord, index int32) engine.AttemptRecord {
	t.Helper()
	for _, a := range as {
		if a.Task.Stage == 1 && a.Task.Index == index {
			return a
		}
	}
	t.Fatalf("no attempt of reducer %d", index)
	return engine.AttemptRecord{}
}

// A reducer's fetch from another rack crosses the core: 2 racks of one
// host, 125 MB/s NICs, a 1 MB/s core. The map on host 0 writes 8 MiB;
// reducer 0, on host 1, fetches its 6 MiB (shares 3:1) over the core: at
// least 6.29 s, where the NICs alone would take 0.05 s.
func TestAuditFetchCrossesTheCore(t *testing.T) {
	topo := hddCluster(t, cluster.UniformSpec{Racks: 2, HostsPerRack: 1, Slots: 4, NICBps: 125e6, Oversubscription: 1}, 1e9, 1e9)
	topo.CoreBps = 1e6
	as, _ := shuffleRun(t, topo, 2, []float64{3, 1}, reducerOnRack1(0))
	r := reduceAttempt(t, as, 0)
	if d, want := r.End-r.Start, 6.0*mib/1e6; d < want*0.99 {
		t.Fatalf("the cross-rack reducer took %g s, want at least %g s at the core's rate", d, want)
	}
}

// A reducer reads the outputs on its own host from the intermediate tier,
// at its read rate: one host, an HDD reading 10 MB/s. The map's 8 MiB of
// output take the reducer at least 0.84 s, where the NIC would take
// 0.07 s.
func TestAuditOwnHostFetchReadsTheTier(t *testing.T) {
	topo := hddCluster(t, cluster.UniformSpec{Racks: 1, HostsPerRack: 1, Slots: 4, NICBps: 125e6, Oversubscription: 1}, 1e7, 1e9)
	as, _ := shuffleRun(t, topo, 1, nil, &pinned{host: func(engine.TaskRef) cluster.HostID { return 0 }})
	r := reduceAttempt(t, as, 0)
	if d, want := r.End-r.Start, 8.0*mib/1e7; d < want*0.99 || d > want*1.1 {
		t.Fatalf("the reducer took %g s, want about %g s at the tier's read rate", d, want)
	}
}

// prioReader runs every map on host 0, map i in class prio[i]; when map 0
// ends it re-marks map 2 into class 0.
type prioReader struct {
	prio []uint8
	ids  map[int32]engine.AttemptID
}

func (*prioReader) Name() string { return "prio-reader" }

func (p *prioReader) OfferHost(ctx *engine.Context, h cluster.HostID) {
	if h != 0 {
		return
	}
	for _, j := range ctx.Running() {
		for {
			t, _, ok := ctx.PickMap(j.ID, 0, engine.Remote)
			if !ok || ctx.FreeSlots(0) == 0 {
				break
			}
			id, err := ctx.Launch(t, 0, engine.LaunchOptions{Priority: p.prio[t.Index]})
			if err != nil {
				break
			}
			p.ids[t.Index] = id
		}
	}
}

func (p *prioReader) AttemptEnded(ctx *engine.Context, a *engine.Attempt) {
	if a.Task.Index == 0 {
		_ = ctx.SetPriority(p.ids[2], 0)
	}
}

// Attempts' network classes reach their flows, at launch and when a
// policy re-marks them: host 0 reads three blocks from host 1 (the other
// rack), 125 MB/s everywhere. Map 0 (12.5 MB, class 0) has the path alone
// and ends at 0.1 s; map 2 (250 MB, class 2) is then re-marked to class 0
// and goes ahead of map 1 (250 MB, class 1): it ends at 2.1 s, map 1 at
// 4.1 s. (In one class all three would share: 0.3 s, then 4.1 s for both.)
func TestAuditAttemptClassesReachTheNetwork(t *testing.T) {
	topo := hddCluster(t, cluster.UniformSpec{Racks: 2, HostsPerRack: 1, Slots: 3, NICBps: 125e6, Oversubscription: 1}, 1e10, 1e10)
	rep := []workload.Replica{{Host: 1, Tier: cluster.HDD}}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{
		{Size: 12_500_000, Replicas: rep}, {Size: 250_000_000, Replicas: rep}, {Size: 250_000_000, Replicas: rep}}}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in", Selectivity: 0}}}}}
	p := &prioReader{prio: []uint8{0, 1, 2}, ids: map[int32]engine.AttemptID{}}
	attempts, _ := runToEnd(t, engine.Config{}, topo, w, ds, p)
	want := []float64{0.1, 4.1, 2.1}
	got := make([]float64, 3)
	for _, a := range attempts {
		got[a.Task.Index] = a.End
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 0.02 {
			t.Fatalf("maps end at %v, want %v", got, want)
		}
	}
}

// A reducer's fetch from another host of its rack crosses no rack link:
// one rack of two hosts, the map on host 0, the reducer on host 1. The
// shuffle's 8 MiB cross host 1's NIC and neither of the rack's links.
func TestAuditRackLocalFetchStaysInTheRack(t *testing.T) {
	topo := hddCluster(t, cluster.UniformSpec{Racks: 1, HostsPerRack: 2, Slots: 4, NICBps: 125e6, Oversubscription: 4}, 1e9, 1e9)
	as, res := shuffleRun(t, topo, 1, nil, &pinned{host: func(r engine.TaskRef) cluster.HostID { return cluster.HostID(r.Stage) }})
	if r := reduceAttempt(t, as, 0); r.Host != 1 {
		t.Fatalf("the reducer ran on host %d, want 1", r.Host)
	}
	if res.UplinkBytes[0] != 0 || res.DownlinkBytes[0] != 0 {
		t.Fatalf("the rack's links carried %g up and %g down, want none", res.UplinkBytes[0], res.DownlinkBytes[0])
	}
}

// mapsThenReducer runs one job on hosts: map i (of block i, 8 MiB, a
// replica on every host) on host i, one reducer on host 0 once the maps
// are done, with opt; it returns the simulator after the run and the
// reducer's record.
func mapsThenReducer(t *testing.T, topo *cluster.Topology, maps int, opt Options) (*Sim, engine.AttemptRecord) {
	t.Helper()
	var reps []workload.Replica
	for h := range topo.Hosts {
		reps = append(reps, workload.Replica{Host: cluster.HostID(h), Tier: cluster.HDD})
	}
	var blocks []workload.Block
	for i := 0; i < maps; i++ {
		blocks = append(blocks, workload.Block{Size: 8 * mib, Replicas: reps})
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: blocks}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1},
		{Name: "reduce", Kind: workload.Reduce, Tasks: 1, After: []string{"map"}, Selectivity: 0},
	}}}}
	p := &pinned{host: func(r engine.TaskRef) cluster.HostID {
		if r.Stage == 0 {
			return cluster.HostID(r.Index)
		}
		return 0
	}}
	eng, err := engine.New(engine.Config{SlowStart: 1}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	sink := &checkingSink{t: t}
	opt.Sink = sink
	s := New(eng, opt)
	res, err := s.Run()
	if err != nil || res.Stalled {
		t.Fatalf("%v %+v", err, res)
	}
	return s, reduceAttempt(t, sink.attempts, 0)
}

// A reducer reads its own host's outputs from disk and only the rest of
// its rack's over its NIC: two hosts in a rack, a map on each (8 MiB in,
// 8 MiB out, read where it runs), the reducer on host 0. Host 0's NIC
// carries host 1's 8 MiB; its disk reads 16 MiB (its map's input and
// output).
func TestAuditOwnHostOutputsAreNotFetchedTwice(t *testing.T) {
	topo := hddCluster(t, cluster.UniformSpec{Racks: 1, HostsPerRack: 2, Slots: 2, NICBps: 125e6, Oversubscription: 1}, 1e9, 1e9)
	s, _ := mapsThenReducer(t, topo, 2, Options{})
	if nic, disk := s.net.res[s.nicIn[0]].moved, s.net.res[s.tierRd[0][cluster.HDD]].moved; nic != 8*mib || disk != 16*mib {
		t.Fatalf("host 0's NIC received %g bytes and its disk read %g, want %d and %d", nic, disk, 8*mib, 16*mib)
	}
}

// A reducer fetches from at most Fetchers source racks at once: three
// racks of one host at 4:1 (31.25 MB/s rack links, 125 MB/s NICs; rack
// 0's downlink 125 MB/s), a map on each host, the reducer on host 0. With one fetcher it fetches the
// two 8 MiB outputs in turn, each at an uplink's rate: 0.537 s; two at
// once would take 0.268 s.
func TestAuditFetchersBoundParallelFetches(t *testing.T) {
	topo := hddCluster(t, cluster.UniformSpec{Racks: 3, HostsPerRack: 1, Slots: 2, NICBps: 125e6, Oversubscription: 4}, 1e9, 1e9)
	topo.Racks[0].DownlinkBps = 125e6 // not a bottleneck of the two fetches
	// map 0's output, on the reducer's host, is read from disk meanwhile
	_, r := mapsThenReducer(t, topo, 3, Options{Fetchers: 1})
	if d, want := r.End-r.Start, 2*8.0*mib/31.25e6; math.Abs(d-want) > 0.03 {
		t.Fatalf("the reducer took %g s, want %g s (one fetch at a time)", d, want)
	}
}

// hddCluster is a uniform cluster whose hosts have one HDD tier of the
// given read and write rates (bytes per second) and 1 TiB.
func hddCluster(t *testing.T, spec cluster.UniformSpec, readBps, writeBps float64) *cluster.Topology {
	t.Helper()
	spec.Tiers = []cluster.Tier{{Kind: cluster.HDD, ReadBps: readBps, WriteBps: writeBps, CapacityBytes: 1 << 40}}
	topo, err := cluster.Uniform(spec)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}
