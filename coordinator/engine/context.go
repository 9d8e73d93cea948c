package engine

import (
	"math/rand/v2"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// Context is a policy's view of the engine during one hook call: read
// access to the state, and the actions a policy may take. Actions are
// checked; an invalid one returns an error, is counted, and changes nothing.
type Context struct {
	e *Engine
}

// Now is the current time.
func (c *Context) Now() Time { return c.e.now }

// Rand is the run's seeded random source.
func (c *Context) Rand() *rand.Rand { return c.e.rng }

// Topology is the cluster.
func (c *Context) Topology() *cluster.Topology { return c.e.topo }

// Network is the last measured network status.
func (c *Context) Network() *NetworkStatus { return &c.e.network }

// Running lists the submitted, unfinished jobs in submission order. The
// slice is the engine's: do not modify it.
func (c *Context) Running() []*Job { return c.e.running }

// Job returns a job by id.
func (c *Context) Job(id JobID) *Job { return c.e.jobs[id] }

// Jobs is every job of the workload, in workload order.
func (c *Context) Jobs() []*Job { return c.e.jobs }

// Queues are the run's queues; Job.Queue indexes them.
func (c *Context) Queues() []Queue { return c.e.queues }

// FreeSlots is the number of idle slots on a live host: during the offer
// of a pool of split pools (Offering), of that pool; otherwise of every
// pool of the host.
func (c *Context) FreeSlots(h cluster.HostID) int { return c.e.freeOf(h, c.e.offering) }

// Alive reports whether a host is up.
func (c *Context) Alive(h cluster.HostID) bool { return c.e.hosts[h].alive }

// RunningOn lists the running attempts on a host.
func (c *Context) RunningOn(h cluster.HostID) []AttemptID { return c.e.hosts[h].running }

// Attempt returns a running attempt, or nil.
func (c *Context) Attempt(id AttemptID) *Attempt { return c.e.attempts[id] }

// PendingTasks is the number of runnable tasks without a running attempt,
// over all jobs (during the offer of a map or a reduce pool, of the tasks
// that pool runs).
func (c *Context) PendingTasks() int { return c.e.pendingOffered() }

// TotalSlots is the number of slots on live hosts, of every pool.
func (c *Context) TotalSlots() int { return c.e.liveSlots }

// IntermediateTier is the tier host h writes map outputs to, and
// OutputTier the one it writes a job's final output to (the run's tier
// preferences): a planner's cost model needs their rates.
func (c *Context) IntermediateTier(h cluster.HostID) cluster.TierKind { return c.e.IntermediateTier(h) }

// OutputTier: see IntermediateTier.
func (c *Context) OutputTier(h cluster.HostID) cluster.TierKind {
	return c.e.tierFor(h, c.e.cfg.OutputTiers)
}

// OutputCopies is how a final output of n replicas written on writer
// goes over the network as this run writes outputs: out, the copies the
// writer's NIC sends, and cross, the copies that cross racks, each hop
// counted as the engine counts output bytes (from the writer, or from the
// replica before it with Config.OutputPipeline). They are means over
// draws placements by the run's output placer, drawn from rng, the
// caller's own: the run's randomness is left as it was. A planner that
// costs a task's output write needs them, as the writer waits for every
// copy.
func (c *Context) OutputCopies(rng *rand.Rand, writer cluster.HostID, n, draws int) (out, cross float64) {
	e := c.e
	n = max(n, 1)
	if e.cfg.OutputPlacer == nil {
		draws = 1 // the default placement draws nothing
	}
	draws = max(draws, 1)
	alive := func(h cluster.HostID) bool { return e.hosts[h].alive }
	for range draws {
		var reps []workload.Replica
		if e.cfg.OutputPlacer != nil {
			reps = e.cfg.OutputPlacer.PlaceReplicas(e.topo, rng, writer, n, alive)
		}
		if !e.validReplicas(reps) || reps[0].Host != writer {
			reps = e.defaultOutput(writer, n)
		}
		EachOutputHop(writer, reps[1:], e.cfg.OutputPipeline, func(from cluster.HostID, to workload.Replica) {
			if from == writer && to.Host != writer {
				out++
			}
			if e.topo.RackOf(from) != e.topo.RackOf(to.Host) {
				cross++
			}
		})
	}
	return out / float64(draws), cross / float64(draws)
}

// Task returns a task's state.
func (c *Context) Task(t TaskRef) *Task {
	j := c.e.jobs[t.Job]
	return &j.Stages[t.Stage].Tasks[t.Index]
}

// TierMoves counts the replica tier changes so far (the memory tier's
// uploads and demotions, a policy's moves): a policy that caches where
// replicas are, by tier, rebuilds its cache when the count has changed.
func (c *Context) TierMoves() int64 { return c.e.tierMoves }

// Replicas returns the live replicas of a map task's input block.
func (c *Context) Replicas(t TaskRef) []workload.Replica {
	return c.e.liveReplicas(c.e.jobs[t.Job].Stages[t.Stage], t.Index)
}

// The pending-task helpers below find nothing of the kind the pool on
// offer cannot run: no map during the offer of a reduce pool, no reduce
// or generic task during the offer of a map pool (Offering).

// NextNodeLocal returns a pending map task of the job with a live replica
// on the host.
func (c *Context) NextNodeLocal(j JobID, h cluster.HostID) (TaskRef, bool) {
	if !c.e.offersMaps() {
		return TaskRef{}, false
	}
	return c.e.nextLocal(c.e.jobs[j], h)
}

// NextRackLocal returns a pending map task of the job with a live replica
// in the rack.
func (c *Context) NextRackLocal(j JobID, r cluster.RackID) (TaskRef, bool) {
	if !c.e.offersMaps() {
		return TaskRef{}, false
	}
	return c.e.nextRackLocal(c.e.jobs[j], r)
}

// NextPendingMap returns the first pending map task of the job, wherever
// its input is.
func (c *Context) NextPendingMap(j JobID) (TaskRef, bool) {
	if !c.e.offersMaps() {
		return TaskRef{}, false
	}
	return c.e.nextPending(c.e.jobs[j], true)
}

// NextPendingShuffle returns the first pending reduce or generic task of
// the job (these have no input locality).
func (c *Context) NextPendingShuffle(j JobID) (TaskRef, bool) {
	if !c.e.offersShuffles() {
		return TaskRef{}, false
	}
	return c.e.nextPending(c.e.jobs[j], false)
}

// Launch starts an attempt of a task on a host.
func (c *Context) Launch(t TaskRef, h cluster.HostID, opt LaunchOptions) (AttemptID, error) {
	return c.e.launch(t, h, opt, false)
}

// LaunchDuplicate starts a further attempt of a task that already has one.
func (c *Context) LaunchDuplicate(t TaskRef, h cluster.HostID, opt LaunchOptions) (AttemptID, error) {
	return c.e.launch(t, h, opt, true)
}

// Kill ends a running attempt.
func (c *Context) Kill(id AttemptID) error { return c.e.kill(id, "policy") }

// SetPriority changes a running attempt's network priority class; the
// driver re-marks its transfers.
func (c *Context) SetPriority(id AttemptID, class uint8) error { return c.e.setPriority(id, class) }

// UseHeldOutput finishes a task with one of its held outputs.
func (c *Context) UseHeldOutput(id AttemptID) error { return c.e.useHeld(id) }

// Reject counts a policy's own refusal of an impossible plan, so that it
// shows in the run's records like any rejected action.
func (c *Context) Reject(reason string) { c.e.reject(reason) }

// PickMap returns the job's best pending map task for a host, no further
// than maxLevel from its input: node-local, then rack-local, then any.
func (c *Context) PickMap(j JobID, h cluster.HostID, maxLevel Locality) (TaskRef, Locality, bool) {
	if t, ok := c.NextNodeLocal(j, h); ok {
		return t, NodeLocal, true
	}
	if maxLevel >= RackLocal {
		if t, ok := c.NextRackLocal(j, c.e.topo.RackOf(h)); ok {
			return t, RackLocal, true
		}
	}
	if maxLevel >= Remote {
		if t, ok := c.NextPendingMap(j); ok {
			return t, Remote, true
		}
	}
	return TaskRef{}, 0, false
}

// Pending appends to buf the job's runnable tasks that have no running
// attempt, stage by stage in task order (during the offer of a map or a
// reduce pool, those of the kind it runs).
func (c *Context) Pending(j JobID, buf []TaskRef) []TaskRef {
	job := c.e.jobs[j]
	if job.Pending == 0 {
		return buf
	}
	for _, st := range job.Stages {
		if st.Pending == 0 || !c.e.offers(st.Spec.Kind) {
			continue
		}
		for i := range st.Tasks {
			if st.Tasks[i].State == TaskPending {
				buf = append(buf, TaskRef{Job: j, Stage: int16(st.Index), Index: int32(i)})
			}
		}
	}
	return buf
}

// CanRun reports whether a task may be launched now somewhere: it is
// pending, its job runs, the pool on offer (if any) runs its kind, and a
// reduce or generic task whose upstream is unfinished fits the
// early-shuffle limit. (Whether a host has a slot is FreeSlots' business.)
func (c *Context) CanRun(t TaskRef) bool {
	st, ok := c.offerable(t)
	return ok && !c.e.heldByEarlyLimit(st)
}

// HeldByEarlyLimit reports whether a task could be launched now but for
// the early-shuffle limit (LaunchOptions.OverEarlyLimit).
func (c *Context) HeldByEarlyLimit(t TaskRef) bool {
	st, ok := c.offerable(t)
	return ok && c.e.heldByEarlyLimit(st)
}

// offerable returns a task's stage when the task is pending, its job
// runs and the pool on offer (if any) runs its kind.
func (c *Context) offerable(t TaskRef) (*Stage, bool) {
	j, st, task, ok := c.e.lookup(t)
	if !ok || j.State != JobRunning || task.State != TaskPending || !c.e.offers(st.Spec.Kind) {
		return nil, false
	}
	return st, true
}

// EarlyShuffles returns how many running attempts started before their
// upstream finished (those the early-shuffle limit counts) and how many
// attempts run in all.
func (c *Context) EarlyShuffles() (early, running int) { return c.e.early, len(c.e.attempts) }

// StageOutputByRack appends to buf, per rack, the bytes of a stage's done
// outputs there: the intermediate data its consumers will fetch (a final
// stage's: its job's output, by first replica).
func (c *Context) StageOutputByRack(j JobID, stage int, buf []int64) []int64 {
	st := c.e.jobs[j].Stages[stage]
	if st.outByRack == nil {
		for range c.e.topo.Racks {
			buf = append(buf, 0)
		}
		return buf
	}
	return append(buf, st.outByRack...)
}

// ExpectedStageOutput is a stage's total output as far as it can be told
// now: what its done and running tasks write, and what those not launched
// yet are expected to from their upstream's expected output. A policy
// sizing a coflow before its upstream has run (PushBox, NEAT) reads it;
// summing the tasks' OutputBytes would count 0 for every reduce or
// generic task not yet launched.
func (c *Context) ExpectedStageOutput(j JobID, stage int) int64 {
	job := c.e.jobs[j]
	return c.e.expectedOutput(job, job.Stages[stage])
}

// ShuffleAvailable fills byRack (one entry per rack) with the bytes of a
// running reduce or generic attempt's partition that sit now in its
// upstream's done outputs, and returns the part on its own host.
func (c *Context) ShuffleAvailable(id AttemptID, byRack []int64) (onHost int64) {
	a := c.e.attempts[id]
	if a == nil {
		clear(byRack)
		return 0
	}
	return c.e.ShuffleAvailable(a, byRack)
}

// SetReplicaTier moves the replica of a dataset's block on a host to
// another of that host's tiers (Trident's memory tier demotes a replica
// to HDD, or promotes one into memory). The driver moves the bytes
// (Ready.TierMoves); map attempts launched after the call read from the
// new tier.
func (c *Context) SetReplicaTier(dataset string, block int, h cluster.HostID, to cluster.TierKind) error {
	return c.e.setReplicaTier(dataset, block, h, to)
}

// PartitionShare is a reduce or generic task's share of each upstream
// stage's output (its partition; the shares of a stage's tasks add up to
// 1, larger for lower indexes when the stage is skewed), and 0 for a map:
// with the upstream's output it gives the input a pending task will
// fetch, before a launch fixes it.
func (c *Context) PartitionShare(t TaskRef) float64 {
	_, st, _, ok := c.e.lookup(t)
	if !ok || st.cumShares == nil {
		return 0
	}
	return st.cumShares[t.Index+1] - st.cumShares[t.Index]
}

// PendingMaps and PendingShuffles count a job's runnable tasks by kind.
// During the offer of a reduce pool PendingMaps is 0, and during that of
// a map pool PendingShuffles is: a slot maps cannot take is no scheduling
// opportunity a map missed (delay scheduling counts none). Job.Pending
// counts every kind.
func (c *Context) PendingMaps(j JobID) int {
	if !c.e.offersMaps() {
		return 0
	}
	return c.e.pendingOfKind(c.e.jobs[j], true)
}

// PendingShuffles counts a job's runnable reduce and generic tasks.
func (c *Context) PendingShuffles(j JobID) int {
	if !c.e.offersShuffles() {
		return 0
	}
	return c.e.pendingOfKind(c.e.jobs[j], false)
}
