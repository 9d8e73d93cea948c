package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/racklab/racklab/coordinator/workload"
)

// Cut is what a run stopped at its experiment window leaves: a record of
// every attempt still running, with outcome AttemptCut and the engine's
// time as its end, in launch order; and of every job that has not ended,
// with state JobUnfinished, in workload order, including jobs yet to
// arrive. A cut attempt's Bytes are zero: the engine counts the bytes of
// successful attempts only, and the driver's link counters hold what it
// moved before the window.
//
// Cut changes nothing and calls no policy hook: the driver stops the run
// after it (and kills the attempts it had dispatched).
func (e *Engine) Cut() ([]AttemptRecord, []JobRecord) {
	ids := make([]AttemptID, 0, len(e.attempts))
	for id := range e.attempts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	attempts := make([]AttemptRecord, 0, len(ids))
	for _, id := range ids {
		a := e.attempts[id]
		j, st, _, _ := e.lookup(a.Task)
		rec := AttemptRecord{Attempt: *a, JobName: j.Spec.ID, Kind: st.Spec.Kind, Rack: e.topo.RackOf(a.Host), InputClass: st.InputClass}
		rec.End, rec.Outcome = e.now, AttemptCut
		if a.Source.Host >= 0 {
			rec.Tier = a.Source.Tier
		}
		attempts = append(attempts, rec)
	}
	var jobs []JobRecord
	for _, j := range e.jobs {
		if j.State == JobSucceeded || j.State == JobFailed {
			continue
		}
		rec := e.jobRecord(j)
		rec.Submitted, rec.Started, rec.Finished, rec.State = math.NaN(), math.NaN(), math.NaN(), JobUnfinished
		switch {
		case j.State == JobRunning:
			rec.Submitted = j.Submitted
			rec.Reason = j.progress()
		case e.arrived(j):
			rec.Reason = "waiting for its parents at the window"
		default:
			rec.Reason = "not arrived by the window"
		}
		if j.launched {
			rec.Started = j.Started
		}
		jobs = append(jobs, rec)
	}
	return attempts, jobs
}

// progress is how far a running job got by the window: its tasks done,
// then by stage kind its attempts running and its runnable tasks waiting
// for a slot. A job starved of slots reads as such: under a reduce
// slow-start its early reducers can hold slots to the end while its last
// maps wait ("running: 4 reduce; waiting for a slot: 3 map").
func (j *Job) progress() string {
	kinds := []workload.StageKind{workload.Map, workload.Reduce, workload.Generic}
	running, waiting := make([]int, len(kinds)), make([]int, len(kinds))
	for _, st := range j.Stages {
		running[st.Spec.Kind] += st.running
		waiting[st.Spec.Kind] += st.Pending
	}
	byKind := func(n []int) string {
		var parts []string
		for _, k := range kinds {
			if n[k] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
			}
		}
		return strings.Join(parts, ", ")
	}
	s := fmt.Sprintf("%d of %d tasks done at the window", j.TasksDone, j.Tasks)
	if r := byKind(running); r != "" {
		s += "; running: " + r
	}
	if w := byKind(waiting); w != "" {
		s += "; waiting for a slot: " + w
	}
	return s
}
