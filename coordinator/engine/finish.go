package engine

import (
	"fmt"
	"slices"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// AttemptSucceeded tells the engine an attempt finished its work. reported
// is the driver's own byte count, or nil.
func (e *Engine) AttemptSucceeded(id AttemptID, reported *ByteCounts) error {
	a := e.attempts[id]
	if a == nil {
		return fmt.Errorf("attempt %d is not running", id)
	}
	j, st, t, _ := e.lookup(a.Task)
	// an attempt whose input was fixed fetched all of it, even if an
	// upstream output has since been lost and is being recomputed
	if st.Spec.Kind != workload.Map && !e.upstreamDone(j, st) && a.fetched == nil {
		return fmt.Errorf("attempt %d of %s/%s cannot finish before its upstream stages", id, j.Spec.ID, st.Spec.Name)
	}
	a.Reported = reported
	e.fixShuffle(a)
	if t.State == TaskDone {
		// lost the race but finished at the same moment
		e.endAttempt(a, AttemptSucceeded)
		e.forgetOutput(a)
		return nil
	}
	decision := UseOutput
	if oc, ok := e.policy.(OutputChooser); ok {
		decision = oc.ChooseOutput(&e.ctx, a)
	}
	e.endAttempt(a, AttemptSucceeded)
	if decision == DiscardOutput {
		e.forgetOutput(a)
	} else {
		e.outputWritten(a)
	}
	switch decision {
	case HoldOutput:
		t.held = append(t.held, a)
		e.held[a.ID] = a
		if len(t.held) == 1 {
			st.heldSplits++ // finishTask takes it back
		}
		if len(t.running) == 0 && t.State == TaskRunning {
			// nothing else can finish: use the best held so far
			return e.useHeld(a.ID)
		}
		e.checkReleases(j)
	case DiscardOutput:
		// run it again, or use an output held back from another copy
		return e.requeue(j, st, t, a)
	default:
		e.finishTask(j, st, t, a)
	}
	return nil
}

func (e *Engine) useHeld(id AttemptID) error {
	a := e.held[id]
	if a == nil {
		return e.rejectf("unknown held output", "attempt %d holds no output", id)
	}
	j, st, t, _ := e.lookup(a.Task)
	if j.State != JobRunning {
		return e.rejectf("job not running", "attempt %d holds an output of job %s, which has ended", id, j.Spec.ID)
	}
	e.finishTask(j, st, t, a)
	return nil
}

func (e *Engine) finishTask(j *Job, st *Stage, t *Task, a *Attempt) {
	if t.State == TaskDone {
		return
	}
	if a.Duplicate {
		e.Stats.DuplicatesUsed++
		j.DuplicatesUsed++
	}
	t.State = TaskDone
	t.OutHost = a.OutputReplicas[0].Host
	t.OutTier = a.OutputReplicas[0].Tier
	t.OutReplicas = a.OutputReplicas
	t.OutAttempt = a.ID
	t.OutputBytes = a.OutputBytes
	for _, h := range t.held {
		delete(e.held, h.ID)
		if h != a {
			e.forgetOutput(h) // not chosen
		}
	}
	if len(t.held) > 0 {
		st.heldSplits--
	}
	t.held = nil
	for len(t.running) > 0 {
		_ = e.kill(t.running[0], "duplicate lost")
	}
	st.Done++
	j.TasksDone++
	e.addOutput(st, t)
	e.refreshUpstream(j)
	e.checkReleases(j)
	if j.TasksDone == j.Tasks && j.State == JobRunning {
		e.finishJob(j, JobSucceeded, "")
	}
}

// AttemptFailed tells the engine an attempt failed; its task becomes
// runnable again unless another attempt still runs.
func (e *Engine) AttemptFailed(id AttemptID, reason string) error {
	return e.attemptFailed(id, reason, true)
}

// AttemptAbandoned ends an attempt that failed through no fault of its
// task — its worker restarted, or forgot it — so that it does not count
// toward MaxTaskFailures.
func (e *Engine) AttemptAbandoned(id AttemptID, reason string) error {
	return e.attemptFailed(id, reason, false)
}

// attemptFailed ends an attempt as failed; counted failures (the task's
// own, not its host's loss) fail the job after MaxTaskFailures, as
// Hadoop's max attempts do.
func (e *Engine) attemptFailed(id AttemptID, reason string, counted bool) error {
	a := e.attempts[id]
	if a == nil {
		return fmt.Errorf("attempt %d is not running", id)
	}
	e.endAttempt(a, AttemptFailed)
	j, st, t, _ := e.lookup(a.Task)
	if counted {
		t.Failures++
		if t.Failures >= e.cfg.MaxTaskFailures && j.State == JobRunning {
			e.finishJob(j, JobFailed, fmt.Sprintf("task %s[%d] failed %d times; last: %s", st.Spec.Name, a.Task.Index, t.Failures, reason))
			return nil
		}
	}
	return e.requeue(j, st, t, a)
}

// endAttempt frees the attempt's slot and records it.
func (e *Engine) endAttempt(a *Attempt, outcome AttemptOutcome) {
	j, st, t, _ := e.lookup(a.Task)
	a.End = e.now
	a.Outcome = outcome
	delete(e.attempts, a.ID)
	t.running = removeID(t.running, a.ID)
	st.running--
	if len(st.upstream) > 0 && !st.upDone {
		e.early--
	}
	hs := &e.hosts[a.Host]
	hs.running = removeID(hs.running, a.ID)
	if hs.alive {
		e.giveSlot(a.Host, e.poolOf(a.Host, st.Spec.Kind))
	}
	j.Running--
	e.queues[j.Queue].Running--
	if outcome == AttemptSucceeded {
		e.account(j, st, a)
	} else {
		e.forgetOutput(a) // never written
	}
	rec := AttemptRecord{Attempt: *a, JobName: j.Spec.ID, Kind: st.Spec.Kind, Rack: e.topo.RackOf(a.Host), InputClass: st.InputClass}
	if a.Source.Host >= 0 {
		rec.Tier = a.Source.Tier
	}
	e.ready.Attempts = append(e.ready.Attempts, rec)
	if h, ok := e.policy.(AttemptEndedHook); ok {
		h.AttemptEnded(&e.ctx, a)
	}
}

// account fills the engine's expectation of the bytes an attempt moved.
func (e *Engine) account(j *Job, st *Stage, a *Attempt) {
	class := st.InputClass
	if a.Duplicate {
		class = ClassDuplicate
	}
	if st.Spec.Kind == workload.Map {
		if a.Source.Host >= 0 {
			a.Bytes[class][levelOf(a.Locality)] += a.InputBytes
		}
	} else if a.fetched != nil {
		for l, n := range a.fetched {
			a.Bytes[class][l] += n
		}
	} else {
		local, inRack, total := e.shuffleLevels(j, st, a)
		a.Bytes[class][LevelLocal] += local
		a.Bytes[class][LevelRack] += inRack - local
		a.Bytes[class][LevelCross] += total - inRack
		a.fetchedFrom = e.crossSources(j, st, a, total-inRack)
	}
	if st.Spec.Kind != workload.Map {
		e.countShuffleLinks(j, a)
	}
	EachOutputHop(a.Host, a.OutputReplicas[1:], e.cfg.OutputPipeline, func(from cluster.HostID, to workload.Replica) {
		a.Bytes[ClassOutput][levelOf(e.localityOf(from, to.Host))] += a.OutputBytes
	})
}

// OutputPipeline reports whether job outputs' replicas are written as a
// pipeline, each from the replica before it (Config.OutputPipeline).
func (e *Engine) OutputPipeline() bool { return e.cfg.OutputPipeline }

// EachOutputHop calls hop for each copy of an output its writer sends,
// reps (the replicas after the writer's own copy), with the host the
// copy comes from: the writer, or, through a pipeline (HDFS's write
// pipeline, Config.OutputPipeline), the replica before it. The engine's
// byte counts, a planner's estimate of them (Context.OutputCopies) and
// the simulator's flows all follow these hops.
func EachOutputHop(writer cluster.HostID, reps []workload.Replica, pipeline bool, hop func(from cluster.HostID, to workload.Replica)) {
	from := writer
	for _, r := range reps {
		hop(from, r)
		if pipeline {
			from = r.Host
		}
	}
}

func levelOf(l Locality) Level {
	switch l {
	case NodeLocal:
		return LevelLocal
	case RackLocal:
		return LevelRack
	}
	return LevelCross
}

func removeID(s []AttemptID, id AttemptID) []AttemptID {
	for i, x := range s {
		if x == id {
			copy(s[i:], s[i+1:])
			return s[:len(s)-1]
		}
	}
	return s
}

func (e *Engine) finishJob(j *Job, state JobState, reason string) {
	j.State = state
	j.Finished = e.now
	j.Reason = reason
	if !j.launched {
		j.Started = e.now
	}
	for i, r := range e.running {
		if r == j {
			e.running = append(e.running[:i], e.running[i+1:]...)
			break
		}
	}
	for _, st := range j.Stages {
		for ti := range st.Tasks {
			t := &st.Tasks[ti]
			if t.State == TaskPending {
				e.unPend(j, st)
				t.State = TaskBlocked
			}
			for len(t.running) > 0 {
				_ = e.kill(t.running[0], "job finished")
			}
		}
		// the indexes are only needed while tasks are pending
		st.byHost, st.byRack, st.queue = hostQueues{}, nil, taskQueue{}
	}
	e.finished++
	rec := e.jobRecord(j)
	rec.Submitted, rec.Started, rec.Finished, rec.State, rec.Reason = j.Submitted, j.Started, j.Finished, state, reason
	e.ready.Jobs = append(e.ready.Jobs, rec)
	if h, ok := e.policy.(JobFinishedHook); ok {
		h.JobFinished(&e.ctx, j.ID)
	}
	for _, c := range j.children {
		cj := e.jobs[c]
		cj.parentsLeft--
		if cj.State != JobWaiting {
			continue
		}
		if state == JobFailed {
			cj.parentsLeft = -1 << 30 // never submitted: fail it too
			e.failWaiting(cj, fmt.Sprintf("parent %s failed", j.Spec.ID))
			continue
		}
		if cj.parentsLeft == 0 && e.arrived(cj) {
			e.submit(cj)
		}
	}
}

func (e *Engine) failWaiting(j *Job, reason string) {
	j.Submitted = e.now
	e.running = append(e.running, j)
	e.finishJob(j, JobFailed, reason)
}

// jobRecord is a job's record with the fields that do not depend on how
// it ended; the caller sets its times, state and reason.
func (e *Engine) jobRecord(j *Job) JobRecord {
	return JobRecord{ID: j.ID, Name: j.Spec.ID, Queue: e.queues[j.Queue].Name, Arrival: j.Arrival,
		Tasks: j.Tasks, Attempts: j.Attempts, InputBytes: j.inputBytes(),
		// copies: a record does not change with the engine's state
		ShuffleUp: slices.Clone(j.shuffleUp), ShuffleDown: slices.Clone(j.shuffleDown),
		Duplicates: j.Duplicates, DuplicatesUsed: j.DuplicatesUsed}
}

// inputBytes is what a job's maps read from datasets, known from the
// start: the blocks of its map stages with dataset input.
// Progress is a number that changes when the job's counts of done and
// waiting tasks do: when a task is released, launched or finished, or
// goes back to waiting. A policy that caches what it derives from the
// job's tasks (Context.ExpectedStageOutput) keys the cache on it.
func (j *Job) Progress() int { return j.TasksDone*(j.Tasks+1) + j.Pending }

func (j *Job) inputBytes() int64 {
	var n int64
	for _, st := range j.Stages {
		if st.Spec.Kind != workload.Map || st.InputClass != ClassInput {
			continue
		}
		for _, b := range st.blocks {
			n += b.Size
		}
	}
	return n
}
