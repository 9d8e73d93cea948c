package live

import (
	"math"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
)

// networkWatcher notes the network status each measurement hands the
// engine.
type networkWatcher struct{ seen engine.NetworkStatus }

func (*networkWatcher) Name() string                              { return "network-watcher" }
func (*networkWatcher) OfferHost(*engine.Context, cluster.HostID) {}
func (p *networkWatcher) NetworkMeasured(ctx *engine.Context) {
	n := ctx.Network()
	p.seen = engine.NetworkStatus{HostRxBps: append([]float64(nil), n.HostRxBps...),
		HostCrossRxBps: append([]float64(nil), n.HostCrossRxBps...)}
}

// A host's cross-rack receive rate is what its worker counted from other
// racks' hosts over the window, a part of all it received.
func TestSampleNetworkCrossRx(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 1, Slots: 1, NICBps: 125e6, Oversubscription: 1,
		Tiers: []cluster.Tier{{Kind: cluster.HDD, ReadBps: 1e9, WriteBps: 1e9, CapacityBytes: 1 << 40}}})
	if err != nil {
		t.Fatal(err)
	}
	p := &networkWatcher{}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{
		{Size: 1 << 20, Replicas: []workload.Replica{{Host: 1, Tier: cluster.HDD}}}}}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in"}}}}}
	eng, err := engine.New(engine.Config{}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{topo: topo, eng: eng, rackName: map[string]cluster.RackID{}}
	for i, rk := range topo.Racks {
		r.rackName[rk.Name] = cluster.RackID(i)
	}
	other := topo.Racks[1].Name
	r.hosts = []hostInfo{
		{id: 0, reg: &wire.Register{}, rxBytes: 3e6, crossRx: map[string]uint64{other: 1e6}, prevCross: map[string]uint64{}},
		{id: 1, reg: &wire.Register{}, rxBytes: 2e6, prevCross: map[string]uint64{}},
	}
	r.lastNet = time.Now().Add(-time.Second)
	r.sampleNetwork()
	got := p.seen
	if len(got.HostCrossRxBps) != 2 || got.HostRxBps[0] <= 0 {
		t.Fatalf("status %+v", got)
	}
	// one window: both rates over the same dt
	if ratio := got.HostCrossRxBps[0] / got.HostRxBps[0]; math.Abs(ratio-1.0/3) > 1e-9 {
		t.Errorf("host 0: %g of %g B/s from other racks, want a third", got.HostCrossRxBps[0], got.HostRxBps[0])
	}
	if got.HostCrossRxBps[1] != 0 || got.HostRxBps[1] <= 0 {
		t.Errorf("host 1 received %g B/s, %g from other racks; want some, none", got.HostRxBps[1], got.HostCrossRxBps[1])
	}
}
