package cluster

import (
	"path/filepath"
	"testing"
)

// The README's example topology file loads, and means what its comments say.
func TestExampleTopologyLoads(t *testing.T) {
	topo, err := LoadTopology(filepath.Join("..", "..", "examples", "topology.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.Racks) != 3 || len(topo.Hosts) != 9 {
		t.Fatalf("%d racks, %d hosts; the file has 3 racks of 3 hosts", len(topo.Racks), len(topo.Hosts))
	}
	if topo.CoreBps != 0 {
		t.Errorf("core %v B/s, want 0 (non-blocking)", topo.CoreBps)
	}
	wantNames := []string{"r0h0", "r0h1", "r0h2", "r1h0", "r1h1", "r1h2", "r2h0", "r2h1", "r2h2"}
	wantSlots := []int{4, 4, 8, 4, 4, 4, 2, 2, 2}
	for i, h := range topo.Hosts {
		if h.Name != wantNames[i] || h.Slots != wantSlots[i] || int(h.Rack) != i/3 {
			t.Errorf("host %d: %s, %d slots, rack %d; want %s, %d slots, rack %d", i, h.Name, h.Slots, h.Rack, wantNames[i], wantSlots[i], i/3)
		}
		if len(h.Tiers) != 3 {
			t.Errorf("%s has %d tiers, want mem, ssd and hdd", h.Name, len(h.Tiers))
		}
	}
	const gbps = 1e9 / 8
	if nic := topo.Hosts[2].NICBps; nic != 10*gbps {
		t.Errorf("r0h2's NIC %v B/s, want 10 Gbit/s", nic)
	}
	// r0: (1 + 1 + 10) Gbit/s of NICs over oversubscription 3; r1 as
	// given; r2: 3 Gbit/s of NICs over 3
	for i, want := range [][2]float64{{4 * gbps, 4 * gbps}, {1 * gbps, 2 * gbps}, {1 * gbps, 1 * gbps}} {
		r := topo.Racks[i]
		if !near(r.UplinkBps, want[0]) || !near(r.DownlinkBps, want[1]) {
			t.Errorf("rack %s: up %v, down %v B/s; want %v, %v", r.Name, r.UplinkBps, r.DownlinkBps, want[0], want[1])
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-6*b && b-a < 1e-6*b }
