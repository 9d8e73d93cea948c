package dawn

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

func jobsWithEdges(n int, edges [][2]int) []*engine.Job {
	jobs := make([]*engine.Job, n)
	for i := range jobs {
		jobs[i] = &engine.Job{ID: engine.JobID(i), Spec: &workload.Job{ID: fmt.Sprint(i + 1)}}
	}
	for _, e := range edges {
		jobs[e[1]-1].Spec.Parents = append(jobs[e[1]-1].Spec.Parents, fmt.Sprint(e[0]))
	}
	return jobs
}

// TestDetectDepsFig8 is the spec's Fig. 8 check (§2.2, S1): edges 1→4,
// 2→4, 2→5, 3→5.
func TestDetectDepsFig8(t *testing.T) {
	d, err := DetectDeps(jobsWithEdges(5, [][2]int{{1, 4}, {2, 4}, {2, 5}, {3, 5}}))
	if err != nil {
		t.Fatal(err)
	}
	id := func(n int) engine.JobID { return engine.JobID(n - 1) }
	wantNext := map[int][]engine.JobID{1: {id(4)}, 2: {id(4), id(5)}, 3: {id(5)}, 4: nil, 5: nil}
	for x, want := range wantNext {
		if got := d.Next[id(x)]; !reflect.DeepEqual(got, want) {
			t.Errorf("Next_%d = %v, want %v", x, got, want)
		}
	}
	wantPrev := map[[2]int][]engine.JobID{{1, 4}: {id(2)}, {2, 4}: {id(1)}, {2, 5}: {id(3)}, {3, 5}: {id(2)}}
	for xy, want := range wantPrev {
		if got := d.Prev(id(xy[0]), id(xy[1])); !reflect.DeepEqual(got, want) {
			t.Errorf("Prev_{%d,%d} = %v, want %v", xy[0], xy[1], got, want)
		}
	}
}

func TestDetectDepsRejectsCycleAndUnknownParent(t *testing.T) {
	if _, err := DetectDeps(jobsWithEdges(3, [][2]int{{1, 2}, {2, 3}, {3, 1}})); err == nil {
		t.Error("a cycle was accepted")
	}
	jobs := jobsWithEdges(1, nil)
	jobs[0].Spec.Parents = []string{"nope"}
	if _, err := DetectDeps(jobs); err == nil {
		t.Error("an unknown parent was accepted")
	}
}
