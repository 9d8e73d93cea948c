package pushbox

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
)

// selectTask is Algorithm 1's selectTask for job j and machine h: a
// waiting task of the job's critical stage (or of the given stage),
// through delay scheduling for maps that read blocks, else largest input
// first. ok is false when the job declines the machine: a delay
// scheduling skip (counted when countSkip), or nothing runnable.
func (p *Policy) selectTask(ctx *engine.Context, j *engine.Job, h cluster.HostID, stage int, countSkip bool) (candidate, bool) {
	if j.Pending == 0 {
		return candidate{}, false
	}
	if stage < 0 {
		if stage = p.criticalStage(ctx, j); stage < 0 {
			return candidate{}, false
		}
	}
	si := p.info(ctx, j, stage)
	if si.blocks {
		c, ok := p.localityPick(ctx, j, stage, si, h)
		if !ok && countSkip {
			p.skips[j.ID]++
		}
		return c, ok
	}
	return p.largestFirst(ctx, j, stage)
}

// runnable reports whether a stage has a waiting task that may start now
// (a shuffling stage's early start is limited by the engine).
func (p *Policy) runnable(ctx *engine.Context, j *engine.Job, stage int) bool {
	st := j.Stages[stage]
	if st.Pending == 0 {
		return false
	}
	// without an unfinished upstream every waiting task may start: no
	// need to find one (a map stage's tasks run in any order, so the
	// first waiting one may be far down)
	si := p.info(ctx, j, stage)
	upDone := true
	for _, u := range si.upstream {
		if us := j.Stages[u]; us.Done < len(us.Tasks) {
			upDone = false
		}
	}
	if upDone {
		return true
	}
	for i := range st.Tasks {
		if st.Tasks[i].State == engine.TaskPending {
			return ctx.CanRun(engine.TaskRef{Job: j.ID, Stage: int16(stage), Index: int32(i)})
		}
	}
	return false
}

// criticalStage is the stage with runnable waiting tasks and the largest
// bottom level (§2.3); in a chain, the most upstream such stage. -1 if
// none.
func (p *Policy) criticalStage(ctx *engine.Context, j *engine.Job) int {
	first, n := -1, 0
	for _, st := range j.Stages {
		if p.runnable(ctx, j, st.Index) {
			if first < 0 {
				first = st.Index
			}
			n++
		}
	}
	if n <= 1 {
		return first
	}
	memo := make([]float64, len(j.Stages))
	for i := range memo {
		memo[i] = -1
	}
	best, bestBL := -1, -1.0
	for _, st := range j.Stages {
		if !p.runnable(ctx, j, st.Index) {
			continue
		}
		// strictly larger: ties go to the upstream stage (lower index)
		if bl := p.bottomLevel(ctx, j, st.Index, memo); bl > bestBL {
			best, bestBL = st.Index, bl
		}
	}
	return best
}

// bottomLevel is BL(s) = w(s) + max over consumers of BL, with w(s) the
// longest estimated input-plus-compute time of the stage's unfinished
// tasks.
func (p *Policy) bottomLevel(ctx *engine.Context, j *engine.Job, stage int, memo []float64) float64 {
	if memo[stage] >= 0 {
		return memo[stage]
	}
	st := j.Stages[stage]
	nic := ctx.Topology().Hosts[0].NICBps
	var w float64
	for i := range st.Tasks {
		if st.Tasks[i].State == engine.TaskDone {
			continue
		}
		in := p.expectedInput(ctx, j, engine.TaskRef{Job: j.ID, Stage: int16(stage), Index: int32(i)})
		w = max(w, in/nic+in*st.Spec.ComputeNsPerByte*1e-9)
	}
	var down float64
	for _, c := range p.info(ctx, j, stage).consumers {
		down = max(down, p.bottomLevel(ctx, j, c, memo))
	}
	memo[stage] = w + down
	return memo[stage]
}

// localityPick is the locality branch (A1.2–A1.4): a node-local map,
// then rack-local and then any once the job has been skipped
// NodeDelay·M and RackDelay·M times; at each level the largest input
// first, ties to the lower index.
func (p *Policy) localityPick(ctx *engine.Context, j *engine.Job, stage int, si *stageInfo, h cluster.HostID) (candidate, bool) {
	machines := float64(len(ctx.Topology().Hosts))
	allowed := engine.NodeLocal
	switch s := float64(p.skips[j.ID]); {
	case s >= p.cfg.RackDelay*machines:
		allowed = engine.Remote
	case s >= p.cfg.NodeDelay*machines:
		allowed = engine.RackLocal
	}
	exact := si.uniform && p.cfg.ErrorFactor == 1
	if exact {
		// blocks of one size: the first in index order is the largest,
		// and the engine keeps the queues
		t, level, ok := ctx.PickMap(j.ID, h, allowed)
		if !ok {
			return candidate{}, false // no map stage of the job has one
		}
		if int(t.Stage) == stage {
			return p.mapCandidate(ctx, j, t, level), true
		}
		// another map stage's task: look through this stage's own
	}
	topo := ctx.Topology()
	rack := topo.RackOf(h)
	var best [engine.NumLocalities]engine.TaskRef
	var bestIn [engine.NumLocalities]float64
	var found [engine.NumLocalities]bool
	st := j.Stages[stage]
	for i := range st.Tasks {
		t := engine.TaskRef{Job: j.ID, Stage: int16(stage), Index: int32(i)}
		if st.Tasks[i].State != engine.TaskPending || !ctx.CanRun(t) {
			continue // not waiting, or not for the pool on offer
		}
		level := engine.Remote
		if st.Tasks[i].Block < 0 {
			level = engine.NodeLocal // no input: local anywhere
		}
		for _, r := range ctx.Replicas(t) {
			switch {
			case r.Host == h:
				level = engine.NodeLocal
			case topo.RackOf(r.Host) == rack && level > engine.RackLocal:
				level = engine.RackLocal
			}
		}
		in := float64(st.Tasks[i].InputBytes) * p.errorOf(ctx, t)
		if !found[level] || larger(in, bestIn[level]) {
			best[level], bestIn[level], found[level] = t, in, true
		}
	}
	for level := engine.NodeLocal; level <= allowed; level++ {
		if found[level] {
			return p.mapCandidate(ctx, j, best[level], level), true
		}
	}
	return candidate{}, false
}

func (p *Policy) mapCandidate(ctx *engine.Context, j *engine.Job, t engine.TaskRef, level engine.Locality) candidate {
	c := candidate{task: t, job: j, level: level}
	c.local = level == engine.NodeLocal || (level == engine.RackLocal && p.rackLocal) || j.Stages[t.Stage].Tasks[t.Index].Block < 0
	if !c.local {
		c.input = float64(j.Stages[t.Stage].Tasks[t.Index].InputBytes) * p.errorOf(ctx, t)
	}
	return c
}

// largestFirst is A1.5–A1.7: the waiting task with the largest
// (estimated) input, ties to the lower index; with RS, a uniformly
// random one. A reduce or generic task counts as remote: it fetches
// from many machines.
func (p *Policy) largestFirst(ctx *engine.Context, j *engine.Job, stage int) (candidate, bool) {
	st := j.Stages[stage]
	p.cands = p.cands[:0]
	var best engine.TaskRef
	bestIn, found := -1.0, false
	for i := range st.Tasks {
		if st.Tasks[i].State != engine.TaskPending {
			continue
		}
		t := engine.TaskRef{Job: j.ID, Stage: int16(stage), Index: int32(i)}
		if !found && !ctx.CanRun(t) {
			return candidate{}, false // the engine holds the stage back
		}
		in := p.expectedInput(ctx, j, t) * p.errorOf(ctx, t)
		if p.cfg.RandomSelect {
			p.cands = append(p.cands, t)
		}
		if !found || larger(in, bestIn) {
			best, bestIn, found = t, in, true
		}
	}
	if !found {
		return candidate{}, false
	}
	if p.cfg.RandomSelect {
		best = p.cands[ctx.Rand().IntN(len(p.cands))]
		bestIn = p.expectedInput(ctx, j, best) * p.errorOf(ctx, best)
	}
	return candidate{task: best, job: j, level: engine.NoLocality, local: bestIn == 0, input: bestIn}, true
}

// larger reports whether input a is larger than b by more than the
// rounding of a partition's share (a byte, or a part in 10⁹): equal
// partitions tie, and ties go to the lower index.
func larger(a, b float64) bool { return a > b+max(1, 1e-9*b) }
