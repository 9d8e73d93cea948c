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
