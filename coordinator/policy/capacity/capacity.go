package capacity

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/internal/mram"
	"github.com/racklab/racklab/coordinator/policy/internal/yarnrm"
)

// Config holds the Capacity Scheduler's knobs; the yaml tags name them
// as a campaign's policy args.
type Config struct {
	// NodeLocalityDelay is yarn.scheduler.capacity.node-locality-delay;
	// 0 means hosts per rack, as the Corral spec sets it. Hadoop 2.7
	// ships 40 (trident.md §4.2); the rule takes min(#nodes, delay).
	NodeLocalityDelay int `yaml:"node_locality_delay"`
	// OffSwitchLocations is how the off-switch rule counts a job's
	// #uniqueRequestedLocations (Hadoop's locality wait factor,
	// min(locations / #nodes, 1)): "estimate" (the default, also when
	// empty) takes three per pending map, as if every block had three
	// replicas on distinct nodes; "requested" counts the distinct hosts
	// and racks the live replicas of the pending maps name, the resource
	// requests an MR AM sends (Hadoop 2.7's getLocalityWaitFactor: every
	// request but the "*" one).
	OffSwitchLocations string `yaml:"off_switch_locations"`
	// YarnAM adds Hadoop 2.7's MapReduce ApplicationMaster's handling of
	// early reducers (package mram), as fair's arg of the same name does;
	// off by default, as the specs do not ask for it.
	YarnAM bool `yaml:"yarn_am"`
	// OneOffSwitch ends a node heartbeat after its first off-switch
	// container, as Hadoop 2.7's root queue does (yarnrm.Heartbeats): a
	// reducer, whose requests are all "*", or a map the RM served at
	// "*"; the node then takes nothing until its next heartbeat, Heartbeat
	// later. Off by default, as neither corral.md §4.1 nor trident.md
	// §4.2 states it; the Corral and Trident campaigns turn it on for
	// every YARN scheduler they compare.
	OneOffSwitch bool `yaml:"one_off_switch_per_heartbeat"`
	// Heartbeat is the nodes' heartbeat interval the rule waits out
	// (Hadoop 2.7's 1s).
	Heartbeat time.Duration `yaml:"heartbeat"`
	// SingleQueue runs every job in one FIFO queue of the whole cluster,
	// whatever queue the workload names for it, as corral.md §4.1
	// configures Yarn-CS ("a single queue with 100% capacity"): a
	// workload's queues then only label its jobs (Corral's mix of
	// recurring and ad hoc jobs). Off by default: the run's queues with
	// their capacities.
	SingleQueue bool `yaml:"single_queue"`
}

// DefaultConfig is the Corral spec's configuration.
func DefaultConfig() Config {
	return Config{OffSwitchLocations: "estimate", Heartbeat: yarnrm.DefaultHeartbeat}
}

// Validate rejects a negative delay, which YARN does not define, and an
// unknown way of counting locations.
func (c Config) Validate() error {
	if c.NodeLocalityDelay < 0 {
		return fmt.Errorf("node_locality_delay is %d: want 0 (hosts per rack) or more", c.NodeLocalityDelay)
	}
	if err := yarnrm.CheckHeartbeat(c.Heartbeat); err != nil {
		return err
	}
	return yarnrm.CheckLocations(c.OffSwitchLocations)
}

// Policy is the Capacity Scheduler.
type Policy struct {
	// Only, when set, limits the scheduler to the jobs it accepts: a
	// policy that plans some jobs itself (Corral) hands it the rest.
	Only func(*engine.Job) bool

	cfg    Config
	am     mram.AM
	gate   *yarnrm.Gate // the RM's delay scheduling: missed opportunities per job
	beats  yarnrm.Heartbeats
	queues []int
	jobs   []*engine.Job
}

// New returns a Capacity Scheduler.
func New(cfg Config) *Policy {
	return &Policy{cfg: cfg, gate: yarnrm.New(cfg.NodeLocalityDelay, cfg.OffSwitchLocations),
		beats: yarnrm.Heartbeats{OneOffSwitch: cfg.OneOffSwitch, Interval: cfg.Heartbeat}}
}

// Config is the configuration the policy runs with.
func (p *Policy) Config() Config { return p.cfg }

// Name implements engine.Policy.
func (*Policy) Name() string { return "capacity" }

// OfferHost implements engine.HostScheduler.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	if p.cfg.YarnAM {
		// after the offer, when the freed slot has been taken: the AM
		// preempts only while no container is free
		defer p.am.Preempt(ctx, p.headroom)
	}
	p.beats.Fill(ctx, h, func(h cluster.HostID) (bool, bool) { return p.assign(ctx, h) })
}

// guarantee is a queue's guaranteed share: its configured capacity, or an
// equal split among queues that configure none.
func guarantee(qs []engine.Queue, i int) float64 {
	if qs[i].Capacity > 0 {
		return qs[i].Capacity
	}
	var set float64
	unset := 0
	for _, q := range qs {
		if q.Capacity > 0 {
			set += q.Capacity
		} else {
			unset++
		}
	}
	return math.Max(1-set, 0) / float64(unset)
}

// assign launches one container's task on h, if any job takes it, and
// says whether the RM typed the container off-switch (a reducer's, or a
// map's it served at "*": yarnrm.Grant.Served).
func (p *Policy) assign(ctx *engine.Context, h cluster.HostID) (launched, offSwitch bool) {
	qs := ctx.Queues()
	slots := float64(ctx.TotalSlots())
	p.queues = p.queues[:0]
	if p.cfg.SingleQueue {
		p.queues = append(p.queues, allQueues)
	}
	for i := range qs {
		if p.cfg.SingleQueue {
			break
		}
		if most, ok := maxContainers(qs[i], ctx.TotalSlots()); ok && qs[i].Running >= most {
			continue // at its elastic limit
		}
		p.queues = append(p.queues, i)
	}
	used := func(i int) float64 {
		g := guarantee(qs, i)
		if g <= 0 {
			return math.Inf(1)
		}
		return float64(qs[i].Running) / (g * slots)
	}
	sort.SliceStable(p.queues, func(a, b int) bool { return used(p.queues[a]) < used(p.queues[b]) })
	for _, q := range p.queues {
		p.jobs = p.jobs[:0]
		for _, j := range ctx.Running() {
			if (q == allQueues || j.Queue == q) && j.Pending > 0 && (p.Only == nil || p.Only(j)) {
				p.jobs = append(p.jobs, j)
			}
		}
		// YARN's capacity queues are FIFO unless told otherwise (the
		// single queue is: Running is in submission order)
		if q != allQueues {
			if o := qs[q].Ordering.Resolve(engine.OrderFIFO); o != engine.OrderFIFO {
				sort.SliceStable(p.jobs, func(a, b int) bool { return o.Less(p.jobs[a], p.jobs[b]) })
			}
		}
		for _, j := range p.jobs {
			if t, ok := ctx.NextPendingShuffle(j.ID); ok && (!p.cfg.YarnAM || mram.MayStartReducer(ctx, j, p.headroom)) {
				_, err := ctx.Launch(t, h, engine.LaunchOptions{})
				return err == nil, true
			}
			grant := p.gate.Offer(ctx, j.ID)
			if t, _, ok := ctx.PickMap(j.ID, h, grant.Level); ok {
				served := grant.Served(ctx, j.ID, h)
				if _, err := ctx.Launch(t, h, engine.LaunchOptions{}); err != nil {
					return false, false
				}
				p.gate.Launched(j.ID, served)
				return true, served == engine.Remote
			}
		}
	}
	return false, false
}

// allQueues stands, in assign's list of queues, for the single queue of
// every job (Config.SingleQueue).
const allQueues = -1

// headroom is a job's headroom: the cluster's free containers in the
// single queue, else its queue's (queueHeadroom).
func (p *Policy) headroom(ctx *engine.Context, j *engine.Job) int {
	if p.cfg.SingleQueue {
		return mram.ClusterFree(ctx, j)
	}
	return queueHeadroom(ctx, j)
}

// queueHeadroom is a job's headroom as YARN's capacity scheduler gives
// it: the cluster's free containers, but no more than its queue may still
// take below its max capacity.
func queueHeadroom(ctx *engine.Context, j *engine.Job) int {
	free := mram.ClusterFree(ctx, j)
	q := ctx.Queues()[j.Queue]
	if most, ok := maxContainers(q, ctx.TotalSlots()); ok {
		free = min(free, max(0, most-q.Running))
	}
	return free
}

// maxContainers is the most a queue with a max capacity may hold: it
// may take another container while it holds fewer than MaxCapacity of
// the slots. ok is false for a queue with no maximum.
func maxContainers(q engine.Queue, slots int) (int, bool) {
	if q.MaxCapacity <= 0 {
		return 0, false
	}
	return int(math.Ceil(q.MaxCapacity * float64(slots))), true
}
