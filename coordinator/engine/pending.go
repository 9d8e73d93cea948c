package engine

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

func (e *Engine) makePending(j *Job, st *Stage, i int32) {
	t := &st.Tasks[i]
	t.State = TaskPending
	st.Pending++
	j.Pending++
	e.pending++
	if st.Spec.Kind == workload.Map {
		e.pendingMaps++
	}
	st.queue.push(i)
	if st.Spec.Kind != workload.Map || t.Block < 0 {
		return
	}
	var lastRack cluster.RackID = -1
	for _, r := range st.blocks[t.Block].Replicas {
		st.byHost.add(r.Host).push(i)
		rack := e.topo.RackOf(r.Host)
		if rack != lastRack {
			rq := st.byRack[rack]
			if rq == nil {
				rq = &taskQueue{}
				st.byRack[rack] = rq
			}
			if n := len(rq.items); n == 0 || rq.items[n-1] != i {
				rq.push(i)
			}
			lastRack = rack
		}
	}
}

func (e *Engine) unPend(j *Job, st *Stage) {
	st.Pending--
	j.Pending--
	e.pending--
	if st.Spec.Kind == workload.Map {
		e.pendingMaps--
	}
}

// taskQueue is a FIFO of task indexes with lazy deletion: entries whose
// task is no longer pending are skipped when met.
type taskQueue struct {
	items []int32
	head  int
}

func (q *taskQueue) push(i int32) { q.items = append(q.items, i) }

func (q *taskQueue) first(st *Stage) (int32, bool) {
	for q.head < len(q.items) {
		i := q.items[q.head]
		if st.Tasks[i].State == TaskPending {
			return i, true
		}
		q.head++
	}
	if q.head > 0 {
		q.items, q.head = q.items[:0], 0
	}
	return 0, false
}

// hostQueues holds a map stage's node-local queues, one per host that
// holds a replica of one of its blocks. A stage with about a replica per
// host or more keeps them in a slice by host: a heartbeat asks every
// running job for its next local task on one host, and with a hundred
// jobs the map lookups were a fifth of PushBox's decision at 600 hosts.
// A smaller stage keeps a map, so that a cluster of thousands of hosts
// does not hold a slot per host for each of its small jobs.
type hostQueues struct {
	dense  []taskQueue
	sparse map[cluster.HostID]*taskQueue
}

// newHostQueues sizes a released map stage's node-local queues.
func (e *Engine) newHostQueues(st *Stage) hostQueues {
	replicas := 0
	for i := range st.Tasks {
		if b := st.Tasks[i].Block; b >= 0 {
			replicas += len(st.blocks[b].Replicas)
		}
	}
	if replicas >= len(e.topo.Hosts) {
		return hostQueues{dense: make([]taskQueue, len(e.topo.Hosts))}
	}
	return hostQueues{sparse: map[cluster.HostID]*taskQueue{}}
}

// at is host h's queue, nil if it has none (or is no host: as the map
// answered).
func (q *hostQueues) at(h cluster.HostID) *taskQueue {
	if q.dense != nil {
		if h < 0 || int(h) >= len(q.dense) {
			return nil
		}
		return &q.dense[h]
	}
	return q.sparse[h]
}

// add is host h's queue, made if it has none.
func (q *hostQueues) add(h cluster.HostID) *taskQueue {
	if q.dense != nil {
		return &q.dense[h]
	}
	tq := q.sparse[h]
	if tq == nil {
		tq = &taskQueue{}
		q.sparse[h] = tq
	}
	return tq
}

func (e *Engine) nextLocal(j *Job, h cluster.HostID) (TaskRef, bool) {
	for _, st := range j.Stages {
		if st.Pending == 0 || st.Spec.Kind != workload.Map {
			continue
		}
		if q := st.byHost.at(h); q != nil {
			if i, ok := q.first(st); ok {
				return TaskRef{j.ID, int16(st.Index), i}, true
			}
		}
	}
	return TaskRef{}, false
}

func (e *Engine) nextRackLocal(j *Job, r cluster.RackID) (TaskRef, bool) {
	for _, st := range j.Stages {
		if st.Pending == 0 || st.Spec.Kind != workload.Map {
			continue
		}
		if q := st.byRack[r]; q != nil {
			if i, ok := q.first(st); ok {
				return TaskRef{j.ID, int16(st.Index), i}, true
			}
		}
	}
	return TaskRef{}, false
}

func (e *Engine) nextPending(j *Job, maps bool) (TaskRef, bool) {
	for _, st := range j.Stages {
		if st.Pending == 0 || (st.Spec.Kind == workload.Map) != maps {
			continue
		}
		if !maps && e.heldByEarlyLimit(st) {
			continue
		}
		if i, ok := st.queue.first(st); ok {
			return TaskRef{j.ID, int16(st.Index), i}, true
		}
	}
	return TaskRef{}, false
}

func (e *Engine) pendingOfKind(j *Job, maps bool) int {
	n := 0
	for _, st := range j.Stages {
		if (st.Spec.Kind == workload.Map) == maps {
			n += st.Pending
		}
	}
	return n
}

// earlyAllowed reports whether one more shuffle attempt may start before
// its upstream is done.
func (e *Engine) earlyAllowed() bool {
	return float64(e.early+1) <= e.cfg.EarlyShuffleLimit*float64(e.liveSlots)
}

// heldByEarlyLimit says that a launch in stage st, whose upstream is
// unfinished, would go over the early-shuffle limit, or would take a
// reduce-pool slot that its upstream still needs (upstreamNeedsPool).
func (e *Engine) heldByEarlyLimit(st *Stage) bool {
	return len(st.upstream) > 0 && !st.upDone && (!e.earlyAllowed() || e.upstreamNeedsPool(st))
}

// upstreamNeedsPool says that, on hosts with a reduce pool of their own,
// an upstream reduce or generic stage of st has tasks not yet launched:
// they need the same pool as st's early attempts, which could fill it and
// wait for them forever (the early-shuffle limit counts the slots of both
// pools, and nothing preempts an attempt under it). A map upstream runs
// in the other pool.
func (e *Engine) upstreamNeedsPool(st *Stage) bool {
	if !e.anySplit {
		return false
	}
	for _, u := range st.upstream {
		if up := st.job.Stages[u]; up.Spec.Kind != workload.Map && (up.Pending > 0 || !up.Released) {
			return true
		}
	}
	return false
}

// refreshUpstream keeps each stage's upDone flag, and the count of early
// shuffle attempts, in step with its upstream.
func (e *Engine) refreshUpstream(j *Job) {
	for _, st := range j.Stages {
		if len(st.upstream) == 0 {
			continue
		}
		done := e.upstreamDone(j, st)
		if done == st.upDone {
			continue
		}
		st.upDone = done
		if done {
			e.early -= st.running
			for ti := range st.Tasks {
				for _, id := range st.Tasks[ti].running {
					e.fixShuffle(e.attempts[id])
				}
			}
		} else {
			e.early += st.running
		}
	}
}

func (e *Engine) liveReplicas(st *Stage, i int32) []workload.Replica {
	t := &st.Tasks[i]
	if t.Block < 0 {
		return nil
	}
	reps := st.blocks[t.Block].Replicas
	for _, r := range reps {
		if !e.hosts[r.Host].alive {
			live := make([]workload.Replica, 0, len(reps))
			for _, r := range reps {
				if e.hosts[r.Host].alive {
					live = append(live, r)
				}
			}
			return live
		}
	}
	return reps
}
