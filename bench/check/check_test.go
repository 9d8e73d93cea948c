package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/bench/local"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/shaping"
)

// tinyTopology is 2 racks × 2 hosts at rates a busy 2-core machine
// sustains: 400 Mbit/s NICs, 2:1 oversubscribed rack links, slow tiers.
func tinyTopology(t *testing.T) *cluster.Topology {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 1, NICBps: 50e6, Oversubscription: 2,
		Tiers: []cluster.Tier{{Kind: cluster.Mem, ReadBps: 400e6, WriteBps: 400e6, CapacityBytes: 1 << 30},
			{Kind: cluster.HDD, ReadBps: 40e6, WriteBps: 40e6, CapacityBytes: 1 << 30}}})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// The check passes every line on a tiny emulated cluster, in both network
// modes, and leaves nothing behind. Rates on a shared machine are noisy:
// a failed run is repeated once before the test fails.
func TestCheckEmulated(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces and tc")
	}
	for _, mode := range []shaping.Mode{shaping.Switched, shaping.Flat} {
		t.Run(mode.String(), func(t *testing.T) {
			prefix := fmt.Sprintf("ck%d%d", int(mode), os.Getpid()%1000)
			t.Cleanup(func() {
				if err := local.Cleanup(prefix); err != nil {
					t.Errorf("cleanup: %v", err)
				}
			})
			var lines []Line
			for attempt := 1; attempt <= 2; attempt++ {
				var err error
				lines, err = Run(context.Background(), Options{Prefix: prefix, Mode: mode, Topology: tinyTopology(t),
					Dir: filepath.Join(t.TempDir(), "check"), Measure: time.Second, Logf: t.Logf})
				if err != nil {
					t.Fatalf("check: %v", err)
				}
				left, err := local.Leftovers(prefix)
				if err != nil || len(left) > 0 {
					t.Fatalf("left behind: %v %v", left, err)
				}
				for _, l := range lines {
					t.Logf("attempt %d: %s", attempt, l)
				}
				if Passed(lines) == len(lines) {
					break
				}
			}
			want := []string{"shaped rack rate", "shaped host NIC rate (r0h0 receive)", "shaped host NIC rate (r0h0 send)", "tier read rates",
				"priority order (", "priority order (r0h0 NIC receive)", "priority order (r0h0 NIC send)"}
			for _, w := range want {
				found := false
				for _, l := range lines {
					found = found || strings.HasPrefix(l.Name, w)
				}
				if !found {
					t.Errorf("no line %q", w)
				}
			}
			for _, l := range lines {
				if !l.Passed {
					t.Errorf("failed twice: %s", l)
				}
			}
		})
	}
}

// A cancelled check stops, and removes what it made.
func TestCheckCancelled(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces and tc")
	}
	prefix := fmt.Sprintf("ckc%d", os.Getpid()%1000)
	t.Cleanup(func() { _ = local.Cleanup(prefix) })
	ctx, cancel := context.WithCancel(context.Background())
	dir := filepath.Join(t.TempDir(), "check")
	lines, err := Run(ctx, Options{Prefix: prefix, Mode: shaping.Switched, Topology: tinyTopology(t), Dir: dir, Measure: time.Second,
		OnLine: func(Line) { cancel() }})
	if err == nil || len(lines) != 1 {
		t.Errorf("cancelled after the first line: %d lines, error %v; want 1 line and an error", len(lines), err)
	}
	left, lerr := local.Leftovers(prefix)
	if lerr != nil || len(left) > 0 {
		t.Errorf("left behind: %v %v", left, lerr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still there: %v", dir, err)
	}
}

// Where rack 1's downlink is slower than rack 0's uplink, the priority
// and rate checks measure the flows at the downlink, their bottleneck: before, it
// held them to the uplink's rate, which they could never fill, and failed
// on a correct cluster.
func TestCheckPriorityAtASlowerDownlink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces and tc")
	}
	path := filepath.Join(t.TempDir(), "topology.yaml")
	if err := os.WriteFile(path, []byte(`host_defaults:
  slots: 1
  nic_gbps: 0.4
  tiers: [{kind: mem, read_mb_s: 400, write_mb_s: 400, capacity_gib: 1}]
racks:
  - {name: r0, uplink_gbps: 0.4, downlink_gbps: 0.4, host_count: 3}
  - {name: r1, uplink_gbps: 0.4, downlink_gbps: 0.2, host_count: 3}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	topo, err := cluster.LoadTopology(path)
	if err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("ckd%d", os.Getpid()%1000)
	t.Cleanup(func() {
		if err := local.Cleanup(prefix); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	var line, rate *Line
	for attempt := 1; attempt <= 2 && (line == nil || !line.Passed || rate == nil || !rate.Passed); attempt++ {
		lines, err := Run(context.Background(), Options{Prefix: prefix, Mode: shaping.Switched, Topology: topo,
			Dir: filepath.Join(t.TempDir(), "check"), Measure: time.Second, Logf: t.Logf})
		if err != nil {
			t.Fatalf("check: %v", err)
		}
		line, rate = nil, nil
		for i := range lines {
			t.Logf("attempt %d: %s", attempt, lines[i])
			if strings.HasPrefix(lines[i].Name, "priority order (rack") {
				line = &lines[i]
			}
			if strings.HasPrefix(lines[i].Name, "shaped rack rate") {
				rate = &lines[i]
			}
		}
	}
	if line == nil || line.Name != "priority order (rack 1 downlink)" || !line.Passed {
		t.Errorf("the rack priority line: %+v; want rack 1's downlink, passed", line)
	}
	// the rate is measured where it is bounded too (the line named rack
	// 0's uplink, whose counters only saw the downlink's rate pass)
	if rate == nil || rate.Name != "shaped rack rate (rack 1 downlink)" || !rate.Passed || !strings.Contains(rate.Detail, "r1-down") {
		t.Errorf("the rack rate line: %+v; want rack 1's downlink, passed", rate)
	}
}
