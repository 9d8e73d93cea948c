package engine

import (
	"math"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
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

// TestExpectedStageOutputCountsTasksNotLaunched checks that a DAG's
// later stages are sized from their upstream's expected output before any
// of their tasks launch, and after some do: map (2,000 B) → g1 (two
// tasks, selectivity 0.1) → g2. Summing the tasks' OutputBytes would
// give g1 0 B before it launches and 100 B with one task launched.
func TestExpectedStageOutputCountsTasksNotLaunched(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 1000, 0, 1)}}
	j := workload.Job{ID: "j", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1},
		{Name: "g1", Kind: workload.Generic, Tasks: 2, After: []string{"map"}, Selectivity: 0.1},
		{Name: "g2", Kind: workload.Generic, Tasks: 1, After: []string{"g1"}, Selectivity: 1},
	}}
	w := &workload.Workload{Jobs: []workload.Job{j}}
	launchOne := func(stage int16) func(ctx *Context, h cluster.HostID) {
		return func(ctx *Context, h cluster.HostID) {
			for i := int32(0); ; i++ {
				t := TaskRef{Job: 0, Stage: stage, Index: i}
				if int(i) >= len(ctx.Job(0).Stages[stage].Tasks) {
					return
				}
				if ctx.CanRun(t) {
					_, _ = ctx.Launch(t, h, LaunchOptions{})
					return
				}
			}
		}
	}
	p := &scripted{offer: greedy}
	e := newEngine(t, Config{SlowStart: 1}, topo, w, ds, p)
	want := func(when string, g1, g2 int64) {
		t.Helper()
		if got := e.ctx.ExpectedStageOutput(0, 1); got != g1 {
			t.Errorf("%s: g1's expected output %d B, want %d", when, got, g1)
		}
		if got := e.ctx.ExpectedStageOutput(0, 2); got != g2 {
			t.Errorf("%s: g2's expected output %d B, want %d", when, got, g2)
		}
	}
	want("before any launch", 200, 200)
	p.offer = launchOne(0)
	e.Schedule()
	finishAll(t, e, e.Ready())
	p.offer = launchOne(0)
	e.Schedule()
	finishAll(t, e, e.Ready())
	want("maps done", 200, 200)
	p.offer = launchOne(1)
	e.Offer(0)
	if n := len(e.Ready().Launches); n != 1 {
		t.Fatalf("%d g1 tasks launched, want 1", n)
	}
	want("one g1 task launched", 200, 200)
}
