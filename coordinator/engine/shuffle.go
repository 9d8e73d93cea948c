package engine

import (
	"math/bits"

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
	e.outputsChanged(st)
}

func (e *Engine) removeOutput(st *Stage, t *Task) {
	st.outByHost[t.OutHost] -= t.OutputBytes
	st.outByRack[e.topo.RackOf(t.OutHost)] -= t.OutputBytes
	st.outTotal -= t.OutputBytes
	e.outputsChanged(st)
}

// outputsChanged notes that the consumers of a stage have new (or fewer)
// upstream outputs to fetch; Ready tells the drivers, once per attempt.
func (e *Engine) outputsChanged(st *Stage) {
	for _, c := range st.consumers {
		cs := st.job.Stages[c]
		if !cs.shuffleDirty {
			cs.shuffleDirty = true
			e.dirtyStages = append(e.dirtyStages, cs)
		}
	}
}

// shuffleUpdates lists, for Ready, the running attempts of every stage
// whose upstream outputs changed since the last Ready.
func (e *Engine) shuffleUpdates(buf []ShuffleUpdate) []ShuffleUpdate {
	for _, st := range e.dirtyStages {
		st.shuffleDirty = false
		if st.running == 0 {
			continue
		}
		for ti := range st.Tasks {
			for _, id := range st.Tasks[ti].running {
				a := e.attempts[id]
				buf = append(buf, ShuffleUpdate{Attempt: id, Complete: a.InputFixed})
			}
		}
	}
	e.dirtyStages = e.dirtyStages[:0]
	return buf
}

func (e *Engine) upstreamDone(j *Job, st *Stage) bool {
	for _, u := range st.upstream {
		if j.Stages[u].Done < len(j.Stages[u].Tasks) {
			return false
		}
	}
	return true
}

// fixShuffle fixes a reduce or generic attempt's input and output sizes
// from its upstream's actual outputs, once they are all done, and notes
// where that input lies: what the attempt fetches, even if an upstream
// output is lost and recomputed elsewhere afterwards. The engine calls it
// at launch and when the upstream completes; it is idempotent.
func (e *Engine) fixShuffle(a *Attempt) {
	if a.InputFixed {
		return
	}
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
	a.fetchedFrom = e.crossSources(j, st, a, total-inRack)
	a.InputFixed = true
}

// crossSources splits a shuffling attempt's cross-rack input, cross (its
// LevelCross bytes), by the rack it comes from: in proportion to the
// upstream outputs in each other rack now, as shuffleLevels counts them.
// Every upstream stage is cut by the same partition share, so the split
// follows the bytes summed over them. It is a largest-remainder
// apportionment (ties to the lower rack), so the parts are whole bytes
// that add up to cross exactly: the links' counts and the class-and-level
// counts agree. nil when nothing comes across racks.
func (e *Engine) crossSources(j *Job, st *Stage, a *Attempt, cross int64) []int64 {
	if cross <= 0 {
		return nil
	}
	own := e.topo.RackOf(a.Host)
	weight := make([]int64, len(e.topo.Racks))
	var sum int64
	for _, u := range st.upstream {
		us := j.Stages[u]
		for r, b := range us.outByRack {
			if cluster.RackID(r) != own && b > 0 {
				weight[r] += b
				sum += b
			}
		}
	}
	if sum == 0 {
		return nil
	}
	parts := make([]int64, len(weight))
	rems := make([]uint64, len(weight))
	left := cross
	for r, w := range weight {
		// cross·w/sum in 128 bits: both may be large
		hi, lo := bits.Mul64(uint64(cross), uint64(w))
		q, rem := bits.Div64(hi, lo, uint64(sum))
		parts[r], rems[r] = int64(q), rem
		left -= int64(q)
	}
	for ; left > 0; left-- {
		best := -1
		for r, w := range weight {
			if w > 0 && (best < 0 || rems[r] > rems[best]) {
				best = r
			}
		}
		parts[best]++
		rems[best] = 0
	}
	return parts
}

// countShuffleLinks adds what a successful shuffling attempt fetched
// across racks to its job's per-rack uplink and downlink bytes.
func (e *Engine) countShuffleLinks(j *Job, a *Attempt) {
	if len(a.fetchedFrom) == 0 {
		return
	}
	if j.shuffleUp == nil {
		j.shuffleUp = make([]int64, len(e.topo.Racks))
		j.shuffleDown = make([]int64, len(e.topo.Racks))
	}
	into := e.topo.RackOf(a.Host)
	for r, n := range a.fetchedFrom {
		j.shuffleUp[r] += n
		j.shuffleDown[into] += n
	}
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
