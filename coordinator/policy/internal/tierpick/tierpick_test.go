package tierpick

import (
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Read names the replica a launch's class reads: the fastest on the
// host, else the fastest in its rack, else the fastest anywhere.
func TestRead(t *testing.T) {
	// two racks of two hosts: h0 h1 | h2 h3
	topo := &cluster.Topology{}
	for r := range 2 {
		topo.Racks = append(topo.Racks, cluster.Rack{})
		for range 2 {
			topo.Racks[r].Hosts = append(topo.Racks[r].Hosts, cluster.HostID(len(topo.Hosts)))
			topo.Hosts = append(topo.Hosts, cluster.Host{Rack: cluster.RackID(r)})
		}
	}
	rep := func(h int, k cluster.TierKind) workload.Replica {
		return workload.Replica{Host: cluster.HostID(h), Tier: k}
	}
	cases := []struct {
		name   string
		reps   []workload.Replica
		host   int
		src    workload.Replica
		level  engine.Locality
		reason string
		ok     bool
	}{
		{"the local copy, though memory is in the rack", []workload.Replica{rep(1, cluster.Mem), rep(0, cluster.HDD)}, 0, rep(0, cluster.HDD), engine.NodeLocal, HDDLocal, true},
		{"the fastest of two local copies", []workload.Replica{rep(0, cluster.HDD), rep(0, cluster.SSD)}, 0, rep(0, cluster.SSD), engine.NodeLocal, SSDLocal, true},
		{"the rack's fastest, not the faster copy off the rack", []workload.Replica{rep(2, cluster.Mem), rep(1, cluster.HDD), rep(1, cluster.SSD)}, 0, rep(1, cluster.SSD), engine.RackLocal, RackLocal, true},
		{"off the rack, the fastest, lowest host on a tie", []workload.Replica{rep(3, cluster.SSD), rep(2, cluster.SSD), rep(3, cluster.HDD)}, 0, rep(2, cluster.SSD), engine.Remote, OffRack, true},
		{"no replica", nil, 0, workload.Replica{}, engine.NoLocality, NoPref, false},
	}
	for _, c := range cases {
		src, level, reason, ok := Read(topo, c.reps, cluster.HostID(c.host))
		if src != c.src || level != c.level || reason != c.reason || ok != c.ok {
			t.Errorf("%s: Read = %v %v %s %v, want %v %v %s %v", c.name, src, level, reason, ok, c.src, c.level, c.reason, c.ok)
		}
	}
}

// A job's wait runs D from its start or its last restart; 0 never waits.
func TestWait(t *testing.T) {
	w := NewWait(3 * time.Second)
	w.Restart(1, 10)
	for _, c := range []struct {
		now     engine.Time
		expired bool
	}{{10, false}, {12.9, false}, {13, true}} {
		if got := w.Expired(1, c.now); got != c.expired {
			t.Errorf("started at 10, Expired at %g = %v, want %v", c.now, got, c.expired)
		}
	}
	w.Restart(1, 13)
	if w.Expired(1, 15) {
		t.Error("restarted at 13: expired at 15")
	}
	if w.Expired(2, 20) || !w.Expired(2, 23) {
		t.Error("a job never started should start at its first question (20)")
	}
	if z := NewWait(0); !z.Expired(1, 0) {
		t.Error("a zero wait must never hold a job")
	}
}
