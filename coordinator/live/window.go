package live

import (
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
)

// cut ends a run at its window (Config.Window): it reads the kernel
// counters, so that the summary counts the bytes that crossed racks up to
// the window, kills every attempt dispatched, and records the attempts
// cut and the jobs left unfinished. The caller then finishes the run as
// at a normal end.
func (r *run) cut() {
	if r.cfg.Counters != nil && !r.workerCounted {
		// the workers' counts lag a heartbeat: those are read at the end,
		// once the kills have stopped the bytes
		if up, down, err := r.cfg.Counters(); err != nil {
			r.event("counters-failed", "", "at the window: %v", err)
		} else {
			r.windowUp, r.windowDown = up, down
		}
	}
	if err := r.eng.Advance(r.now()); err != nil {
		r.logf("advance: %v", err)
	}
	for id, d := range r.running {
		r.send(r.topo.Hosts[d.host].Name, wire.TypeKill, &wire.Kill{Attempt: int64(id), Reason: "the run's window ended"})
	}
	if err := r.nc.Flush(); err != nil {
		r.logf("flush: %v", err)
	}
	attempts, jobs := r.eng.Cut()
	for i := range attempts {
		r.recordAttempt(&attempts[i])
	}
	for i := range jobs {
		if err := r.sink.Job(&jobs[i]); err != nil {
			r.logf("record job: %v", err)
		}
		r.prom.jobs.WithLabelValues(engine.JobUnfinished.String()).Inc()
	}
	r.res.UnfinishedJobs = len(jobs)
	r.res.Cut = true
	r.event("window", "", "the %v window ended the run at t=%.3fs: %d attempts cut, %d jobs unfinished", r.cfg.Window, r.now(), len(attempts), len(jobs))
	if err := r.sink.Flush(); err != nil {
		r.logf("records: %v", err)
	}
}
