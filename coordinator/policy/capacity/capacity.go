package capacity

import (
	"fmt"
	"math"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
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
}

// DefaultConfig is the Corral spec's configuration.
func DefaultConfig() Config { return Config{OffSwitchLocations: "estimate"} }

// Validate rejects a negative delay, which YARN does not define, and an
// unknown way of counting locations.
func (c Config) Validate() error {
	if c.NodeLocalityDelay < 0 {
		return fmt.Errorf("node_locality_delay is %d: want 0 (hosts per rack) or more", c.NodeLocalityDelay)
	}
	switch c.OffSwitchLocations {
	case "", "estimate", "requested":
	default:
		return fmt.Errorf("off_switch_locations is %q: want estimate or requested", c.OffSwitchLocations)
	}
	return nil
}

// Policy is the Capacity Scheduler.
type Policy struct {
	// Only, when set, limits the scheduler to the jobs it accepts: a
	// policy that plans some jobs itself (Corral) hands it the rest.
	Only func(*engine.Job) bool

	cfg    Config
	missed []int // per job
	queues []int
	jobs   []*engine.Job

	// requested locations: marks of the hosts and racks seen by the
	// current count (a mark equal to gen), and a task buffer
	gen       uint32
	hostMark  []uint32
	rackMark  []uint32
	pendingTs []engine.TaskRef
}

// New returns a Capacity Scheduler.
func New(cfg Config) *Policy { return &Policy{cfg: cfg} }

// Config is the configuration the policy runs with.
func (p *Policy) Config() Config { return p.cfg }

// Name implements engine.Policy.
func (*Policy) Name() string { return "capacity" }

// OfferHost implements engine.HostScheduler.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	if len(p.missed) < len(ctx.Jobs()) {
		p.missed = append(p.missed, make([]int, len(ctx.Jobs())-len(p.missed))...)
	}
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		if !p.assign(ctx, h) {
			return
		}
	}
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

func (p *Policy) assign(ctx *engine.Context, h cluster.HostID) bool {
	qs := ctx.Queues()
	slots := float64(ctx.TotalSlots())
	p.queues = p.queues[:0]
	for i := range qs {
		if qs[i].MaxCapacity > 0 && float64(qs[i].Running) >= qs[i].MaxCapacity*slots {
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
	delay := p.cfg.NodeLocalityDelay
	if delay <= 0 {
		delay = len(ctx.Topology().Racks[0].Hosts)
	}
	nodes := len(ctx.Topology().Hosts)
	for _, q := range p.queues {
		p.jobs = p.jobs[:0]
		for _, j := range ctx.Running() {
			if j.Queue == q && j.Pending > 0 && (p.Only == nil || p.Only(j)) {
				p.jobs = append(p.jobs, j)
			}
		}
		// YARN's capacity queues are FIFO unless told otherwise
		if o := qs[q].Ordering.Resolve(engine.OrderFIFO); o != engine.OrderFIFO {
			sort.SliceStable(p.jobs, func(a, b int) bool { return o.Less(p.jobs[a], p.jobs[b]) })
		}
		for _, j := range p.jobs {
			if t, ok := ctx.NextPendingShuffle(j.ID); ok {
				_, err := ctx.Launch(t, h, engine.LaunchOptions{})
				return err == nil
			}
			p.missed[j.ID]++
			missed := p.missed[j.ID]
			allowed := engine.NodeLocal
			pending := ctx.PendingMaps(j.ID)
			// Hadoop 2.7: off-switch once missed > requests × min(locations/nodes, 1)
			locations := p.locations(ctx, j.ID, pending, nodes)
			rackAllowed := missed > min(nodes, delay)
			switch {
			case float64(missed) > float64(pending)*math.Min(float64(locations)/float64(nodes), 1):
				allowed = engine.Remote
			case rackAllowed:
				allowed = engine.RackLocal
			}
			if t, level, ok := ctx.PickMap(j.ID, h, allowed); ok {
				if _, err := ctx.Launch(t, h, engine.LaunchOptions{}); err != nil {
					return false
				}
				// missed resets after a node- or rack-local container, as
				// the RM types it: a rack-local map the AM puts in a
				// container granted off-switch (the rack's delay not yet
				// over) leaves it as it is
				if level == engine.NodeLocal || (level == engine.RackLocal && rackAllowed) {
					p.missed[j.ID] = 0
				}
				return true
			}
		}
	}
	return false
}

// locations is the job's #uniqueRequestedLocations for the off-switch
// rule, counted at most up to nodes (the factor caps at 1 there).
func (p *Policy) locations(ctx *engine.Context, job engine.JobID, pending, nodes int) int {
	if p.cfg.OffSwitchLocations != "requested" {
		return min(pending*3, nodes)
	}
	topo := ctx.Topology()
	if len(p.hostMark) != len(topo.Hosts) || len(p.rackMark) != len(topo.Racks) {
		p.hostMark, p.rackMark, p.gen = make([]uint32, len(topo.Hosts)), make([]uint32, len(topo.Racks)), 0
	}
	p.gen++
	if p.gen == 0 { // wrapped: old marks could match again
		clear(p.hostMark)
		clear(p.rackMark)
		p.gen = 1
	}
	n := 0
	p.pendingTs = ctx.Pending(job, p.pendingTs[:0])
	for _, t := range p.pendingTs {
		if ctx.Job(job).Stages[t.Stage].Spec.Kind != workload.Map {
			continue
		}
		for _, r := range ctx.Replicas(t) {
			if p.hostMark[r.Host] != p.gen {
				p.hostMark[r.Host] = p.gen
				n++
			}
			if k := topo.RackOf(r.Host); p.rackMark[k] != p.gen {
				p.rackMark[k] = p.gen
				n++
			}
		}
		if n >= nodes {
			return nodes
		}
	}
	return n
}
