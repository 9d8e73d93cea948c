package hscheduler

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/internal/tierpick"
	"github.com/racklab/racklab/coordinator/policy/internal/yarnrm"
	"github.com/racklab/racklab/coordinator/workload"
)

// Config is the policy's args.
type Config struct {
	// Order is the inter-job order: "fifo" (the default) or "fair".
	Order string `yaml:"order"`
	// Offers is the platform's order of the free slots: "heartbeat" (the
	// default, the MR AM: a host's containers filled at its heartbeat)
	// or "spark" (Spark's shuffled round-robin, one task per executor a
	// pass); see tierpick.RoundRobin.
	Offers string `yaml:"offers"`
	// LocalityWait is the platform's delay scheduling: 0 (the default,
	// the MR AM) or Spark's 3s.
	LocalityWait time.Duration `yaml:"locality_wait"`
	// NodeLocalityDelay is the RM's yarn.scheduler.capacity.
	// node-locality-delay, as capacity's: 0 (the default) means no RM
	// gate; Hadoop 2.7 ships 40.
	NodeLocalityDelay int `yaml:"node_locality_delay"`
	// OffSwitchLocations is how the RM's off-switch rule counts a job's
	// requested locations, as capacity's: estimate (the default, also
	// when empty) or requested (Hadoop 2.7's).
	OffSwitchLocations string `yaml:"off_switch_locations"`
	// OneOffSwitch ends a node heartbeat after its first off-switch
	// container, as capacity's arg of the same name (Hadoop 2.7's root
	// queue, yarnrm.Heartbeats); only with heartbeat offers, as Spark's
	// tasks run in executors, not in containers of their own.
	OneOffSwitch bool `yaml:"one_off_switch_per_heartbeat"`
	// Heartbeat is the nodes' heartbeat interval the rule waits out
	// (Hadoop 2.7's 1s).
	Heartbeat time.Duration `yaml:"heartbeat"`
}

// DefaultConfig is H-Scheduler in the MR AM: FIFO jobs, no extra delay.
func DefaultConfig() Config {
	return Config{Order: "fifo", Offers: tierpick.OffersHeartbeat, Heartbeat: yarnrm.DefaultHeartbeat}
}

// Validate checks the args, naming each bad one.
func (c Config) Validate() error {
	var errs []error
	if err := tierpick.CheckOffers(c.Offers); err != nil {
		errs = append(errs, fmt.Errorf("hscheduler: %w", err))
	}
	if c.Order != "fifo" && c.Order != "fair" {
		errs = append(errs, fmt.Errorf("hscheduler: order %q: want fifo or fair", c.Order))
	}
	if c.LocalityWait < 0 {
		errs = append(errs, fmt.Errorf("hscheduler: locality_wait %v is negative", c.LocalityWait))
	}
	if c.NodeLocalityDelay < 0 {
		errs = append(errs, fmt.Errorf("hscheduler: node_locality_delay %d is negative (0: no RM gate)", c.NodeLocalityDelay))
	}
	if err := yarnrm.CheckLocations(c.OffSwitchLocations); err != nil {
		errs = append(errs, fmt.Errorf("hscheduler: %w", err))
	}
	if err := yarnrm.CheckRule(c.OneOffSwitch, c.Heartbeat, c.Offers == tierpick.OffersSpark); err != nil {
		errs = append(errs, fmt.Errorf("hscheduler: %w", err))
	}
	return errors.Join(errs...)
}

// class is a pending map's rank for a slot's node, best first (§4.3).
type class uint8

const (
	localMemory class = iota
	localSSD
	localHDD
	noPref // a map without a live replica: after the local classes, before the remote ones
	remoteHDD
	remoteSSD
	remoteMemory
	numClasses
)

// Policy is H-Scheduler.
type Policy struct {
	tierpick.Base
	cfg   Config
	beats yarnrm.Heartbeats
	// slots declined by the locality wait and by the RM's gate, for
	// Inspect
	declined   int
	rmDeclined int
}

// New returns the policy the args ask for: a HostScheduler that fills a
// host's slots at its heartbeat, or with offers spark a RoundScheduler
// that hands the round's slots out in Spark's order; the factory has
// validated cfg.
func New(cfg Config) engine.Policy {
	p := newPolicy(cfg)
	if cfg.Offers == tierpick.OffersSpark {
		return &SparkOffers{p}
	}
	return p
}

// SparkOffers is the policy under Spark's order of offers.
type SparkOffers struct{ *Policy }

// ScheduleRound implements engine.RoundScheduler.
func (s *SparkOffers) ScheduleRound(ctx *engine.Context, free []cluster.HostID) {
	tierpick.RoundRobin(ctx, free, func(h cluster.HostID) bool {
		launched, _ := s.assign(ctx, h)
		return launched
	})
}

// newPolicy returns an H-Scheduler; the factory has validated cfg.
func newPolicy(cfg Config) *Policy {
	return &Policy{Base: tierpick.NewBase(cfg.Order, cfg.LocalityWait, cfg.NodeLocalityDelay, cfg.OffSwitchLocations), cfg: cfg,
		beats: yarnrm.Heartbeats{OneOffSwitch: cfg.OneOffSwitch, Interval: cfg.Heartbeat}}
}

// Name implements engine.Policy.
func (*Policy) Name() string { return "hscheduler" }

// Config is the configuration the policy runs with.
func (p *Policy) Config() Config { return p.cfg }

// OfferHost implements engine.HostScheduler: the host's free slots are
// filled one at a time, each by the first job in order that takes it.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	p.beats.Fill(ctx, h, func(h cluster.HostID) (bool, bool) { return p.assign(ctx, h) })
}

// assign gives one slot of h to the first job that takes it, and reports
// whether one did and whether the RM typed its container off-switch
// (a reducer's, or a map's it served at "*": yarnrm.Grant.Served).
func (p *Policy) assign(ctx *engine.Context, h cluster.HostID) (launched, offSwitch bool) {
	for _, j := range p.Jobs(ctx) {
		if t, ok := ctx.NextPendingShuffle(j.ID); ok {
			return p.launch(ctx, t, h, nil, tierpick.NoPref), true // a reducer asks at "*" only
		}
		if ctx.FreeMapSlots(h) == 0 {
			// h's reduce pool is on offer and its map pool is full: the
			// index lists maps whatever the pool, and a map launched here
			// was refused as a full host, ending the offer
			continue
		}
		allowed := p.Wait.Allowed(j.ID, ctx.Now())
		t, c, ok := p.best(ctx, j.ID, h, allowed)
		if !ok {
			continue
		}
		// the RM first grants (or not) the job a container on h, counting
		// the opportunity; the AM then puts its best map in it
		grant := p.Gate.Offer(ctx, j.ID)
		src, level, reason, ok := tierpick.Read(ctx.Topology(), ctx.Replicas(t), h)
		if c > noPref && level > allowed {
			p.declined++
			continue // the job waits for a closer slot; the next job may take this one
		}
		if !grant.Admits(level) {
			p.rmDeclined++
			continue // the RM's delay runs: the next job may take the slot
		}
		var srcp *workload.Replica
		if ok {
			srcp = &src
		}
		served := grant.Served(ctx, j.ID, h)
		if !p.launch(ctx, t, h, srcp, reason) {
			return false, false
		}
		p.Gate.Launched(j.ID, served)
		if c != noPref {
			p.Wait.Launched(j.ID, level, ctx.Now()) // Spark: a no-preference launch leaves the level
		}
		return true, served == engine.Remote
	}
	return false, false
}

// best returns the job's pending map in the best class for a slot on h,
// the lowest task index within the class. The remote classes need no
// check that a map has no replica on h: one that has is a local class,
// and a pending map of a local class wins. When Spark's level allows
// rack-local maps but not others, the remote classes are looked for
// among the maps with a replica in h's rack first (the caller declines
// one from elsewhere).
func (p *Policy) best(ctx *engine.Context, j engine.JobID, h cluster.HostID, allowed engine.Locality) (engine.TaskRef, class, bool) {
	x := p.Index.Get(ctx, j)
	bestT, bestC, found := engine.TaskRef{}, numClasses, false
	x.Local(ctx, h, func(e tierpick.Entry) bool {
		if c := localMemory + class(min(e.Tier, cluster.HDD)); c < bestC {
			bestT, bestC, found = e.Task, c, true
		}
		return bestC != localMemory
	})
	if found {
		return bestT, bestC, true
	}
	if e, ok := x.FirstNoPref(ctx); ok {
		return e.Task, noPref, true
	}
	if allowed == engine.RackLocal {
		if e, ok := x.FirstInRackByBest(ctx, ctx.Topology().RackOf(h), []cluster.TierKind{cluster.HDD, cluster.SSD, cluster.Mem}); ok {
			return e.Task, remoteMemory - class(min(e.Tier, cluster.HDD)), true
		}
	}
	for _, k := range []cluster.TierKind{cluster.HDD, cluster.SSD, cluster.Mem} {
		if e, ok := x.FirstByBest(ctx, k); ok {
			return e.Task, remoteMemory - class(k), true
		}
	}
	return engine.TaskRef{}, 0, false
}

func (p *Policy) launch(ctx *engine.Context, t engine.TaskRef, h cluster.HostID, src *workload.Replica, reason string) bool {
	if _, err := ctx.Launch(t, h, engine.LaunchOptions{Source: src, Note: engine.DecisionNote{Reason: reason}}); err != nil {
		return false // the engine counted the refusal
	}
	p.Reasons[reason]++
	return true
}

// Inspect prints the launches per reason code so far and the slots the
// locality wait declined, for scenario tests; with the RM's gate, also the
// slots it declined and each job's missed opportunities.
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	b.WriteString("launched:")
	for _, r := range []string{tierpick.MemoryLocal, tierpick.SSDLocal, tierpick.HDDLocal, tierpick.NoPref, tierpick.RackLocal, tierpick.OffRack} {
		if n := p.Reasons[r]; n > 0 {
			fmt.Fprintf(&b, " %s=%d", r, n)
		}
	}
	fmt.Fprintf(&b, "\ndeclined by the locality wait: %d\n", p.declined)
	if p.Gate != nil {
		fmt.Fprintf(&b, "declined by the RM's locality delay: %d\n", p.rmDeclined)
		for _, j := range jobs {
			fmt.Fprintf(&b, "%s missed=%d\n", j.Spec.ID, p.Gate.Missed(j.ID))
		}
	}
	return b.String()
}
