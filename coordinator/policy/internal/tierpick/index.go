package tierpick

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Entry is one pending map of a job, as an Index lists it.
type Entry struct {
	Task engine.TaskRef
	// Tier is the fastest tier of the task's replicas on the listing's
	// host (in a host's list), or anywhere (in the other lists).
	Tier cluster.TierKind
	// InMemory is whether a replica, on any host, is in memory.
	InMemory bool
}

// list is a job's maps in (stage, index) order with lazy deletion: the
// head skips the entries no longer pending, which an Index never sees
// come back (a map run again after a failure or a host's loss makes the
// policy drop the Index, see Indexes).
type list struct {
	items []Entry
	head  int
}

func pending(ctx *engine.Context, t engine.TaskRef) bool {
	return ctx.Task(t).State == engine.TaskPending
}

// first returns the list's first pending entry.
func (l *list) first(ctx *engine.Context) (Entry, bool) {
	for l.head < len(l.items) {
		if e := l.items[l.head]; pending(ctx, e.Task) {
			return e, true
		}
		l.head++
	}
	return Entry{}, false
}

// Index lists a running job's pending maps by where their replicas are,
// so that a slot's choice costs the maps local to its host plus a few
// heads, not a scan of the job: the tier-aware baselines ask it for
// every free slot, and a large job has thousands of maps.
type Index struct {
	byHost map[cluster.HostID]*list
	byRack map[cluster.RackID]*list
	byBest [cluster.HDD + 1]list // maps with a replica, by their fastest tier
	noPref list                  // maps without a live replica
	all    list                  // maps with a replica
	moves  int64                 // the engine's TierMoves when built
}

// Build indexes job j's pending maps and their live replicas now.
func Build(ctx *engine.Context, j engine.JobID) *Index {
	x := &Index{byHost: make(map[cluster.HostID]*list), byRack: make(map[cluster.RackID]*list), moves: ctx.TierMoves()}
	topo := ctx.Topology()
	job := ctx.Job(j)
	var refs []engine.TaskRef
	for _, t := range ctx.Pending(j, refs) {
		if job.Stages[t.Stage].Spec.Kind != workload.Map {
			continue
		}
		reps := ctx.Replicas(t)
		best, ok := BestTier(reps)
		if !ok {
			x.noPref.items = append(x.noPref.items, Entry{Task: t})
			continue
		}
		mem := best == cluster.Mem
		x.all.items = append(x.all.items, Entry{Task: t, Tier: best, InMemory: mem})
		x.byBest[min(best, cluster.HDD)].items = append(x.byBest[min(best, cluster.HDD)].items, Entry{Task: t, Tier: best, InMemory: mem})
		for k, r := range reps {
			if seen(reps[:k], func(s workload.Replica) bool { return s.Host == r.Host }) {
				continue // one entry a host, with its fastest tier
			}
			local, _ := OnHost(reps, r.Host)
			x.host(r.Host).items = append(x.host(r.Host).items, Entry{Task: t, Tier: local.Tier, InMemory: mem})
			rack := topo.RackOf(r.Host)
			if !seen(reps[:k], func(s workload.Replica) bool { return topo.RackOf(s.Host) == rack }) {
				x.rack(rack).items = append(x.rack(rack).items, Entry{Task: t, Tier: best, InMemory: mem})
			}
		}
	}
	return x
}

func seen(reps []workload.Replica, match func(workload.Replica) bool) bool {
	for _, r := range reps {
		if match(r) {
			return true
		}
	}
	return false
}

func (x *Index) host(h cluster.HostID) *list {
	l := x.byHost[h]
	if l == nil {
		l = &list{}
		x.byHost[h] = l
	}
	return l
}

func (x *Index) rack(r cluster.RackID) *list {
	l := x.byRack[r]
	if l == nil {
		l = &list{}
		x.byRack[r] = l
	}
	return l
}

// Local calls f with the pending maps holding a replica on h, in (stage,
// index) order, Tier their fastest on h, until f returns false.
func (x *Index) Local(ctx *engine.Context, h cluster.HostID, f func(Entry) bool) {
	l := x.byHost[h]
	if l == nil {
		return
	}
	if _, ok := l.first(ctx); !ok {
		return
	}
	for _, e := range l.items[l.head:] {
		if pending(ctx, e.Task) && !f(e) {
			return
		}
	}
}

// FirstByBest returns the first pending map whose fastest replica is on
// tier k.
func (x *Index) FirstByBest(ctx *engine.Context, k cluster.TierKind) (Entry, bool) {
	return x.byBest[min(k, cluster.HDD)].first(ctx)
}

// FirstNoPref returns the first pending map without a live replica.
func (x *Index) FirstNoPref(ctx *engine.Context) (Entry, bool) { return x.noPref.first(ctx) }

// FirstInRack returns the first pending map with a replica in rack r.
func (x *Index) FirstInRack(ctx *engine.Context, r cluster.RackID) (Entry, bool) {
	if l := x.byRack[r]; l != nil {
		return l.first(ctx)
	}
	return Entry{}, false
}

// FirstInRackByBest returns, of the pending maps with a replica in rack
// r, the first whose fastest replica (anywhere) is on the earliest tier
// of order: one pass over the rack's list.
func (x *Index) FirstInRackByBest(ctx *engine.Context, r cluster.RackID, order []cluster.TierKind) (Entry, bool) {
	l := x.byRack[r]
	if l == nil {
		return Entry{}, false
	}
	if _, ok := l.first(ctx); !ok {
		return Entry{}, false
	}
	best, rank := Entry{}, len(order)
	for _, e := range l.items[l.head:] {
		if !pending(ctx, e.Task) {
			continue
		}
		for i, k := range order[:rank] {
			if min(e.Tier, cluster.HDD) == min(k, cluster.HDD) {
				best, rank = e, i
				break
			}
		}
		if rank == 0 {
			break
		}
	}
	return best, rank < len(order)
}

// FirstAny returns the first pending map with a replica.
func (x *Index) FirstAny(ctx *engine.Context) (Entry, bool) { return x.all.first(ctx) }

// Indexes keeps one Index a running job, built at the job's first
// question, and again at a question after a replica changed tier (the
// memory tier's LRU demoted or uploaded one: trident.md §3.2, the scores
// refreshed before the next decision). An Index sees a map leave the
// pending state, never come back to it, nor a replica vanish: a policy
// drops a job's Index when one of its map attempts ends without success
// (AttemptEnded), and every Index when a host is lost (its replicas die,
// maps rerun).
type Indexes struct {
	jobs map[engine.JobID]*Index
}

// Get returns job j's Index, building it if need be.
func (s *Indexes) Get(ctx *engine.Context, j engine.JobID) *Index {
	if s.jobs == nil {
		s.jobs = make(map[engine.JobID]*Index)
	}
	x := s.jobs[j]
	if x == nil || x.moves != ctx.TierMoves() {
		x = Build(ctx, j)
		s.jobs[j] = x
	}
	return x
}

// AttemptEnded drops the Index of the attempt's job when a map attempt
// ended without success: its task may run again (the engine requeues it
// after telling the policy, so its state cannot be asked here).
func (s *Indexes) AttemptEnded(ctx *engine.Context, a *engine.Attempt) {
	if a.Outcome != engine.AttemptSucceeded && ctx.Job(a.Task.Job).Stages[a.Task.Stage].Spec.Kind == workload.Map {
		delete(s.jobs, a.Task.Job)
	}
}

// Drop forgets job j's Index (the job finished).
func (s *Indexes) Drop(j engine.JobID) { delete(s.jobs, j) }

// DropAll forgets every Index (a host was lost).
func (s *Indexes) DropAll() { clear(s.jobs) }
