package engine

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// Advance moves time forward to now and submits the jobs that have arrived
// and whose parents have finished.
func (e *Engine) Advance(now Time) error {
	if now < e.now {
		return fmt.Errorf("time went backwards: %g after %g", now, e.now)
	}
	e.now = now
	for e.nextArr < len(e.arrivals) {
		j := e.jobs[e.arrivals[e.nextArr]]
		if j.Arrival > now {
			break
		}
		e.nextArr++
		if j.parentsLeft == 0 {
			e.submit(j)
		}
	}
	return nil
}

func (e *Engine) arrived(j *Job) bool { return j.Arrival <= e.now }

func (e *Engine) submit(j *Job) {
	j.State = JobRunning
	j.Submitted = e.now
	e.running = append(e.running, j)
	e.uploadInputs(j) // before the release: the policy sees the input uploaded
	for _, st := range j.Stages {
		if st.Spec.Kind == workload.Map && st.InputClass == ClassDependent {
			e.buildDependentInput(j, st)
		}
		if st.Spec.Kind == workload.Map {
			e.release(j, st)
		}
	}
	if h, ok := e.policy.(JobSubmittedHook); ok {
		h.JobSubmitted(&e.ctx, j.ID)
	}
	// a job that arrives after a host's loss, or reads a parent's output
	// that died with it, may find an input block with no live replica
	if e.Stats.HostsLost > 0 && e.failIfInputLost(j) {
		return
	}
	if j.TasksDone == j.Tasks { // a job with nothing to do
		e.finishJob(j, JobSucceeded, "")
	}
}

// buildDependentInput turns a parent's output into the blocks of a map
// stage: one block per output-producing task of the parent.
func (e *Engine) buildDependentInput(j *Job, st *Stage) {
	parent := e.jobs[e.byName[st.Spec.Input[1:]]]
	var blocks []workload.Block
	for _, ps := range parent.Stages {
		if !ps.Final {
			continue
		}
		for ti := range ps.Tasks {
			t := &ps.Tasks[ti]
			blocks = append(blocks, workload.Block{Size: t.OutputBytes, Replicas: t.OutReplicas})
		}
	}
	st.blocks = blocks
	n := max(len(blocks), 1)
	j.Tasks += n - len(st.Tasks)
	st.Tasks = make([]Task, n)
}

// release makes a stage's tasks runnable.
func (e *Engine) release(j *Job, st *Stage) {
	if st.Released {
		return
	}
	st.Released = true
	if st.Spec.Kind == workload.Map {
		e.sizeMapTasks(st)
		st.byHost = e.newHostQueues(st)
		st.byRack = map[cluster.RackID]*taskQueue{}
	}
	for i := range st.Tasks {
		if st.Tasks[i].State == TaskBlocked {
			e.makePending(j, st, int32(i))
		}
	}
	if h, ok := e.policy.(StageReleasedHook); ok {
		h.StageReleased(&e.ctx, j.ID, st.Index)
	}
}

func (e *Engine) sizeMapTasks(st *Stage) {
	var total int64
	for _, b := range st.blocks {
		total += b.Size
	}
	var cum int64
	for i := range st.Tasks {
		t := &st.Tasks[i]
		t.Block = int32(i)
		if i < len(st.blocks) {
			t.InputBytes = st.blocks[i].Size
		} else {
			t.Block = -1
		}
		if st.Spec.OutputBytes > 0 {
			// apportion the stage's output by input share, exactly
			lo := apportion(st.Spec.OutputBytes, cum, total, len(st.Tasks), i)
			cum += t.InputBytes
			hi := apportion(st.Spec.OutputBytes, cum, total, len(st.Tasks), i+1)
			t.OutputBytes = hi - lo
		} else {
			t.OutputBytes = int64(math.Round(float64(t.InputBytes) * st.Spec.Selectivity))
		}
	}
}

// apportion returns the part of out that belongs before position done of
// total (or before task index i of n when total is 0).
func apportion(out, done, total int64, n, i int) int64 {
	if total == 0 {
		// out × i in 128 bits: out may be up to workload.MaxBytes and i up
		// to workload.MaxTasksPerStage; the quotient is at most out
		hi, lo := bits.Mul64(uint64(out), uint64(i))
		q, _ := bits.Div64(hi, lo, uint64(n))
		return int64(q)
	}
	return int64(float64(out) * float64(done) / float64(total))
}

func (e *Engine) checkReleases(j *Job) {
	for _, st := range j.Stages {
		if st.Released || len(st.upstream) == 0 {
			continue
		}
		ok := true
		for _, u := range st.upstream {
			us := j.Stages[u]
			need := int(math.Ceil(e.cfg.SlowStart * float64(len(us.Tasks))))
			if !us.Released || us.Done+us.heldSplits < need {
				ok = false
				break
			}
		}
		if ok {
			e.release(j, st)
		}
	}
}
