package engine

import (
	"math"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

// TestPartitionShareGivesTheLaunchInput checks that a pending reducer's
// share times its upstream's output is what a launch then fixes, skewed
// partitions included, and that a map has no share.
func TestPartitionShareGivesTheLaunchInput(t *testing.T) {
	topo := topo2x2(t, 8)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 1000, 0, 1)}}
	j := mapReduce("j", "in", 3)
	j.Stages[1].Skew = 1
	w := &workload.Workload{Jobs: []workload.Job{j}}
	e := newEngine(t, Config{SlowStart: 1}, topo, w, ds, &scripted{offer: greedy})
	e.Schedule()
	finishAll(t, e, e.Ready())
	if s := e.ctx.PartitionShare(TaskRef{Job: 0, Stage: 0, Index: 0}); s != 0 {
		t.Errorf("a map's share is %g, want 0", s)
	}
	var sum float64
	for i := int32(0); i < 3; i++ {
		share := e.ctx.PartitionShare(TaskRef{Job: 0, Stage: 1, Index: i})
		sum += share
		want := float64(partition(e.jobs[0].Stages[1].cumShares, int(i), 2000))
		if got := share * 2000; math.Abs(got-want) > 1 {
			t.Errorf("reducer %d: share × output = %g, the launch fixes %g", i, got, want)
		}
		if i > 0 && share >= e.ctx.PartitionShare(TaskRef{Job: 0, Stage: 1, Index: i - 1}) {
			t.Errorf("reducer %d's share %g is not below its predecessor's under skew 1", i, share)
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("shares add up to %g, want 1", sum)
	}
}

// TestNetworkMeasurementsCount checks that each measurement the driver
// hands in is counted, so that a policy can tell a new one from the last.
func TestNetworkMeasurementsCount(t *testing.T) {
	topo := topo2x2(t, 1)
	e := newEngine(t, Config{}, topo, &workload.Workload{}, &workload.Datasets{}, &scripted{})
	if n := e.ctx.Network().Measurements; n != 0 {
		t.Fatalf("%d measurements before any", n)
	}
	e.SetNetwork(NetworkStatus{HostRxBps: []float64{1, 2, 3, 4}})
	e.SetNetwork(NetworkStatus{})
	if n := e.ctx.Network().Measurements; n != 2 {
		t.Fatalf("%d measurements after two", n)
	}
}
