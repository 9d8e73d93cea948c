package corral

import (
	"math/rand/v2"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// TestPlacementDefaultReplication checks Algorithm U on a dataset that
// leaves its replication unset (0): HDFS's 3 replicas (corral.md §1.1),
// the first in R_j = {0} and two on one other rack (U2–U5).
func TestPlacementDefaultReplication(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 3, HostsPerRack: 2, Slots: 1, NICBps: 1e9, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	p := New(DefaultConfig())
	p.jobs = []jobPlan{{planned: true, racks: []bool{true, false, false}, rackList: []cluster.RackID{0}}}
	p.readerOf["d"] = 0
	reps, err := p.PlaceDataset(topo, rand.New(rand.NewPCG(3, 3)), &workload.Dataset{Name: "d"}, []int64{gib, gib, gib, gib})
	if err != nil {
		t.Fatal(err)
	}
	for c, rs := range reps {
		if len(rs) != 3 {
			t.Fatalf("chunk %d: %d replicas, want 3", c, len(rs))
		}
		r0, r1, r2 := topo.RackOf(rs[0].Host), topo.RackOf(rs[1].Host), topo.RackOf(rs[2].Host)
		if r0 != 0 || r1 == 0 || r2 != r1 || rs[1].Host == rs[2].Host {
			t.Errorf("chunk %d on racks %d, %d, %d: want the first on rack 0, two hosts of another rack", c, r0, r1, r2)
		}
	}
}

// TestPlacementOneHostRacks checks Algorithm U on racks of one host:
// U5's two machines of rack2 do not exist, and the chunk still gets its
// 3 replicas (§1.1), the third on a host not yet used. 3 racks of 1 host,
// the job planned on rack 0: replica 1 on h0, replica 2 on the other
// rack U4 picks, replica 3 on the remaining host, so every chunk has one
// replica on each host. Stopping at rack2's one host would leave 2.
func TestPlacementOneHostRacks(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 3, HostsPerRack: 1, Slots: 1, NICBps: 1e9, Oversubscription: 5})
	if err != nil {
		t.Fatal(err)
	}
	p := New(DefaultConfig())
	p.jobs = []jobPlan{{planned: true, racks: []bool{true, false, false}, rackList: []cluster.RackID{0}}}
	p.readerOf["d"] = 0
	reps, err := p.PlaceDataset(topo, rand.New(rand.NewPCG(4, 4)), &workload.Dataset{Name: "d", Replication: 3}, []int64{gib, gib, gib})
	if err != nil {
		t.Fatal(err)
	}
	for c, rs := range reps {
		if len(rs) != 3 || rs[0].Host != 0 || rs[1].Host == rs[2].Host || rs[1].Host == 0 || rs[2].Host == 0 {
			t.Errorf("chunk %d on hosts %v: want 3 replicas, the first on h0, the others on h1 and h2", c, rs)
		}
	}
}
