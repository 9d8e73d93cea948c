package engine

import (
	"errors"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// On hosts with a reduce pool of their own, a stage's early attempts are
// held while its reduce upstream still has tasks to launch: they share
// the pool. 4 hosts of 2 map and 1 reduce slot, a job map -> r1(2) ->
// r2(4): with r1[1] not launched, r2 may not start. Before, the
// early-shuffle limit (half of all 12 slots) let r2 take all 4 reduce
// slots, and r1[1], which they wait for, never got one (PushBox and NEAT
// stalled so).
func TestEarlyAttemptsLeaveTheirUpstreamItsPool(t *testing.T) {
	topo := topoSplit(t, 2, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
		{Name: "m", Kind: workload.Map, Input: "in", Selectivity: 1},
		{Name: "r1", Kind: workload.Reduce, Tasks: 2, After: []string{"m"}, Selectivity: 1},
		{Name: "r2", Kind: workload.Reduce, Tasks: 4, After: []string{"r1"}, Selectivity: 1},
	}}}}
	e := newEngine(t, Config{}, topo, w, ds, &scripted{})
	ctx := &Context{e}
	if err := e.AttemptSucceeded(launchOK(t, ctx, TaskRef{0, 0, 0}, 0, false), nil); err != nil {
		t.Fatal(err)
	}
	if err := e.AttemptSucceeded(launchOK(t, ctx, TaskRef{0, 1, 0}, 0, false), nil); err != nil {
		t.Fatal(err)
	}
	// r2 is released (slow start), r1[1] pending: r2 is held
	r2 := TaskRef{0, 2, 0}
	if ctx.CanRun(r2) || !ctx.HeldByEarlyLimit(r2) {
		t.Errorf("r2[0] with r1[1] pending: CanRun %v, HeldByEarlyLimit %v; want held", ctx.CanRun(r2), ctx.HeldByEarlyLimit(r2))
	}
	if _, err := ctx.Launch(r2, 1, LaunchOptions{}); !errors.Is(err, errRejected) {
		t.Errorf("launch of r2[0] with r1[1] pending: %v, want the early shuffle limit", err)
	}
	// once every r1 task runs, r2 may start early in the slots left
	launchOK(t, ctx, TaskRef{0, 1, 1}, 1, false)
	if !ctx.CanRun(r2) {
		t.Error("r2[0] with every r1 task launched: held")
	}
	launchOK(t, ctx, r2, 2, false)
}

// A host's loss recomputes, to a fixed point, every output a task reset
// by it will read: host 1 held map[0]'s and r1[0]'s outputs of a job
// map(2) -> r1(2) -> r2 whose r2 runs. r1[0] runs again and needs every
// map output, map[0]'s too. Before, map stages came first in one pass,
// found their consumer r1 done, and kept map[0]'s output on the dead
// host for r1[0] to read.
func TestHostLossRecomputesWhatARerunTaskReads(t *testing.T) {
	topo := topo2x2(t, 2)
	d := workload.Dataset{Name: "in"}
	for range 2 {
		d.Blocks = append(d.Blocks, workload.Block{Size: 100, Replicas: []workload.Replica{{Host: 3, Tier: topo.Hosts[3].Tiers[0].Kind}}})
	}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1},
		{Name: "r1", Kind: workload.Reduce, Tasks: 2, After: []string{"map"}, Selectivity: 1},
		{Name: "r2", Kind: workload.Reduce, Tasks: 1, After: []string{"r1"}, Selectivity: 1},
	}}}}
	e := newEngine(t, Config{SlowStart: 1}, topo, w, &workload.Datasets{Datasets: []workload.Dataset{d}}, &scripted{})
	ctx := &Context{e}
	for _, x := range []struct {
		ref TaskRef
		h   cluster.HostID
	}{{TaskRef{0, 0, 0}, 1}, {TaskRef{0, 0, 1}, 0}, {TaskRef{0, 1, 0}, 1}, {TaskRef{0, 1, 1}, 0}} {
		if err := e.AttemptSucceeded(launchOK(t, ctx, x.ref, x.h, false), nil); err != nil {
			t.Fatal(err)
		}
	}
	launchOK(t, ctx, TaskRef{0, 2, 0}, 2, false)
	e.Ready()
	if err := e.HostLost(1); err != nil {
		t.Fatal(err)
	}
	j := e.Job(0)
	if m0, r10 := j.Stages[0].Tasks[0].State, j.Stages[1].Tasks[0].State; r10 == TaskDone || m0 == TaskDone {
		t.Errorf("after host 1's loss: map[0] %v, r1[0] %v; want both to run again (map[0]'s output was on host 1)", m0, r10)
	}
	if e.Stats.Recomputed != 2 {
		t.Errorf("%d tasks recomputed, want 2 (map[0] and r1[0])", e.Stats.Recomputed)
	}
}

// A held output of a job that has failed is not used: before, the policy
// could still finish a task of the failed job with it (and release its
// reduce stage).
func TestHeldOutputOfAFailedJobIsRefused(t *testing.T) {
	topo := topo2x2(t, 2)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0, 1)}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 1)}}
	p := &choosing{}
	p.choose = func(ctx *Context, a *Attempt) OutputDecision { return HoldOutput }
	e := newEngine(t, Config{SlowStart: 1, MaxTaskFailures: 1}, topo, w, ds, p)
	ctx := &Context{e}
	orig := launchOK(t, ctx, TaskRef{0, 0, 0}, 0, false)
	launchOK(t, ctx, TaskRef{0, 0, 0}, 1, true)
	other := launchOK(t, ctx, TaskRef{0, 0, 1}, 2, false)
	if err := e.AttemptSucceeded(orig, nil); err != nil { // held: the duplicate still runs
		t.Fatal(err)
	}
	if err := e.AttemptFailed(other, "boom"); err != nil { // the job fails
		t.Fatal(err)
	}
	j := e.Job(0)
	if err := ctx.UseHeldOutput(orig); !errors.Is(err, errRejected) || j.TasksDone != 0 || j.Stages[1].Released {
		t.Errorf("UseHeldOutput on a failed job: %v; %d tasks done, reduce released %v", err, j.TasksDone, j.Stages[1].Released)
	}
}

// An attempt cut at the window is recorded with its stage's data class, as
// a finished one is: before, every cut attempt read as an input read.
func TestCutAttemptsKeepTheirDataClass(t *testing.T) {
	topo := topo2x2(t, 2)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 1)}}
	e := newEngine(t, Config{SlowStart: 1}, topo, w, ds, &scripted{})
	ctx := &Context{e}
	if err := e.AttemptSucceeded(launchOK(t, ctx, TaskRef{0, 0, 0}, 0, false), nil); err != nil {
		t.Fatal(err)
	}
	launchOK(t, ctx, TaskRef{0, 1, 0}, 1, false)
	attempts, _ := e.Cut()
	if len(attempts) != 1 || attempts[0].InputClass != ClassShuffle {
		t.Fatalf("cut attempts %+v, want the reducer with class shuffle", attempts)
	}
}
