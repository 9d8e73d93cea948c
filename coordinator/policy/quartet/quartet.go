package quartet

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
	// Delay is the delay timer of rule 4 (spark.locality.wait, 3s).
	// 0s never waits: a slot rules 1-3 cannot serve falls back at once.
	Delay time.Duration `yaml:"delay"`
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

// DefaultConfig is the spec's Quartet: FIFO jobs, a 3 s delay.
func DefaultConfig() Config {
	return Config{Order: "fifo", Offers: tierpick.OffersHeartbeat, Delay: 3 * time.Second, Heartbeat: yarnrm.DefaultHeartbeat}
}

// Validate checks the args, naming each bad one.
func (c Config) Validate() error {
	var errs []error
	if err := tierpick.CheckOffers(c.Offers); err != nil {
		errs = append(errs, fmt.Errorf("quartet: %w", err))
	}
	if c.Order != "fifo" && c.Order != "fair" {
		errs = append(errs, fmt.Errorf("quartet: order %q: want fifo or fair", c.Order))
	}
	if c.Delay < 0 {
		errs = append(errs, fmt.Errorf("quartet: delay %v is negative", c.Delay))
	}
	if c.NodeLocalityDelay < 0 {
		errs = append(errs, fmt.Errorf("quartet: node_locality_delay %d is negative (0: no RM gate)", c.NodeLocalityDelay))
	}
	if err := yarnrm.CheckLocations(c.OffSwitchLocations); err != nil {
		errs = append(errs, fmt.Errorf("quartet: %w", err))
	}
	if err := yarnrm.CheckRule(c.OneOffSwitch, c.Heartbeat, c.Offers == tierpick.OffersSpark); err != nil {
		errs = append(errs, fmt.Errorf("quartet: %w", err))
	}
	return errors.Join(errs...)
}

// Policy is the extended Quartet.
type Policy struct {
	tierpick.Base
	cfg   Config
	beats yarnrm.Heartbeats
	// slots a job left to the next job or idle because its timer ran
	// (rule 4), and slots the RM's gate declined, for Inspect
	waited     int
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

// newPolicy returns a Quartet policy; the factory has validated cfg.
func newPolicy(cfg Config) *Policy {
	return &Policy{Base: tierpick.NewBase(cfg.Order, cfg.Delay, cfg.NodeLocalityDelay, cfg.OffSwitchLocations), cfg: cfg,
		beats: yarnrm.Heartbeats{OneOffSwitch: cfg.OneOffSwitch, Interval: cfg.Heartbeat}}
}

// Name implements engine.Policy.
func (*Policy) Name() string { return "quartet" }

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
			return p.launch(ctx, j.ID, t, h, engine.Remote) // a reducer: asked for at "*" only; the RM's gate is for maps
		}
		if ctx.FreeMapSlots(h) == 0 {
			// h's reduce pool is on offer and its map pool is full: the
			// index lists maps whatever the pool, and a map launched here
			// was refused as a full host, ending the offer
			continue
		}
		c := p.candidates(ctx, j.ID, h)
		if !c.any() {
			continue // no runnable map
		}
		// the RM first grants (or not) the job a container on h, counting
		// the opportunity; the AM then applies the rules in it
		grant := p.Gate.Offer(ctx, j.ID)
		for _, k := range []rule{memoryLocal, ssdLocal, hddLocal, noPref} {
			if c.found[k] { // node-local or without locality: every grant admits it
				return p.launch(ctx, j.ID, c.task[k], h, grant.Served(ctx, j.ID, h))
			}
		}
		if !p.Wait.Expired(j.ID, ctx.Now()) {
			p.waited++
			continue // rule 4: the job waits; the next job may take the slot
		}
		for _, k := range []rule{nodeLocal, rackLocal, anywhere} {
			if !c.found[k] {
				continue
			}
			if !grant.Admits(fallbackLevel[k]) {
				p.rmDeclined++
				break // the RM's delay runs: the next job may take the slot
			}
			return p.launch(ctx, j.ID, c.task[k], h, grant.Served(ctx, j.ID, h))
		}
	}
	return false, false
}

// fallbackLevel is the locality on the slot's host of rule 5's pick by
// its kind: a map found anywhere but neither node- nor rack-local is
// off-rack.
var fallbackLevel = [numRules]engine.Locality{nodeLocal: engine.NodeLocal, rackLocal: engine.RackLocal, anywhere: engine.Remote}

// rule names the candidates a scan of a job's maps collects for a slot.
type rule uint8

const (
	memoryLocal rule = iota // rule 1
	ssdLocal                // rule 2
	hddLocal                // rule 3
	noPref                  // a map without a live replica
	nodeLocal               // rule 5, in this order
	rackLocal
	anywhere
	numRules
)

// candidates holds, per rule, the job's lowest-index map it admits.
type candidates struct {
	task  [numRules]engine.TaskRef
	found [numRules]bool
}

func (c *candidates) any() bool {
	for _, f := range c.found {
		if f {
			return true
		}
	}
	return false
}

func (c *candidates) offer(k rule, t engine.TaskRef) {
	if !c.found[k] {
		c.task[k], c.found[k] = t, true
	}
}

// candidates collects, from the job's index, the first pending map
// (lowest stage, then index) each rule admits on a slot of h.
func (p *Policy) candidates(ctx *engine.Context, j engine.JobID, h cluster.HostID) candidates {
	var c candidates
	x := p.Index.Get(ctx, j)
	x.Local(ctx, h, func(e tierpick.Entry) bool {
		c.offer(nodeLocal, e.Task)
		switch {
		case e.Tier == cluster.Mem:
			c.offer(memoryLocal, e.Task)
			return false // rule 1 wins; nothing else is needed
		case e.InMemory:
			// in memory elsewhere: kept for its memory node (rule 2's
			// "not memory-local anywhere else"); only rule 5 takes it
		case e.Tier == cluster.SSD:
			c.offer(ssdLocal, e.Task)
		default:
			c.offer(hddLocal, e.Task)
		}
		return true
	})
	if e, ok := x.FirstNoPref(ctx); ok {
		c.offer(noPref, e.Task)
	}
	if e, ok := x.FirstInRack(ctx, ctx.Topology().RackOf(h)); ok {
		c.offer(rackLocal, e.Task)
	}
	if e, ok := x.FirstAny(ctx); ok {
		c.offer(anywhere, e.Task)
	}
	return c
}

// launch starts t on h reading the replica its class names, records the
// container's type with the RM's gate (served: the request the RM
// served, yarnrm.Grant.Served), and restarts the job's timer at a
// node-local launch. It reports whether t launched and whether its
// container was off-switch.
func (p *Policy) launch(ctx *engine.Context, j engine.JobID, t engine.TaskRef, h cluster.HostID, served engine.Locality) (launched, offSwitch bool) {
	opt := engine.LaunchOptions{Note: engine.DecisionNote{Reason: tierpick.NoPref}}
	level := engine.NoLocality
	isMap := ctx.Job(j).Stages[t.Stage].Spec.Kind == workload.Map
	if isMap {
		if src, l, reason, ok := tierpick.Read(ctx.Topology(), ctx.Replicas(t), h); ok {
			opt.Source, opt.Note.Reason, level = &src, reason, l
		}
	}
	if _, err := ctx.Launch(t, h, opt); err != nil {
		return false, false // the engine counted the refusal
	}
	p.Reasons[opt.Note.Reason]++
	if isMap { // a reducer's request is of another priority, with its own count
		p.Gate.Launched(j, served)
	}
	if level == engine.NodeLocal {
		p.Wait.Restart(j, ctx.Now())
	}
	return true, served == engine.Remote
}

// Inspect prints the launches per reason code so far and the slots jobs
// declined while their delay timer ran, for scenario tests; with the
// RM's gate, also the slots it declined and each job's missed
// opportunities.
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	b.WriteString("launched:")
	for _, r := range []string{tierpick.MemoryLocal, tierpick.SSDLocal, tierpick.HDDLocal, tierpick.NoPref, tierpick.RackLocal, tierpick.OffRack} {
		if n := p.Reasons[r]; n > 0 {
			fmt.Fprintf(&b, " %s=%d", r, n)
		}
	}
	fmt.Fprintf(&b, "\ndeclined by the delay timer: %d\n", p.waited)
	if p.Gate != nil {
		fmt.Fprintf(&b, "declined by the RM's locality delay: %d\n", p.rmDeclined)
		for _, j := range jobs {
			fmt.Fprintf(&b, "%s missed=%d\n", j.Spec.ID, p.Gate.Missed(j.ID))
		}
	}
	return b.String()
}
