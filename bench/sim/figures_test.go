package sim

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
)

// A simulated run's summary carries its policy's own figures (Corral's
// plan objective, LP bound and gap), the plan's wall time, the data
// balance and the compute hours; two identical runs differ in the
// wall-clock column only, and a policy with no plan leaves the plan's
// columns empty.
func TestRunOneRecordsPolicyFigures(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 3, HostsPerRack: 2, Slots: 2, NICBps: 125e6, Oversubscription: 2})
	if err != nil {
		t.Fatal(err)
	}
	w := &workload.Workload{}
	ds := &workload.Datasets{}
	for i, blocks := range []int64{8, 3, 5, 2} {
		id := fmt.Sprintf("j%d", i)
		ds.Datasets = append(ds.Datasets, workload.Dataset{Name: "in-" + id, Size: blocks * 64 * mib, BlockSize: 64 * mib, Replication: 3})
		w.Jobs = append(w.Jobs, workload.Job{ID: id, Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "in-" + id, Selectivity: 1, ComputeNsPerByte: 2},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 2, After: []string{"map"}, Selectivity: 0.5},
		}})
	}
	dir := t.TempDir()
	run := func(name, sub string) metrics.Summary {
		t.Helper()
		sum, _, err := RunOne(Spec{Topology: topo, Workload: w, Datasets: ds, Policy: policy.Spec{Name: name}, Seed: 3, Dir: filepath.Join(dir, sub)})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	a, b := run("corral", "a"), run("corral", "b")
	for _, col := range []string{"plan_objective_s", "plan_lower_bound_s", "plan_gap"} {
		if _, ok := a.PolicyFigures[col]; !ok {
			t.Errorf("corral's run has no %s: figures %v", col, a.PolicyFigures)
		}
	}
	if g := a.PolicyFigures["plan_gap"]; !(g >= 0) || a.PolicyFigures["plan_lower_bound_s"] <= 0 {
		t.Errorf("gap %g, bound %g: want a positive bound and a gap ≥ 0", g, a.PolicyFigures["plan_lower_bound_s"])
	}
	if !(a.PlanWallS > 0) || !(a.ComputeHours > 0) || !(a.ReduceTimeP50S > 0) {
		t.Errorf("plan wall %g s, compute hours %g, reduce p50 %g: want all > 0", a.PlanWallS, a.ComputeHours, a.ReduceTimeP50S)
	}
	// the deterministic columns agree between identical runs
	ra, rb := a.Row(), b.Row()
	for i, col := range metrics.SummaryHeader {
		if ra[i] != rb[i] && !slices.Contains(metrics.WallClockColumns, col) {
			t.Errorf("%s differs between identical runs: %s, %s", col, ra[i], rb[i])
		}
	}

	f := run("fair", "fair")
	if len(f.PolicyFigures) != 0 || !math.IsNaN(f.PlanWallS) {
		t.Errorf("fair: figures %v, plan wall %g; want none", f.PolicyFigures, f.PlanWallS)
	}
	if f.InputRackCoV <= 0 {
		t.Errorf("fair (HDFS placement): CoV %g, want > 0", f.InputRackCoV)
	}
}
