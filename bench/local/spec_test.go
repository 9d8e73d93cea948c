package local

import (
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/shaping"
)

// The network of an emulated cluster: rack links shaped in switched mode
// only, host NICs at the topology's rate and priority leaves when asked.
func TestNetworkSpec(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 3, Slots: 1, NICBps: 125e6, Oversubscription: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []shaping.Mode{shaping.Switched, shaping.Flat} {
		plain := NetworkSpec(Options{Prefix: "x", Mode: mode, Topology: topo})
		full := NetworkSpec(Options{Prefix: "x", Mode: mode, Topology: topo, Priorities: true, ShapeHostNICs: true})
		if plain.Priorities || !full.Priorities {
			t.Errorf("%v: priorities %v without, %v with the option", mode, plain.Priorities, full.Priorities)
		}
		for r := range topo.Racks {
			if plain.Racks[r].HostNICBps != 0 || full.Racks[r].HostNICBps != 125e6 {
				t.Errorf("%v rack %d: NIC rate %g without, %g with the option; want 0 and 125e6", mode, r, plain.Racks[r].HostNICBps, full.Racks[r].HostNICBps)
			}
			wantUp := 0.0
			if mode == shaping.Switched {
				wantUp = topo.Racks[r].UplinkBps
			}
			if full.Racks[r].UplinkBps != wantUp || full.Racks[r].Hosts != 3 {
				t.Errorf("%v rack %d: %+v", mode, r, full.Racks[r])
			}
		}
		if err := full.Validate(); err != nil {
			t.Errorf("%v: %v", mode, err)
		}
	}
}
