package layout

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

func topo(t *testing.T) *cluster.Topology {
	tp, err := cluster.Uniform(cluster.UniformSpec{Racks: 4, HostsPerRack: 5, Slots: 2, NICBps: 1e9, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func TestPlace(t *testing.T) {
	tp := topo(t)
	placed := workload.Dataset{Name: "old", Blocks: []workload.Block{{Size: 5, Replicas: []workload.Replica{{Host: 3, Tier: cluster.SSD}}}}}
	ds := &workload.Datasets{Datasets: []workload.Dataset{
		{Name: "a", Size: 3000 << 20, BlockSize: 128 << 20, Replication: 3},
		{Name: "empty", Size: 0, BlockSize: 128 << 20},
		placed,
		{Name: "b", Size: 1000, BlockSize: 100, Replication: 2},
	}}
	mix, err := ParseTierMix("mem=0.1, ssd=0.3,hdd=0.6")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{TierMix: mix, Seed: 7}
	out, st, err := Place(tp, ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Placed != 2 || st.Kept != 1 || st.Empty != 1 || st.Blocks != 24+10 {
		t.Errorf("stats %+v", st)
	}
	if !reflect.DeepEqual(out.Datasets[2], placed) || out.Datasets[1].Placed() || ds.Datasets[0].Placed() {
		t.Error("placed or empty datasets changed, or the input was modified")
	}
	a := out.Datasets[0]
	if a.TotalBytes() != 3000<<20 || len(a.Blocks) != 24 {
		t.Errorf("a: %d bytes in %d blocks", a.TotalBytes(), len(a.Blocks))
	}
	for _, b := range a.Blocks {
		r := b.Replicas
		if len(r) != 3 || tp.RackOf(r[0].Host) == tp.RackOf(r[1].Host) || tp.RackOf(r[1].Host) != tp.RackOf(r[2].Host) {
			t.Errorf("not rack-aware: %+v", r)
		}
	}
	for _, b := range out.Datasets[3].Blocks {
		if len(b.Replicas) != 2 {
			t.Errorf("b: %d replicas", len(b.Replicas))
		}
	}
	// The tier mix, over many blocks.
	big := &workload.Datasets{Datasets: []workload.Dataset{{Name: "big", Size: 30000, BlockSize: 10, Replication: 3}}}
	_, st, err = Place(tp, big, o)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range mix {
		if got := float64(st.ReplicaBytes[k]) / (3 * 30000); math.Abs(got-want) > 0.02 {
			t.Errorf("%s holds %.3f of the replicas, want %.1f", cluster.TierKind(k), got, want)
		}
	}
	// Same seed, same layout; through the file and back.
	again, _, _ := Place(tp, ds, o)
	if !reflect.DeepEqual(again, out) {
		t.Error("same seed, different layout")
	}
	o.Seed = 8
	other, _, _ := Place(tp, ds, o)
	if reflect.DeepEqual(other, out) {
		t.Error("another seed, same layout")
	}
	if _, back, err := workload.RoundTrip(&workload.Workload{}, out, tp); err != nil || !reflect.DeepEqual(back, out) {
		t.Errorf("the layout does not survive its file: %v", err)
	}
}

func TestOverridesAndCapacity(t *testing.T) {
	tp := topo(t)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "a", Size: 64 << 30, BlockSize: 128 << 20, Replication: 3}}}
	var mem [cluster.NumTierKinds]float64
	mem[cluster.Mem] = 1
	out, st, err := Place(tp, ds, Options{TierMix: mem, BlockSize: 1 << 30, Replication: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d := out.Datasets[0]; len(d.Blocks) != 64 || d.BlockSize != 1<<30 || d.Replication != 1 || len(d.Blocks[0].Replicas) != 1 {
		t.Errorf("overrides not applied: %d blocks, %+v", len(d.Blocks), d.Blocks[0])
	}
	// 64 GiB in memory over 20 hosts of 16 GiB: some are fuller than 3.2 GiB, none over 16 GiB
	if len(st.OverCapacity) != 0 {
		t.Errorf("over capacity: %v", st.OverCapacity)
	}
	ds.Datasets[0].Size = 1 << 40
	_, st, _ = Place(tp, ds, Options{TierMix: mem, BlockSize: 1 << 30, Replication: 1})
	if len(st.OverCapacity) == 0 || !strings.HasSuffix(st.OverCapacity[0], ":mem") {
		t.Errorf("1 TiB in 320 GiB of memory is not over capacity: %v", st.OverCapacity)
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct{ s, want string }{
		{"mem=0.1,flash=0.9", `tier mix "mem=0.1,flash=0.9": unknown tier kind "flash"`},
		{"mem", `tier mix "mem": "mem" is not tier=share`},
		{"mem=x", `share "x" of mem must be a number, 0 or more`},
		{"mem=-1", `share "-1" of mem`},
		{"mem=1,mem=2", "mem is given twice"},
		{"mem=0,hdd=0", "the shares add up to 0"},
	} {
		if _, err := ParseTierMix(tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.s, err, tc.want)
		}
	}
	if mix, err := ParseTierMix(""); err != nil || mix != [cluster.NumTierKinds]float64{} {
		t.Errorf("empty mix: %v %v", mix, err)
	}
	tp := topo(t)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "a", Size: 10, BlockSize: 1}}}
	for _, o := range []Options{{BlockSize: -1}, {Replication: -1}, {TierMix: [3]float64{math.NaN()}}} {
		if _, _, err := Place(tp, ds, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	// a block size that makes more blocks than a dataset may have is
	// refused before they are made (1 GiB in blocks of 1 byte)
	big := &workload.Datasets{Datasets: []workload.Dataset{{Name: "a", Size: 1 << 30, BlockSize: 1 << 26}}}
	if _, _, err := Place(tp, big, Options{BlockSize: 1}); err == nil || !strings.Contains(err.Error(), `dataset "a": 1073741824 bytes in blocks of 1 is 1073741824 blocks, above the limit of 10000000`) {
		t.Errorf("block size 1: %v", err)
	}
	if _, _, err := Place(tp, big, Options{Replication: 513}); err == nil || !strings.Contains(err.Error(), "replication 513 is above the limit of 512") {
		t.Errorf("replication 513: %v", err)
	}
	bad := &workload.Datasets{Datasets: []workload.Dataset{{Name: "a", Blocks: []workload.Block{{Size: 1, Replicas: []workload.Replica{{Host: 99}}}}}}}
	if _, _, err := Place(tp, bad, Options{}); err == nil || !strings.Contains(err.Error(), "unknown host 99") {
		t.Errorf("replica on a missing host: %v", err)
	}
}

// The octopus placement puts one replica on each tier, on the hosts
// HDFS's rule chooses; a tier mix with it, or an unknown placement, is
// refused.
func TestOctopusPlacement(t *testing.T) {
	tp := topo(t)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "a", Size: 3000, BlockSize: 10, Replication: 3}}}
	out, st, err := Place(tp, ds, Options{Placement: "octopus", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for b, blk := range out.Datasets[0].Blocks {
		r := blk.Replicas
		if len(r) != 3 || r[0].Tier == r[1].Tier || r[1].Tier == r[2].Tier || r[0].Tier == r[2].Tier {
			t.Fatalf("block %d: %+v, want one replica per tier", b, r)
		}
		if tp.RackOf(r[0].Host) == tp.RackOf(r[1].Host) || tp.RackOf(r[1].Host) != tp.RackOf(r[2].Host) {
			t.Fatalf("block %d: not rack-aware: %+v", b, r)
		}
	}
	for k, n := range st.ReplicaBytes {
		if n != 3000 {
			t.Errorf("%s holds %d bytes of replicas, want 3000 (one replica of each block)", cluster.TierKind(k), n)
		}
	}
	again, _, _ := Place(tp, ds, Options{Placement: "octopus", Seed: 7})
	if !reflect.DeepEqual(again, out) {
		t.Error("same seed, different layout")
	}
	hdfs, _, _ := Place(tp, ds, Options{Seed: 7})
	if reflect.DeepEqual(hdfs, out) {
		t.Error("octopus and hdfs give the same layout")
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Placement: "octopus", TierMix: [3]float64{1}}, "a tier mix is a setting of the hdfs placer"},
		{Options{Placement: "gfs"}, `unknown placement "gfs": hdfs or octopus`},
	} {
		if _, _, err := Place(tp, ds, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.o, err, tc.want)
		}
	}
}
