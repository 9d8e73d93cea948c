package engine

import (
	"slices"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// setReplicaTier moves a block's replica on host h to tier to, in the
// engine's copy of the dataset and in the stages that read it.
func (e *Engine) setReplicaTier(dataset string, block int, h cluster.HostID, to cluster.TierKind) error {
	di := slices.IndexFunc(e.datasets.Datasets, func(d workload.Dataset) bool { return d.Name == dataset })
	if di < 0 {
		return e.rejectf("unknown dataset", "%q", dataset)
	}
	d := &e.datasets.Datasets[di]
	if block < 0 || block >= len(d.Blocks) {
		return e.rejectf("unknown block", "dataset %q has no block %d", dataset, block)
	}
	if h < 0 || int(h) >= len(e.hosts) || !e.hosts[h].alive {
		return e.rejectf("dead host", "host %d", h)
	}
	if _, ok := e.topo.Hosts[h].Tier(to); !ok {
		return e.rejectf("no such tier", "host %s has no %s tier", e.topo.Hosts[h].Name, to)
	}
	ri := slices.IndexFunc(d.Blocks[block].Replicas, func(r workload.Replica) bool { return r.Host == h })
	if ri < 0 {
		return e.rejectf("no replica there", "block %d of %q has no replica on host %s", block, dataset, e.topo.Hosts[h].Name)
	}
	from := d.Blocks[block].Replicas[ri].Tier
	if from == to {
		return nil
	}
	if !e.ownBlocks[dataset] {
		// the blocks (and their replica lists) are still the caller's
		d.Blocks = slices.Clone(d.Blocks)
		if e.ownBlocks == nil {
			e.ownBlocks = map[string]bool{}
		}
		e.ownBlocks[dataset] = true
		for _, st := range e.readers[dataset] {
			st.blocks = d.Blocks
		}
	}
	b := &d.Blocks[block]
	b.Replicas = slices.Clone(b.Replicas)
	b.Replicas[ri].Tier = to // every reader's st.blocks is d.Blocks now
	e.ready.TierMoves = append(e.ready.TierMoves, TierMove{Dataset: dataset, Block: block, Host: h, From: from, To: to})
	e.tierMoves++
	return nil
}

// setOutputTier moves the replica on host h of an attempt's output to
// tier to: in the attempt, in its task once the output is the task's,
// and in the blocks of the stages already reading it (a child job's
// maps, buildDependentInput), as setReplicaTier does for datasets. The
// replica lists are replaced, never changed in place: records and
// policies may hold the old ones.
func (e *Engine) setOutputTier(a *Attempt, h cluster.HostID, to cluster.TierKind) error {
	if h < 0 || int(h) >= len(e.hosts) || !e.hosts[h].alive {
		return e.rejectf("dead host", "host %d", h)
	}
	if _, ok := e.topo.Hosts[h].Tier(to); !ok {
		return e.rejectf("no such tier", "host %s has no %s tier", e.topo.Hosts[h].Name, to)
	}
	ri := slices.IndexFunc(a.OutputReplicas, func(r workload.Replica) bool { return r.Host == h })
	if ri < 0 {
		return e.rejectf("no replica there", "the output of attempt %d has no replica on host %s", a.ID, e.topo.Hosts[h].Name)
	}
	from := a.OutputReplicas[ri].Tier
	if from == to {
		return nil
	}
	reps := slices.Clone(a.OutputReplicas)
	reps[ri].Tier = to
	a.OutputReplicas = reps
	j, st, t, _ := e.lookup(a.Task)
	if t.State == TaskDone && t.OutAttempt == a.ID {
		t.OutReplicas = reps
		if t.OutHost == h {
			t.OutTier = to
		}
		// the output is block k of its readers: the final stages' tasks
		// in order (buildDependentInput)
		k := int(a.Task.Index)
		for _, ps := range j.Stages[:st.Index] {
			if ps.Final {
				k += len(ps.Tasks)
			}
		}
		for _, c := range j.children {
			for _, cs := range e.jobs[c].Stages {
				if cs.InputClass == ClassDependent && cs.Spec.Input[1:] == j.Spec.ID && k < len(cs.blocks) {
					cs.blocks[k].Replicas = reps
				}
			}
		}
	}
	e.ready.TierMoves = append(e.ready.TierMoves, TierMove{Attempt: a.ID, Host: h, From: from, To: to})
	e.tierMoves++
	return nil
}
