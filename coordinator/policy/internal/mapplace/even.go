package mapplace

import (
	"math/rand/v2"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// EvenQuotas returns the per-rack map quotas of even scheduling (§4.3):
// ⌊s/n⌋ each, and one more for the s mod n lowest-index racks.
func EvenQuotas(s, n int) []int {
	if n <= 0 {
		return nil
	}
	q := make([]int, n)
	for r := range q {
		q[r] = s / n
		if r < s%n {
			q[r]++
		}
	}
	return q
}

// split is one map task with the racks holding its input.
type split struct {
	task  engine.TaskRef
	racks []cluster.RackID // racks with a live replica, ascending
}

// EvenAssign gives each split a rack under the quotas (§4.3), in a
// shuffle of the splits drawn from rng: Oblivious deals them to racks
// 0, 1, ..., n−1, 0, ... in turn; LocalityAware first matches as many as
// possible to a rack in their replicaRacks (augmenting paths, splits in
// the shuffled order), then deals the rest to the racks left under quota,
// lowest index first. replicaRacks[i] are split i's replica racks; the
// result is each split's rack.
func EvenAssign(rng *rand.Rand, variant EvenVariant, replicaRacks [][]cluster.RackID, n int) []cluster.RackID {
	s := len(replicaRacks)
	out := make([]cluster.RackID, s)
	if n <= 0 {
		return out
	}
	order := rng.Perm(s)
	if variant != LocalityAware {
		for k, i := range order {
			out[i] = cluster.RackID(k % n)
		}
		return out
	}
	quota := EvenQuotas(s, n)
	in := make([][]int, n) // splits matched to each rack
	matched := make([]bool, s)
	for _, i := range order {
		seen := make([]bool, n)
		matched[i] = augment(i, replicaRacks, quota, in, seen, out)
	}
	r := 0
	for _, i := range order {
		if matched[i] {
			continue
		}
		for len(in[r]) >= quota[r] {
			r++
		}
		in[r] = append(in[r], i)
		out[i] = cluster.RackID(r)
	}
	return out
}

// augment finds split i a replica rack, moving already matched splits to
// other replica racks of theirs if need be (Kuhn's augmenting path).
func augment(i int, replicaRacks [][]cluster.RackID, quota []int, in [][]int, seen []bool, out []cluster.RackID) bool {
	for _, r := range replicaRacks[i] {
		if seen[r] {
			continue
		}
		seen[r] = true
		if len(in[r]) < quota[r] {
			in[r] = append(in[r], i)
			out[i] = r
			return true
		}
		for k, x := range in[r] {
			if augment(x, replicaRacks, quota, in, seen, out) {
				in[r][k] = i // x left for another rack
				out[i] = r
				return true
			}
		}
	}
	return false
}

// evenRacks gives the job's splits their racks on its first offer.
func (p *Placer) evenRacks(ctx *engine.Context, j engine.JobID) [][]cluster.RackID {
	s := p.state(ctx, j)
	if s.even != nil {
		return s.even
	}
	job := ctx.Job(j)
	topo := ctx.Topology()
	var splits []split
	for _, st := range job.Stages {
		if st.Spec.Kind != workload.Map {
			continue
		}
		for i := range st.Tasks {
			t := engine.TaskRef{Job: j, Stage: int16(st.Index), Index: int32(i)}
			splits = append(splits, split{task: t, racks: replicaRacks(ctx, topo, t)})
		}
	}
	rr := make([][]cluster.RackID, len(splits))
	for i, sp := range splits {
		rr[i] = sp.racks
	}
	got := EvenAssign(ctx.Rand(), p.cfg.Even, rr, len(topo.Racks))
	s.even = make([][]cluster.RackID, len(job.Stages))
	for i, st := range job.Stages {
		if st.Spec.Kind == workload.Map {
			s.even[i] = make([]cluster.RackID, len(st.Tasks))
		}
	}
	for i, sp := range splits {
		s.even[sp.task.Stage][sp.task.Index] = got[i]
	}
	return s.even
}

// replicaRacks lists the racks holding a live replica of a map's block,
// ascending.
func replicaRacks(ctx *engine.Context, topo *cluster.Topology, t engine.TaskRef) []cluster.RackID {
	var rs []cluster.RackID
	for _, rep := range ctx.Replicas(t) {
		r := topo.RackOf(rep.Host)
		dup := false
		for _, x := range rs {
			dup = dup || x == r
		}
		if !dup {
			rs = append(rs, r)
		}
	}
	for a := 1; a < len(rs); a++ { // insertion sort: two or three racks
		for b := a; b > 0 && rs[b] < rs[b-1]; b-- {
			rs[b], rs[b-1] = rs[b-1], rs[b]
		}
	}
	return rs
}

// EvenRack is the rack a split was given under Even, once its job has
// been offered a slot.
func (p *Placer) EvenRack(t engine.TaskRef) (cluster.RackID, bool) {
	s := p.jobs[t.Job]
	if s == nil || s.even == nil || s.even[t.Stage] == nil {
		return 0, false
	}
	return s.even[t.Stage][t.Index], true
}

// rackAlive reports whether a rack has a live host.
func rackAlive(ctx *engine.Context, r cluster.RackID) bool {
	for _, h := range ctx.Topology().Racks[r].Hosts {
		if ctx.Alive(h) {
			return true
		}
	}
	return false
}

// evenOne gives one map slot of h by §4.3: per job in FIFO order, a
// pending split given h's rack (or a rack with no live host): one with a
// replica on h, else one with no replica in the rack, else one with a
// replica elsewhere in the rack.
func (p *Placer) evenOne(ctx *engine.Context, h cluster.HostID) bool {
	topo := ctx.Topology()
	rack := topo.RackOf(h)
	for _, j := range ctx.Running() {
		if ctx.PendingMaps(j.ID) == 0 {
			continue
		}
		given := p.evenRacks(ctx, j.ID)
		p.buf = ctx.Pending(j.ID, p.buf[:0])
		best, bestRank := engine.TaskRef{}, 3
		for _, t := range p.buf {
			if given[t.Stage] == nil {
				continue // not a map
			}
			if r := given[t.Stage][t.Index]; r != rack && rackAlive(ctx, r) {
				continue
			}
			rank := 1 // no replica in the rack: any host of it will do
			for _, rep := range ctx.Replicas(t) {
				switch {
				case rep.Host == h:
					rank = 0
				case topo.RackOf(rep.Host) == rack && rank > 0:
					rank = 2
				}
				if rank == 0 {
					break
				}
			}
			if rank < bestRank {
				best, bestRank = t, rank
				if rank == 0 {
					break
				}
			}
		}
		if bestRank < 3 {
			return p.launch(ctx, best, h, ReasonEven)
		}
	}
	return false
}
