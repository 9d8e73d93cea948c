package fair

import (
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/policytest"
	"github.com/racklab/racklab/coordinator/workload"
)

// Dawn spec §4.1 F-8..F-11 with T_node = T_rack = #nodes (4 here): a job
// declines non-local containers, counting skips, takes rack-local at 4
// skips and anything at 8.
func TestDelaySchedulingThresholds(t *testing.T) {
	topo := policytest.Topology(t, 2, 2, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{policytest.Dataset("a", 10, 0, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapJob("j", 0, "", "a")}}
	p := New(DefaultConfig())
	e := policytest.Engine(t, engine.Config{}, topo, w, ds, p)
	for i := 0; i < 4; i++ {
		if got := policytest.Launches(e, 3); len(got) != 0 {
			t.Fatalf("offer %d: took %+v off-rack before the threshold", i, got)
		}
	}
	if p.Skips(0) != 4 {
		t.Fatalf("skips %d, want 4", p.Skips(0))
	}
	// rack-local is now allowed, off-rack is not
	if got := policytest.Launches(e, 3); len(got) != 0 {
		t.Fatalf("took %+v off-rack at 4 skips", got)
	}
	got := policytest.Launches(e, 1)
	if len(got) != 1 || got[0].Locality != engine.RackLocal {
		t.Fatalf("host 1 got %+v, want a rack-local map", got)
	}
	// skips are not reset by a rack-local launch (F-9), so at 8 it goes anywhere
	for p.Skips(0) < 8 {
		if got := policytest.Launches(e, 3); len(got) != 0 {
			t.Fatalf("took %+v off-rack at %d skips", got, p.Skips(0))
		}
	}
	got = policytest.Launches(e, 3)
	if len(got) != 1 || got[0].Locality != engine.Remote {
		t.Fatalf("host 3 got %+v at 8 skips, want an off-rack map", got)
	}
}

func TestNodeLocalLaunchResetsSkips(t *testing.T) {
	topo := policytest.Topology(t, 2, 2, 2)
	ds := &workload.Datasets{Datasets: []workload.Dataset{policytest.Dataset("a", 10, 0, 0, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapJob("j", 0, "", "a")}}
	p := New(DefaultConfig())
	e := policytest.Engine(t, engine.Config{}, topo, w, ds, p)
	policytest.Launches(e, 2)
	policytest.Launches(e, 3)
	if p.Skips(0) != 2 {
		t.Fatalf("skips %d, want 2", p.Skips(0))
	}
	if got := policytest.Launches(e, 0); len(got) != 2 || p.Skips(0) != 0 {
		t.Fatalf("host 0 got %+v, skips %d", got, p.Skips(0))
	}
}

// F-2..F-5: the job with fewer running containers goes first; ties by
// submission time.
func TestFairShareOrder(t *testing.T) {
	topo := policytest.Topology(t, 1, 4, 1)
	hosts := []cluster.HostID{0, 1, 2, 3}
	ds := &workload.Datasets{Datasets: []workload.Dataset{
		policytest.Dataset("a", 10, hosts...), policytest.Dataset("b", 10, hosts...),
	}}
	w := &workload.Workload{Jobs: []workload.Job{
		policytest.MapJob("early", 0, "", "a"), policytest.MapJob("late", 0, "", "b"),
	}}
	e := policytest.Engine(t, engine.Config{}, topo, w, ds, New(DefaultConfig()))
	var order []string
	for _, h := range hosts {
		for _, l := range policytest.Launches(e, h) {
			order = append(order, l.Job)
		}
	}
	want := []string{"early", "late", "early", "late"}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
}

// F-7: a job's releasable reduce is served before its maps.
func TestReleasedReduceFirst(t *testing.T) {
	topo := policytest.Topology(t, 1, 2, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{policytest.Dataset("a", 10, 0, 0, 1)}}
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapReduceJob("j", 0, "a", 1)}}
	e := policytest.Engine(t, engine.Config{SlowStart: 0.3, EarlyShuffleLimit: 1}, topo, w, ds, New(DefaultConfig()))
	l := policytest.Launches(e, 0)
	if len(l) != 1 || l[0].Stage != 0 {
		t.Fatalf("first launch %+v", l)
	}
	if err := e.AttemptSucceeded(0, nil); err != nil {
		t.Fatal(err)
	}
	l = policytest.Launches(e, 0)
	if len(l) != 1 || l[0].Stage != 1 {
		t.Fatalf("after slow-start the reduce should go first, got %+v", l)
	}
}

func TestDelayDisabled(t *testing.T) {
	topo := policytest.Topology(t, 2, 2, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{policytest.Dataset("a", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapJob("j", 0, "", "a")}}
	e := policytest.Engine(t, engine.Config{}, topo, w, ds, New(Config{NodeThreshold: -1, RackThreshold: -1}))
	if got := policytest.Launches(e, 3); len(got) != 1 {
		t.Fatalf("with delay scheduling off a free container was declined")
	}
}
