package local

import (
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/shaping"
)

// With background traffic on every rack link and no workload, the
// kernel's count of workload bytes (the links' payload less the
// background's) stays at zero, give or take a few packets in flight,
// while the background moves its share of each link.
func TestBackgroundLeavesNoWorkloadBytes(t *testing.T) {
	needRoot(t)
	// 100 Mbit/s NICs, 4:1: rack links of 3.125 MB/s, half of it background
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 1, Slots: 1, NICBps: 12.5e6, Oversubscription: 4})
	if err != nil {
		t.Fatal(err)
	}
	opt := options(t, fmt.Sprintf("tb%d", os.Getpid()%10000), shaping.Switched, topo)
	opt.Background = 0.5
	t.Cleanup(func() { checkGone(t, opt) })
	e := startEmulator(t, opt)
	time.Sleep(time.Second) // the flows start, and TCP's buffers grow
	u0, d0, err := e.Counters()
	if err != nil {
		t.Fatal(err)
	}
	bg0 := e.bg.up[0].Load()
	const window = 6 * time.Second
	time.Sleep(window)
	u1, d1, err := e.Counters()
	if err != nil {
		t.Fatal(err)
	}
	moved := float64(e.bg.up[0].Load() - bg0)
	want := 0.5 * topo.Racks[0].UplinkBps * window.Seconds()
	if math.Abs(moved/want-1) > 0.15 {
		t.Errorf("the background moved %.0f B across rack 0's uplink in %v, want about %.0f", moved, window, want)
	}
	for r := range topo.Racks {
		for _, c := range []struct {
			link   string
			before float64
			after  float64
		}{{"uplink", u0[r], u1[r]}, {"downlink", d0[r], d1[r]}} {
			// 64 KB is about 20 ms of the link, 2% of what the background moved
			got := c.after - c.before
			t.Logf("rack %d %s: workload %.0f B, background %.0f B", r, c.link, got, moved)
			if math.Abs(got) > 64<<10 {
				t.Errorf("rack %d %s: %.0f B of workload counted with no workload running (the background moved %.0f B)", r, c.link, got, moved)
			}
		}
	}
}
