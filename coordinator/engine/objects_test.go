package engine

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// The partition ranges a reducer is told to fetch cover its input exactly,
// and the ranges of all reducers tile every map output without overlap.
func TestShuffleSourcesTileMapOutputs(t *testing.T) {
	topo := topo2x2(t, 8)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 1001, 0, 1, 2, 3)}}
	job := mapReduce("j", "in", 3)
	job.Stages[1].Skew = 1
	w := &workload.Workload{Jobs: []workload.Job{job}}
	e := newEngine(t, Config{SlowStart: 1}, topo, w, ds, &scripted{offer: greedy})
	e.Schedule()
	rd := e.Ready()
	for _, a := range rd.Launches {
		ref, ok := e.InputObject(a)
		if !ok || ref != (ObjectRef{Dataset: "in", Block: int(a.Task.Index)}) {
			t.Fatalf("map %d reads %+v (%v)", a.Task.Index, ref, ok)
		}
	}
	finishAll(t, e, rd)
	e.Schedule()
	rd = e.Ready()
	if len(rd.Launches) != 3 {
		t.Fatalf("%d reducers launched, want 3", len(rd.Launches))
	}
	covered := map[AttemptID]int64{}
	next := map[AttemptID]int64{}
	for _, a := range rd.Launches {
		var sum int64
		for _, s := range e.ShuffleSources(a, nil) {
			if s.Offset != next[s.Attempt] {
				t.Fatalf("reducer %d starts at %d of attempt %d's output, want %d", a.Task.Index, s.Offset, s.Attempt, next[s.Attempt])
			}
			next[s.Attempt] = s.Offset + s.Length
			covered[s.Attempt] += s.Length
			sum += s.Length
		}
		if sum != a.InputBytes {
			t.Fatalf("reducer %d sources add to %d, input is %d", a.Task.Index, sum, a.InputBytes)
		}
	}
	if len(covered) != 4 {
		t.Fatalf("sources name %d map outputs, want 4", len(covered))
	}
	for id, n := range covered {
		if n != 1001 {
			t.Fatalf("map output %d covered %d bytes, want 1001", id, n)
		}
	}
}

// A task that keeps failing fails its job after MaxTaskFailures attempts;
// attempts lost with their host do not count.
func TestRepeatedTaskFailuresFailTheJob(t *testing.T) {
	topo := topo2x2(t, 1)
	ds := &workload.Datasets{Datasets: []workload.Dataset{blocksOn("in", 100, 0)}}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: "in"}}}}}
	e := newEngine(t, Config{MaxTaskFailures: 3}, topo, w, ds, &scripted{offer: greedy})
	e.Schedule()
	a := e.Ready().Launches[0]
	if err := e.HostLost(a.Host); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if e.Job(0).State != JobRunning {
			t.Fatalf("job %s after %d failures", e.Job(0).State, i)
		}
		e.Schedule()
		rd := e.Ready()
		if len(rd.Launches) != 1 {
			t.Fatalf("%d launches after %d failures", len(rd.Launches), i)
		}
		if err := e.AttemptFailed(rd.Launches[0].ID, "disk full"); err != nil {
			t.Fatal(err)
		}
	}
	if j := e.Job(0); j.State != JobFailed || !strings.Contains(j.Reason, "failed 3 times; last: disk full") {
		t.Fatalf("job %s (%q), want failed after 3 task failures", j.State, j.Reason)
	}
}

// When a host's loss shrinks the slots, reducers started early are
// preempted, youngest first, down to the early-shuffle limit, and their
// tasks run again: else they could hold every slot while the maps they
// wait for have none.
func TestHostLossPreemptsEarlyReducers(t *testing.T) {
	topo := topo2x2(t, 1)
	// every block on two hosts, so that losing one loses no input
	in := blocksOn("in", 100, 0, 1, 2, 3, 0, 1)
	for b := range in.Blocks {
		other := cluster.HostID((b + 2) % 4)
		in.Blocks[b].Replicas = append(in.Blocks[b].Replicas, workload.Replica{Host: other, Tier: cluster.HDD})
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{in}}
	w := &workload.Workload{Jobs: []workload.Job{mapReduce("j", "in", 2)}}
	e := newEngine(t, Config{SlowStart: 0.1, EarlyShuffleLimit: 0.5}, topo, w, ds, &scripted{offer: greedy})
	e.Schedule()
	maps := e.Ready().Launches // one map per host
	if len(maps) != 4 {
		t.Fatalf("%d maps launched, want 4", len(maps))
	}
	byHost := map[int]*Attempt{}
	for _, a := range maps {
		byHost[int(a.Host)] = a
	}
	// maps on hosts 0 and 1 finish; their slots go to the two reducers
	for _, h := range []int{0, 1} {
		if err := e.AttemptSucceeded(byHost[h].ID, nil); err != nil {
			t.Fatal(err)
		}
		if err := e.Advance(float64(h + 1)); err != nil {
			t.Fatal(err)
		}
		e.Offer(cluster.HostID(h))
	}
	var reducers []*Attempt
	for _, a := range e.Ready().Launches {
		if e.Job(0).Stages[a.Task.Stage].Spec.Kind == workload.Reduce {
			reducers = append(reducers, a)
		}
	}
	if len(reducers) != 2 {
		t.Fatalf("%d reducers running, want 2", len(reducers))
	}
	if err := e.HostLost(byHost[2].Host); err != nil {
		t.Fatal(err)
	}
	rd := e.Ready()
	if len(rd.Kills) != 1 || rd.Kills[0] != reducers[1].ID {
		t.Fatalf("kills %v, want the younger reducer %d", rd.Kills, reducers[1].ID)
	}
	if task := e.Job(0).Stages[1].Tasks[reducers[1].Task.Index]; task.State != TaskPending {
		t.Fatalf("the preempted reducer's task is %v, want pending", task.State)
	}
}
