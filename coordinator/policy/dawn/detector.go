package dawn

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/engine"
)

// Deps is the dependency detector's output (§2.2): for every job its
// children (Next_x) and its parents; Prev_{x,y} is y's parents other
// than x.
type Deps struct {
	Next    [][]engine.JobID
	Parents [][]engine.JobID
}

// DetectDeps builds the dependency matrix's adjacency from the jobs'
// Parents (by job name) and checks that it is acyclic (DD-1..DD-6).
func DetectDeps(jobs []*engine.Job) (*Deps, error) {
	byName := make(map[string]engine.JobID, len(jobs))
	for _, j := range jobs {
		byName[j.Spec.ID] = j.ID
	}
	d := &Deps{Next: make([][]engine.JobID, len(jobs)), Parents: make([][]engine.JobID, len(jobs))}
	for _, j := range jobs {
		for _, name := range j.Spec.Parents {
			p, ok := byName[name]
			if !ok {
				return nil, fmt.Errorf("dawn: job %s names unknown parent %q", j.Spec.ID, name)
			}
			d.Next[p] = append(d.Next[p], j.ID)
			d.Parents[j.ID] = append(d.Parents[j.ID], p)
		}
	}
	// DD-3: Kahn's algorithm; whatever is left over lies on a cycle
	left := make([]int, len(jobs))
	var ready []engine.JobID
	for i := range jobs {
		left[i] = len(d.Parents[i])
		if left[i] == 0 {
			ready = append(ready, engine.JobID(i))
		}
	}
	seen := 0
	for len(ready) > 0 {
		x := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		seen++
		for _, y := range d.Next[x] {
			if left[y]--; left[y] == 0 {
				ready = append(ready, y)
			}
		}
	}
	if seen != len(jobs) {
		return nil, fmt.Errorf("dawn: the job DAG has a cycle")
	}
	return d, nil
}

// Prev is Prev_{x,y}: y's parents other than x.
func (d *Deps) Prev(x, y engine.JobID) []engine.JobID {
	var out []engine.JobID
	for _, z := range d.Parents[y] {
		if z != x {
			out = append(out, z)
		}
	}
	return out
}
