package tierpick

import (
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/internal/yarnrm"
)

// Base is the state H-Scheduler and Quartet keep alike, with the engine
// hooks that keep it: each job's wait (restarted at submission, dropped
// at the end), the RM's gate, the index of pending maps (stale when a map
// is to run again or a host is lost), the inter-job order and the
// launches per reason code. A policy embeds it and adds its own rule.
type Base struct {
	Wait  *Wait
	Gate  *yarnrm.Gate // the RM's; nil without one (node_locality_delay 0)
	Index Indexes
	// Reasons counts launches per reason code, for Inspect.
	Reasons map[string]int
	order   string
	jobs    []*engine.Job
}

// NewBase returns the shared state: jobs in order (fifo or fair), a wait
// of wait per job, and the RM's gate when nodeLocalityDelay > 0.
func NewBase(order string, wait time.Duration, nodeLocalityDelay int, offSwitchLocations string) Base {
	b := Base{Wait: NewWait(wait), Reasons: make(map[string]int), order: order}
	if nodeLocalityDelay > 0 {
		b.Gate = yarnrm.New(nodeLocalityDelay, offSwitchLocations)
	}
	return b
}

// JobSubmitted implements engine.JobSubmittedHook: the job's wait starts.
func (b *Base) JobSubmitted(ctx *engine.Context, j engine.JobID) { b.Wait.Restart(j, ctx.Now()) }

// JobFinished implements engine.JobFinishedHook.
func (b *Base) JobFinished(_ *engine.Context, j engine.JobID) {
	b.Wait.Forget(j)
	b.Index.Drop(j)
}

// AttemptEnded implements engine.AttemptEndedHook: a map to run again
// makes its job's index stale.
func (b *Base) AttemptEnded(ctx *engine.Context, a *engine.Attempt) { b.Index.AttemptEnded(ctx, a) }

// HostLost implements engine.HostLostHook: replicas died, maps rerun.
func (b *Base) HostLost(*engine.Context, cluster.HostID) { b.Index.DropAll() }

// Jobs is the running jobs in the policy's order (JobOrder).
func (b *Base) Jobs(ctx *engine.Context) []*engine.Job {
	b.jobs = JobOrder(ctx, b.order, b.jobs)
	return b.jobs
}
