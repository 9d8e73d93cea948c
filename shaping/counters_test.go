package shaping

import (
	"testing"
)

// intraRackSlack bounds what intra-rack traffic may add to a rack link's
// counters: a few ARP broadcasts flooded up the uplink.
const intraRackSlack = 1024

func TestSwitchedCounters(t *testing.T) {
	const rate = 125e6 // 1 Gbit/s: shaped, but fast
	spec := ClusterSpec{Prefix: testPrefix("sw"), Mode: Switched, Racks: racks(3, 2, rate, rate)}
	c := upCluster(t, spec)
	src, dst := c.RackHosts(0)[0], c.RackHosts(1)[0]
	const n = 4 << 20

	before := linkCounters(t, c)
	x := transfer(t, src, dst, n)
	after := linkCounters(t, c)
	up := func(r int) (uint64, uint64) {
		return after[r].UpBytes - before[r].UpBytes, after[r].UpPackets - before[r].UpPackets
	}
	down := func(r int) (uint64, uint64) {
		return after[r].DownBytes - before[r].DownBytes, after[r].DownPackets - before[r].DownPackets
	}
	b, p := up(0)
	checkPayload(t, "rack 0 up", b, p, n, x)
	b, p = down(1)
	checkPayload(t, "rack 1 down", b, p, n, x)
	// The reverse direction carries only ACKs.
	if b, _ := up(1); b > n/20 {
		t.Errorf("rack 1 up: %d bytes for the ACKs of %d", b, n)
	}
	// Rack 2 sees at most the flooded ARP request.
	if b, _ := down(2); b > intraRackSlack {
		t.Errorf("rack 2 down: %d bytes of somebody else's traffic", b)
	}
	checkShaped(t, x, n, rate)

	// Intra-rack traffic does not appear on the rack links.
	before = linkCounters(t, c)
	transfer(t, src, c.RackHosts(0)[1], n)
	after = linkCounters(t, c)
	for r := range after {
		if b, _ := up(r); b > intraRackSlack {
			t.Errorf("intra-rack transfer: rack %d up moved by %d bytes", r, b)
		}
		if b, _ := down(r); b > intraRackSlack {
			t.Errorf("intra-rack transfer: rack %d down moved by %d bytes", r, b)
		}
	}
}

// installShapers puts a HostShaper on every host of c with a class per other
// rack at rate.
// checkShaped checks that shaping is in effect: n bytes cannot pass a class
// of this rate faster than its burst allows. (A lower bound on time only:
// slowness cannot fail it.)
func checkShaped(t *testing.T, x xfer, n int, rate float64) {
	t.Helper()
	if least := 0.9 * (float64(n) - burstBytes(rate)) / rate; x.took.Seconds() < least {
		t.Errorf("%d bytes took %v through a class of %.0f B/s; at least %.1fms expected", n, x.took, rate, 1000*least)
	}
}

func installShapers(t *testing.T, c *Cluster, rate float64) map[string]*HostShaper {
	t.Helper()
	out := make(map[string]*HostShaper)
	for _, h := range c.Hosts {
		s, err := NewHostShaperIn(h.Netns, h.DataDev)
		if err != nil {
			t.Fatalf("NewHostShaperIn(%s): %v", h.Netns, err)
		}
		t.Cleanup(func() { s.Close() })
		for r := range c.Spec.Racks {
			if r == h.Rack {
				continue
			}
			if err := s.SetRack(r, rate, c.RackDataIPs(r)); err != nil {
				t.Fatalf("%s: SetRack(%d): %v", h.Name, r, err)
			}
		}
		out[h.Name] = s
	}
	return out
}

func TestFlatCounters(t *testing.T) {
	const rate = 125e6
	spec := ClusterSpec{Prefix: testPrefix("sl"), Mode: Flat, Racks: racks(3, 2, 0, 0)}
	c := upCluster(t, spec)
	shapers := installShapers(t, c, rate)
	src, dst := c.RackHosts(0)[0], c.RackHosts(1)[0]
	const n = 4 << 20

	before := linkCounters(t, c)
	x := transfer(t, src, dst, n)
	after := linkCounters(t, c)
	checkPayload(t, "rack 0 up", after[0].UpBytes-before[0].UpBytes, after[0].UpPackets-before[0].UpPackets, n, x)
	checkPayload(t, "rack 1 down", after[1].DownBytes-before[1].DownBytes, after[1].DownPackets-before[1].DownPackets, n, x)
	if b := after[1].UpBytes - before[1].UpBytes; b > n/20 {
		t.Errorf("rack 1 up: %d bytes for the ACKs of %d", b, n)
	}
	if b := after[2].DownBytes - before[2].DownBytes; b != 0 {
		t.Errorf("rack 2 down moved by %d bytes", b)
	}
	checkShaped(t, x, n, rate)
	// The same numbers, straight from the sender's shaper.
	cs, err := shapers[src.Name].Counters()
	if err != nil {
		t.Fatalf("Counters: %v", err)
	}
	if len(cs) != 2 {
		t.Errorf("Counters has %d racks, want 2: %v", len(cs), cs)
	}
	if cs[1].Bytes < n {
		t.Errorf("sender's rack 1 class: %d bytes, want >= %d", cs[1].Bytes, n)
	}

	// Intra-rack traffic goes to the default class, not to a rack class.
	def0, err := shapers[src.Name].DefaultCounters()
	if err != nil {
		t.Fatalf("DefaultCounters: %v", err)
	}
	before = linkCounters(t, c)
	x = transfer(t, src, c.RackHosts(0)[1], n)
	after = linkCounters(t, c)
	for r := range after {
		if after[r] != before[r] {
			t.Errorf("intra-rack transfer moved rack %d: %+v -> %+v", r, before[r], after[r])
		}
	}
	def1, err := shapers[src.Name].DefaultCounters()
	if err != nil {
		t.Fatalf("DefaultCounters: %v", err)
	}
	checkPayload(t, "default class", def1.Bytes-def0.Bytes, def1.Packets-def0.Packets, n, x)

	// The sender's shaping removed (its worker's dead-man guardian) and
	// installed anew (the worker shaping again): the racks' counts hold
	// what the removed classes counted, and count on from there.
	before = linkCounters(t, c)
	if err := shapers[src.Name].Close(); err != nil {
		t.Fatal(err)
	}
	if held := linkCounters(t, c); held[0] != before[0] || held[1] != before[1] {
		t.Errorf("shaping removed: rack 0 %+v, rack 1 %+v; want them held at %+v, %+v", held[0], held[1], before[0], before[1])
	}
	again, err := NewHostShaperIn(src.Netns, src.DataDev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Close() })
	if err := again.SetRack(1, rate, c.RackDataIPs(1)); err != nil {
		t.Fatal(err)
	}
	x = transfer(t, src, dst, n)
	after = linkCounters(t, c)
	if after[0].UpBytes < before[0].UpBytes {
		t.Fatalf("rack 0 up fell from %d to %d bytes", before[0].UpBytes, after[0].UpBytes)
	}
	checkPayload(t, "rack 0 up, shaped anew", after[0].UpBytes-before[0].UpBytes, after[0].UpPackets-before[0].UpPackets, n, x)
}
