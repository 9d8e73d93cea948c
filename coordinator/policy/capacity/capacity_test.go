package capacity

import (
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/policytest"
	"github.com/racklab/racklab/coordinator/workload"
)

func everywhere(n int) []cluster.HostID {
	h := make([]cluster.HostID, n)
	for i := range h {
		h[i] = cluster.HostID(i % 4)
	}
	return h
}

// The queue furthest below its guarantee is served first; within a queue,
// FIFO.
func TestQueueBelowGuaranteeFirst(t *testing.T) {
	topo := policytest.Topology(t, 1, 4, 2)
	ds := &workload.Datasets{Datasets: []workload.Dataset{
		policytest.Dataset("a", 10, everywhere(8)...), policytest.Dataset("b", 10, everywhere(8)...),
	}}
	w := &workload.Workload{Jobs: []workload.Job{
		policytest.MapJob("prod1", 0, "prod", "a"), policytest.MapJob("dev1", 0, "dev", "b"),
	}}
	cfg := engine.Config{Queues: []engine.Queue{{Name: "prod", Capacity: 0.75}, {Name: "dev", Capacity: 0.25}}}
	e := policytest.Engine(t, cfg, topo, w, ds, New(Config{}))
	e.Schedule()
	count := map[string]int{}
	for _, l := range policytest.Collect(e) {
		count[l.Job]++
	}
	// 8 slots: prod's guarantee is 6, dev's 2
	if count["prod1"] != 6 || count["dev1"] != 2 {
		t.Fatalf("slots per job %v, want prod1 6 and dev1 2", count)
	}
}

// Elasticity: an idle queue's share goes to a busy one, up to its maximum.
func TestElasticUpToMaxCapacity(t *testing.T) {
	topo := policytest.Topology(t, 1, 4, 2)
	ds := &workload.Datasets{Datasets: []workload.Dataset{policytest.Dataset("a", 10, everywhere(8)...)}}
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapJob("dev1", 0, "dev", "a")}}
	cfg := engine.Config{Queues: []engine.Queue{{Name: "prod", Capacity: 0.5}, {Name: "dev", Capacity: 0.5, MaxCapacity: 0.75}}}
	e := policytest.Engine(t, cfg, topo, w, ds, New(Config{}))
	e.Schedule()
	if n := len(policytest.Collect(e)); n != 6 {
		t.Fatalf("dev ran %d tasks, want 6 (max capacity 0.75 of 8)", n)
	}
}

// Hadoop 2.7's rule (Trident spec §4.2): rack-local only after
// node-locality-delay missed opportunities; reduces anywhere.
func TestNodeLocalityDelay(t *testing.T) {
	topo := policytest.Topology(t, 2, 3, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{policytest.Dataset("a", 10, 0, 0, 0, 0, 0, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapJob("j", 0, "", "a")}}
	e := policytest.Engine(t, engine.Config{}, topo, w, ds, New(Config{NodeLocalityDelay: 2}))
	if got := policytest.Launches(e, 1); len(got) != 0 {
		t.Fatalf("missed 1: launched %+v", got)
	}
	if got := policytest.Launches(e, 1); len(got) != 0 {
		t.Fatalf("missed 2: launched %+v", got)
	}
	got := policytest.Launches(e, 1)
	if len(got) != 1 || got[0].Locality != engine.RackLocal {
		t.Fatalf("missed 3 > delay 2: got %+v, want rack-local", got)
	}
}
