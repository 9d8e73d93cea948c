package sim

import (
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// recordSink keeps the attempt records.
type recordSink struct{ attempts []engine.AttemptRecord }

func (s *recordSink) Attempt(r *engine.AttemptRecord) error {
	s.attempts = append(s.attempts, *r)
	return nil
}
func (*recordSink) Job(*engine.JobRecord) error                    { return nil }
func (*recordSink) LinkSample(float64, []float64, []float64) error { return nil }

// A reducer that has fetched what there was hears of the next map output
// the moment its map ends, as a live worker does (the coordinator sends it
// the new sources at once): two maps on host 0, a small one that ends at
// once and a big one that reads for about a second; the reducer, on host
// 1, starts after the small one, and must end within the big output's
// transfer time (and a little slack) after the big map. With a 2 s poll
// (FetchPoll) it waits for its next poll instead.
func TestIdleReducerHearsOfOutputsAtOnce(t *testing.T) {
	const big = 64 << 20
	run := func(poll float64) (mapEnd, reduceEnd float64) {
		topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 1, Slots: 4, NICBps: 128 << 20, Oversubscription: 1,
			Tiers: []cluster.Tier{{Kind: cluster.HDD, ReadBps: 64 << 20, WriteBps: 1 << 40, CapacityBytes: 1 << 40}}})
		if err != nil {
			t.Fatal(err)
		}
		ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{
			{Size: 1 << 10, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}},
			{Size: big, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}}}}}}
		w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1},
			{Name: "reduce", Kind: workload.Reduce, Tasks: 1, After: []string{"map"}, Selectivity: 1e-6},
		}}}}
		eng, err := engine.New(engine.Config{SlowStart: 0.5}, topo, w, ds, reducerOnRack1(0))
		if err != nil {
			t.Fatal(err)
		}
		sink := &recordSink{}
		res, err := New(eng, Options{FetchPoll: poll, Sink: sink}).Run()
		if err != nil || res.Stalled {
			t.Fatalf("poll %g: %v %+v", poll, err, res)
		}
		reduceStart := -1.0
		for _, a := range sink.attempts {
			switch {
			case a.Task.Stage == 0 && a.InputBytes == big:
				mapEnd = a.End
			case a.Task.Stage == 1:
				reduceStart, reduceEnd = a.Start, a.End
			}
		}
		if reduceStart < 0 || reduceStart >= mapEnd {
			t.Fatalf("poll %g: the reducer started at %g, the big map ended at %g: the case does not test an idle reducer", poll, reduceStart, mapEnd)
		}
		return mapEnd, reduceEnd
	}
	transfer := float64(big) / (128 << 20) // the NIC and the rack link
	mapEnd, reduceEnd := run(0)
	if reduceEnd-mapEnd > transfer+0.05 {
		t.Errorf("the reducer ended %.3f s after the big map, want at most its fetch of %.3f s (and 0.05 s): it heard of the output late", reduceEnd-mapEnd, transfer)
	}
	mapEnd, reduceEnd = run(2)
	if reduceEnd-mapEnd < transfer+0.5 {
		t.Errorf("polling every 2 s, the reducer ended %.3f s after the big map: the poll should have delayed it", reduceEnd-mapEnd)
	}
}

// A reducer fetches from every source rack at once, as a live reducer's
// fetchers take every announced output: its two map outputs, on racks 0
// and 1, come up two uplinks of 32 MiB/s into a downlink of twice that,
// so it fetches both in about a second. A pass over the racks that
// followed the cursor as it moved skipped rack 1 until rack 0 was done,
// and took two.
func TestReducerFetchesFromEveryRackAtOnce(t *testing.T) {
	const out = 32 << 20
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 3, HostsPerRack: 1, Slots: 2, NICBps: 1 << 30, Oversubscription: 32,
		Tiers: []cluster.Tier{{Kind: cluster.HDD, ReadBps: 1 << 30, WriteBps: 1 << 30, CapacityBytes: 1 << 40}}})
	if err != nil {
		t.Fatal(err)
	}
	topo.Racks[2].DownlinkBps = 2 * topo.Racks[2].UplinkBps
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{
		{Size: out, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}},
		{Size: out, Replicas: []workload.Replica{{Host: 1, Tier: cluster.HDD}}}}}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1},
		{Name: "reduce", Kind: workload.Reduce, Tasks: 1, After: []string{"map"}, Selectivity: 1e-6},
	}}}}
	eng, err := engine.New(engine.Config{SlowStart: 1}, topo, w, ds, &pinned{host: func(t engine.TaskRef) cluster.HostID {
		if t.Stage == 1 {
			return 2 // the reducer on the last rack
		}
		return cluster.HostID(t.Index) // map i on host i
	}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &recordSink{}
	if res, err := New(eng, Options{Sink: sink}).Run(); err != nil || res.Stalled {
		t.Fatalf("%v %+v", err, res)
	}
	uplink := topo.Racks[0].UplinkBps
	for _, a := range sink.attempts {
		if a.Task.Stage != 1 {
			continue
		}
		if a.Host != 2 {
			t.Fatalf("the reducer ran on host %d, want 2", a.Host)
		}
		if took, want := a.End-a.Start, out/uplink; took > want+0.1 {
			t.Errorf("the reducer took %.2f s, want about %.2f s: it fetched the racks one after the other", took, want)
		}
		return
	}
	t.Fatal("no reducer ran")
}
