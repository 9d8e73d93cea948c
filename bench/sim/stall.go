package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
)

// stalled is the watchdog (Options.StallTimeout), the live driver's in
// simulated time: it reports, with the reason, a run that has been idle
// for the timeout by the time of its next event. Idle is: jobs left, no
// attempt running, and no job yet to arrive or no free slot for one.
// Then only heartbeats come, and the policy, offered the free slots at
// each, launches nothing.
func (s *Sim) stalled(next float64) (string, bool) {
	idle := s.opt.StallTimeout > 0 && !s.eng.Done() && len(s.runs) == 0
	if _, arrivals := s.eng.NextArrival(); idle && arrivals && s.eng.HasFreeSlot() {
		idle = false // a job to come may use the slots
	}
	if !idle {
		s.idleSince = -1
		return "", false
	}
	if s.idleSince < 0 {
		s.idleSince = s.now
	}
	if next-s.idleSince < s.opt.StallTimeout {
		return "", false
	}
	why := fmt.Sprintf("no progress for %gs (simulated) at t=%.3fs with %d tasks pending and no attempt running", s.opt.StallTimeout, s.now, s.eng.Pending())
	switch free := s.eng.FreeSlots(); {
	case free == 0:
		why += ", no live slot"
	case s.eng.Pending() > 0:
		why += fmt.Sprintf(", %d free slots the policy leaves idle", free)
	}
	return why + s.stallDetails(), true
}

// maxNamed bounds the jobs and attempts a stall's reason lists.
const maxNamed = 10

// stallDetails names what a stalled run was left with: the jobs not
// ended and their state, and the attempts running, each with its phase
// and the rate its flows move at now (a flow held near 0 B/s ends only
// long after the time bound).
func (s *Sim) stallDetails() string {
	var b strings.Builder
	jobs := s.eng.Jobs()
	nLeft := len(jobs) - s.eng.JobsFinished()
	var left []string
	for _, j := range jobs {
		if j.State == engine.JobSucceeded || j.State == engine.JobFailed {
			continue
		}
		if len(left) == maxNamed {
			left = append(left, fmt.Sprintf("and %d more", nLeft-maxNamed))
			break
		}
		left = append(left, fmt.Sprintf("%s (%s, %d of %d tasks done, %d pending, %d running)", j.Spec.ID, j.State, j.TasksDone, j.Tasks, j.Pending, j.Running))
	}
	fmt.Fprintf(&b, "; %d jobs left: %s", nLeft, strings.Join(left, ", "))
	if len(s.runs) == 0 {
		return b.String()
	}
	// in attempt order, so that the reason is the same every run
	ids := make([]engine.AttemptID, 0, len(s.runs))
	for id := range s.runs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var running []string
	for _, id := range ids {
		if len(running) == maxNamed {
			running = append(running, fmt.Sprintf("and %d more", len(ids)-maxNamed))
			break
		}
		r := s.runs[id]
		var rate float64
		for _, f := range r.flows {
			if f.heapIdx >= 0 {
				rate += f.rate
			}
		}
		t := r.a.Task
		running = append(running, fmt.Sprintf("%s stage %d task %d on host %d (%s, %d flows at %.3g B/s)",
			jobs[t.Job].Spec.ID, t.Stage, t.Index, r.a.Host, r.phase, r.active, rate))
	}
	fmt.Fprintf(&b, "; %d attempts running: %s", len(s.runs), strings.Join(running, ", "))
	return b.String()
}

func (p phase) String() string {
	switch p {
	case phaseRead:
		return "reading"
	case phaseFetch:
		return "fetching"
	case phaseCompute:
		return "computing"
	case phaseWrite:
		return "writing"
	}
	return "done"
}
