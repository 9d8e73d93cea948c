package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

// A host dies with the outputs of a job's finished maps whose blocks had
// their only replica there: the maps can never run again, so the job
// fails at once and its reducer, waiting for their outputs, is killed;
// the other job goes on to finish. (Before, the job stayed running with
// its reducer counted as running, waiting forever.)
func TestLostOutputOfMapWithLostInputFailsOnlyItsJob(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("lost", 10, 1, 1), blocksOn("ok", 10, 0, 3)}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("doomed", "lost", 1), mapReduce("fine", "ok", 1)}}
	e := newEngine(t, Config{SlowStart: 1}, topo, w, ds, &scripted{})
	ctx := &Context{e}
	// doomed's maps run on host 1, one after the other, and succeed
	for i := range int32(2) {
		m, err := ctx.Launch(TaskRef{0, 0, i}, 1, LaunchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.AttemptSucceeded(m, nil); err != nil {
			t.Fatal(err)
		}
	}
	red, err := ctx.Launch(TaskRef{0, 1, 0}, 2, LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fineMap, err := ctx.Launch(TaskRef{1, 0, 0}, 0, LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = e.Ready()
	if err := e.HostLost(1); err != nil {
		t.Fatal(err)
	}
	doomed := e.Job(0)
	if doomed.State != JobFailed || !strings.Contains(doomed.Reason, "every replica of input block 0 of stage map is lost") {
		t.Fatalf("doomed is %s (%q), want failed for its lost input", doomed.State, doomed.Reason)
	}
	rd := e.Ready()
	if e.Attempt(red) != nil || !slices.Contains(rd.Kills, red) {
		t.Fatalf("doomed's reducer %d still runs (kills %v)", red, rd.Kills)
	}
	if len(rd.Jobs) != 1 || rd.Jobs[0].Name != "doomed" {
		t.Fatalf("job records %+v, want doomed's", rd.Jobs)
	}
	if e.early != 0 || e.Pending() != 1 || doomed.Running != 0 || doomed.Pending != 0 {
		t.Fatalf("early %d, pending %d, doomed running %d pending %d: want 0, fine's one map, 0, 0",
			e.early, e.Pending(), doomed.Running, doomed.Pending)
	}
	// fine finishes on the hosts left
	if err := e.AttemptSucceeded(fineMap, nil); err != nil {
		t.Fatal(err)
	}
	m, err := ctx.Launch(TaskRef{1, 0, 1}, 3, LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.AttemptSucceeded(m, nil); err != nil {
		t.Fatal(err)
	}
	r, err := ctx.Launch(TaskRef{1, 1, 0}, 2, LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.AttemptSucceeded(r, nil); err != nil {
		t.Fatal(err)
	}
	if !e.Done() || e.Job(1).State != JobSucceeded {
		t.Fatalf("done %v, fine %s", e.Done(), e.Job(1).State)
	}
}

// A job submitted after a host's loss — it arrives later, or its parent's
// output died with the host — fails at once if one of its input blocks
// has no live replica, instead of waiting forever for a map that cannot
// run.
func TestJobSubmittedAfterItsInputIsLostFails(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("lost", 10, 1), blocksOn("ok", 10, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{
		{ID: "parent", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "ok", Selectivity: 1}}},
		{ID: "child", Arrival: 3, Parents: []string{"parent"}, Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "@parent"}}},
		{ID: "late", Arrival: 3, Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "lost"}}},
	}}
	e := newEngine(t, Config{}, topo, w, ds, &scripted{})
	ctx := &Context{e}
	// the parent's output, one replica, is written on host 1
	m, err := ctx.Launch(TaskRef{0, 0, 0}, 1, LaunchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.AttemptSucceeded(m, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Advance(2); err != nil {
		t.Fatal(err)
	}
	if err := e.HostLost(1); err != nil {
		t.Fatal(err)
	}
	if err := e.Advance(3); err != nil {
		t.Fatal(err)
	}
	if !e.Done() || e.Pending() != 0 {
		t.Fatalf("done %v with %d tasks pending: the jobs whose input is lost wait", e.Done(), e.Pending())
	}
	for _, id := range []JobID{1, 2} {
		j := e.Job(id)
		if j.State != JobFailed || !strings.Contains(j.Reason, "every replica of input block 0 of stage m is lost") {
			t.Errorf("%s is %s (%q), want failed for its lost input", j.Spec.ID, j.State, j.Reason)
		}
	}
}

// A map task without an input block (a generator) has no replica to
// lose: a host's loss does not fail its job.
func TestMapWithoutInputSurvivesHostLoss(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "none", BlockSize: 10}}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "gen", Stages: []workload.Stage{{Name: "m", Kind: workload.Map, Input: "none", Tasks: 2, OutputBytes: 20}}}}}
	e := newEngine(t, Config{}, topo, w, ds, &scripted{})
	if err := e.HostLost(1); err != nil {
		t.Fatal(err)
	}
	if j := e.Job(0); j.State != JobRunning || e.Pending() != 2 {
		t.Fatalf("gen is %s (%q) with %d pending, want running with its 2 tasks", j.State, j.Reason, e.Pending())
	}
}
