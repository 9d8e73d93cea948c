package capacity

import (
	"fmt"
	"math"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
)

// Config holds the Capacity Scheduler's knobs; the yaml tags name them
// as a campaign's policy args.
type Config struct {
	// NodeLocalityDelay is yarn.scheduler.capacity.node-locality-delay;
	// 0 means hosts per rack, as the Corral spec sets it.
	NodeLocalityDelay int `yaml:"node_locality_delay"`
}

// DefaultConfig is the Corral spec's configuration.
func DefaultConfig() Config { return Config{} }

// Validate rejects a negative delay, which YARN does not define.
func (c Config) Validate() error {
	if c.NodeLocalityDelay < 0 {
		return fmt.Errorf("node_locality_delay is %d: want 0 (hosts per rack) or more", c.NodeLocalityDelay)
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
			locations := math.Min(float64(pending*3), float64(nodes))
			switch {
			case float64(missed) > float64(pending)*math.Min(locations/float64(nodes), 1):
				allowed = engine.Remote
			case missed > min(nodes, delay):
				allowed = engine.RackLocal
			}
			if t, level, ok := ctx.PickMap(j.ID, h, allowed); ok {
				if _, err := ctx.Launch(t, h, engine.LaunchOptions{}); err != nil {
					return false
				}
				if level != engine.Remote {
					p.missed[j.ID] = 0
				}
				return true
			}
		}
	}
	return false
}
