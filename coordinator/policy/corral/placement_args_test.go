package corral

import (
	"math/rand/v2"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// placeFor runs PlaceDataset for a dataset of n 1 GiB chunks read by a
// job planned on racks of a 3-rack cluster (2 hosts each), the racks
// starting with stored bytes, and returns the replicas' racks per chunk.
func placeFor(t *testing.T, cfg Config, racks []cluster.RackID, stored []int64, n int) ([][]cluster.RackID, *Policy) {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 3, HostsPerRack: 2, Slots: 1, NICBps: 1e9, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	p := New(cfg)
	jp := jobPlan{planned: true, racks: make([]bool, 3), rackList: racks}
	for _, r := range racks {
		jp.racks[r] = true
	}
	p.jobs = []jobPlan{jp}
	p.readerOf["d"] = 0
	p.rackBytes, p.firstBytes = stored, make([]int64, 3)
	sizes := make([]int64, n)
	for i := range sizes {
		sizes[i] = gib
	}
	reps, err := p.PlaceDataset(topo, rand.New(rand.NewPCG(7, 7)), &workload.Dataset{Name: "d", Replication: 3}, sizes)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]cluster.RackID, n)
	for c, rs := range reps {
		for _, r := range rs {
			out[c] = append(out[c], topo.RackOf(r.Host))
		}
	}
	return out, p
}

// TestPlacementArgs checks Algorithm U's choices (corral.md §2.6) and the
// args that switch them, on 16 chunks (seeded): each would fail with
// probability below 1e-3 were the rule kept, and always without it.
func TestPlacementArgs(t *testing.T) {
	// U2: replica 1 goes to a uniform random rack of R_j, chunk by chunk,
	// so a job on racks {0, 2} has first replicas on both (§2.5: its
	// input spread evenly over R_j). Always its first rack would put the
	// job's whole input on rack 0.
	t.Run("U2 first replica spread over R_j", func(t *testing.T) {
		_, p := placeFor(t, DefaultConfig(), []cluster.RackID{0, 2}, make([]int64, 3), 16)
		if f := p.firstBytes; f[0] == 0 || f[2] == 0 || f[1] != 0 {
			t.Errorf("first-replica bytes per rack %v: want some on racks 0 and 2, none on 1", f)
		}
	})
	// second_rack=random is §3.1's base rule: replicas 2–3 on a uniform
	// random rack other than replica 1's. Rack 1 holds 100 GiB, so the
	// least-loaded rule (§4.5, the default) never picks it; the random
	// one picks it for about half the chunks.
	t.Run("second_rack=random", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.SecondRack = "random"
		racks, _ := placeFor(t, cfg, []cluster.RackID{0}, []int64{0, 100 * gib, 0}, 16)
		onRack1 := 0
		for c, rs := range racks {
			if rs[0] != 0 || rs[1] == 0 || rs[2] != rs[1] {
				t.Errorf("chunk %d on racks %v: want replica 1 on rack 0, 2–3 together on another", c, rs)
			}
			if rs[1] == 1 {
				onRack1++
			}
		}
		if onRack1 == 0 {
			t.Errorf("no chunk's replicas 2–3 on the loaded rack 1: the placement is least-loaded, not random")
		}
	})
	// placement=hdfs is LocalShuffle (§4.3): Corral's plan on HDFS random
	// placement, so some of a job's chunks have no replica in R_j = {0}
	// (probability (2/3)^16 that all do); under Algorithm U every chunk
	// has one there.
	t.Run("placement=hdfs", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.Placement = "hdfs"
		racks, p := placeFor(t, cfg, []cluster.RackID{0}, make([]int64, 3), 16)
		remote := 0
		for _, rs := range racks {
			local := false
			for _, r := range rs {
				local = local || r == 0
			}
			if !local {
				remote++
			}
		}
		if remote == 0 {
			t.Errorf("every chunk has a replica in R_j %v: the placement is Corral's, not HDFS's", racks)
		}
		var sum int64
		for _, b := range p.rackBytes {
			sum += b
		}
		if sum != 16*3*gib {
			t.Errorf("per-rack accounting holds %d bytes, want %d", sum, 16*3*gib)
		}
	})
}

// TestSharedInputFollowsPriority: a dataset read by two planned jobs is
// placed for the one of higher priority (the reader Plan records, in
// priority order). j0 and j1 read the same 12 blocks; j1 computes ten
// times as long per byte, so LPT puts it first (priority 0), on racks of
// its own. Taking the first reader by job index would place the input in
// j0's racks instead, where j1 never runs.
func TestSharedInputFollowsPriority(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 4, HostsPerRack: 3, Slots: 2, NICBps: 1.25e8, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	const block = 256 << 20
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "s", Size: 12 * block, BlockSize: block, Replication: 3}}}
	w := &workload.Workload{}
	for i, ns := range []float64{5, 50} {
		w.Jobs = append(w.Jobs, workload.Job{ID: []string{"j0", "j1"}[i], Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "s", Selectivity: 1, ComputeNsPerByte: ns},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 2, After: []string{"map"}, Selectivity: 0.5, ComputeNsPerByte: ns},
		}})
	}
	p := New(DefaultConfig())
	e, err := engine.New(engine.Config{}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	j0, j1 := p.planOf(0), p.planOf(1)
	if !j0.planned || !j1.planned || j1.priority != 0 {
		t.Fatalf("plan: j0 %+v, j1 %+v; want both planned, j1 first", *j0, *j1)
	}
	for _, r := range j1.rackList {
		if j0.racks[r] {
			t.Fatalf("j0 %v and j1 %v share rack %d: the test needs them apart", j0.rackList, j1.rackList, r)
		}
	}
	for b, blk := range e.Datasets().Datasets[0].Blocks {
		if r := topo.RackOf(blk.Replicas[0].Host); !j1.racks[r] {
			t.Errorf("block %d: first replica on rack %d, outside the first reader j1's racks %v (j0's %v)", b, r, j1.rackList, j0.rackList)
		}
	}
}
