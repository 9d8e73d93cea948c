package mapplace_test

import (
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/internal/mapplace"
	"github.com/racklab/racklab/coordinator/policy/policytest"
	"github.com/racklab/racklab/coordinator/workload"
)

// probe is a policy made of a Placer and Reducers that notes what a
// policy built on them would ask after each heartbeat.
type probe struct {
	maps     *mapplace.Placer
	reducers *mapplace.Reducers
	counts   []int // SetMapCounts once every original is launched; nil: none
	assigned []bool
	origins  []mapplace.MapOrigin
}

func (*probe) Name() string { return "probe" }

func (p *probe) OfferHost(ctx *engine.Context, h cluster.HostID) {
	p.reducers.OfferReducers(ctx, h)
	p.maps.OfferMaps(ctx, h)
	all := p.maps.AllOriginalMapsAssigned(ctx, 0)
	p.assigned = append(p.assigned, all)
	if all {
		p.origins = p.maps.Originals(ctx, 0, p.origins[:0])
		if p.counts != nil {
			p.reducers.SetMapCounts(0, p.counts)
			p.counts = nil
		}
	}
}

// six splits, one per host of three racks of two hosts each
func setup(t *testing.T, p *probe, slots int) (*engine.Engine, *cluster.Topology) {
	topo := policytest.Topology(t, 3, 2, slots)
	ds := &workload.Datasets{Datasets: []workload.Dataset{policytest.Dataset("in", 64<<20, 0, 1, 2, 3, 4, 5)}}
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapReduceJob("j", 0, "in", 3)}}
	return policytest.Engine(t, engine.Config{SlowStart: 0.5}, topo, w, ds, p), topo
}

func newProbe() *probe {
	return &probe{
		maps:     mapplace.NewPlacer(mapplace.Config{Mode: mapplace.Delay, RackLocalityDelay: mapplace.DefaultRackLocalityDelay}),
		reducers: mapplace.NewReducers(mapplace.RoundRobin),
	}
}

func TestAllOriginalMapsAssignedOnceTheLastOriginalLaunches(t *testing.T) {
	p := newProbe()
	e, topo := setup(t, p, 1)
	for h := range topo.Hosts {
		e.Offer(cluster.HostID(h))
	}
	// hosts 0..4 leave a map pending; host 5 launches the last one
	if want := []bool{false, false, false, false, false, true}; !slices.Equal(p.assigned, want) {
		t.Fatalf("AllOriginalMapsAssigned after each heartbeat: %v, want %v", p.assigned, want)
	}
	if len(p.origins) != 6 {
		t.Fatalf("Originals: %+v, want six", p.origins)
	}
	for i, o := range p.origins {
		if int(o.Task.Index) != i || o.Host != cluster.HostID(i) || o.Rack != topo.RackOf(o.Host) {
			t.Errorf("origin %d: %+v, want task %d on host %d", i, o, i, i)
		}
	}
	if got := p.maps.RackCounts(0); !slices.Equal(got, []int{2, 2, 2}) {
		t.Errorf("RackCounts = %v, want [2 2 2]", got)
	}
}

// reducerRacks finishes three maps (slow-start 0.5) and offers every
// host, then returns the racks the reducers went to.
func reducerRacks(t *testing.T, p *probe) []int {
	e, topo := setup(t, p, 2)
	for h := range topo.Hosts {
		e.Offer(cluster.HostID(h))
	}
	launched := e.Ready().Launches
	for _, a := range launched[:3] {
		if err := e.AttemptSucceeded(a.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	e.Ready()
	for h := len(topo.Hosts) - 1; h >= 0; h-- {
		e.Offer(cluster.HostID(h))
	}
	h := make([]int, len(topo.Racks))
	for _, a := range e.Ready().Launches {
		if a.Task.Stage == 1 {
			h[topo.RackOf(a.Host)]++
		}
	}
	return h
}

func TestRoundRobinTakesTheCallersMapCounts(t *testing.T) {
	if got := reducerRacks(t, newProbe()); !slices.Equal(got, []int{1, 1, 1}) {
		t.Fatalf("H on the maps' own counts {2,2,2} = %v, want [1 1 1]", got)
	}
	// planned counts {1,0,5}: the cycle is R3, R1, so H = {1,0,2}
	p := newProbe()
	p.counts = []int{1, 0, 5}
	if got := reducerRacks(t, p); !slices.Equal(got, []int{1, 0, 2}) {
		t.Fatalf("H on the planned counts {1,0,5} = %v, want [1 0 2]", got)
	}
}

// srcProbe notes what Source answers for the job's first map on each
// offered host, many times over.
type srcProbe struct {
	got map[cluster.HostID][]cluster.HostID
}

func (*srcProbe) Name() string { return "srcprobe" }

func (p *srcProbe) OfferHost(ctx *engine.Context, h cluster.HostID) {
	t := engine.TaskRef{Job: 0, Stage: 0, Index: 0}
	for range 40 {
		src := mapplace.Source(ctx, t, h)
		if src == nil {
			p.got[h] = append(p.got[h], -1)
		} else {
			p.got[h] = append(p.got[h], src.Host)
		}
	}
}

// A reader with a replica in its rack leaves the choice to the engine; a
// reader off every replica's rack gets each replica at random, not the
// lowest host every time.
func TestSourceIsRandomOnlyOffRack(t *testing.T) {
	topo := policytest.Topology(t, 3, 2, 1)
	d := policytest.Dataset("in", 64<<20, 0)
	d.Blocks[0].Replicas = append(d.Blocks[0].Replicas, workload.Replica{Host: 2, Tier: cluster.HDD})
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapReduceJob("j", 0, "in", 1)}}
	p := &srcProbe{got: map[cluster.HostID][]cluster.HostID{}}
	e := policytest.Engine(t, engine.Config{}, topo, w, &workload.Datasets{Datasets: []workload.Dataset{d}}, p)
	e.Offer(1)
	e.Offer(4)
	for _, s := range p.got[1] {
		if s != -1 {
			t.Fatalf("host 1 (rack 0, beside the replica on host 0): Source chose host %d, want the engine's choice", s)
		}
	}
	seen := map[cluster.HostID]int{}
	for _, s := range p.got[4] {
		seen[s]++
	}
	if len(p.got[4]) != 40 || seen[0] == 0 || seen[2] == 0 || seen[-1] != 0 {
		t.Fatalf("host 4 (rack 2, off both replicas' racks): sources %v, want both replicas drawn", seen)
	}
}
