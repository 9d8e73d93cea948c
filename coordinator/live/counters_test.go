package live

import (
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/wire"
)

// The workers' reported class counters, summed per rack, never fall: a
// worker whose dead-man guardian removed its shaping reports none, and
// counts from 0 once it shapes again. Summed raw, the rack's count fell
// (a negative link utilisation), and the run's kernel-counted cross-rack
// bytes lost what the removed classes had counted.
func TestWorkerCountersHoldRemovedClasses(t *testing.T) {
	topo := memTopology(t, 2, 1)
	r := &run{topo: topo, hosts: make([]hostInfo, len(topo.Hosts)), rackName: map[string]cluster.RackID{}}
	for i, rk := range topo.Racks {
		r.rackName[rk.Name] = cluster.RackID(i)
	}
	for i := range r.hosts {
		r.hosts[i].reg = &wire.Register{}
	}
	toRack1 := func(bytes uint64) map[string]wire.Counter {
		return map[string]wire.Counter{topo.Racks[1].Name: {Bytes: bytes, Packets: 1}}
	}
	payload := func(bytes, packets uint64) float64 { return wire.Counter{Bytes: bytes, Packets: packets}.Payload() }
	for i, step := range []struct {
		shaped map[string]wire.Counter
		want   float64
	}{
		{toRack1(10_000), payload(10_000, 1)},
		{nil, payload(10_000, 1)},            // shaping removed: held
		{toRack1(3_000), payload(13_000, 2)}, // shaped anew: counts on
		{toRack1(5_000), payload(15_000, 2)}, // and on
	} {
		r.hosts[0].shaped = step.shaped
		up, down, ok := r.workerCounters()
		if !ok || up[0] != step.want || down[1] != step.want {
			t.Errorf("step %d: rack 0 up %v, rack 1 down %v (ok %v); want %v", i, up[0], down[1], ok, step.want)
		}
	}
}
