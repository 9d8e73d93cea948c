package dawn_test

import (
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/policytest"
	"github.com/racklab/racklab/coordinator/workload"
)

// The dependency-unaware scheduler (§4.3) runs maps node-local only. A
// map over an empty dataset has one task that reads nothing and has no
// replica, local to no host: it waited for ever, every slot idle, and the
// simulator stopped the run as stalled. It takes any host's container.
func TestUnawareRunsAMapWithNoReplica(t *testing.T) {
	p, err := policy.Build(policy.Spec{Name: "dawn", Args: map[string]any{"dependency_unaware": true}})
	if err != nil {
		t.Fatal(err)
	}
	topo := policytest.Topology(t, 1, 2, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "empty", Size: 0, BlockSize: 64 << 20, Replication: 1}}}
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapJob("J1", 0, "", "empty")}}
	eng := policytest.Engine(t, engine.Config{}, topo, w, ds, p)
	eng.Offer(1)
	got := policytest.Collect(eng)
	if len(got) != 1 || got[0].Job != "J1" || got[0].Host != 1 {
		t.Fatalf("launches %+v, want J1's one map on host 1", got)
	}
	if eng.Stats.Rejected != 0 {
		t.Fatalf("%d actions rejected", eng.Stats.Rejected)
	}
}
