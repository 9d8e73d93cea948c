package trident

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

// TestReplicationFactorBeyondMaxReplicasIsRefused: d = 2^62 used to pass
// Validate, and Algorithm 1's gate, free slots ≥ d·|tasks|, then wrapped
// to ≥ 0 with 4 tasks and pruned the slots of a round it must leave
// whole (as d = 2^40 does). A replication factor above the most replicas
// a block may have is refused.
func TestReplicationFactorBeyondMaxReplicasIsRefused(t *testing.T) {
	tasks := make([]Task, 4)
	for i := range tasks {
		tasks[i].Prefs = []Preference{{Node: 0}}
	}
	sets := []ResourceSet{{Node: 0, Free: 4}, {Node: 1, Rack: 1, Free: 4}}
	var pr Pruner
	for _, d := range []int{5, workload.MaxReplicas} {
		if s, err := pr.ComputeSlots(nil, PruningPaper, d, tasks, sets); err != nil || len(s) != 8 {
			t.Errorf("d = %d: %d slots (%v), want all 8: the gate needs %d free slots", d, len(s), err, 4*d)
		}
	}
	for _, d := range []int{workload.MaxReplicas + 1, 1 << 62} {
		c := DefaultConfig()
		c.D = d
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "exceeds 512") {
			t.Errorf("d = %d: error %v, want one giving the limit", d, err)
		}
	}
	c := DefaultConfig()
	c.D = workload.MaxReplicas
	if err := c.Validate(); err != nil {
		t.Errorf("d = %d: %v", c.D, err)
	}
}
