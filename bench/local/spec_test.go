package local

import (
	"slices"
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
			if p, f := plain.HostNICBpsOf(r, 1), full.HostNICBpsOf(r, 1); p != 0 || f != 125e6 {
				t.Errorf("%v rack %d: NIC rate %g without, %g with the option; want 0 and 125e6", mode, r, p, f)
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

// Each host's NIC is shaped at its own rate: before, a rack's hosts all
// took its fastest host's (examples/topology.yaml's r0h0 and r0h1, 1
// Gbit/s, were shaped at r0h2's 10 Gbit/s).
func TestNetworkSpecGivesEachHostItsNIC(t *testing.T) {
	topo, err := cluster.LoadTopology("../../examples/topology.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec := NetworkSpec(Options{Prefix: "x", Mode: shaping.Switched, Topology: topo, ShapeHostNICs: true})
	for i, h := range topo.Hosts {
		r := int(h.Rack)
		k := slices.Index(topo.Racks[r].Hosts, cluster.HostID(i))
		if got := spec.HostNICBpsOf(r, k); got != h.NICBps {
			t.Errorf("%s: NIC shaped at %g B/s, the topology says %g", h.Name, got, h.NICBps)
		}
	}
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
}
