package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/bench/local"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/live"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/shaping"
)

// In flat mode, one host of rack 0 sends to rack 1 while its rack-mate is
// idle. With demand sharing (worker --shape-share) the workers give it the
// rack's whole uplink: rack 0's uplink, counted by the kernel in its hosts'
// HTB classes, carries at least 90% of the rack's rate. Without, it gets
// the static split, half. With sharing, when both hosts of rack 0 send,
// they together stay within the uplink (at most 105% of it, the check's
// slack for a shaped rate). The workers are real (bench worker), in the
// emulated cluster of bench local, with a stand-in coordinator that only
// admits them; the flow is the check's. A noisy machine may fail a
// measurement: each case is measured up to twice.
func TestFlatShareGivesBusySenderTheUplink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces and tc")
	}
	bin := buildBench(t)
	for _, sharing := range []bool{true, false} {
		t.Run(fmt.Sprintf("share=%v", sharing), func(t *testing.T) {
			// 2 racks × 2 hosts, 50 MB/s NICs, 4:1 oversubscribed: 25 MB/s
			// rack links, 12.5 MB/s per host without sharing
			topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 1, NICBps: 50e6, Oversubscription: 4,
				Tiers: []cluster.Tier{{Kind: cluster.Mem, ReadBps: 400e6, WriteBps: 400e6, CapacityBytes: 1 << 30}}})
			if err != nil {
				t.Fatal(err)
			}
			up := topo.Racks[0].UplinkBps
			got, both := measureOneSender(t, bin, topo, sharing)
			t.Logf("share=%v: rack 0's uplink carried %s of %s (%.1f%%) with one of its two hosts sending", sharing, mbps(got), mbps(up), 100*got/up)
			if sharing && got < 0.90*up {
				t.Errorf("with sharing, one busy sender got %s of the rack's %s uplink, want at least 90%%", mbps(got), mbps(up))
			}
			if !sharing && (got < 0.40*up || got > 0.60*up) {
				t.Errorf("without sharing, one busy sender got %s of the rack's %s uplink, want about half", mbps(got), mbps(up))
			}
			if sharing {
				t.Logf("share=true: rack 0's uplink carried %s of %s (%.1f%%) with both hosts sending", mbps(both), mbps(up), 100*both/up)
				if both > rateHigh*up || both < rateLow*up {
					t.Errorf("with sharing, both hosts of rack 0 together sent %s through its %s uplink, want within %.0f%%..%.0f%%", mbps(both), mbps(up), 100*rateLow, 100*rateHigh)
				}
			}
		})
	}
}

// measureOneSender runs one flow from r0h0 to r1h0 on a cluster with
// workers (sharedCluster) and returns rack 0's uplink rate (the best of
// two tries if the first misses the mark); with sharing, then flows from
// both hosts of rack 0, and their rate through its uplink.
func measureOneSender(t *testing.T, bin string, topo *cluster.Topology, sharing bool) (one, both float64) {
	e := sharedCluster(t, bin, topo, sharing, false)
	uplink := func() ([]uint64, error) {
		cs, err := e.net.RackLinkCounters()
		if err != nil {
			return nil, err
		}
		return []uint64{cs[0].UpBytes}, nil
	}
	flows := [][3]int{{e.host(0, 0), e.host(1, 0), job0}}
	up := topo.Racks[0].UplinkBps
	for try := 1; try <= 2; try++ {
		got, err := e.measure(flows, uplink)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("one sender, try %d: %s", try, mbps(got[0]))
		one = max(one, got[0])
		if !sharing || got[0] >= 0.9*up {
			break
		}
	}
	if !sharing {
		return one, 0
	}
	got, err := e.measure([][3]int{{e.host(0, 0), e.host(1, 0), job0}, {e.host(0, 1), e.host(1, 1), job0}}, uplink)
	if err != nil {
		t.Fatal(err)
	}
	return one, got[0]
}

// sharedCluster brings up topo in flat mode with its workers (bench
// worker, with --shape-share if sharing, with a leaf per priority band in
// every class if priorities), admits them, waits until every
// worker shapes toward the other racks, and returns a check env on it
// whose flows can run. Everything goes when the test ends.
func sharedCluster(t *testing.T, bin string, topo *cluster.Topology, sharing, priorities bool) *env {
	prefix := fmt.Sprintf("fs%d%d", map[bool]int{true: 1, false: 0}[sharing], os.Getpid()%1000)
	t.Cleanup(func() {
		if err := local.Cleanup(prefix); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	opt := local.Options{Prefix: prefix, Mode: shaping.Flat, Topology: topo, WorkerCommand: []string{bin, "worker"},
		Dir: filepath.Join(t.TempDir(), "cluster"), NATSPort: 14322, Cluster: "test", ShareRackLinks: sharing, Priorities: priorities, Logf: t.Logf}
	em, err := local.Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := em.Stop(); err != nil {
			t.Error(err)
		}
		if left, err := local.Leftovers(prefix); err != nil || len(left) > 0 {
			t.Errorf("left behind: %v %v", left, err)
		}
	})
	admitWorkers(t, em, topo)
	e := &env{opt: Options{Prefix: prefix, Mode: shaping.Flat, Topology: topo, Dir: t.TempDir(), Measure: 3 * time.Second, Logf: t.Logf},
		ctx: context.Background(), net: em.Net}
	t.Cleanup(func() {
		for _, s := range e.servers {
			s.Close()
		}
		if e.st != nil {
			_ = e.st.Wipe()
		}
	})
	if err := e.serve(); err != nil {
		t.Fatal(err)
	}
	return e
}

// A rack's downlink holds in flat mode with sharing: one host of rack 0
// and one of rack 1 send to rack 2, whose downlink is half a rack's uplink;
// what rack 2's hosts receive from other racks (the kernel's counts in
// the senders' classes toward rack 2) stays within 90-105% of it. Without
// sharing, flat mode does not enforce downlinks: each sender gets its
// static half of its uplink, together twice the downlink. A noisy machine
// may fail a measurement: it is repeated once.
func TestFlatShareHoldsDownlink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces and tc")
	}
	bin := buildBench(t)
	for _, sharing := range []bool{true, false} {
		t.Run(fmt.Sprintf("share=%v", sharing), func(t *testing.T) {
			// 3 racks × 2 hosts, 50 MB/s NICs, 25 MB/s rack links but
			// rack 2's downlink, 12.5 MB/s
			topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 3, HostsPerRack: 2, Slots: 1, NICBps: 50e6, Oversubscription: 4,
				Tiers: []cluster.Tier{{Kind: cluster.Mem, ReadBps: 400e6, WriteBps: 400e6, CapacityBytes: 1 << 30}}})
			if err != nil {
				t.Fatal(err)
			}
			topo.Racks[2].DownlinkBps = topo.Racks[2].UplinkBps / 2
			down := topo.Racks[2].DownlinkBps
			e := sharedCluster(t, bin, topo, sharing, false)
			flows := [][3]int{{e.host(0, 0), e.host(2, 0), job0}, {e.host(1, 0), e.host(2, 1), job0}}
			var got []float64
			for try := 1; try <= 2; try++ {
				if got, err = e.measure(flows, func() ([]uint64, error) {
					cs, err := e.net.RackLinkCounters()
					if err != nil {
						return nil, err
					}
					return []uint64{cs[2].DownBytes}, nil
				}); err != nil {
					t.Fatal(err)
				}
				t.Logf("try %d: %s", try, mbps(got[0]))
				if !sharing || (got[0] <= rateHigh*down && got[0] >= rateLow*down) {
					break
				}
			}
			t.Logf("share=%v: rack 2 received %s through its %s downlink (%.1f%%) from two senders of two racks", sharing, mbps(got[0]), mbps(down), 100*got[0]/down)
			if sharing && (got[0] > rateHigh*down || got[0] < rateLow*down) {
				t.Errorf("with sharing, rack 2 received %s through its %s downlink, want within %.0f%%..%.0f%%", mbps(got[0]), mbps(down), 100*rateLow, 100*rateHigh)
			}
			if !sharing && got[0] < 1.5*down {
				t.Errorf("without sharing, rack 2 received only %s through its %s downlink; the static split should let through about twice as much", mbps(got[0]), mbps(down))
			}
		})
	}
}

// admitWorkers stands in for the coordinator: an embedded NATS server that
// answers every worker's registration with the members so far and the
// racks, and returns once every worker's heartbeat shows it sees the
// three others and shapes toward the other rack.
func admitWorkers(t *testing.T, em *local.Emulator, topo *cluster.Topology) {
	t.Helper()
	subj, err := wire.NewSubjects("test")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := live.StartServer(em.NATSListen(), subj, em.Creds)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(srv.URL(), nats.UserInfo(wire.CoordinatorUser, em.Creds.Coordinator))
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	// the workers stop when the cluster does; the server goes after them
	t.Cleanup(func() { nc.Close(); srv.Close() })
	var racks []string
	for _, r := range topo.Racks {
		racks = append(racks, r.Name)
	}
	var mu sync.Mutex
	var members []string
	ready := map[string]bool{}
	if _, err := nc.Subscribe(subj.Register("*"), func(m *nats.Msg) {
		var reg wire.Register
		if err := wire.Decode(m.Data, wire.TypeRegister, &reg); err != nil {
			t.Errorf("registration: %v", err)
			return
		}
		mu.Lock()
		rep := wire.Registered{OK: true, Members: append([]string(nil), members...), Racks: racks}
		members = append(members, reg.MemberAddr)
		mu.Unlock()
		_ = m.Respond(wire.MustEncode(wire.TypeRegistered, &rep))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Subscribe(subj.Heartbeat("*"), func(m *nats.Msg) {
		var hb wire.Heartbeat
		if wire.Decode(m.Data, wire.TypeHeartbeat, &hb) != nil {
			return
		}
		mu.Lock()
		ready[hb.Host] = len(hb.Members) == len(topo.Hosts)-1 && len(hb.Shaped) == len(topo.Racks)-1
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := 0
		for _, ok := range ready {
			if ok {
				n++
			}
		}
		mu.Unlock()
		if n == len(topo.Hosts) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s, %d of %d workers see the others and shape toward the other rack", n, len(topo.Hosts))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var (
	buildOnce sync.Once
	benchBin  string
	buildErr  error
)

// TestMain removes the bench binary that buildBench made.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchBin != "" {
		_ = os.RemoveAll(filepath.Dir(benchBin))
	}
	os.Exit(code)
}

// buildBench builds the bench binary the emulator starts workers with,
// once per test binary (TestMain removes it).
func buildBench(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "racklab-check-test-")
		if err != nil {
			buildErr = err
			return
		}
		benchBin = filepath.Join(dir, "bench")
		build := exec.Command("go", "build", "-o", benchBin, "github.com/racklab/racklab/bench")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		buildErr = build.Run()
	})
	if buildErr != nil {
		t.Fatalf("build bench: %v", buildErr)
	}
	return benchBin
}

// Priorities hold across the hosts of a rack in flat mode with sharing, as
// a switch's priority leaves hold them on a rack link: r0h0 sends a
// priority-0 flow and r0h1 a priority-3 flow to rack 1. Through one
// switched uplink the high flow gets at least 90% while both send (bench
// check's "priority order (rack 0 uplink)"); in flat mode each host's share
// of the uplink must follow the priorities of the demands behind it.
func TestFlatSharePriorityAcrossHosts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces and tc")
	}
	bin := buildBench(t)
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 1, NICBps: 50e6, Oversubscription: 4,
		Tiers: []cluster.Tier{{Kind: cluster.Mem, ReadBps: 400e6, WriteBps: 400e6, CapacityBytes: 1 << 30}}})
	if err != nil {
		t.Fatal(err)
	}
	up := topo.Racks[0].UplinkBps
	e := sharedCluster(t, bin, topo, true, true)
	hi, lo := e.host(0, 0), e.host(0, 1)
	flows := [][3]int{{hi, e.host(1, 0), int(hiBand.DSCP())}, {lo, e.host(1, 1), int(loBand.DSCP())}}
	got, err := e.measurePriority(flows, up, func() ([]uint64, error) {
		h, err1 := e.net.HostRackCounters(hi)
		l, err2 := e.net.HostRackCounters(lo)
		return []uint64{h[1].Bytes, l[1].Bytes}, errors.Join(err1, err2)
	})
	if err != nil {
		t.Fatal(err)
	}
	line := priorityLine("priority order (rack 0 uplink, flat, shared)", got[0], got[1], up, hiBand, loBand)
	t.Log(line.Name, line.Detail)
	if !line.Passed {
		t.Errorf("%s: %s", line.Name, line.Detail)
	}
}
