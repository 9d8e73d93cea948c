package corral

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

const gib = int64(1) << 30

// TestScenario5Placement is corral.md §8 Scenario 5's Corral placement
// (Algorithm U, §2.6): Q is planned on rack 0, racks start at [10, 4, 6]
// GB, and the replica pairs of its six 1 GB chunks go to the least-loaded
// other rack, ties to the lower id (the spec's rule for tests): 1, 1,
// 2, 1, 2, 1, ending at [16, 12, 10] GB.
func TestScenario5Placement(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 3, HostsPerRack: 2, Slots: 1, NICBps: 1e9, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.SecondRackTies = "lowest"
	p := New(cfg)
	p.jobs = []jobPlan{{planned: true, racks: []bool{true, false, false}, rackList: []cluster.RackID{0}}}
	p.readerOf["q"] = 0
	p.rackBytes = []int64{10 * gib, 4 * gib, 6 * gib}
	p.firstBytes = make([]int64, 3)
	sizes := []int64{gib, gib, gib, gib, gib, gib}
	reps, err := p.PlaceDataset(topo, rand.New(rand.NewPCG(5, 5)), &workload.Dataset{Name: "q", Replication: 3}, sizes)
	if err != nil {
		t.Fatal(err)
	}
	wantPair := []cluster.RackID{1, 1, 2, 1, 2, 1}
	for c, rs := range reps {
		if len(rs) != 3 {
			t.Fatalf("chunk %d: %d replicas, want 3", c+1, len(rs))
		}
		if r := topo.RackOf(rs[0].Host); r != 0 {
			t.Errorf("chunk %d: first replica on rack %d, want R_Q = {0}", c+1, r)
		}
		r1, r2 := topo.RackOf(rs[1].Host), topo.RackOf(rs[2].Host)
		if r1 != wantPair[c] || r2 != wantPair[c] || rs[1].Host == rs[2].Host {
			t.Errorf("chunk %d: replicas 2–3 on %v/%v (racks %d, %d), want two hosts of rack %d", c+1, rs[1].Host, rs[2].Host, r1, r2, wantPair[c])
		}
	}
	if want := []int64{16 * gib, 12 * gib, 10 * gib}; !slices.Equal(p.rackBytes, want) {
		t.Errorf("stored bytes %v, want %v", p.rackBytes, want)
	}
	if want := []int64{6 * gib, 0, 0}; !slices.Equal(p.firstBytes, want) {
		t.Errorf("first-replica bytes %v, want %v", p.firstBytes, want)
	}
}

// TestSecondRackTiesSeeded checks U4's tie-break: between equally
// loaded racks the run's draw decides (each tied rack wins for some
// seed), and the same seed gives the same rack.
func TestSecondRackTiesSeeded(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 4, HostsPerRack: 2, Slots: 1, NICBps: 1e9, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	second := func(seed uint64) cluster.RackID {
		p := New(DefaultConfig())
		p.rackBytes = []int64{0, 5, 5, 5} // racks 1–3 tie
		return p.secondRack(topo, rand.New(rand.NewPCG(seed, seed)), 0)
	}
	won := map[cluster.RackID]bool{}
	for seed := range uint64(64) {
		r := second(seed)
		if r == 0 {
			t.Fatalf("seed %d: replicas 2–3 on rack1's own rack", seed)
		}
		if second(seed) != r {
			t.Fatalf("seed %d: two draws differ", seed)
		}
		won[r] = true
	}
	if len(won) != 3 {
		t.Fatalf("tied racks chosen over 64 seeds: %v, want each of 1, 2, 3", won)
	}
}

// runEngine builds an engine running Corral on 4 racks × 3 hosts (5:1)
// with n two-stage jobs, each reading its own unplaced dataset of
// blocks[i] 256 MiB blocks; pred gives the predictions (nil: none).
func runEngine(t *testing.T, cfg Config, blocks []int, arrivals []float64, pred *workload.Predicted) (*engine.Engine, *Policy, *cluster.Topology) {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 4, HostsPerRack: 3, Slots: 2, NICBps: 1.25e8, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	w := &workload.Workload{}
	ds := &workload.Datasets{}
	const block = 256 << 20
	for i, n := range blocks {
		id := fmt.Sprintf("j%d", i)
		ds.Datasets = append(ds.Datasets, workload.Dataset{Name: "in-" + id, Size: int64(n) * block, BlockSize: block, Replication: 3})
		w.Jobs = append(w.Jobs, workload.Job{ID: id, Arrival: arrivals[i], Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "in-" + id, Selectivity: 1, ComputeNsPerByte: 5},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 2, After: []string{"map"}, Selectivity: 0.5, ComputeNsPerByte: 5},
		}})
	}
	p := New(cfg)
	e, err := engine.New(engine.Config{Predicted: pred}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	return e, p, topo
}

// TestPlannedInputPlacement checks Algorithm U end to end: every block of
// a planned job's input has its first replica in R_j and the other two
// on one other rack; the ad hoc job's input (no prediction) is placed
// HDFS-style, not necessarily in anyone's racks.
func TestPlannedInputPlacement(t *testing.T) {
	blocks := []int{24, 6, 6, 3, 3, 12}
	pred := &workload.Predicted{}
	for i := 0; i < 5; i++ {
		pred.Jobs = append(pred.Jobs, workload.Prediction{ID: fmt.Sprintf("j%d", i), InputBytes: int64(blocks[i]) << 28,
			ShuffleBytes: int64(blocks[i]) << 28, OutputBytes: int64(blocks[i]) << 27, MapTasks: blocks[i], ReduceTasks: 2})
	}
	e, p, topo := runEngine(t, DefaultConfig(), blocks, make([]float64, len(blocks)), pred)
	if p.PlanError() != nil || p.Result() == nil {
		t.Fatalf("no plan: %v", p.PlanError())
	}
	if p.planOf(5).planned {
		t.Fatal("j5 has no prediction but was planned")
	}
	var all int64
	for i, d := range e.Datasets().Datasets {
		for b, blk := range d.Blocks {
			all += blk.Size * int64(len(blk.Replicas))
			if i == 5 {
				continue
			}
			jp := p.planOf(engine.JobID(i))
			first := topo.RackOf(blk.Replicas[0].Host)
			if !jp.racks[first] {
				t.Errorf("%s block %d: first replica on rack %d, outside R_j %v", d.Name, b, first, jp.rackList)
			}
			second := topo.RackOf(blk.Replicas[1].Host)
			if len(blk.Replicas) != 3 || second == first || topo.RackOf(blk.Replicas[2].Host) != second {
				t.Errorf("%s block %d: replicas %v, want 2–3 together on another rack", d.Name, b, blk.Replicas)
			}
		}
	}
	stored, _ := p.RackInputBytes()
	var sum int64
	for _, b := range stored {
		sum += b
	}
	if sum != all {
		t.Errorf("per-rack accounting holds %d bytes, the datasets %d", sum, all)
	}
}

// TestPlanUsesPredictions checks that the planner plans on what it is
// told, not on what will run: j1 is predicted to be the long job, so it
// gets the first priority although j0 is the larger one.
func TestPlanUsesPredictions(t *testing.T) {
	blocks := []int{12, 3}
	pred := &workload.Predicted{Jobs: []workload.Prediction{
		{ID: "j0", InputBytes: 3 << 28, ShuffleBytes: 3 << 28, OutputBytes: 3 << 27, MapTasks: 3, ReduceTasks: 2},
		{ID: "j1", InputBytes: 12 << 28, ShuffleBytes: 12 << 28, OutputBytes: 12 << 27, MapTasks: 12, ReduceTasks: 2},
	}}
	_, p, _ := runEngine(t, DefaultConfig(), blocks, []float64{0, 0}, pred)
	if p.planOf(1).priority != 0 || p.planOf(1).duration <= p.planOf(0).duration {
		t.Errorf("predicted-long j1: priority %d run %g; j0: priority %d run %g", p.planOf(1).priority, p.planOf(1).duration, p.planOf(0).priority, p.planOf(0).duration)
	}
	// without predictions, the workload's own sizes: j0 is the long one
	_, p, _ = runEngine(t, DefaultConfig(), blocks, []float64{0, 0}, nil)
	if p.planOf(0).priority != 0 || p.objective != Batch {
		t.Errorf("actual sizes: j0 priority %d, objective %s", p.planOf(0).priority, p.objective)
	}
	// an arrival after 0 makes the auto objective online
	_, p, _ = runEngine(t, DefaultConfig(), blocks, []float64{0, 30}, nil)
	if p.objective != Online {
		t.Errorf("objective %s with an arrival at 30, want online", p.objective)
	}
}

// TestDAGJobPlanned checks that a job with more than a map and a reduce
// is planned on §2.4.5's critical path: a heavier last stage lengthens
// its planned run time by that stage's extra compute, which the
// MapReduce collapse (first reduce-side stage's cost) would not see.
func TestDAGJobPlanned(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 1, HostsPerRack: 2, Slots: 1, NICBps: 1.25e8, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	run := func(lastNs float64) float64 {
		ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Size: 4 << 28, BlockSize: 1 << 28, Replication: 1}}}
		w := &workload.Workload{Jobs: []workload.Job{{ID: "dag", Stages: []workload.Stage{
			{Name: "m", Kind: workload.Map, Input: "in", Selectivity: 1, ComputeNsPerByte: 5},
			{Name: "g", Kind: workload.Generic, Tasks: 2, After: []string{"m"}, Selectivity: 1, ComputeNsPerByte: 5},
			{Name: "r", Kind: workload.Reduce, Tasks: 2, After: []string{"g"}, Selectivity: 0.5, ComputeNsPerByte: lastNs},
		}}}}
		p := New(DefaultConfig())
		if _, err := engine.New(engine.Config{}, topo, w, ds, p); err != nil {
			t.Fatal(err)
		}
		if p.PlanError() != nil || !p.planOf(0).planned {
			t.Fatalf("DAG job not planned: %v", p.PlanError())
		}
		return p.planOf(0).duration
	}
	// stage r: 1 wave of 2 tasks on 2 machines, each 512 MiB in; 45 ns
	// more per byte is 512 MiB × 45 ns
	if got, want := run(50)-run(5), float64(1<<29)*45e-9; !near(got, want) {
		t.Errorf("the last stage's extra compute adds %g s to the plan, want %g", got, want)
	}
}
