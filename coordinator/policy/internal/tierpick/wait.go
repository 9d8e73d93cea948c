package tierpick

import (
	"time"

	"github.com/racklab/racklab/coordinator/engine"
)

// Wait is the platform's delay scheduling, one per job, in one of two
// readings. Expired and Restart are one timer (the Quartet fallback's
// "delay enabled", trident.md §4.4 line 4): a job's timer starts when it
// is submitted and restarts at each of its node-local map launches; the
// wait has expired once D has passed since, and then node-local,
// rack-local and any are all allowed (§4.4 line 5). Allowed and Launched
// are Spark's levels (getAllowedLocalityLevel, §4.1), which H-Scheduler
// keeps in force (§4.3): NODE, then RACK a wait later, then ANY a wait
// after that; a launch at level L makes L the job's level again and
// restarts its wait. While a wait runs, a slot no job takes stays idle,
// and the driver offers it again at its next heartbeat (the simulator
// re-offers free slots every heartbeat while tasks are pending, the live
// driver on its tick), so an expired wait is acted on at the first offer
// after it.
type Wait struct {
	d    engine.Time // seconds
	from map[engine.JobID]engine.Time
	// level is a job's current Spark level (Allowed), NodeLocal when
	// absent
	level map[engine.JobID]engine.Locality
}

// NewWait returns the timers of a wait of d; d = 0 never waits.
func NewWait(d time.Duration) *Wait {
	return &Wait{d: d.Seconds(), from: make(map[engine.JobID]engine.Time), level: make(map[engine.JobID]engine.Locality)}
}

// Restart starts job j's timer at now, at the node level: at its
// submission and at each of its node-local launches.
func (w *Wait) Restart(j engine.JobID, now engine.Time) {
	if w.d > 0 {
		w.from[j] = now
		delete(w.level, j)
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

// Allowed returns the farthest locality job j may launch a map at now,
// by Spark's levels: NodeLocal, RackLocal or Remote (always Remote
// without a wait). From the job's current level it moves one on each
// time a wait has passed, the next wait starting where the last one
// ended (Spark's lastLaunchTime += wait). Spark also moves on from a
// level with no pending task left at it; a map with a live replica is
// pending at the node and rack levels alike, so that never happens here.
func (w *Wait) Allowed(j engine.JobID, now engine.Time) engine.Locality {
	if w.d <= 0 {
		return engine.Remote
	}
	from, ok := w.from[j]
	if !ok {
		from = now
	}
	l := w.level[j]
	for l < engine.Remote && now-from >= w.d {
		from += w.d
		l++
	}
	w.from[j], w.level[j] = from, l
	return l
}

// Launched is Spark's bookkeeping of job j's launch at level l (NodeLocal,
// RackLocal or Remote): l becomes the job's level, and its wait restarts
// at now.
func (w *Wait) Launched(j engine.JobID, l engine.Locality, now engine.Time) {
	if w.d > 0 {
		w.from[j], w.level[j] = now, l
	}
}

// Forget drops a finished job's timer.
func (w *Wait) Forget(j engine.JobID) {
	delete(w.from, j)
	delete(w.level, j)
}
