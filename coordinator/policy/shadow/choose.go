package shadow

import (
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/internal/mapplace"
)

// ChooseOutput is E2 of §2.5. An original whose pair is undecided holds
// its output; a duplicate finishing before T is chosen at once (the engine
// then kills a running original, or drops its held output); after T a
// duplicate's output is used only if it was accepted (a rejected one was
// killed). When the finishing original is the job's last live one, T is
// reached here and SELECT-AT-T decides this pair too.
func (p *Policy) ChooseOutput(ctx *engine.Context, a *engine.Attempt) engine.OutputDecision {
	js := p.jobs[a.Task.Job]
	if js == nil || int(a.Task.Stage) != js.mapStage {
		return engine.UseOutput
	}
	pr := js.pairs[a.Task.Index]
	if pr != nil && a.ID == pr.dup {
		pr.dupDone = true
		switch pr.state {
		case pending:
			if js.tReached {
				return engine.DiscardOutput // cannot happen: decided at T
			}
			pr.state, pr.early = dupChosen, true
			p.chosen++
			p.early++
			return engine.UseOutput
		case dupChosen:
			p.chosen++
			return engine.UseOutput
		}
		return engine.DiscardOutput
	}
	// an original (or its rerun after a failure)
	o := js.originals[a.Task.Index]
	if o == nil || o.attempt != a.ID {
		o = &original{attempt: a.ID, start: a.Start}
		js.originals[a.Task.Index] = o
	}
	o.rack = int(ctx.Topology().RackOf(a.Host))
	o.finished, o.end, o.output = true, ctx.Now(), a.OutputBytes
	js.t0 = min(js.t0, a.Start)
	decision := engine.UseOutput
	if pr != nil && pr.state == pending {
		decision = engine.HoldOutput
	}
	if p.lastOriginal(ctx, a.Task.Job, js, a.ID) {
		p.selectAtT(ctx, a.Task.Job, js, a.Task.Index)
		if pr != nil && pr.state == origChosen {
			decision = engine.UseOutput // the engine kills the duplicate
		}
	}
	return decision
}

// AttemptEnded keeps the books of originals and duplicates that end
// without success, and runs CHECK-T when a killed original was the last
// live one (E2b).
func (p *Policy) AttemptEnded(ctx *engine.Context, a *engine.Attempt) {
	js := p.jobs[a.Task.Job]
	if js == nil {
		return
	}
	if int(a.Task.Stage) == js.reduceStage && a.Outcome == engine.AttemptSucceeded {
		p.reducerDone(js, a)
		return
	}
	if int(a.Task.Stage) != js.mapStage || a.Outcome == engine.AttemptSucceeded {
		return
	}
	o, pr := js.originals[a.Task.Index], js.pairs[a.Task.Index]
	switch {
	case pr != nil && a.ID == pr.dup:
		if pr.state == pending || (pr.state == dupChosen && a.Outcome == engine.AttemptFailed) {
			// the duplicate failed (or was killed outside SELECT-AT-T):
			// the original's output stands, held or rerun (§2.5 safety)
			pr.state = origChosen
			if o != nil && o.killed {
				delete(js.originals, a.Task.Index)
			}
		}
	case o != nil && a.ID == o.attempt:
		switch {
		case a.Outcome == engine.AttemptKilled:
			o.killed = true
		case pr != nil && pr.state == pending:
			// the original failed while its duplicate runs: the
			// duplicate is the split's only copy now
			pr.state = dupChosen
			o.killed = true
		default:
			delete(js.originals, a.Task.Index) // rerun: the next one is the original
			if len(ctx.Job(a.Task.Job).Stages[js.mapStage].Tasks[a.Task.Index].Running()) == 0 {
				// The engine queues the task again only after this hook
				// (engine.attemptFailed: endAttempt, then requeue), so
				// it is neither running nor pending here; but it is a
				// live original all the same (§2.5 CHECK-T: "running or
				// queued"), and T waits for its rerun.
				return
			}
		}
	}
	p.checkT(ctx, a.Task.Job, js, -1)
}

// lastOriginal is CHECK-T's condition: the job's duplication has run and
// none of its maps is pending or has a running attempt other than a
// duplicate (or than except, the attempt finishing now).
func (p *Policy) lastOriginal(ctx *engine.Context, id engine.JobID, js *jobState, except engine.AttemptID) bool {
	if js.tReached || !js.duplicated || js.duplicating {
		return false
	}
	j := ctx.Job(id)
	st := j.Stages[js.mapStage]
	if j.State != engine.JobRunning || st.Pending > 0 {
		return false
	}
	for i := range st.Tasks {
		pr := js.pairs[int32(i)]
		for _, a := range st.Tasks[i].Running() {
			if a != except && (pr == nil || a != pr.dup) {
				return false
			}
		}
	}
	return true
}

// checkT is CHECK-T outside a finishing original (after a kill).
func (p *Policy) checkT(ctx *engine.Context, id engine.JobID, js *jobState, except engine.AttemptID) {
	if p.lastOriginal(ctx, id, js, except) {
		p.selectAtT(ctx, id, js, -1)
	}
}

// selectAtT is E3: T is the last finish of a non-killed original; every
// pending pair is accepted or rejected by the model. A rejected
// duplicate is killed (A9), so that the engine uses the original's held
// output; the pair of the finishing original self (≥ 0) is not acted on
// here: ChooseOutput returns its decision.
func (p *Policy) selectAtT(ctx *engine.Context, id engine.JobID, js *jobState, self int32) {
	js.tReached = true
	T := js.t0
	var runtimes []float64
	for _, o := range js.originals {
		if o.finished && !o.killed {
			T = max(T, o.end)
			runtimes = append(runtimes, o.end-o.start)
		}
	}
	js.T = T - js.t0
	meanRuntime := 0.0
	for _, r := range runtimes {
		meanRuntime += r
	}
	if len(runtimes) > 0 {
		meanRuntime /= float64(len(runtimes))
	}
	topo := ctx.Topology()
	up, down := capacities(topo)
	model := Model{Uplink: up, Downlink: down, Shuffle: p.cfg.ShuffleModel}
	if js.reduceStage >= 0 {
		model.Reducers = p.reducers.Quota(ctx, id, js.reduceStage)
	}
	if model.Reducers == nil {
		// reducers not placed by quota (random, hadoop): those placed so
		// far stand for h
		model.Reducers = make([]int, len(up))
		if js.reduceStage >= 0 {
			model.Reducers = mapplace.Placed(ctx, id, js.reduceStage)
		}
	}
	st := ctx.Job(id).Stages[js.mapStage]
	in := SelectInput{T: js.T, AcceptTies: p.cfg.AcceptTies}
	var pend []*pair
	for i := range st.Tasks {
		idx := int32(i)
		out := float64(st.Tasks[i].OutputBytes)
		o := js.originals[idx]
		if o != nil && o.finished {
			out = float64(o.output)
		}
		pr := js.pairs[idx]
		switch {
		case pr != nil && pr.state == pending:
			in.Pending = append(in.Pending, Pending{Split: i,
				Original:  Copy{Rack: o.rack, Output: out},
				Duplicate: Copy{Rack: pr.to, Output: out, EstFinish: EstFinish(pr.launch-js.t0, pr.readBytes, pr.bandwidth, o.end-o.start)}})
			pend = append(pend, pr)
		case pr != nil && pr.state == dupChosen:
			c := Copy{Rack: pr.to, Output: out}
			if !pr.dupDone {
				r := meanRuntime // its original was killed: the job's mean runtime stands in for R_j
				if o != nil && o.finished {
					r = o.end - o.start
				}
				c.EstFinish = EstFinish(pr.launch-js.t0, pr.readBytes, pr.bandwidth, r)
			}
			in.Settled = append(in.Settled, c)
		case o != nil:
			in.Settled = append(in.Settled, Copy{Rack: o.rack, Output: out})
		default:
			// a split whose only copy is a rerun not tracked: where its
			// task's output is
			in.Settled = append(in.Settled, Copy{Rack: int(topo.RackOf(st.Tasks[i].OutHost)), Output: out})
		}
	}
	res, err := model.SelectAtT(in)
	if err != nil {
		ctx.Reject("shadow select: " + err.Error())
		return
	}
	js.predicted, js.baseline = res.Predicted, res.Baseline
	for _, i := range res.Order {
		pr := pend[i]
		if res.Accept[i] {
			pr.state = dupChosen
			continue
		}
		pr.state = origChosen
		if pr.split != self {
			_ = ctx.Kill(pr.dup) // the engine then uses the held original
		}
	}
}

// reducerDone records the shuffle end of the job (A15): the latest time
// one of its reducers had its whole input (InputDoneAt; a reducer the
// driver never reported input-done for counts at its end).
func (p *Policy) reducerDone(js *jobState, a *engine.Attempt) {
	end := a.End
	if a.InputDone {
		end = a.InputDoneAt
	}
	js.actual = max(js.actual, end-js.t0)
	js.reducersLeft--
}
