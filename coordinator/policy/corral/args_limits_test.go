package corral_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/sim"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/corral"
	"github.com/racklab/racklab/coordinator/workload"
)

// TestArgsThatOverflowThePlanAreRefused checks the upper bound of alpha
// and the lower bound of a set map_rate or reduce_rate. Each value below
// passed Validate and then made the planner's objective +Inf: Algorithm P
// found no best plan and corral.schedule panicked (index out of range) as
// the run's engine was built. The largest alpha and the slowest rates the
// args accept plan the same workload.
func TestArgsThatOverflowThePlanAreRefused(t *testing.T) {
	for arg, val := range map[string]string{"alpha": "1e300", "map_rate": "1e-301", "reduce_rate": "1e-301"} {
		_, err := policy.ScenarioFactory("corral", map[string]string{arg: val})
		if err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s=%s: error %v, want one naming %s", arg, val, err, arg)
		}
	}
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 3, Slots: 2, NICBps: 125e6, Oversubscription: 2})
	if err != nil {
		t.Fatal(err)
	}
	w, ds := &workload.Workload{}, &workload.Datasets{}
	for i := 0; i < 6; i++ {
		in := fmt.Sprintf("in%d", i)
		ds.Datasets = append(ds.Datasets, workload.Dataset{Name: in, Size: 30 << 20, BlockSize: 1 << 20})
		w.Jobs = append(w.Jobs, workload.Job{ID: fmt.Sprintf("j%d", i), Arrival: float64(i), Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: in, Selectivity: 1},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 3, After: []string{"map"}, Selectivity: 1},
		}})
	}
	for _, args := range []map[string]any{
		{"alpha": float64(corral.MaxAlpha)},
		{"map_rate": cluster.MinRateBps, "reduce_rate": cluster.MinRateBps},
	} {
		spec := policy.Spec{Name: "corral", Args: args}
		sum, _, err := sim.RunOne(sim.Spec{Topology: topo, Workload: w, Datasets: ds, Policy: spec, Seed: 1, Dir: t.TempDir()})
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if sum.Jobs != len(w.Jobs) || sum.FailedJobs != 0 {
			t.Errorf("%v: %d jobs, %d failed; want %d, none failed", args, sum.Jobs, sum.FailedJobs, len(w.Jobs))
		}
	}
}
