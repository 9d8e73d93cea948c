package engine_test

import (
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/fair"
	"github.com/racklab/racklab/coordinator/workload"
)

// The Fair Scheduler, written for one pool, runs a job on hosts of one
// map and one reduce slot without a rejected launch: its reducers never
// take a map slot nor its maps a reduce slot, and a host runs a map and a
// reduce at once.
func TestFairOnSplitPools(t *testing.T) {
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 1, ReduceSlots: 1, NICBps: 1e9, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	in := workload.Dataset{Name: "in"}
	for i := 0; i < 8; i++ {
		in.Blocks = append(in.Blocks, workload.Block{Size: 10, Replicas: []workload.Replica{{Host: cluster.HostID(i % 4), Tier: cluster.HDD}}})
	}
	w := &workload.Workload{Jobs: []workload.Job{{ID: "j", Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: "in", Selectivity: 1},
		{Name: "reduce", Kind: workload.Reduce, Tasks: 4, After: []string{"map"}, Selectivity: 1},
	}}}}
	e, err := engine.New(engine.Config{SlowStart: 0.1}, topo, w, &workload.Datasets{Datasets: []workload.Dataset{in}}, fair.New(fair.DefaultConfig()))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Advance(0); err != nil {
		t.Fatal(err)
	}
	running := map[engine.AttemptID]*engine.Attempt{}
	both := false // a host ran a map and a reduce at once
	for step := 0; !e.Done(); step++ {
		if step > 100 {
			t.Fatalf("the job did not finish: %d pending, %d running", e.Pending(), len(running))
		}
		e.Schedule()
		for _, a := range e.Ready().Launches {
			running[a.ID] = a
		}
		var maps, reduces [4]int
		for _, a := range running {
			if kind, _ := e.StageInfo(a.Task); kind == workload.Map {
				maps[a.Host]++
			} else {
				reduces[a.Host]++
			}
		}
		for h := range maps {
			if maps[h] > 1 || reduces[h] > 1 {
				t.Fatalf("step %d: host %d runs %d maps and %d reduces with one slot of each", step, h, maps[h], reduces[h])
			}
			both = both || (maps[h] == 1 && reduces[h] == 1)
		}
		// the maps finish first, then the reduces (which cannot before)
		mapsRunning := false
		for _, a := range running {
			if kind, _ := e.StageInfo(a.Task); kind == workload.Map {
				mapsRunning = true
			}
		}
		ids := make([]engine.AttemptID, 0, len(running))
		for id := range running {
			ids = append(ids, id)
		}
		slices.Sort(ids) // in launch order, for a deterministic run
		for _, id := range ids {
			if kind, _ := e.StageInfo(running[id].Task); mapsRunning && kind != workload.Map {
				continue
			}
			if err := e.AttemptSucceeded(id, nil); err != nil {
				t.Fatal(err)
			}
			delete(running, id)
		}
	}
	if e.Job(0).State != engine.JobSucceeded || e.Stats.Rejected != 0 || !both {
		t.Fatalf("job %s, rejected %v, a map and a reduce on one host at once: %v", e.Job(0).State, e.Stats.RejectedByReason, both)
	}
}
