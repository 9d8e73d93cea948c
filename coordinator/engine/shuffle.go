package engine

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

func (e *Engine) addOutput(st *Stage, t *Task) {
	if st.outByHost == nil {
		st.outByHost = map[cluster.HostID]int64{}
		st.outByRack = make([]int64, len(e.topo.Racks))
	}
	st.outByHost[t.OutHost] += t.OutputBytes
	st.outByRack[e.topo.RackOf(t.OutHost)] += t.OutputBytes
	st.outTotal += t.OutputBytes
	st.outVer++
}

func (e *Engine) removeOutput(st *Stage, t *Task) {
	st.outByHost[t.OutHost] -= t.OutputBytes
	st.outByRack[e.topo.RackOf(t.OutHost)] -= t.OutputBytes
	st.outTotal -= t.OutputBytes
	st.outVer++
}

func (e *Engine) upstreamDone(j *Job, st *Stage) bool {
	for _, u := range st.upstream {
		if j.Stages[u].Done < len(j.Stages[u].Tasks) {
			return false
		}
	}
	return true
}

// FinishShuffle fixes a reduce or generic attempt's input and output sizes
// from its upstream's actual outputs, once they are all done; the driver
// calls it before the attempt writes its output.
func (e *Engine) FinishShuffle(a *Attempt) {
	j, st, t, ok := e.lookup(a.Task)
	if !ok || st.Spec.Kind == workload.Map || !e.upstreamDone(j, st) {
		return
	}
	var in int64
	for _, u := range st.upstream {
		in += partition(st.cumShares, int(a.Task.Index), j.Stages[u].outTotal)
	}
	a.InputBytes = in
	a.OutputBytes = e.reduceOutput(st, a.Task.Index, in)
	t.InputBytes, t.OutputBytes = a.InputBytes, a.OutputBytes
	local, inRack, total := e.shuffleLevels(j, st, a)
	a.fetched = &[NumLevels]int64{local, inRack - local, total - inRack}
}

// shuffleLevels is a shuffling attempt's input as the upstream outputs
// lie now: on its host, in its rack (host included), and in all.
func (e *Engine) shuffleLevels(j *Job, st *Stage, a *Attempt) (local, inRack, total int64) {
	rack := e.topo.RackOf(a.Host)
	for _, u := range st.upstream {
		us := j.Stages[u]
		if us.outByRack == nil {
			continue
		}
		local += partition(st.cumShares, int(a.Task.Index), us.outByHost[a.Host])
		inRack += partition(st.cumShares, int(a.Task.Index), us.outByRack[rack])
		total += partition(st.cumShares, int(a.Task.Index), us.outTotal)
	}
	return local, inRack, total
}

// UpstreamDone reports whether every upstream task of an attempt's stage
// has its output in place, so that a reduce can finish its fetch.
func (e *Engine) UpstreamDone(a *Attempt) bool {
	j, st, _, ok := e.lookup(a.Task)
	return ok && e.upstreamDone(j, st)
}

// UpstreamVersion changes whenever the outputs an attempt's stage shuffles
// from change, so that a driver can skip asking ShuffleAvailable again.
func (e *Engine) UpstreamVersion(a *Attempt) uint64 {
	j, st, _, ok := e.lookup(a.Task)
	if !ok {
		return 0
	}
	var v uint64
	for _, u := range st.upstream {
		v += j.Stages[u].outVer
	}
	return v
}

// ShuffleAvailable fills byRack with the bytes of the attempt's partition
// that sit, now, in the done outputs of its upstream tasks in each rack,
// and returns the part on the attempt's own host.
func (e *Engine) ShuffleAvailable(a *Attempt, byRack []int64) (onHost int64) {
	for r := range byRack {
		byRack[r] = 0
	}
	j, st, _, ok := e.lookup(a.Task)
	if !ok || st.Spec.Kind == workload.Map {
		return 0
	}
	for _, u := range st.upstream {
		us := j.Stages[u]
		if us.outByRack == nil {
			continue
		}
		for r, b := range us.outByRack {
			byRack[r] += partition(st.cumShares, int(a.Task.Index), b)
		}
		onHost += partition(st.cumShares, int(a.Task.Index), us.outByHost[a.Host])
	}
	return onHost
}
