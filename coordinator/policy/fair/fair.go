package fair

import (
	"fmt"
	"math"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/internal/mram"
	"github.com/racklab/racklab/coordinator/policy/netprio"
)

// Config holds the Fair Scheduler's knobs; the yaml tags name them as
// a campaign's policy args.
type Config struct {
	// NodeThreshold and RackThreshold are YARN's
	// locality.threshold.node/.rack: fractions of the cluster's node count
	// of skipped opportunities before relaxing locality. Negative disables
	// delay scheduling (YARN's default); the spec's default is 1.
	NodeThreshold float64 `yaml:"node_threshold"`
	RackThreshold float64 `yaml:"rack_threshold"`
	// SlowStart is the reduce slow-start the policy asks of the run,
	// unless the run sets one; 0 leaves the engine's default, Hadoop's
	// 0.05. dawn.md §4.1 asks for a 1.0 variant beside the default, to
	// tell the placement effect from the slot hoarding of early reducers.
	SlowStart float64 `yaml:"slow_start"`
	// YarnAM adds what Hadoop 2.7's MapReduce ApplicationMaster does with
	// a job's early reducers (package mram): ramp-up within the job's
	// share, and preemption when its maps wait with none running and no
	// container free. dawn.md §4.1 does not ask for it, so it is off by
	// default; without it a job whose early reducers fill its share can
	// hold them to the end of the run waiting for maps that never get a
	// container, which YARN would have preempted.
	YarnAM bool `yaml:"yarn_am"`
	// NetworkPriorities is "none" (every flow in one class: the network
	// shares by flow, pushbox.md §4.1's Hadoop) or "job_fifo" (§4.2's
	// Hadoop(FIFO): "Hadoop as above", delay scheduling included, with
	// the earliest submitted running job's flows first).
	NetworkPriorities string `yaml:"network_priorities"`
	// Classes is the number of job classes under job_fifo (4, PushBox's).
	Classes int `yaml:"classes"`
}

// DefaultConfig is the spec's configuration: both thresholds 1.0.
func DefaultConfig() Config {
	return Config{NodeThreshold: 1, RackThreshold: 1, NetworkPriorities: netprio.None, Classes: netprio.DefaultClasses}
}

// Policy is the Fair Scheduler.
type Policy struct {
	cfg   Config
	skips []int // per job
	order []*engine.Job
	am    mram.AM
	net   netprio.FIFO
}

// Validate checks the args' values.
func (c Config) Validate() error {
	if !(c.SlowStart >= 0 && c.SlowStart <= 1) {
		return fmt.Errorf("fair: slow_start %g is outside [0,1]", c.SlowStart)
	}
	return netprio.Validate("fair", c.NetworkPriorities, c.Classes)
}

// Configure asks for the configured slow-start, if any, unless the run
// sets one.
func (p *Policy) Configure(cfg *engine.Config) {
	if p.cfg.SlowStart > 0 {
		cfg.SlowStart = p.cfg.SlowStart
	}
}

// New returns a Fair Scheduler.
func New(cfg Config) *Policy {
	return &Policy{cfg: cfg, net: netprio.FIFO{Mode: cfg.NetworkPriorities, Classes: cfg.Classes}}
}

// JobFinished moves the later jobs' flows up a class under job_fifo.
func (p *Policy) JobFinished(ctx *engine.Context, _ engine.JobID) { p.net.Remark(ctx) }

// Config is the configuration the policy runs with.
func (p *Policy) Config() Config { return p.cfg }

// Name implements engine.Policy.
func (*Policy) Name() string { return "fair" }

// Skips is the number of opportunities a job has declined since its last
// local launch.
func (p *Policy) Skips(j engine.JobID) int {
	if int(j) < len(p.skips) {
		return p.skips[j]
	}
	return 0
}

// thresholds are the skip budgets of delay scheduling, as YARN's
// FSAppAttempt reads its thresholds: a fraction of the cluster's nodes,
// capped at 1; a negative one means no wait at its level (a negative node
// threshold, none at either: the level after it is never waited for).
func (p *Policy) thresholds(ctx *engine.Context) (node, rack int) {
	n := float64(len(ctx.Topology().Hosts))
	if p.cfg.NodeThreshold < 0 {
		return 0, 0
	}
	skips := func(t float64) int {
		if t < 0 {
			return 0
		}
		return int(math.Min(t, 1) * n)
	}
	return skips(p.cfg.NodeThreshold), skips(p.cfg.RackThreshold)
}

// OfferHost implements engine.HostScheduler.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	if len(p.skips) < len(ctx.Jobs()) {
		p.skips = append(p.skips, make([]int, len(ctx.Jobs())-len(p.skips))...)
	}
	if p.cfg.YarnAM {
		// after the offer, when the freed slot has been taken: the AM
		// preempts only while no container is free
		defer p.am.Preempt(ctx, mram.ClusterFree)
	}
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		if !p.assign(ctx, h) {
			return
		}
	}
}

// Order sorts the jobs with pending work in fair-share order: queues by
// running/weight, then jobs in their queue's ordering (by default fair:
// fewest running containers first, then submission).
func Order(ctx *engine.Context, buf []*engine.Job) []*engine.Job {
	buf = buf[:0]
	for _, j := range ctx.Running() {
		if j.Pending > 0 {
			buf = append(buf, j)
		}
	}
	qs := ctx.Queues()
	share := func(j *engine.Job) float64 {
		q := qs[j.Queue]
		w := q.Weight
		if w <= 0 {
			w = 1
		}
		return float64(q.Running) / w
	}
	sort.SliceStable(buf, func(a, b int) bool {
		ja, jb := buf[a], buf[b]
		if sa, sb := share(ja), share(jb); sa != sb {
			return sa < sb
		}
		// within a queue, its ordering (Fair's own: fewest running first);
		// across queues of equal share, fair unless both queues are FIFO
		oa, ob := qs[ja.Queue].Ordering.Resolve(engine.OrderFair), qs[jb.Queue].Ordering.Resolve(engine.OrderFair)
		if oa == engine.OrderFIFO && ob == engine.OrderFIFO {
			return engine.OrderFIFO.Less(ja, jb)
		}
		return engine.OrderFair.Less(ja, jb)
	})
	return buf
}

// launchOptions is a launch's job-FIFO class, asked only of the job that
// launches: under job_fifo a class costs a pass over the running jobs.
func (p *Policy) launchOptions(ctx *engine.Context, j engine.JobID) engine.LaunchOptions {
	return engine.LaunchOptions{Priority: p.net.Class(ctx, j)}
}

func (p *Policy) assign(ctx *engine.Context, h cluster.HostID) bool {
	tNode, tRack := p.thresholds(ctx)
	p.order = Order(ctx, p.order)
	for _, j := range p.order {
		if t, ok := ctx.NextPendingShuffle(j.ID); ok && (!p.cfg.YarnAM || mram.MayStartReducer(ctx, j, mram.ClusterFree)) {
			_, err := ctx.Launch(t, h, p.launchOptions(ctx, j.ID))
			return err == nil
		}
		allowed := engine.NodeLocal
		switch s := p.skips[j.ID]; {
		case s >= tNode+tRack:
			allowed = engine.Remote
		case s >= tNode:
			allowed = engine.RackLocal
		}
		if t, level, ok := ctx.PickMap(j.ID, h, allowed); ok {
			if _, err := ctx.Launch(t, h, p.launchOptions(ctx, j.ID)); err != nil {
				return false
			}
			if level == engine.NodeLocal {
				p.skips[j.ID] = 0
			}
			return true
		}
		if ctx.PendingMaps(j.ID) > 0 {
			p.skips[j.ID]++
		}
	}
	return false
}
