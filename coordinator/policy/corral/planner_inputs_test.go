package corral

import (
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/workload"
)

// TestPlanUsesPredictedArrivals checks that the planner takes A_j from
// the predictions (corral.md §3.1: "A_j predicted arrival time"; §7.3
// item 11: the planner sees predictions, the run the actual jobs). Both
// jobs are submitted at 0, but j1 is predicted to arrive at 30: the auto
// objective is online (§1.3) and j1's planned start is no earlier than
// 30 (§2.3.2 Q5). Taking the workload's arrivals would plan a batch with
// both jobs starting at 0.
func TestPlanUsesPredictedArrivals(t *testing.T) {
	blocks := []int{3, 3}
	pred := &workload.Predicted{}
	for i, a := range []float64{0, 30} {
		pred.Jobs = append(pred.Jobs, workload.Prediction{ID: []string{"j0", "j1"}[i], Arrival: a, InputBytes: 3 << 28,
			ShuffleBytes: 3 << 28, OutputBytes: 3 << 27, MapTasks: 3, ReduceTasks: 2})
	}
	_, p, _ := runEngine(t, DefaultConfig(), blocks, []float64{0, 0}, pred)
	if p.objective != Online {
		t.Errorf("objective %s, want online (j1 predicted at 30)", p.objective)
	}
	if s := p.planOf(1).start; s < 30 {
		t.Errorf("j1 planned to start at %g, before its predicted arrival 30", s)
	}
}

// TestPlanUsesPredictedTaskCounts checks that N^M and N^R come from the
// predictions (§3.1, §2.4.3), not from the workload. j0 reads 12 blocks
// of 256 MiB (3 GiB) into 2 reducers, predicted as one map task and one
// reduce task; B_M = B_R = 1e8 B/s (args), penalty off, on 4 racks of 3
// hosts × 2 slots (B = 1.25e8, V = 5, so B − B/V = 1e8):
//
//	l_map(r)     = 1 wave · 3 GiB / 1e8                = 32.21 s, any r
//	l_shuffle(1) = (3 GiB/3) / 1e8 · (2/3), 1 wave      =  7.16 s
//	l_reduce(r)  = 1 wave · 1.5 GiB / 1e8               = 16.11 s, any r
//
// L(1) = 55.48 s; wider is slower (the core term: 10.74, 9.54, 8.05 s
// instead of 7.16), so the plan keeps r = 1 and runs 55.48. With the
// workload's 12 maps (2 waves of 256 MiB: 5.37 s) it would plan 28.63 s;
// with its 2 reducers (8.05 s each) 47.42 s.
func TestPlanUsesPredictedTaskCounts(t *testing.T) {
	pred := &workload.Predicted{Jobs: []workload.Prediction{{ID: "j0", InputBytes: 12 << 28,
		ShuffleBytes: 12 << 28, OutputBytes: 12 << 27, MapTasks: 1, ReduceTasks: 1}}}
	cfg := DefaultConfig()
	cfg.Penalty, cfg.MapRate, cfg.ReduceRate = false, 1e8, 1e8
	_, p, _ := runEngine(t, cfg, []int{12}, []float64{0}, pred)
	jp := p.planOf(0)
	want := float64(3*gib)/1e8 + float64(gib)/1e8*2/3 + float64(3*gib/2)/1e8
	if len(jp.rackList) != 1 || !near(jp.duration, want) {
		t.Errorf("j0 planned on %v for %g s, want 1 rack for %g s (one predicted map, one reducer)", jp.rackList, jp.duration, want)
	}
}

// dagPlan plans TestDAGJobPlanned's three-stage job (m: 4 maps of
// 256 MiB; g: 2 tasks, selectivity 1; r: 2 tasks, selectivity 0.5) on 1
// rack of 2 one-slot hosts (B = 1.25e8, V = 5), with cfg and pred, and
// returns its planned run time.
func dagPlan(t *testing.T, cfg Config, pred *workload.Predicted) float64 {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 1, HostsPerRack: 2, Slots: 1, NICBps: 1.25e8, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Size: 4 << 28, BlockSize: 1 << 28, Replication: 1}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "dag", Stages: []workload.Stage{
		{Name: "m", Kind: workload.Map, Input: "in", Selectivity: 1, ComputeNsPerByte: 5},
		{Name: "g", Kind: workload.Generic, Tasks: 2, After: []string{"m"}, Selectivity: 1, ComputeNsPerByte: 5},
		{Name: "r", Kind: workload.Reduce, Tasks: 2, After: []string{"g"}, Selectivity: 0.5, ComputeNsPerByte: 5},
	}}}}
	p := New(cfg)
	if _, err := engine.New(engine.Config{Predicted: pred}, topo, w, ds, p); err != nil {
		t.Fatal(err)
	}
	if p.PlanError() != nil || !p.planOf(0).planned {
		t.Fatalf("DAG job not planned: %v", p.PlanError())
	}
	return p.planOf(0).duration
}

// TestDAGRateArgs checks that map_rate and reduce_rate (B_M, B_R, §3.2)
// set the stage times τ_s of a DAG job too (§2.4.5: τ = (D^I/N^M)/B_M for
// a map stage, output bytes / B_R for the others). With both at 1e8 B/s
// and the penalty off, in units of u = 256 MiB / 1e8 = 2.684 s:
//
//	m: 2 waves · 256 MiB / 1e8                         = 2u
//	g: shuffle (1 GiB/2)/(B − B/V = 1e8) · ½ = 1u, τ = 512 MiB / 1e8 = 2u
//	r: shuffle 1u, τ = 256 MiB / 1e8 = 1u
//
// L(1) = 7u = 18.79 s. An ignored arg derives the rate from the disks
// and the compute cost instead.
func TestDAGRateArgs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Penalty, cfg.MapRate, cfg.ReduceRate = false, 1e8, 1e8
	if got, want := dagPlan(t, cfg, nil), 7*float64(1<<28)/1e8; !near(got, want) {
		t.Errorf("DAG planned for %g s, want %g", got, want)
	}
}

// TestDAGScaledToPrediction checks that a DAG job is planned on its
// predicted size (§2.4.3, §3.1): its stage bytes are scaled by the
// predicted over the actual input. Predicted at twice its 1 GiB input,
// with the penalty off (it would differ anyway) and the stage times
// linear in bytes at a fixed number of waves, the plan doubles. Planning
// on the actual sizes would give the same run time as without a
// prediction.
func TestDAGScaledToPrediction(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Penalty = false
	actual := dagPlan(t, cfg, nil)
	pred := &workload.Predicted{Jobs: []workload.Prediction{{ID: "dag", InputBytes: 8 << 28, ShuffleBytes: 8 << 28,
		OutputBytes: 4 << 28, MapTasks: 4, ReduceTasks: 4}}}
	if got := dagPlan(t, cfg, pred); !near(got, 2*actual) {
		t.Errorf("predicted at 2× its input, the DAG is planned for %g s; unpredicted %g s, want twice that", got, actual)
	}
}

// TestMapOnlyOutputWrite checks B_M of a map-only job (§2.4.2 with
// N^R = 0; §2.4.3–§2.4.4, B_M as an earlier run at concurrency s would
// measure it): its map task reads its block, computes, and writes its
// output as the job's output, on the output tier. M reads 1 GiB in one
// map on a rack of 2 one-slot hosts (default tiers: HDD read 200e6 B/s,
// output on HDD at 160e6 B/s), compute 5 ns/B, selectivity 1, penalty
// off, predicted with D^O = 1 GiB:
//
//	1/B_M = 5e-9 + 1/200e6 + 1/160e6 = 16.25e-9 s/B → L_M(1) = 17.45 s
//
// (the simulator runs it in 17.46 s). Costing the map output as shuffle
// bytes, 0 without reducers, would drop the write: 10.74 s.
func TestMapOnlyOutputWrite(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Penalty = false
	if got, want := mapOnlyPlan(t, 1, 1, cfg, engine.Config{}), float64(1<<30)*(5e-9+1/200e6+1/160e6); !near(got, want) {
		t.Errorf("map-only M planned for %g s, want %g", got, want)
	}
}

// mapOnlyPlan plans job M, one map of a 1 GiB block (compute 5 ns/B,
// selectivity 1, replicas output copies), predicted with D^O = 1 GiB, on
// racks of 2 one-slot hosts (B = 1.25e8, V = 5, default tiers), and
// returns its planned run time.
func mapOnlyPlan(t *testing.T, racks, replicas int, cfg Config, ecfg engine.Config) float64 {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: racks, HostsPerRack: 2, Slots: 1, NICBps: 1.25e8, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "m", Size: 1 << 30, BlockSize: 1 << 30, Replication: 1}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "M", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "m", Selectivity: 1, ComputeNsPerByte: 5, OutputReplicas: replicas},
	}}}}
	ecfg.Predicted = &workload.Predicted{Jobs: []workload.Prediction{{ID: "M", InputBytes: 1 << 30, OutputBytes: 1 << 30, MapTasks: 1}}}
	p := New(cfg)
	if _, err := engine.New(ecfg, topo, w, ds, p); err != nil {
		t.Fatal(err)
	}
	return p.planOf(0).duration
}

// TestDAGDiskRates checks τ_s of a DAG job's stages derived from the
// disks (§2.4.5's "measured" τ_s; [INTERPRETATION] as in the policy's
// dagStages: a task reads its input block, computes, and writes its
// output, to the intermediate tier (SSD, 400e6 B/s) unless nothing
// follows its stage, then to the output tier (HDD, 160e6 B/s); input
// read from HDD at 200e6 B/s). dagPlan's job, penalty off, 5 ns/B:
//
//	m: 2 waves · 256 MiB · (5e-9 + 1/200e6 + 1/400e6)          = 6.711 s
//	g: shuffle 2.684 + 512 MiB · (5e-9 + 1/400e6)               = 6.711 s
//	r: shuffle 2.684 + 512 MiB · 5e-9 + 256 MiB / 160e6 (final) = 7.046 s
//
// L(1) = 20.47 s. Taking m or g for a final stage (their output on HDD)
// would make it longer.
func TestDAGDiskRates(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Penalty = false
	const mib = 1 << 20
	shuffle := 512 * mib / 1e8 / 2
	m := 2 * 256 * mib * (5e-9 + 1/200e6 + 1/400e6)
	g := shuffle + 512*mib*(5e-9+1/400e6)
	r := shuffle + 512*mib*5e-9 + 256*mib/160e6
	if got, want := dagPlan(t, cfg, nil), m+g+r; !near(got, want) {
		t.Errorf("DAG planned for %g s, want %g", got, want)
	}
}

// TestOutputWriteCountsReplicas checks B_M of a map-only job whose output
// has three replicas placed by HDFS's rule (the writer, then two hosts
// of the other rack): an earlier run's task time, which B_M stands for
// (§2.4.3), includes the copies the writer waits for. M reads 1 GiB in
// one map on 2 racks × 2 one-slot hosts (B = 1.25e8 B/s, V = 5: a
// machine's uplink share B/V = 2.5e7 B/s; HDD read 200e6, output write
// 160e6), compute 5 ns/B, penalty off. Through the pipeline one copy
// crosses racks, and the write takes the longest of its hops:
//
//	1/B_M = 5e-9 + 1/200e6 + max(1/160e6, 1/1.25e8, 1/2.5e7) = 50e-9 s/B → 53.69 s
//
// sent from the writer, both copies cross: 1/B_M = 90e-9 s/B, 96.64 s;
// with output_write local, the local copy only: 16.25e-9 s/B, 17.45 s.
func TestOutputWriteCountsReplicas(t *testing.T) {
	for _, c := range []struct {
		name     string
		write    string
		pipeline bool
		perByte  float64
	}{
		{"pipeline", "replicas", true, 5e-9 + 1/200e6 + 1/2.5e7},
		{"from the writer", "replicas", false, 5e-9 + 1/200e6 + 2/2.5e7},
		{"local copy only", "local", true, 5e-9 + 1/200e6 + 1/160e6},
	} {
		cfg := DefaultConfig()
		cfg.Penalty, cfg.OutputWrite = false, c.write
		got := mapOnlyPlan(t, 2, 3, cfg, engine.Config{OutputPlacer: &hdfs.Placer{}, OutputPipeline: c.pipeline})
		if want := float64(1<<30) * c.perByte; !near(got, want) {
			t.Errorf("%s: M planned for %g s, want %g", c.name, got, want)
		}
	}
}
