package engine

import (
	"math"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// ObjectRef names a stored object that a live attempt reads or writes: a
// block of a dataset, or the output of an attempt. The simulator never
// needs it; the live driver turns it into a file on a worker's tier (the
// names of those files are the live driver's business, not the engine's).
type ObjectRef struct {
	Dataset string // a dataset's name; empty for an attempt's output
	Block   int
	Attempt AttemptID
}

// InputObject names the object a map attempt reads; ok is false for
// attempts without an input block.
func (e *Engine) InputObject(a *Attempt) (ObjectRef, bool) {
	_, st, t, found := e.lookup(a.Task)
	if !found || st.Spec.Kind != workload.Map || t.Block < 0 {
		return ObjectRef{}, false
	}
	in := st.Spec.Input
	if len(in) > 1 && in[:1] == workload.ParentOutputPrefix {
		parent := e.jobs[e.byName[in[1:]]]
		k := int(t.Block)
		for _, ps := range parent.Stages {
			if !ps.Final {
				continue
			}
			if k < len(ps.Tasks) {
				return ObjectRef{Attempt: ps.Tasks[k].OutAttempt}, true
			}
			k -= len(ps.Tasks)
		}
		return ObjectRef{}, false
	}
	return ObjectRef{Dataset: in, Block: int(t.Block)}, true
}

// ShuffleSource is one upstream output that a reduce or generic attempt
// fetches a partition of.
type ShuffleSource struct {
	Task    TaskRef
	Attempt AttemptID // whose output it is
	Host    cluster.HostID
	Tier    cluster.TierKind
	Offset  int64 // of the attempt's partition within that output
	Length  int64
}

// ShuffleSources appends to buf the done upstream outputs that a reduce or
// generic attempt fetches from, with its partition's place in each. Once
// the upstream is done their lengths add up to the attempt's input, to
// within a byte per upstream task: the input is the partition of the
// upstream's total, the ranges partitions of each task's output.
func (e *Engine) ShuffleSources(a *Attempt, buf []ShuffleSource) []ShuffleSource {
	j, st, _, ok := e.lookup(a.Task)
	if !ok || st.Spec.Kind == workload.Map {
		return buf
	}
	i := int(a.Task.Index)
	for _, u := range st.upstream {
		us := j.Stages[u]
		for ti := range us.Tasks {
			t := &us.Tasks[ti]
			if t.State != TaskDone {
				continue
			}
			n := partition(st.cumShares, i, t.OutputBytes)
			if n == 0 {
				continue
			}
			// partition's own arithmetic: it starts where the ones before end
			off := int64(math.Floor(float64(t.OutputBytes) * st.cumShares[i]))
			buf = append(buf, ShuffleSource{
				Task:    TaskRef{Job: j.ID, Stage: int16(u), Index: int32(ti)},
				Attempt: t.OutAttempt,
				Host:    t.OutHost,
				Tier:    t.OutTier,
				Offset:  off,
				Length:  n,
			})
		}
	}
	return buf
}
