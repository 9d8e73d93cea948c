package live

import (
	"fmt"
	"strings"
	"time"

	"github.com/racklab/racklab/coordinator/engine"
)

// stalled is the watchdog: it reports, with the reason, a run whose
// engine has made no progress for StallTimeout. No progress is: jobs
// left, no attempt running, and either no job yet to arrive or no live
// slot for one. Whether tasks are pending does not matter: with nothing
// running, the engine's state changes only when the policy launches, and
// it has been offered the free slots at every step.
func (r *run) stalled(now time.Time) (string, bool) {
	idle := r.cfg.StallTimeout > 0 && !r.eng.Done() && len(r.running) == 0
	if _, arrivals := r.eng.NextArrival(); idle && arrivals && r.eng.HasFreeSlot() {
		idle = false // a job to come may use the slots
	}
	if !idle {
		r.idleSince = time.Time{}
		return "", false
	}
	if r.idleSince.IsZero() {
		r.idleSince = now
	}
	if now.Sub(r.idleSince) < r.cfg.StallTimeout {
		return "", false
	}
	return r.stallReason(r.cfg.StallTimeout), true
}

// maxJobsNamed bounds the jobs a stall's reason lists.
const maxJobsNamed = 10

// stallReason says what a stalled run was left with, in the simulator's
// words (bench/sim Result.StallReason) and then some: the jobs left and
// their state, and the hosts lost.
func (r *run) stallReason(idle time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "no progress for %v at t=%.3fs with %d tasks pending and %d attempts running", idle, r.now(), r.eng.Pending(), len(r.running))
	switch free := r.eng.FreeSlots(); {
	case free == 0:
		b.WriteString(", no live slot")
	case r.eng.Pending() > 0:
		fmt.Fprintf(&b, ", %d free slots the policy leaves idle", free)
	}
	nLeft := len(r.eng.Jobs()) - r.eng.JobsFinished()
	var left []string
	for _, j := range r.eng.Jobs() {
		if j.State == engine.JobSucceeded || j.State == engine.JobFailed {
			continue
		}
		if len(left) == maxJobsNamed {
			left = append(left, fmt.Sprintf("and %d more", nLeft-maxJobsNamed))
			break
		}
		left = append(left, fmt.Sprintf("%s (%s, %d of %d tasks done, %d pending)", j.Spec.ID, j.State, j.TasksDone, j.Tasks, j.Pending))
	}
	fmt.Fprintf(&b, "; %d jobs left: %s", nLeft, strings.Join(left, ", "))
	if len(r.res.HostsLost) == 0 {
		b.WriteString("; no host lost")
	} else {
		fmt.Fprintf(&b, "; hosts lost: %s", strings.Join(r.res.HostsLost, ", "))
	}
	return b.String()
}
