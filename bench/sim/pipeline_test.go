package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// hdfsOutputs places an output HDFS's way: the writer, then both hosts of
// the last rack.
type hdfsOutputs struct{}

func (hdfsOutputs) PlaceReplicas(t *cluster.Topology, _ *rand.Rand, writer cluster.HostID, _ int, _ func(cluster.HostID) bool) []workload.Replica {
	r := t.Racks[len(t.Racks)-1].Hosts
	return []workload.Replica{{Host: writer, Tier: cluster.HDD}, {Host: r[0], Tier: cluster.HDD}, {Host: r[1], Tier: cluster.HDD}}
}

// A map on host 0 writes 64 MiB with three replicas, the second and third
// on the other rack. Sent from the writer, both remote copies leave
// through its NIC (64 MiB/s): 2 s, and both cross racks. As HDFS's
// pipeline (Config.OutputPipeline) the writer sends one copy and the
// second replica forwards it: 1 s, one copy across racks.
func TestOutputPipelineSendsOneCopyFromTheWriter(t *testing.T) {
	const out = 64 << 20
	for _, c := range []struct {
		pipeline bool
		write    float64 // seconds
		across   int64
	}{{false, 2, 2 * out}, {true, 1, out}} {
		topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 1, NICBps: 64 << 20, Oversubscription: 1,
			Tiers: []cluster.Tier{{Kind: cluster.HDD, ReadBps: 1 << 40, WriteBps: 1 << 40, CapacityBytes: 1 << 40}}})
		if err != nil {
			t.Fatal(err)
		}
		ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "in", Blocks: []workload.Block{
			{Size: out, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}}}}}}
		w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
			{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1, OutputReplicas: 3}}}}}
		eng, err := engine.New(engine.Config{OutputPipeline: c.pipeline, OutputPlacer: hdfsOutputs{}}, topo, w, ds,
			&pinned{host: func(engine.TaskRef) cluster.HostID { return 0 }})
		if err != nil {
			t.Fatal(err)
		}
		sink := &recordSink{}
		if res, err := New(eng, Options{Sink: sink}).Run(); err != nil || res.Stalled {
			t.Fatalf("pipeline %v: %v %+v", c.pipeline, err, res)
		}
		if len(sink.attempts) != 1 {
			t.Fatalf("pipeline %v: %d attempts", c.pipeline, len(sink.attempts))
		}
		a := sink.attempts[0]
		if d := a.End - a.Start; d < c.write || d > c.write+0.05 {
			t.Errorf("pipeline %v: the map took %.3f s, want its write's %.0f s (and at most 0.05 s)", c.pipeline, d, c.write)
		}
		if got := a.Bytes[engine.ClassOutput][engine.LevelCross]; got != c.across {
			t.Errorf("pipeline %v: %d output bytes across racks, want %d", c.pipeline, got, c.across)
		}
	}
}

// A pipeline moves as one chain, at its slowest hop, as a live one does
// (each replica forwards what it has received): the writer's copy crosses
// a 16 MiB/s rack link, so the hop inside the other rack runs at 16 MiB/s
// too, and a map reading 64 MiB over the same in-rack NICs meanwhile gets
// the other 48 MiB/s: 1.33 s. Were the in-rack hop a flow of its own, it
// would take half the NICs and the map 2 s.
func TestOutputPipelineMovesAtItsSlowestHop(t *testing.T) {
	const size = 64 << 20
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 1, NICBps: 64 << 20, Oversubscription: 8,
		Tiers: []cluster.Tier{{Kind: cluster.HDD, ReadBps: 1 << 40, WriteBps: 1 << 40, CapacityBytes: 1 << 40}}})
	if err != nil {
		t.Fatal(err)
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{
		{Name: "w", Blocks: []workload.Block{{Size: size, Replicas: []workload.Replica{{Host: 0, Tier: cluster.HDD}}}}},
		{Name: "r", Blocks: []workload.Block{{Size: size, Replicas: []workload.Replica{{Host: 2, Tier: cluster.HDD}}}}}}}
	w := &workload.Workload{Jobs: []workload.Job{
		{ID: "writer", Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: "w", Selectivity: 1, OutputReplicas: 3}}},
		{ID: "reader", Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: "r"}}}}}
	eng, err := engine.New(engine.Config{OutputPipeline: true, OutputPlacer: hdfsOutputs{}}, topo, w, ds,
		&pinned{host: func(t engine.TaskRef) cluster.HostID {
			if t.Job == 0 {
				return 0 // the writer on rack 0; its replicas on hosts 2 and 3
			}
			return 3 // the reader on host 3, reading host 2's block
		}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &recordSink{}
	if res, err := New(eng, Options{Sink: sink}).Run(); err != nil || res.Stalled {
		t.Fatalf("%v %+v", err, res)
	}
	for _, a := range sink.attempts {
		if a.Task.Job == 1 {
			if d := a.End - a.Start; d < 1.3 || d > 1.4 {
				t.Errorf("the reader took %.3f s, want 64 MiB at the 48 MiB/s the pipeline leaves: 1.33 s", d)
			}
			return
		}
	}
	t.Fatal("no reader attempt")
}
