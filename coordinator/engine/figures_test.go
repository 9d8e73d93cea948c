package engine

import (
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// reporting is a policy with figures of its own.
type reporting struct {
	scripted
	calls int
}

func (p *reporting) Figures() map[string]float64 {
	p.calls++
	return map[string]float64{"plan_gap": 0.25}
}

// The policy's figures are read when the driver asks, once the run has
// ended, and not before.
func TestRecordPolicyFiguresReadsTheReporter(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}}}}
	p := &reporting{}
	e := newEngine(t, Config{}, topo, w, ds, p)
	if p.calls != 0 || e.Stats.PolicyFigures != nil {
		t.Fatalf("figures read before the run ended: %d calls, %v", p.calls, e.Stats.PolicyFigures)
	}
	e.RecordPolicyFigures()
	if p.calls != 1 || e.Stats.PolicyFigures["plan_gap"] != 0.25 {
		t.Fatalf("after RecordPolicyFigures: %d calls, figures %v", p.calls, e.Stats.PolicyFigures)
	}
	// a policy without figures leaves them nil
	plain := newEngine(t, Config{}, topo, w, ds, &scripted{})
	plain.RecordPolicyFigures()
	if plain.Stats.PolicyFigures != nil {
		t.Fatalf("a policy with no figures recorded %v", plain.Stats.PolicyFigures)
	}
}

// The input stored per rack counts every replica of every dataset, the
// ones placed beforehand and the ones the engine placed, and first
// replicas apart.
func TestInputBytesPerRack(t *testing.T) {
	topo := topo2x2(t, 1) // hosts 0, 1 on rack 0; 2, 3 on rack 1
	pre := workload.Dataset{Name: "pre", Blocks: []workload.Block{
		{Size: 10, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}, {Host: 2, Tier: cluster.HDD}}},
		{Size: 7, Replicas: []workload.Replica{{Host: 3, Tier: cluster.HDD}}},
	}}
	ds := &workload.Datasets{Datasets: []workload.Dataset{pre, {Name: "new", Size: 250, BlockSize: 100}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "pre"}}}}}
	// placing puts every block of an unplaced dataset on host 3 alone
	e := newEngine(t, Config{}, topo, w, ds, &placing{})
	if want := []int64{10, 10 + 7 + 250}; !slices.Equal(e.Stats.InputRackBytes, want) {
		t.Errorf("input bytes per rack %v, want %v", e.Stats.InputRackBytes, want)
	}
	if want := []int64{10, 7 + 250}; !slices.Equal(e.Stats.InputRackFirstBytes, want) {
		t.Errorf("first-replica bytes per rack %v, want %v", e.Stats.InputRackFirstBytes, want)
	}
}
