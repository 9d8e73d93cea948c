package shadow_test

import (
	"testing"

	"github.com/racklab/racklab/bench/sim"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/workload"
)

// A simulated one-wave job whose input sits in one rack: Shadow
// duplicates maps out of it, reports its figures consistently, and its
// model's prediction error is finite.
func TestSimulatedFigures(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 3, HostsPerRack: 2, Slots: 8, NICBps: 125e6, Oversubscription: 4})
	if err != nil {
		t.Fatal(err)
	}
	const mib = 1 << 20
	// 12 blocks, both replicas in rack 0 or 1 (hosts 0..3): rack 2 holds
	// none, so locality leaves it empty
	var blocks []workload.Block
	for b := 0; b < 12; b++ {
		blocks = append(blocks, workload.Block{Size: 64 * mib, Replicas: []workload.Replica{
			{Host: cluster.HostID(b % 2), Tier: cluster.HDD}, {Host: cluster.HostID(2 + b%2), Tier: cluster.HDD}}})
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Size: 12 * 64 * mib, BlockSize: 64 * mib, Replication: 2, Blocks: blocks}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1, ComputeNsPerByte: 20},
		{Name: "reduce", Kind: workload.Reduce, Tasks: 3, After: []string{"map"}, Selectivity: 0.1},
	}}}}
	sum, _, err := sim.RunOne(sim.Spec{Topology: topo, Workload: w, Datasets: ds,
		Policy: policy.Spec{Name: "shadow", Args: map[string]any{"theta": 0.5}}, Seed: 1, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	f := sum.PolicyFigures
	t.Logf("figures %v", f)
	if f["shadow_originals"] != 12 {
		t.Errorf("originals %v, want 12", f["shadow_originals"])
	}
	if !(f["shadow_duplicates"] >= 1 && f["shadow_duplicates"] <= 6) {
		t.Errorf("duplicates %v, want 1..⌈0.5·12⌉", f["shadow_duplicates"])
	}
	if !(f["shadow_chosen"] <= f["shadow_duplicates"] && f["shadow_early_chosen"] <= f["shadow_chosen"] && f["shadow_relocated_local"] <= f["shadow_chosen"]) {
		t.Errorf("figures %v: want early, relocated ≤ chosen ≤ duplicates", f)
	}
	if got, want := f["shadow_dup_frac"], f["shadow_duplicates"]/12; got != want {
		t.Errorf("duplicate share %v, want duplicates / originals = %v", got, want)
	}
	if got, want := f["shadow_chosen_frac"], f["shadow_chosen"]/f["shadow_duplicates"]; got != want {
		t.Errorf("chosen share %v, want chosen / duplicates = %v", got, want)
	}
	if e, ok := f["shadow_pred_error_mean"]; !ok || !(e >= 0 && e < 10) {
		t.Errorf("prediction error %v (reported %v): want a finite value", e, ok)
	}
}
