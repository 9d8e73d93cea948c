package shadow

import (
	"github.com/racklab/racklab/coordinator/engine"
)

// lookup finds the job state and, for a map of the tracked stage, the
// split's original and pair.
func (p *Policy) lookup(a *engine.Attempt) (*jobState, *original, *pair) {
	js := p.jobs[a.Task.Job]
	if js == nil || int(a.Task.Stage) != js.mapStage {
		return js, nil, nil
	}
	return js, js.originals[a.Task.Index], js.pairs[a.Task.Index]
}

// ChooseOutput is E2 of §2.5. An original whose pair is undecided holds
// its output; a duplicate finishing before T is chosen at once (the engine
// then kills a running original, or drops its held output); after T a
// duplicate's output is used only if it was accepted (a rejected one was
// killed). When the finishing original is the job's last live one, T is
// reached here and SELECT-AT-T decides this pair too.
func (p *Policy) ChooseOutput(ctx *engine.Context, a *engine.Attempt) engine.OutputDecision {
	js, o, pr := p.lookup(a)
	if js == nil || (o == nil && pr == nil) {
		return engine.UseOutput
	}
	switch {
	case o != nil && a.ID == o.attempt:
		o.running, o.finished = false, true
		o.end, o.output = ctx.Now(), a.OutputBytes
		decision := engine.UseOutput
		if pr != nil && pr.state == pending {
			decision = engine.HoldOutput
		}
		if p.lastOriginal(ctx, a.Task.Job, js) {
			p.selectAtT(ctx, a.Task.Job, js, a.Task.Index)
			if pr != nil && pr.state == origChosen {
				decision = engine.UseOutput // the engine kills the duplicate
			}
		}
		return decision
	case pr != nil && a.ID == pr.dup:
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
	return engine.UseOutput
}

// AttemptEnded keeps the books of originals and duplicates that end
// without success, and runs CHECK-T when a killed original was the last
// live one (E2b).
func (p *Policy) AttemptEnded(ctx *engine.Context, a *engine.Attempt) {
	js, o, pr := p.lookup(a)
	if js == nil {
		return
	}
	if js.reduceStage >= 0 && int(a.Task.Stage) == js.reduceStage && a.Outcome == engine.AttemptSucceeded {
		p.reducerDone(ctx, js, a)
		return
	}
	if a.Outcome == engine.AttemptSucceeded {
		return
	}
	switch {
	case o != nil && a.ID == o.attempt:
		o.running = false
		if a.Outcome == engine.AttemptKilled {
			o.killed = true
		} else if pr != nil && pr.state == pending {
			// the original failed while its duplicate runs: the
			// duplicate is the split's only copy now
			pr.state = dupChosen
			o.killed = true
		} else {
			delete(js.originals, a.Task.Index) // rerun: the next launch is the original
		}
	case pr != nil && a.ID == pr.dup:
		if pr.state == pending || (pr.state == dupChosen && a.Outcome == engine.AttemptFailed) {
			// the duplicate failed (or was killed outside SELECT-AT-T):
			// the original's output stands, held or rerun (§2.5 safety)
			pr.state = origChosen
			if o != nil && o.killed {
				delete(js.originals, a.Task.Index)
			}
		}
	default:
		return
	}
	p.checkT(ctx, a.Task.Job, js)
}

// lastOriginal reports whether no original of the job is left running or
// queued: the condition of CHECK-T.
func (p *Policy) lastOriginal(ctx *engine.Context, id engine.JobID, js *jobState) bool {
	if js.tReached || !js.duplicated || js.duplicating {
		return false
	}
	j := ctx.Job(id)
	if j.State != engine.JobRunning || j.Stages[js.mapStage].Pending > 0 {
		return false
	}
	for _, o := range js.originals {
		if o.running {
			return false
		}
	}
	return true
}

// checkT is CHECK-T outside a finishing original (after a kill).
func (p *Policy) checkT(ctx *engine.Context, id engine.JobID, js *jobState) {
	if p.lastOriginal(ctx, id, js) {
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
	model := Model{Reducers: js.reducerQuota, Uplink: up, Downlink: down, Shuffle: p.cfg.ShuffleModel}
	if model.Reducers == nil {
		model.Reducers = make([]int, len(up))
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
func (p *Policy) reducerDone(ctx *engine.Context, js *jobState, a *engine.Attempt) {
	end := a.End
	if a.InputDone {
		end = a.InputDoneAt
	}
	js.actual = max(js.actual, end-js.t0)
	js.reducersLeft--
}
