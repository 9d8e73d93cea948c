package engine

import (
	"math/rand/v2"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// Policy is a scheduler under test. It implements HostScheduler (offered
// one host's free slots at a time, the heartbeat model) or RoundScheduler
// (offered every free slot at once), and any of the optional hooks below.
// A policy must not keep references to engine state across calls beyond
// ids, must not do I/O, and must draw randomness only from Context.Rand.
type Policy interface {
	Name() string
}

// HostScheduler is offered the free slots of one host, as a heartbeat from
// that host. It launches zero or more attempts there through ctx.Launch;
// launching none leaves the slots idle.
type HostScheduler interface {
	OfferHost(ctx *Context, host cluster.HostID)
}

// RoundScheduler is offered every free slot of the cluster in one batch.
type RoundScheduler interface {
	ScheduleRound(ctx *Context, free []cluster.HostID)
}

// Planner is the offline-plan hook: called once before any job arrives,
// with the whole workload (predicted sizes and arrivals) in hand.
type Planner interface {
	Plan(ctx *Context, fk *Foreknowledge)
}

// Foreknowledge is what an offline planner may know of the future.
type Foreknowledge struct {
	Workload *workload.Workload
	Datasets *workload.Datasets
}

// DatasetPlacer places an unplaced dataset at upload time, before the run.
// It returns one replica list per block size given.
type DatasetPlacer interface {
	PlaceDataset(t *cluster.Topology, rng *rand.Rand, d *workload.Dataset, blockSizes []int64) ([][]workload.Replica, error)
}

// OutputPlacer chooses where a final-stage attempt writes its output
// replicas. The result must have at least one replica; the first should
// normally be the writer's own host.
type OutputPlacer interface {
	PlaceOutput(ctx *Context, a *Attempt, replicas int) []workload.Replica
}

// JobSubmittedHook is told when a job is submitted (arrived, parents done).
type JobSubmittedHook interface {
	JobSubmitted(ctx *Context, job JobID)
}

// JobFinishedHook is told when a job succeeds or fails.
type JobFinishedHook interface {
	JobFinished(ctx *Context, job JobID)
}

// AttemptEndedHook is told of every attempt that ends, whatever its outcome,
// after the engine has applied it.
type AttemptEndedHook interface {
	AttemptEnded(ctx *Context, a *Attempt)
}

// StageReleasedHook is told when a stage's tasks become runnable.
type StageReleasedHook interface {
	StageReleased(ctx *Context, job JobID, stage int)
}

// HostLostHook is told when a host dies, after its attempts have failed.
type HostLostHook interface {
	HostLost(ctx *Context, host cluster.HostID)
}

// OutputDecision is what a policy does with a successful attempt's output.
type OutputDecision uint8

const (
	// UseOutput makes the attempt's output the task's output, kills the
	// task's other attempts and finishes the task.
	UseOutput OutputDecision = iota
	// HoldOutput keeps the output as a candidate; the policy picks one
	// later with Context.UseHeldOutput.
	HoldOutput
	// DiscardOutput drops the output; the task stays unfinished.
	DiscardOutput
)

// OutputChooser decides, for each successful attempt of an unfinished
// task, whether consumers read its output (Shadow, KMN, speculation).
// Without it the first attempt to succeed wins.
type OutputChooser interface {
	ChooseOutput(ctx *Context, a *Attempt) OutputDecision
}

// LaunchOptions refine a launch.
type LaunchOptions struct {
	// Source, for a map task, is the replica to read; nil lets the engine
	// pick the closest, fastest live replica.
	Source *workload.Replica
	// Priority is the attempt's network priority class, 0 highest.
	Priority uint8
}

// NetworkStatus is the network as the driver last measured it. Loads are
// fractions of capacity.
type NetworkStatus struct {
	UplinkLoad   []float64 // per rack
	DownlinkLoad []float64 // per rack
	HostRxBps    []float64 // per host
	// SaturationThreshold is the load above which a link counts as
	// saturated.
	SaturationThreshold float64
}

// UplinkSaturated reports whether a rack's uplink is above the threshold.
func (n *NetworkStatus) UplinkSaturated(r cluster.RackID) bool {
	return int(r) < len(n.UplinkLoad) && n.UplinkLoad[r] >= n.SaturationThreshold
}

// DownlinkSaturated reports whether a rack's downlink is above the threshold.
func (n *NetworkStatus) DownlinkSaturated(r cluster.RackID) bool {
	return int(r) < len(n.DownlinkLoad) && n.DownlinkLoad[r] >= n.SaturationThreshold
}

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

// FreeSlots is the number of idle slots on a live host.
func (c *Context) FreeSlots(h cluster.HostID) int { return c.e.hosts[h].free }

// Alive reports whether a host is up.
func (c *Context) Alive(h cluster.HostID) bool { return c.e.hosts[h].alive }

// RunningOn lists the running attempts on a host.
func (c *Context) RunningOn(h cluster.HostID) []AttemptID { return c.e.hosts[h].running }

// Attempt returns a running attempt, or nil.
func (c *Context) Attempt(id AttemptID) *Attempt { return c.e.attempts[id] }

// PendingTasks is the number of runnable tasks without a running attempt,
// over all jobs.
func (c *Context) PendingTasks() int { return c.e.pending }

// TotalSlots is the number of slots on live hosts.
func (c *Context) TotalSlots() int { return c.e.liveSlots }

// Task returns a task's state.
func (c *Context) Task(t TaskRef) *Task {
	j := c.e.jobs[t.Job]
	return &j.Stages[t.Stage].Tasks[t.Index]
}

// Replicas returns the live replicas of a map task's input block.
func (c *Context) Replicas(t TaskRef) []workload.Replica {
	return c.e.liveReplicas(c.e.jobs[t.Job].Stages[t.Stage], t.Index)
}

// NextNodeLocal returns a pending map task of the job with a live replica
// on the host.
func (c *Context) NextNodeLocal(j JobID, h cluster.HostID) (TaskRef, bool) {
	return c.e.nextLocal(c.e.jobs[j], h)
}

// NextRackLocal returns a pending map task of the job with a live replica
// in the rack.
func (c *Context) NextRackLocal(j JobID, r cluster.RackID) (TaskRef, bool) {
	return c.e.nextRackLocal(c.e.jobs[j], r)
}

// NextPendingMap returns the first pending map task of the job, wherever
// its input is.
func (c *Context) NextPendingMap(j JobID) (TaskRef, bool) {
	return c.e.nextPending(c.e.jobs[j], true)
}

// NextPendingShuffle returns the first pending reduce or generic task of
// the job (these have no input locality).
func (c *Context) NextPendingShuffle(j JobID) (TaskRef, bool) {
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

// PendingMaps and PendingShuffles count a job's runnable tasks by kind.
func (c *Context) PendingMaps(j JobID) int { return c.e.pendingOfKind(c.e.jobs[j], true) }

// PendingShuffles counts a job's runnable reduce and generic tasks.
func (c *Context) PendingShuffles(j JobID) int { return c.e.pendingOfKind(c.e.jobs[j], false) }
