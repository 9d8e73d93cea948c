package sim

import (
	"math"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// pinned runs each task on the host its function names, when that host
// has a free slot and the task can run.
type pinned struct {
	host func(engine.TaskRef) cluster.HostID
}

func (*pinned) Name() string { return "pinned" }

func (p *pinned) OfferHost(ctx *engine.Context, h cluster.HostID) {
	var buf []engine.TaskRef
	for _, j := range ctx.Running() {
		for _, t := range ctx.Pending(j.ID, buf[:0]) {
			if p.host(t) == h && ctx.CanRun(t) && ctx.FreeSlots(h) > 0 {
				_, _ = ctx.Launch(t, h, engine.LaunchOptions{})
			}
		}
	}
}

func (*pinned) AttemptEnded(*engine.Context, *engine.Attempt) {}

// reducerOnRack1 runs every map on host 0 (rack 0) and puts reducer
// remote on host 1 (rack 1), the other reducers on host 0: rack 1's
// downlink then carries exactly that reducer's partition.
func reducerOnRack1(remote int32) *pinned {
	return &pinned{host: func(t engine.TaskRef) cluster.HostID {
		if t.Stage == 1 && t.Index == remote {
			return 1
		}
		return 0
	}}
}

// TestSimulatorFlowsFollowExplicitShares checks that the simulator's
// shuffle flows carry each reducer's explicit share: with shares [3, 1],
// the reducer alone on rack 1 pulls 75% of the map output over rack 1's
// downlink when it is reducer 0, and 25% when it is reducer 1.
func TestSimulatorFlowsFollowExplicitShares(t *testing.T) {
	const shuffle = 64 << 20
	for _, c := range []struct {
		remote int32
		want   float64
	}{{0, 0.75 * shuffle}, {1, 0.25 * shuffle}} {
		topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 1, Slots: 4, NICBps: 125e6, Oversubscription: 1,
			Tiers: []cluster.Tier{{Kind: cluster.HDD, ReadBps: 1e9, WriteBps: 1e9, CapacityBytes: 1 << 40}}})
		if err != nil {
			t.Fatal(err)
		}
		ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{
			{Size: shuffle / 2, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}},
			{Size: shuffle / 2, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}}}}}}
		w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 2, After: []string{"map"}, Shares: []float64{3, 1}},
		}}}}
		eng, err := engine.New(engine.Config{SlowStart: 1}, topo, w, ds, reducerOnRack1(c.remote))
		if err != nil {
			t.Fatal(err)
		}
		res, err := New(eng, Options{}).Run()
		if err != nil || res.Stalled {
			t.Fatalf("reducer %d remote: %v %+v", c.remote, err, res)
		}
		if got := res.DownlinkBytes[1]; math.Abs(got-c.want) > 1 {
			t.Errorf("reducer %d on rack 1: its downlink carried %.0f bytes, want %.0f", c.remote, got, c.want)
		}
	}
}
