package engine

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// HostLost tells the engine a host died: its running attempts fail, the
// map outputs on it that unfinished consumers still need are recomputed,
// and its replicas are no longer read. A job whose input block has no live
// replica left fails.
func (e *Engine) HostLost(h cluster.HostID) error {
	if h < 0 || int(h) >= len(e.hosts) {
		return fmt.Errorf("unknown host %d", h)
	}
	hs := &e.hosts[h]
	if !hs.alive {
		return nil
	}
	e.Stats.HostsLost++
	hs.alive = false
	e.dropFree(h)
	e.liveSlots -= e.topo.Hosts[h].AllSlots()
	// before the running attempts fail: a failed task falls back on a
	// held output, which must not be one that died with the host
	e.pruneHeld(h)
	for len(hs.running) > 0 {
		if err := e.attemptFailed(hs.running[0], "host lost", false); err != nil {
			return err
		}
	}
	hs.free, hs.freeReduce = 0, 0
	for _, j := range append([]*Job(nil), e.running...) {
		e.recoverJob(j, h)
	}
	e.preemptEarly()
	if hl, ok := e.policy.(HostLostHook); ok {
		hl.HostLost(&e.ctx, h)
	}
	return nil
}

func (e *Engine) recoverJob(j *Job, h cluster.HostID) {
	if j.State != JobRunning {
		return
	}
	// until nothing more is lost: a consumer's task reset below makes its
	// upstream's outputs needed again, those on the dead host among them,
	// and upstream stages come first in a pass (a three-stage job whose
	// middle task on the dead host reran read a map output that died with
	// it)
	for lost := true; lost; {
		lost = false
		for _, st := range j.Stages {
			// outputs on the dead host that a consumer has yet to read in full
			needed := !st.Final && !e.consumersDone(j, st)
			for ti := range st.Tasks {
				t := &st.Tasks[ti]
				if t.State != TaskDone {
					continue
				}
				if (needed && t.OutHost == h) || (st.Final && allOn(t.OutReplicas, h)) {
					e.removeOutput(st, t)
					st.Done--
					j.TasksDone--
					e.Stats.Recomputed++
					t.State = TaskBlocked
					e.makePending(j, st, int32(ti))
					lost = true
				}
			}
		}
	}
	e.refreshUpstream(j)
	// after the recomputations are known: a map whose output was lost must
	// read its block again, and may have lost every replica of it too
	e.failIfInputLost(j)
}

// failIfInputLost fails a running job that has a map task left to run
// whose input block has no live replica: the task can never run, so the
// job could never finish, and its attempts (reducers waiting for that
// map's output) would wait forever. It reports whether it failed the job.
func (e *Engine) failIfInputLost(j *Job) bool {
	if j.State != JobRunning {
		return false
	}
	for _, st := range j.Stages {
		if st.Spec.Kind != workload.Map || !st.Released {
			continue
		}
		for ti := range st.Tasks {
			t := &st.Tasks[ti]
			if t.State != TaskDone && t.Block >= 0 && len(e.liveReplicas(st, int32(ti))) == 0 {
				e.finishJob(j, JobFailed, fmt.Sprintf("every replica of input block %d of stage %s is lost", t.Block, st.Spec.Name))
				return true
			}
		}
	}
	return false
}

// pruneHeld forgets the held outputs (of duplicate attempts awaiting the
// policy's choice) that were on a lost host.
func (e *Engine) pruneHeld(h cluster.HostID) {
	for _, j := range e.running {
		for _, st := range j.Stages {
			for ti := range st.Tasks {
				t := &st.Tasks[ti]
				if len(t.held) == 0 {
					continue
				}
				kept := t.held[:0]
				for _, a := range t.held {
					if outputOn(st, a.OutputReplicas, h) {
						delete(e.held, a.ID)
						e.forgetOutput(a)
						continue
					}
					kept = append(kept, a)
				}
				if len(kept) == 0 {
					st.heldSplits--
				}
				t.held = kept
			}
		}
	}
}

// outputOn reports whether a stage's output written to reps is lost with
// host h: an intermediate output lives on its first replica, a job output
// on all of them.
func outputOn(st *Stage, reps []workload.Replica, h cluster.HostID) bool {
	if st.Final {
		return allOn(reps, h)
	}
	return reps[0].Host == h
}

func allOn(reps []workload.Replica, h cluster.HostID) bool {
	for _, r := range reps {
		if r.Host != h {
			return false
		}
	}
	return true
}

func (e *Engine) consumersDone(j *Job, st *Stage) bool {
	for _, c := range st.consumers {
		if j.Stages[c].Done < len(j.Stages[c].Tasks) {
			return false
		}
	}
	return true
}
