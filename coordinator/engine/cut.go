package engine

import (
	"fmt"
	"math"
	"slices"
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
		rec := AttemptRecord{Attempt: *a, JobName: j.Spec.ID, Kind: st.Spec.Kind, Rack: e.topo.RackOf(a.Host)}
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
			rec.Reason = fmt.Sprintf("%d of %d tasks done at the window", j.TasksDone, j.Tasks)
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
