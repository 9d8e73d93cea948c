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
