package hdfs

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

func topo(t *testing.T, racks, hosts int) *cluster.Topology {
	tp, err := cluster.Uniform(cluster.UniformSpec{Racks: racks, HostsPerRack: hosts, Slots: 1, NICBps: 1, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func TestRackAwarePlacement(t *testing.T) {
	tp := topo(t, 7, 5)
	d := &workload.Dataset{Name: "d", Size: 1000 * 64, BlockSize: 64}
	reps, err := (&Placer{}).PlaceDataset(tp, rand.New(rand.NewPCG(1, 2)), d, d.BlockSizes())
	if err != nil {
		t.Fatal(err)
	}
	perRack := make([]int, 7)
	for b, r := range reps {
		if len(r) != 3 {
			t.Fatalf("block %d has %d replicas", b, len(r))
		}
		if r[0].Host == r[1].Host || r[1].Host == r[2].Host || r[0].Host == r[2].Host {
			t.Fatalf("block %d: two replicas on one host: %+v", b, r)
		}
		r0, r1, r2 := tp.RackOf(r[0].Host), tp.RackOf(r[1].Host), tp.RackOf(r[2].Host)
		if r0 == r1 || r1 != r2 {
			t.Fatalf("block %d: racks %d %d %d, want 2nd and 3rd together on another rack than the 1st", b, r0, r1, r2)
		}
		for _, x := range r {
			if x.Tier != cluster.HDD {
				t.Fatalf("default tier %s", x.Tier)
			}
			perRack[tp.RackOf(x.Host)]++
		}
	}
	// spread: every rack gets a fair part of 3,000 replicas (about 429)
	for rk, n := range perRack {
		if n < 300 || n > 560 {
			t.Fatalf("rack %d holds %d of 3000 replicas", rk, n)
		}
	}
	again, _ := (&Placer{}).PlaceDataset(tp, rand.New(rand.NewPCG(1, 2)), d, d.BlockSizes())
	if !reflect.DeepEqual(reps, again) {
		t.Fatal("same seed, different placement")
	}
}

func TestSmallClustersAndTierMix(t *testing.T) {
	tp := topo(t, 1, 2)
	d := &workload.Dataset{Name: "d", Size: 64 * 400, BlockSize: 64}
	p := &Placer{}
	p.TierMix[cluster.Mem] = 1
	p.TierMix[cluster.HDD] = 1
	reps, err := p.PlaceDataset(tp, rand.New(rand.NewPCG(3, 4)), d, d.BlockSizes())
	if err != nil {
		t.Fatal(err)
	}
	mem := 0
	for _, r := range reps {
		if len(r) != 2 || r[0].Host == r[1].Host {
			t.Fatalf("on 2 hosts a block got %+v", r)
		}
		for _, x := range r {
			if x.Tier == cluster.Mem {
				mem++
			}
		}
	}
	if mem < 320 || mem > 480 {
		t.Fatalf("%d of 800 replicas in memory with a 50%% mix", mem)
	}
}

// Hosts with a usable filter never picks an unusable host, the first
// replica included, and comes back short when too few are usable.
func TestHostsUsable(t *testing.T) {
	tp := topo(t, 3, 4)
	even := func(h cluster.HostID) bool { return h%2 == 0 }
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200; i++ {
		hs := Hosts(tp, rng, 3, even)
		if len(hs) != 3 {
			t.Fatalf("%d hosts, want 3: %v", len(hs), hs)
		}
		for _, h := range hs {
			if !even(h) {
				t.Fatalf("unusable host %d chosen: %v", h, hs)
			}
		}
	}
	only := func(h cluster.HostID) bool { return h == 7 }
	if hs := Hosts(tp, rng, 3, only); !reflect.DeepEqual(hs, []cluster.HostID{7}) {
		t.Fatalf("one usable host: got %v", hs)
	}
	if hs := Hosts(tp, rng, 3, func(cluster.HostID) bool { return false }); hs != nil {
		t.Fatalf("no usable host: got %v", hs)
	}
	if hs := Hosts(tp, rng, 0, nil); hs != nil {
		t.Fatalf("no replica asked: got %v", hs)
	}
}

func TestTierOrSlowest(t *testing.T) {
	h := &cluster.Host{Tiers: []cluster.Tier{{Kind: cluster.Mem}, {Kind: cluster.SSD}}}
	for _, tc := range []struct{ want, got cluster.TierKind }{
		{cluster.Mem, cluster.Mem}, {cluster.SSD, cluster.SSD}, {cluster.HDD, cluster.SSD},
	} {
		if got := TierOrSlowest(h, tc.want); got != tc.got {
			t.Errorf("%s on a mem+ssd host: got %s, want %s", tc.want, got, tc.got)
		}
	}
}

// With writer racks every block's first replica is in one of them and
// its second in another rack; without, the first replicas spread over
// every rack. A writer rack outside the topology is an error.
func TestWriterRacks(t *testing.T) {
	tp := topo(t, 4, 3)
	d := &workload.Dataset{Name: "d", Size: 400 * 64, BlockSize: 64, Replication: 2}
	p := &Placer{WriterRacks: []cluster.RackID{1, 2}}
	reps, err := p.PlaceDataset(tp, rand.New(rand.NewPCG(1, 2)), d, d.BlockSizes())
	if err != nil {
		t.Fatal(err)
	}
	first := make([]int, 4)
	for b, r := range reps {
		r0, r1 := tp.RackOf(r[0].Host), tp.RackOf(r[1].Host)
		if (r0 != 1 && r0 != 2) || r0 == r1 {
			t.Fatalf("block %d: replicas in racks %d and %d, want the first in rack 1 or 2 and the second elsewhere", b, r0, r1)
		}
		first[r0]++
	}
	if first[1] < 150 || first[2] < 150 {
		t.Errorf("first replicas per rack %v: both writer racks should write about half", first)
	}
	if _, err := (&Placer{WriterRacks: []cluster.RackID{4}}).PlaceDataset(tp, rand.New(rand.NewPCG(1, 2)), d, d.BlockSizes()); err == nil {
		t.Error("writer rack 4 of a 4-rack topology accepted")
	}
}

// Shares are weights, so huge ones are as good as small ones; shares
// whose sum overflowed to +Inf put every replica on HDD, a tier whose
// share was 0.
func TestHugeTierMixShares(t *testing.T) {
	tp := topo(t, 3, 3)
	d := &workload.Dataset{Name: "d", Size: 64 * 400, BlockSize: 64}
	p := &Placer{}
	p.TierMix[cluster.Mem] = 1e308
	p.TierMix[cluster.SSD] = 1e308
	reps, err := p.PlaceDataset(tp, rand.New(rand.NewPCG(3, 4)), d, d.BlockSizes())
	if err != nil {
		t.Fatal(err)
	}
	var per [cluster.NumTierKinds]int
	for _, r := range reps {
		for _, x := range r {
			per[x.Tier]++
		}
	}
	if per[cluster.HDD] != 0 || per[cluster.Mem] < 480 || per[cluster.SSD] < 480 {
		t.Errorf("replicas per tier (mem, ssd, hdd) %v of 1200, want about half each in mem and ssd", per)
	}
}
