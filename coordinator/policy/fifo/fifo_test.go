package fifo

import (
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/policytest"
	"github.com/racklab/racklab/coordinator/workload"
)

func TestFIFOServesEarliestJobWithoutWaitingForLocality(t *testing.T) {
	topo := policytest.Topology(t, 2, 2, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{
		policytest.Dataset("a", 10, 0), policytest.Dataset("b", 10, 3),
	}}
	w := &workload.Workload{Jobs: []workload.Job{
		policytest.MapJob("first", 0, "", "a"), policytest.MapJob("second", 0, "", "b"),
	}}
	e := policytest.Engine(t, engine.Config{}, topo, w, ds, New(DefaultConfig()))
	// host 3 holds the second job's block, but FIFO gives it to the first
	// job, reading remotely, rather than wait or skip
	got := policytest.Launches(e, 3)
	if len(got) != 1 || got[0].Job != "first" || got[0].Locality != engine.Remote {
		t.Fatalf("host 3 got %+v, want first job's map, remote", got)
	}
	got = policytest.Launches(e, 2)
	if len(got) != 1 || got[0].Job != "second" || got[0].Locality != engine.RackLocal {
		t.Fatalf("host 2 got %+v, want second job's map, rack-local", got)
	}
}

func TestFIFOPrefersNodeLocalWithinJob(t *testing.T) {
	topo := policytest.Topology(t, 2, 2, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{policytest.Dataset("a", 10, 0, 1, 2, 3)}}
	w := &workload.Workload{Jobs: []workload.Job{policytest.MapJob("j", 0, "", "a")}}
	e := policytest.Engine(t, engine.Config{}, topo, w, ds, New(DefaultConfig()))
	for _, h := range []int{2, 0, 3, 1} {
		got := policytest.Launches(e, topo.Hosts[h].ID)
		if len(got) != 1 || got[0].Task != h || got[0].Locality != engine.NodeLocal {
			t.Fatalf("host %d got %+v", h, got)
		}
	}
}
