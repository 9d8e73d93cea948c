package tierpick

import (
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// probe asks job 0's Index for its first map's fastest tier at every
// offer, and launches nothing.
type probe struct {
	idx  Indexes
	seen []cluster.TierKind
}

func (*probe) Name() string { return "probe" }

func (p *probe) OfferHost(ctx *engine.Context, _ cluster.HostID) {
	if e, ok := p.idx.Get(ctx, 0).FirstAny(ctx); ok {
		p.seen = append(p.seen, e.Tier)
	}
}

// An Index built before the memory tier's LRU demoted a replica is
// built again (trident.md §3.2: scores refreshed before the next
// decision): job ja's block, in host 0's memory once ja arrives, is
// demoted when jb's block takes the 100 B of memory, and ja's still
// pending map is then best read from SSD, not memory.
func TestIndexRebuiltAfterTierMove(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 1, HostsPerRack: 3, Slots: 1, NICBps: 1e9, Oversubscription: 1,
		Tiers: []cluster.Tier{
			{Kind: cluster.Mem, ReadBps: 4e9, WriteBps: 2e9, CapacityBytes: 100},
			{Kind: cluster.SSD, ReadBps: 5e8, WriteBps: 4e8},
			{Kind: cluster.HDD, ReadBps: 2e8, WriteBps: 1.6e8},
		}})
	if err != nil {
		t.Fatal(err)
	}
	tiered := func(name string) workload.Dataset {
		return workload.Dataset{Name: name, Blocks: []workload.Block{{Size: 100, Replicas: []workload.Replica{
			{Host: 0, Tier: cluster.Mem}, {Host: 1, Tier: cluster.HDD}, {Host: 2, Tier: cluster.SSD}}}}}
	}
	job := func(id, input string, at engine.Time) workload.Job {
		return workload.Job{ID: id, Arrival: at, Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: input}}}
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{tiered("a"), tiered("b")}}
	w := &workload.Workload{Jobs: []workload.Job{job("ja", "a", 1), job("jb", "b", 2)}}
	p := &probe{}
	e, err := engine.New(engine.Config{MemoryLRU: true}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []engine.Time{1, 2} {
		if err := e.Advance(at); err != nil {
			t.Fatal(err)
		}
		e.Schedule()
		e.Ready()
	}
	if len(p.seen) < 2 || p.seen[0] != cluster.Mem || p.seen[len(p.seen)-1] != cluster.SSD {
		t.Fatalf("ja's first map's fastest tier at each offer: %v; want mem at t=1, ssd after jb's block took the memory", p.seen)
	}
}
