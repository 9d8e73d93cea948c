package pushbox

import (
	"math"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
)

// gpClasses is the number of coflow size bins of the GP ablation (§4.6).
const gpClasses = 7

// lowestClass is the reserved lowest priority: after every NORMAL class
// (after GP's bins under GP).
func (p *Policy) lowestClass() uint8 {
	if p.cfg.GlobalPriority {
		return gpClasses
	}
	return uint8(p.cfg.Classes)
}

// reprioritize re-ranks machine h's input-phase tasks (§2.7 P1–P11) and
// re-marks those whose class changed.
func (p *Policy) reprioritize(ctx *engine.Context, h cluster.HostID) {
	p.rankAll(ctx, h)
	for _, it := range p.ranked {
		if it.id < 0 {
			continue
		}
		if a := ctx.Attempt(it.id); a != nil && a.Priority != p.classOf(it) {
			_ = ctx.SetPriority(it.id, p.classOf(it))
		}
	}
}

// rank returns the class a task being placed on h will have.
func (p *Policy) rank(ctx *engine.Context, h cluster.HostID, it *inputTask) uint8 {
	p.rankAll(ctx, h)
	return p.classOf(it)
}

// classOf is a ranked task's class, from its position in p.ranked.
func (p *Policy) classOf(it *inputTask) uint8 {
	if it.lowest {
		return p.lowestClass()
	}
	if p.cfg.GlobalPriority {
		return gpBin(it.coflow, p.cfg.GPBinBytes)
	}
	for r, o := range p.ranked {
		if o == it {
			return uint8(min(r, p.cfg.Classes-1))
		}
	}
	return p.lowestClass()
}

// gpBin is the GP ablation's class of a coflow: bin k holds coflows
// below edge·10^k, the last bin everything larger.
func gpBin(coflow, edge float64) uint8 {
	if coflow < edge {
		return 0
	}
	k := int(math.Floor(math.Log10(coflow/edge))) + 1
	return uint8(min(k, gpClasses-1))
}

// rankAll orders machine h's input-phase tasks into p.ranked: NORMAL
// tasks by (job's coflow on h, submission, job id, placement order),
// then the reserved lowest ones (FIFO jobs behind their queue's head).
func (p *Policy) rankAll(ctx *engine.Context, h cluster.HostID) {
	ins := p.hosts[h].inputs
	p.ranked = append(p.ranked[:0], ins...)
	p.fifoHeads(ctx)
	for _, it := range ins {
		j := ctx.Job(it.task.Job)
		it.lowest = p.ordering(ctx, j) == engine.OrderFIFO && p.heads[j.Queue] != j.ID
		// a job's key is its coflow on h (P8); only a job receiving on h
		// for two stages is keyed by the coflow of its critical stage
		// (§2.7 [INTERPRETATION]), one key for all its tasks so that they
		// stay together; a job with no waiting task has no critical
		// stage: then its most upstream stage on h
		stage := int(it.task.Stage)
		if twoStages(ins, it) {
			stage = p.criticalStage(ctx, j)
		}
		if stage < 0 {
			stage = int(it.task.Stage)
			for _, o := range ins {
				if o.task.Job == it.task.Job && int(o.task.Stage) < stage {
					stage = int(o.task.Stage)
				}
			}
		}
		it.coflow = p.coflowSize(ctx, j, stage)
	}
	sort.SliceStable(p.ranked, func(a, b int) bool {
		x, y := p.ranked[a], p.ranked[b]
		if x.lowest != y.lowest {
			return !x.lowest
		}
		if x.task.Job != y.task.Job {
			if x.coflow != y.coflow {
				return x.coflow < y.coflow
			}
			jx, jy := ctx.Job(x.task.Job), ctx.Job(y.task.Job)
			if jx.Submitted != jy.Submitted {
				return jx.Submitted < jy.Submitted
			}
			return jx.ID < jy.ID
		}
		return x.seq < y.seq
	})
}

// fifoHeads fills p.heads: each queue's earliest submitted unfinished job.
func (p *Policy) fifoHeads(ctx *engine.Context) {
	qs := ctx.Queues()
	if cap(p.heads) < len(qs) {
		p.heads = make([]engine.JobID, len(qs))
	}
	p.heads = p.heads[:len(qs)]
	for i := range p.heads {
		p.heads[i] = -1
	}
	for _, j := range ctx.Running() { // in submission order
		if p.heads[j.Queue] < 0 {
			p.heads[j.Queue] = j.ID
		}
	}
}

// twoStages reports whether it's job has input-phase tasks of another
// stage than it's among ins.
func twoStages(ins []*inputTask, it *inputTask) bool {
	for _, o := range ins {
		if o.task.Job == it.task.Job && o.task.Stage != it.task.Stage {
			return true
		}
	}
	return false
}
