package corral_test

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/bench/sim"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/corral"
	"github.com/racklab/racklab/coordinator/policy/policytest"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/gen"
	"github.com/racklab/racklab/datagen/recurring"
)

// TestScenarios runs the runtime scenarios in testdata/, one a file; the
// `policy corral k=v` lines take the args a campaign would.
func TestScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata", policy.ScenarioFactory)
}

// TestBadArgs checks that an arg outside its range is refused with a
// message naming the arg.
func TestBadArgs(t *testing.T) {
	for arg, val := range map[string]string{
		"objective": "fastest", "placement": "anywhere", "second_rack": "far", "second_rack_ties": "first", "alpha": "-1",
		"map_rate": "-2", "background": "1", "node_delay": "-1", "fail_threshold": "2", "slow_start": "3",
	} {
		_, err := policy.ScenarioFactory("corral", map[string]string{arg: val})
		if err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s=%s: error %v, want one naming %s", arg, val, err, arg)
		}
	}
	if _, err := policy.ScenarioFactory("corral", nil); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestSimRecurringWithSizeError runs a small W1 (20 recurring jobs, 5 ad
// hoc, 50% injected size error) through the simulator on 4 racks × 3
// hosts (5:1, background at 50% of the uplinks) under Corral and under
// the capacity scheduler: Corral plans, every job finishes, and Corral
// moves fewer bytes across racks.
func TestSimRecurringWithSizeError(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates two runs")
	}
	o := recurring.DefaultOptions()
	o.Jobs, o.AdHoc, o.SizeError, o.Scale, o.Arrivals = 20, 5, 0.5, 0.02, gen.Once
	w, ds, pred, err := recurring.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 4, HostsPerRack: 3, Slots: 2, NICBps: 1.25e8, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string) metrics.Summary {
		sum, timing, err := sim.RunOne(sim.Spec{Topology: topo, Workload: w, Datasets: ds, Predicted: pred,
			Policy: policy.Spec{Name: name}, Seed: 1, Dir: t.TempDir(), Options: sim.Options{Background: 0.5}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sum.Jobs != len(w.Jobs) || sum.FailedJobs != 0 {
			t.Fatalf("%s: %d jobs, %d failed; want %d, none failed", name, sum.Jobs, sum.FailedJobs, len(w.Jobs))
		}
		t.Logf("%s: makespan %.0f s, mean JCT %.0f s, cross-rack GB: input %.2f shuffle %.2f output %.2f; plan %.3f s",
			name, sum.MakespanS, sum.JCTMeanS, gb(sum, engine.ClassInput), gb(sum, engine.ClassShuffle), gb(sum, engine.ClassOutput), timing.PlanS)
		return sum
	}
	c, y := run("corral"), run("capacity")
	// output writes cross racks alike under both (§8 Scenario 5): compare
	// input and shuffle
	jobBytes := func(s metrics.Summary) float64 { return gb(s, engine.ClassInput) + gb(s, engine.ClassShuffle) }
	if jobBytes(c) >= jobBytes(y) {
		t.Errorf("corral moved %.2f GB of input and shuffle across racks, capacity %.2f", jobBytes(c), jobBytes(y))
	}
}

func gb(s metrics.Summary, c engine.Class) float64 {
	return float64(s.Bytes[c][engine.LevelCross]) / 1e9
}

// TestPlannedRunTimeMatchesSimulation checks the rates the planner derives
// from a job's stages (§2.4.3–§2.4.4: B_M and B_R as earlier runs at
// concurrency s would measure them) against the simulator: one
// MapReduce job alone on a rack of 3 hosts × 4 slots, whose 4 concurrent
// tasks share each host's HDD (input, output) and SSD (map output). The
// planner's L_j(1) (penalty off) must be within 25% of the simulated run
// time; with per-task rates taken at concurrency 1, and without the map's
// output write, it was a third of it.
func TestPlannedRunTimeMatchesSimulation(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 1, HostsPerRack: 3, Slots: 4, NICBps: 1.25e9, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	o := gen.DefaultOptions()
	d := o.Dataset("in", 24*o.Block()) // 24 maps: 2 waves of 12
	ds := &workload.Datasets{Datasets: []workload.Dataset{d}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", ComputeNsPerByte: 5, Selectivity: 1.5},
		{Name: "reduce", Kind: workload.Reduce, Tasks: 24, After: []string{"map"}, ComputeNsPerByte: 5, Selectivity: 2},
	}}}}
	cfg := corral.DefaultConfig()
	cfg.Penalty = false
	p := corral.New(cfg)
	eng, err := engine.New(engine.Config{Seed: 1}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.New(eng, sim.Options{}).Run()
	if err != nil {
		t.Fatal(err)
	}
	if res.Stalled || !eng.Done() {
		t.Fatalf("the job did not finish: %s", res.StallReason)
	}
	if p.Result() == nil || len(p.Result().Jobs) != 1 {
		t.Fatalf("no plan for the job: %v", p.PlanError())
	}
	planned := p.Result().Jobs[0].Duration
	j := eng.Jobs()[0]
	simulated := float64(j.Finished - j.Started)
	t.Logf("planned L(1) %.1f s, simulated %.1f s", planned, simulated)
	if r := planned / simulated; r < 0.75 || r > 1.25 {
		t.Errorf("planned L(1) %.1f s is %.2f× the simulated run time %.1f s; want within 25%%", planned, r, simulated)
	}
}
