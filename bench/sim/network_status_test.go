package sim

import (
	"math"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// remoteReader runs every map on host 0 and notes the network status the
// engine holds when an attempt ends.
type remoteReader struct {
	seen engine.NetworkStatus   // at the last end
	all  []engine.NetworkStatus // at every end, in turn
}

func (*remoteReader) Name() string { return "remote-reader" }

func (*remoteReader) OfferHost(ctx *engine.Context, h cluster.HostID) {
	for _, j := range ctx.Running() {
		if t, _, ok := ctx.PickMap(j.ID, 0, engine.Remote); ok && h == 0 {
			_, _ = ctx.Launch(t, 0, engine.LaunchOptions{})
		}
	}
}

func (p *remoteReader) AttemptEnded(ctx *engine.Context, _ *engine.Attempt) {
	n := ctx.Network()
	p.seen = engine.NetworkStatus{UplinkLoad: append([]float64(nil), n.UplinkLoad...),
		DownlinkLoad: append([]float64(nil), n.DownlinkLoad...), HostRxBps: append([]float64(nil), n.HostRxBps...),
		HostCrossRxBps: append([]float64(nil), n.HostCrossRxBps...), Window: n.Window}
	p.all = append(p.all, p.seen)
}

// readRemotely simulates one job of maps over blocks (a block's first
// replica is where it is read from), every map run on host 0 by a
// remoteReader, on racks × hostsPerRack hosts of 125 MB/s NICs.
func readRemotely(t *testing.T, racks, hostsPerRack int, blocks []workload.Block, opt Options) (*remoteReader, *engine.Engine) {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: racks, HostsPerRack: hostsPerRack, Slots: len(blocks), NICBps: 125e6, Oversubscription: 1,
		Tiers: []cluster.Tier{{Kind: cluster.HDD, ReadBps: 1e9, WriteBps: 1e9, CapacityBytes: 1 << 40}}})
	if err != nil {
		t.Fatal(err)
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: blocks}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "in", Selectivity: 0}}}}}
	p := &remoteReader{}
	eng, err := engine.New(engine.Config{}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(eng, opt).Run()
	if err != nil || res.Stalled {
		t.Fatalf("%v %+v", err, res)
	}
	return p, eng
}

// The simulator hands the engine the network as the live driver measures
// it: loads over a 0.5 s window, as shares of the nominal capacity, with
// background traffic counted; per-host receive rates.
func TestNetworkStatusMeansWhatLiveMeans(t *testing.T) {
	const bg = 0.4
	p, eng := readRemotely(t, 2, 1, []workload.Block{{Size: 1 << 30, Replicas: []workload.Replica{{Host: 1, Tier: cluster.HDD}}}}, Options{Background: bg})
	got := p.seen
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-3 }
	// rack 1 sends at all the background leaves it: the link is full
	if got.Window != engine.NetworkWindow || !near(got.UplinkLoad[1], 1) || !near(got.DownlinkLoad[0], 1) {
		t.Errorf("window %g, uplink of the sender's rack %g, downlink of the reader's %g: want 0.5, 1, 1", got.Window, got.UplinkLoad[1], got.DownlinkLoad[0])
	}
	// the idle directions carry the background alone
	if !near(got.UplinkLoad[0], bg) || !near(got.DownlinkLoad[1], bg) {
		t.Errorf("idle links %g and %g, want the background %g", got.UplinkLoad[0], got.DownlinkLoad[1], bg)
	}
	if want := (1 - bg) * 125e6; !near(got.HostRxBps[0]/want, 1) || got.HostRxBps[1] != 0 {
		t.Errorf("receive rates %v, want %g on host 0", got.HostRxBps, want)
	}
	if eng.Topology().Racks[0].UplinkBps != 125e6 {
		t.Errorf("the engine sees uplinks of %g B/s, want the nominal 125e6", eng.Topology().Racks[0].UplinkBps)
	}
}

// A host's cross-rack receive rate is the part of its receive rate that
// came over its rack's downlink (pushbox.md §3.2's oversubscribed mode):
// host 0 reads one block from host 1, in its rack, and one from host 2,
// in the other, and its NIC shares its 125 MB/s between them.
func TestHostCrossRxCountsOtherRacksOnly(t *testing.T) {
	p, _ := readRemotely(t, 2, 2, []workload.Block{
		{Size: 1 << 30, Replicas: []workload.Replica{{Host: 1, Tier: cluster.HDD}}},
		{Size: 2 << 30, Replicas: []workload.Replica{{Host: 2, Tier: cluster.HDD}}}}, Options{})
	if len(p.all) != 2 {
		t.Fatalf("%d ends, want 2", len(p.all))
	}
	near := func(a, b float64) bool { return math.Abs(a/b-1) < 1e-3 }
	// when the rack-local read ends, both had half the NIC
	if got := p.all[0]; !near(got.HostRxBps[0], 125e6) || !near(got.HostCrossRxBps[0], 62.5e6) {
		t.Errorf("both reads on: host 0 received %g B/s, %g of them from the other rack; want 125e6 and 62.5e6", got.HostRxBps[0], got.HostCrossRxBps[0])
	}
	// then the cross-rack read alone, at the NIC's rate
	if got := p.all[1]; !near(got.HostRxBps[0], 125e6) || !near(got.HostCrossRxBps[0], 125e6) {
		t.Errorf("the cross-rack read alone: host 0 received %g B/s, %g of them from the other rack; want 125e6 and 125e6", got.HostRxBps[0], got.HostCrossRxBps[0])
	}
	for i, got := range p.all {
		if got.HostCrossRxBps[1] != 0 || got.HostCrossRxBps[2] != 0 || got.HostCrossRxBps[3] != 0 {
			t.Errorf("end %d: cross-rack receive rates %v, want none but host 0's", i, got.HostCrossRxBps)
		}
	}
}
