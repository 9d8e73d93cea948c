package tierpick

import (
	"time"

	"github.com/racklab/racklab/coordinator/engine"
)

// Wait is the platform's delay scheduling as one timer per job (Spark's
// spark.locality.wait, the Quartet fallback's "delay enabled"): a job's
// timer starts when it is submitted and restarts at each of its
// node-local map launches, as Spark resets its locality level and wait at
// a local launch; the wait has expired once D has passed since. While it
// runs, the job's maps may only take slots on nodes holding a replica; a
// slot no job takes stays idle, and the driver offers it again at its
// next heartbeat (the simulator re-offers free slots every heartbeat
// while tasks are pending, the live driver on its tick), so an expired
// wait is acted on at the first offer after it. Spark's second wait at
// the rack level is folded into this one (trident.md §4.4 line 5: after
// the wait, node-local, then rack-local, then any).
type Wait struct {
	d    engine.Time // seconds
	from map[engine.JobID]engine.Time
}

// NewWait returns the timers of a wait of d; d = 0 never waits.
func NewWait(d time.Duration) *Wait {
	return &Wait{d: d.Seconds(), from: make(map[engine.JobID]engine.Time)}
}

// Restart starts job j's timer at now: at its submission and at each of
// its node-local launches.
func (w *Wait) Restart(j engine.JobID, now engine.Time) {
	if w.d > 0 {
		w.from[j] = now
	}
}

// Expired reports whether job j's wait is over at now. A job whose timer
// never started (submitted before the policy saw it) starts it now.
func (w *Wait) Expired(j engine.JobID, now engine.Time) bool {
	if w.d <= 0 {
		return true
	}
	from, ok := w.from[j]
	if !ok {
		w.from[j] = now
		from = now
	}
	return now-from >= w.d
}

// Forget drops a finished job's timer.
func (w *Wait) Forget(j engine.JobID) { delete(w.from, j) }
