package local

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/racklab/racklab/internal/traffic"
	"github.com/racklab/racklab/shaping"
)

// feed gives bottleneck k, of 12 MB/s, intervals of 50 ms for seconds s,
// in which the bands of rate (bytes/s) send and keep backlog (bytes)
// queued.
func feed(o orderTally, k int, s float64, rate map[traffic.Band]float64, backlog map[traffic.Band]uint32) {
	const dt = 0.05
	var before, after leafCounters
	for b, q := range backlog {
		before[b].Backlog, after[b].Backlog = q, q
	}
	for range int(s/dt + 0.5) {
		for b, r := range rate {
			after[b].Bytes = before[b].Bytes + uint64(r*dt)
		}
		o.add(k, dt, 12e6, before, after)
		before = after
	}
}

func TestOrderTally(t *testing.T) {
	hi, lo, ack := traffic.BandJob0, traffic.BandJob3, traffic.BandBestEffort
	for _, tc := range []struct {
		name            string
		fill            func(o orderTally)
		shared, inOrder float64
	}{
		{"strict priority: the high band waits less per byte",
			func(o orderTally) {
				feed(o, 0, 2, map[traffic.Band]float64{hi: 11e6, lo: 1e6}, map[traffic.Band]uint32{hi: 64 << 10, lo: 1 << 20})
			}, 2, 2},
		{"inverted: the low band is served first",
			func(o orderTally) {
				feed(o, 0, 2, map[traffic.Band]float64{hi: 1e6, lo: 11e6}, map[traffic.Band]uint32{hi: 1 << 20, lo: 64 << 10})
			}, 2, 0},
		{"a lower band that never waits (ACKs) is nothing to order",
			func(o orderTally) {
				feed(o, 0, 2, map[traffic.Band]float64{hi: 11e6, ack: 1e5}, map[traffic.Band]uint32{hi: 64 << 10})
			}, 0, 0},
		{"sharing shorter than minSharedS does not count",
			func(o orderTally) {
				feed(o, 0, 0.4, map[traffic.Band]float64{hi: 11e6, lo: 1e6}, map[traffic.Band]uint32{hi: 1, lo: 1 << 20})
			}, 0, 0},
		{"bands that never send together share nothing",
			func(o orderTally) {
				feed(o, 0, 1, map[traffic.Band]float64{hi: 11e6}, map[traffic.Band]uint32{hi: 1 << 20, lo: 1 << 20})
				feed(o, 0, 1, map[traffic.Band]float64{lo: 11e6}, map[traffic.Band]uint32{hi: 1 << 20, lo: 1 << 20})
			}, 0, 0},
		{"a bottleneck that is not busy holds nothing back: nothing to order",
			func(o orderTally) {
				feed(o, 0, 2, map[traffic.Band]float64{hi: 5e6, lo: 5e6}, map[traffic.Band]uint32{hi: 1 << 20, lo: 64 << 10})
			}, 0, 0},
		{"bottlenecks are judged apart: one in order, one not",
			func(o orderTally) {
				feed(o, 0, 1, map[traffic.Band]float64{hi: 11e6, lo: 1e6}, map[traffic.Band]uint32{hi: 64 << 10, lo: 1 << 20})
				feed(o, 1, 3, map[traffic.Band]float64{hi: 1e6, lo: 11e6}, map[traffic.Band]uint32{hi: 1 << 20, lo: 64 << 10})
			}, 4, 1},
	} {
		o := orderTally{}
		tc.fill(o)
		shared, inOrder := o.result()
		if math.Abs(shared-tc.shared) > 1e-9 || math.Abs(inOrder-tc.inOrder) > 1e-9 {
			t.Errorf("%s: shared %.2f s, in order %.2f s; want %.2f, %.2f", tc.name, shared, inOrder, tc.shared, tc.inOrder)
		}
	}
}

// The sampler reads every host NIC's priority leaves from the kernel on a
// cluster with priorities and shaped NICs, and writes a reading of every
// band of every bottleneck; on an idle network no bands share one.
func TestPrioritySamplerReadsEveryNIC(t *testing.T) {
	needRoot(t)
	topo := topology(t, 1, 3)
	opt := options(t, fmt.Sprintf("tp%d", os.Getpid()%10000), shaping.Switched, topo)
	opt.Priorities, opt.ShapeHostNICs = true, true
	t.Cleanup(func() { checkGone(t, opt) })
	e := startEmulator(t, opt)
	bs := e.bottlenecks()
	if len(bs) != 3 {
		t.Fatalf("%d bottlenecks, want the 3 hosts' NICs (one rack: no rack link)", len(bs))
	}
	g, err := e.Net.NewGroupReader()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	path := filepath.Join(t.TempDir(), PrioritySamplesFile)
	ps, err := samplePriorityOrder(context.Background(), path, g, bs, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	shared, inOrder, err := ps.Stop()
	if err != nil || shared != 0 || inOrder != 0 {
		t.Fatalf("idle network: shared %v s, in order %v s, err %v", shared, inOrder, err)
	}
	rows := readCSV(t, path)
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r["bottleneck"]+"/"+r["band"]] = true
	}
	if want := 2 * len(bs) * int(traffic.NumBands); len(seen) != want || len(rows) < 2*want {
		t.Fatalf("%d rows over %d bottleneck bands, want at least two readings of %d", len(rows), len(seen), want)
	}
}
