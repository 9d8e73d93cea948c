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
// A host with map and reduce pools of its own is offered each pool in
// turn (Context.Offering).
type HostScheduler interface {
	OfferHost(ctx *Context, host cluster.HostID)
}

// RoundScheduler is offered every free slot of the cluster in one batch.
// When some host has map and reduce pools of its own, the batch is two: a
// round of the map pools, then one of the reduce pools (Context.Offering).
type RoundScheduler interface {
	ScheduleRound(ctx *Context, free []cluster.HostID)
}

// Configurer states a policy's defaults for the run's mechanisms (Dawn and
// ShuffleWatcher want slow-start 1, for example). Configure may set any
// field; the engine takes only those the run's own config left unset.
type Configurer interface {
	Configure(cfg *Config)
}

// Planner is the offline-plan hook: called once in New, before any data is
// placed and before any job arrives, with the whole workload (predicted
// sizes and arrivals) in hand. A planner that places data is also a
// DatasetPlacer: PlaceDataset is called after Plan. Context's actions do
// nothing yet (there are no jobs); its Topology and Rand are there.
type Planner interface {
	Plan(ctx *Context, fk *Foreknowledge)
}

// Foreknowledge is what an offline planner may know of the future: the
// workload and its datasets as they will run (the datasets unplaced where
// the planner may place them), and the predictions it is told, which may
// differ from what will run.
type Foreknowledge struct {
	Workload  *workload.Workload
	Datasets  *workload.Datasets
	Predicted *workload.Predicted // nil: nothing beyond the workload
}

// FigureReporter is a policy with figures of its own for the run's
// records (Corral's planned objective and its LP lower bound): named
// values, read once the run has ended (Engine.RecordPolicyFigures), so a
// figure may be costly to compute. The names are summary.csv columns
// (bench/metrics.PolicyFigureColumns lists those the records keep); a
// figure the policy has no value for is left out. Figures must follow
// from the run alone, never from a clock, so that identical runs record
// identical figures.
type FigureReporter interface {
	Figures() map[string]float64
}

// ReplicaPlacer places the replicas of a file written on a host, as a
// distributed file system would (hdfs.Placer). usable says which hosts may
// hold one (the live ones); fewer replicas come back if too few are.
type ReplicaPlacer interface {
	PlaceReplicas(t *cluster.Topology, rng *rand.Rand, writer cluster.HostID, n int, usable func(cluster.HostID) bool) []workload.Replica
}

// DatasetPlacer places an unplaced dataset at upload time, before the run.
// It returns one replica list per block size given.
type DatasetPlacer interface {
	PlaceDataset(t *cluster.Topology, rng *rand.Rand, d *workload.Dataset, blockSizes []int64) ([][]workload.Replica, error)
}

// OutputPlacer chooses where a final-stage attempt writes its output
// replicas. The result must have at least one replica, the first on the
// writer's own host (the copy its worker writes; the others are sent from
// it), or the engine refuses it and places the output itself.
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
// once its slot is free and its bytes are counted. A successful attempt
// finishes its task only after the hook returns: the task is not yet done
// with it (and is done already if another attempt won). Likewise a task
// whose failed or killed attempt was its last running one is queued again
// only after the hook returns: it is then neither running nor pending.
type AttemptEndedHook interface {
	AttemptEnded(ctx *Context, a *Attempt)
}

// InputDoneHook is told when a running attempt has its whole input, before
// it computes and writes (Engine.InputDone).
type InputDoneHook interface {
	InputDone(ctx *Context, a *Attempt)
}

// StageReleasedHook is told when a stage's tasks become runnable.
type StageReleasedHook interface {
	StageReleased(ctx *Context, job JobID, stage int)
}

// NetworkMeasuredHook is told of each network measurement the driver
// hands in (Engine.SetNetwork), after Context.Network holds it: a policy
// that smooths a rate over every measurement (ShuffleWatcher's EMA of
// each host's receive utilisation) takes each one there, not only those
// that happen to precede an offer. It must not launch.
type NetworkMeasuredHook interface {
	NetworkMeasured(ctx *Context)
}

// HostLostHook is told when a host dies, after its attempts have failed.
type HostLostHook interface {
	HostLost(ctx *Context, host cluster.HostID)
}

// Failer is a policy that can find, during a run, that it cannot go on:
// a replay whose records name a task this run's stage does not have. The
// drivers stop the run with its error (Engine.PolicyErr) rather than let
// it stall; the error should name the input at fault, file and line.
type Failer interface {
	Err() error
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
	// Note is what the policy acted on, for the run's records; the zero
	// value records nothing.
	Note DecisionNote
	// OverEarlyLimit launches a reduce or generic task whose upstream is
	// unfinished even when the early-shuffle limit is reached. It is a
	// replay's way out of a deadlock (package replay): the recorded run
	// kept to the limit on its own timeline, and a replay on another can
	// find every running attempt waiting for an upstream launch that the
	// limit holds back. A scheduler has no use for it.
	OverEarlyLimit bool
}

// Saturation is whether the network was saturated, as a policy saw it
// when it decided a launch.
type Saturation uint8

const (
	SaturationUnknown Saturation = iota // the policy did not say
	Unsaturated
	Saturated
	numSaturations
)

var saturationNames = [...]string{"unknown", "unsaturated", "saturated"}

func (s Saturation) String() string {
	if s >= numSaturations {
		return "invalid"
	}
	return saturationNames[s]
}

// DecisionNote is what a policy acted on when it launched an attempt:
// the network's state as it saw it, and why it chose this job on this
// host. The engine stores it with the attempt (Attempt.Note) and the
// records carry it, so that a run's statistics of how tasks were
// scheduled (Dawn's §6.3) come from any driver. The zero value is no
// note.
type DecisionNote struct {
	Saturation Saturation
	// Reason is a short code from the policy's own closed set (Dawn's
	// "aggregate", "zero-traffic", ...): lower-case letters, digits and
	// '-', at most MaxReasonLen bytes. Pass a constant: a note then costs
	// the decision no allocation.
	Reason string
}

// MaxReasonLen is the longest DecisionNote.Reason the engine takes.
const MaxReasonLen = 32

// IsZero reports whether the note says nothing.
func (n DecisionNote) IsZero() bool { return n == DecisionNote{} }

// valid reports whether the note is one the records can hold as it is.
func (n DecisionNote) valid() bool {
	if n.Saturation >= numSaturations || len(n.Reason) > MaxReasonLen {
		return false
	}
	for i := 0; i < len(n.Reason); i++ {
		c := n.Reason[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
