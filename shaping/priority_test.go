package shaping

import (
	"testing"
	"time"

	"github.com/racklab/racklab/internal/traffic"
)

func TestPriorityDSCP(t *testing.T) {
	for p := range Priority(NumPriorities) {
		if got := PriorityOfDSCP(p.DSCP()); got != p {
			t.Errorf("PriorityOfDSCP(%d.DSCP()) = %d", p, got)
		}
	}
	if PriorityOfDSCP(46) != catchAll || Priority(9).DSCP() != 0 {
		t.Error("unknown DSCP or priority is not best effort")
	}
}

// Each DSCP lands in its leaf; the rack class counts them all.
func TestPriorityClassification(t *testing.T) {
	spec := ClusterSpec{Prefix: testPrefix("sp"), Mode: Flat, Racks: racks(2, 1, 0, 0)}
	c := upCluster(t, spec)
	src, dst := c.Hosts[0], c.Hosts[1]
	s, err := NewHostShaperIn(src.Netns, src.DataDev)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetPriorities(true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRack(1, 125e6, c.RackDataIPs(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPriorities(false); err == nil {
		t.Error("SetPriorities(false) after SetRack succeeded")
	}
	const n = 1 << 20
	for p := Priority(-1); p < NumPriorities; p++ {
		leaf := p
		if p < 0 {
			leaf = catchAll // unmarked
		}
		before, err := s.PriorityCounters(1)
		if err != nil {
			t.Fatal(err)
		}
		rk0, _ := s.Counters()
		x := transferPrio(t, src, dst, n, p)
		after, err := s.PriorityCounters(1)
		if err != nil {
			t.Fatal(err)
		}
		rk1, _ := s.Counters()
		for q := range Priority(NumPriorities) {
			b, pk := after[q].Bytes-before[q].Bytes, after[q].Packets-before[q].Packets
			if q == leaf {
				checkPayload(t, "leaf of the marked priority", b, pk, n, x)
			} else if b > intraRackSlack {
				t.Errorf("priority %d traffic: leaf %d moved by %d bytes", p, q, b)
			}
		}
		checkPayload(t, "rack class", rk1[1].Bytes-rk0[1].Bytes, rk1[1].Packets-rk0[1].Packets, n, x)
	}
	if err := s.RemoveRack(1); err != nil {
		t.Fatalf("RemoveRack: %v", err)
	}
	cs, err := devClassCounters(src.Netns, src.DataDev)
	if err != nil || len(cs) != 1 {
		t.Errorf("classes after RemoveRack: %v, %v (want the default class only)", cs, err)
	}
}

// On a saturated rack link, the higher priority takes the bandwidth.
func TestPriorityPreemption(t *testing.T) {
	const rate = 125e6
	spec := ClusterSpec{Prefix: testPrefix("sq"), Mode: Switched, Racks: racks(2, 2, rate, rate), Priorities: true}
	c := upCluster(t, spec)
	r0, r1 := c.RackHosts(0), c.RackHosts(1)
	hi := startStream(t, r0[0], r1[0], traffic.BandJob1, "")
	lo := startStream(t, r0[1], r1[1], traffic.BandReserved, "")
	// measure once both flows are under way: on a loaded machine (CI
	// runs packages side by side) a stream's first segments can wait
	// out TCP's 1 s initial retransmission timeout, and a window that
	// opens before then measures the start, not the priorities
	deadline := time.Now().Add(10 * time.Second)
	for hi.sink.bytes.Load() < 4<<20 || lo.sink.bytes.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("streams not under way after 10 s: high %d bytes, low %d", hi.sink.bytes.Load(), lo.sink.bytes.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	up0, _, err := c.PriorityCounters(0)
	if err != nil {
		t.Fatal(err)
	}
	g0h, g0l := hi.sink.bytes.Load(), lo.sink.bytes.Load()
	time.Sleep(500 * time.Millisecond)
	up1, _, err := c.PriorityCounters(0)
	if err != nil {
		t.Fatal(err)
	}
	gh, gl := hi.sink.bytes.Load()-g0h, lo.sink.bytes.Load()-g0l
	hi.Stop()
	lo.Stop()
	bh, bl := up1[traffic.BandJob1].Bytes-up0[traffic.BandJob1].Bytes, up1[traffic.BandReserved].Bytes-up0[traffic.BandReserved].Bytes
	t.Logf("high: %d bytes received, %d in its leaf; low: %d received, %d in its leaf", gh, bh, gl, bl)
	if bh < 5*bl || gh < 5*gl {
		t.Errorf("high priority did not dominate: leaf bytes %d vs %d, goodput %d vs %d", bh, bl, gh, gl)
	}
	if gl == 0 {
		t.Error("low priority starved")
	}
	for q := range NumPriorities {
		if q == traffic.BandJob1 || q == traffic.BandReserved {
			continue
		}
		if b := up1[q].Bytes - up0[q].Bytes; b > intraRackSlack {
			t.Errorf("idle leaf %d moved by %d bytes", q, b)
		}
	}
}
