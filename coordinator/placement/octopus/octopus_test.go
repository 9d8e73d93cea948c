package octopus

import (
	"math/rand/v2"
	"reflect"
	"strings"
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

func place(t *testing.T, tp *cluster.Topology, d *workload.Dataset, seed uint64) [][]workload.Replica {
	t.Helper()
	reps, err := (&Placer{}).PlaceDataset(tp, rand.New(rand.NewPCG(seed, 2)), d, d.BlockSizes())
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != len(d.BlockSizes()) {
		t.Fatalf("%d replica lists for %d blocks", len(reps), len(d.BlockSizes()))
	}
	return reps
}

// Every block has one replica per tier on three distinct hosts, laid out
// by HDFS's rack rule; each tier takes each position of the rule about
// equally often; the same seed gives the same layout.
func TestOneReplicaPerTierRackAware(t *testing.T) {
	tp := topo(t, 4, 5)
	d := &workload.Dataset{Name: "d", Size: 3000 * 64, BlockSize: 64}
	reps := place(t, tp, d, 1)
	// position × tier counts: which tier the lone first replica gets
	var pos [3][cluster.NumTierKinds]int
	for b, r := range reps {
		if len(r) != 3 {
			t.Fatalf("block %d has %d replicas", b, len(r))
		}
		if r[0].Host == r[1].Host || r[1].Host == r[2].Host || r[0].Host == r[2].Host {
			t.Fatalf("block %d: two replicas on one host: %+v", b, r)
		}
		var seen [cluster.NumTierKinds]bool
		for i, x := range r {
			if seen[x.Tier] {
				t.Fatalf("block %d: two replicas on tier %s: %+v", b, x.Tier, r)
			}
			seen[x.Tier] = true
			pos[i][x.Tier]++
		}
		r0, r1, r2 := tp.RackOf(r[0].Host), tp.RackOf(r[1].Host), tp.RackOf(r[2].Host)
		if r0 == r1 || r1 != r2 {
			t.Fatalf("block %d: racks %d %d %d, want the 2nd and 3rd together on another rack than the 1st", b, r0, r1, r2)
		}
	}
	// random tier-to-replica assignment: about 1,000 of each per position
	for i := range pos {
		for k, n := range pos[i] {
			if n < 850 || n > 1150 {
				t.Errorf("replica %d is on %s in %d of 3000 blocks, want about 1000", i, cluster.TierKind(k), n)
			}
		}
	}
	if again := place(t, tp, d, 1); !reflect.DeepEqual(reps, again) {
		t.Fatal("same seed, different placement")
	}
	if other := place(t, tp, d, 9); reflect.DeepEqual(reps, other) {
		t.Fatal("another seed, same placement")
	}
}

// Replicas beyond the third go to HDD; fewer than three take distinct
// tiers; a cluster smaller than the replication under-replicates.
func TestReplicationOtherThanThree(t *testing.T) {
	tp := topo(t, 3, 4)
	five := place(t, tp, &workload.Dataset{Name: "d", Size: 200, BlockSize: 1, Replication: 5}, 3)
	for b, r := range five {
		if len(r) != 5 {
			t.Fatalf("block %d: %d replicas, want 5", b, len(r))
		}
		var n [cluster.NumTierKinds]int
		hosts := map[cluster.HostID]bool{}
		for _, x := range r {
			n[x.Tier]++
			hosts[x.Host] = true
		}
		if n != [cluster.NumTierKinds]int{1, 1, 3} || len(hosts) != 5 || r[3].Tier != cluster.HDD || r[4].Tier != cluster.HDD {
			t.Fatalf("block %d: %+v, want one mem, one ssd, three hdd on 5 hosts, the extra ones hdd", b, r)
		}
	}
	two := place(t, tp, &workload.Dataset{Name: "d", Size: 300, BlockSize: 1, Replication: 2}, 3)
	var count [cluster.NumTierKinds]int
	for b, r := range two {
		if len(r) != 2 || r[0].Tier == r[1].Tier || r[0].Host == r[1].Host {
			t.Fatalf("block %d: %+v, want two tiers on two hosts", b, r)
		}
		count[r[0].Tier]++
		count[r[1].Tier]++
	}
	for k, c := range count {
		if c < 150 || c > 250 {
			t.Errorf("%s holds %d of 600 replicas, want about 200", cluster.TierKind(k), c)
		}
	}
	small := place(t, topo(t, 1, 2), &workload.Dataset{Name: "d", Size: 10, BlockSize: 1}, 3)
	for b, r := range small {
		if len(r) != 2 || r[0].Host == r[1].Host {
			t.Fatalf("block %d on 2 hosts: %+v", b, r)
		}
	}
}

// A host lacking the tier drawn gets its slowest: here every host has
// memory and SSD only, so the HDD replica lands on SSD.
func TestMissingTierFallsBackToSlowest(t *testing.T) {
	tp := topo(t, 2, 3)
	for i := range tp.Hosts {
		tp.Hosts[i].Tiers = []cluster.Tier{{Kind: cluster.Mem, ReadBps: 1, WriteBps: 1, CapacityBytes: 1 << 30}, {Kind: cluster.SSD, ReadBps: 1, WriteBps: 1, CapacityBytes: 1 << 30}}
	}
	for b, r := range place(t, tp, &workload.Dataset{Name: "d", Size: 100, BlockSize: 1}, 4) {
		var n [cluster.NumTierKinds]int
		for _, x := range r {
			n[x.Tier]++
		}
		if n != [cluster.NumTierKinds]int{1, 2, 0} {
			t.Fatalf("block %d: %+v, want one mem and two ssd replicas", b, r)
		}
	}
}

func TestErrors(t *testing.T) {
	tp := topo(t, 2, 2)
	d := &workload.Dataset{Name: "d", Size: 10, BlockSize: 1, Replication: -1}
	_, err := (&Placer{}).PlaceDataset(tp, rand.New(rand.NewPCG(1, 2)), d, d.BlockSizes())
	if err == nil || !strings.Contains(err.Error(), "replication -1 is negative") {
		t.Fatalf("negative replication: %v", err)
	}
	d.Replication = 3
	_, err = (&Placer{}).PlaceDataset(&cluster.Topology{}, rand.New(rand.NewPCG(1, 2)), d, d.BlockSizes())
	if err == nil || !strings.Contains(err.Error(), "no host") {
		t.Fatalf("empty topology: %v", err)
	}
}

// An output's replicas: the first on the writer, the rest by HDFS's rule
// on usable hosts only, one per tier in a random order; the same rng
// state gives the same replicas.
func TestPlaceReplicasForOutputs(t *testing.T) {
	tp := topo(t, 3, 4)
	rng := rand.New(rand.NewPCG(5, 6))
	dead := cluster.HostID(5)
	usable := func(h cluster.HostID) bool { return h != dead }
	var first [cluster.NumTierKinds]int
	for i := 0; i < 1500; i++ {
		writer := cluster.HostID(i % len(tp.Hosts))
		if writer == dead {
			continue
		}
		reps := (&Placer{}).PlaceReplicas(tp, rng, writer, 3, usable)
		if len(reps) != 3 || reps[0].Host != writer {
			t.Fatalf("writer %d: %+v, want 3 replicas, the first on the writer", writer, reps)
		}
		var seen [cluster.NumTierKinds]bool
		for _, r := range reps {
			if r.Host == dead || seen[r.Tier] {
				t.Fatalf("writer %d: %+v: a replica on the dead host or two on one tier", writer, reps)
			}
			seen[r.Tier] = true
		}
		if reps[0].Host == reps[1].Host || reps[1].Host == reps[2].Host || reps[0].Host == reps[2].Host {
			t.Fatalf("writer %d: two replicas on one host: %+v", writer, reps)
		}
		r0, r1, r2 := tp.RackOf(reps[0].Host), tp.RackOf(reps[1].Host), tp.RackOf(reps[2].Host)
		if r0 == r1 || r1 != r2 {
			t.Fatalf("writer %d: racks %d %d %d, want HDFS's rule", writer, r0, r1, r2)
		}
		first[reps[0].Tier]++
	}
	// the writer's replica is not bound to a tier
	for k, n := range first {
		if n < 350 || n > 560 {
			t.Errorf("the writer's replica is on %s %d times in about 1400, want about a third", cluster.TierKind(k), n)
		}
	}
	a := (&Placer{}).PlaceReplicas(tp, rand.New(rand.NewPCG(7, 7)), 2, 3, nil)
	b := (&Placer{}).PlaceReplicas(tp, rand.New(rand.NewPCG(7, 7)), 2, 3, nil)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same rng state, different replicas: %+v and %+v", a, b)
	}
	// fewer replicas than asked when too few hosts are usable; one asked,
	// one on the writer
	if r := (&Placer{}).PlaceReplicas(tp, rng, 0, 3, func(h cluster.HostID) bool { return h == 0 }); len(r) != 1 || r[0].Host != 0 {
		t.Fatalf("one usable host: %+v", r)
	}
	if r := (&Placer{}).PlaceReplicas(tp, rng, 4, 1, nil); len(r) != 1 || r[0].Host != 4 {
		t.Fatalf("one replica: %+v", r)
	}
}
