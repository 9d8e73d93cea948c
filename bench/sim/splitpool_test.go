package sim

import (
	"path/filepath"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
)

// PushBox and NEAT, which do not take a job's stages in order, finish a
// chain of reduce stages on hosts with a reduce pool of their own (2 map
// and 1 reduce slot a host). Before, the later stage's early reducers
// took every reduce slot while the stage they wait for had tasks left,
// and the run stalled.
func TestReduceChainOnSplitPoolsFinishes(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 2, ReduceSlots: 1, NICBps: 125e6, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "chain", Stages: []workload.Stage{
		{Name: "m", Kind: workload.Map, Input: "in", Selectivity: 1},
		{Name: "r1", Kind: workload.Reduce, Tasks: 8, After: []string{"m"}, Selectivity: 1},
		{Name: "r2", Kind: workload.Reduce, Tasks: 8, After: []string{"r1"}, Selectivity: 1},
	}}}}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Size: 8 << 20, BlockSize: 1 << 20, Replication: 2}}}
	for _, name := range []string{"pushbox", "neat"} {
		sum, _, err := RunOne(Spec{Topology: topo, Workload: w, Datasets: ds, Policy: policy.Spec{Name: name}, Seed: 1, Dir: filepath.Join(t.TempDir(), name)})
		if err != nil || sum.Jobs != 1 || sum.FailedJobs != 0 {
			t.Errorf("%s: %v, %d jobs done, %d failed", name, err, sum.Jobs, sum.FailedJobs)
		}
	}
}
