package sparkdefault

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Config is the policy's args.
type Config struct {
	// Order is spark.scheduler.mode: "fifo" (the default) or "fair" (the
	// engine's queues as pools).
	Order string `yaml:"order"`
	// LocalityWait is spark.locality.wait, the wait at every level before
	// the next farther one is allowed; 0 turns delay scheduling off.
	LocalityWait time.Duration `yaml:"locality_wait"`
}

// DefaultConfig is Spark 2.4's defaults: FIFO, a 3 s locality wait.
func DefaultConfig() Config { return Config{Order: "fifo", LocalityWait: 3 * time.Second} }

// Validate checks the args, naming each bad one.
func (c Config) Validate() error {
	var errs []error
	if c.Order != "fifo" && c.Order != "fair" {
		errs = append(errs, fmt.Errorf("sparkdefault: order %q: want fifo or fair", c.Order))
	}
	if c.LocalityWait < 0 {
		errs = append(errs, fmt.Errorf("sparkdefault: locality_wait %v is negative", c.LocalityWait))
	}
	return errors.Join(errs...)
}

// Launch reasons, Trident's names for the same classes (trident.md §1.3),
// so that the records classify both policies' launches alike.
const (
	reasonMemory  = "memory-local"
	reasonSSD     = "ssd-local"
	reasonHDD     = "hdd-local"
	reasonNoPref  = "no-pref"
	reasonRack    = "rack-local"
	reasonOffRack = "off-rack"
)

var reasonNames = []string{reasonMemory, reasonSSD, reasonHDD, reasonNoPref, reasonRack, reasonOffRack}

// stageKey names a task set.
type stageKey struct {
	job   engine.JobID
	stage int
}

// offer is one executor's free cores in a round.
type offer struct {
	host cluster.HostID
	free int
}

// Policy is Spark 2.4's TaskSchedulerImpl with its TaskSetManagers.
type Policy struct {
	cfg  Config
	wait float64 // seconds

	sets    map[stageKey]*taskSet
	offers  []offer
	order   []*engine.Job
	sorted  []*taskSet
	levels  []Level
	reasons map[string]int64 // launches per reason, for Inspect
}

// New returns the policy; the factory has validated cfg.
func New(cfg Config) *Policy {
	return &Policy{cfg: cfg, wait: cfg.LocalityWait.Seconds(), sets: make(map[stageKey]*taskSet), reasons: make(map[string]int64)}
}

// Name implements engine.Policy.
func (*Policy) Name() string { return "sparkdefault" }

// Config is the configuration the policy runs with.
func (p *Policy) Config() Config { return p.cfg }

// StageReleased implements engine.StageReleasedHook: the stage's task set
// is created, and its first locality wait starts now (a TaskSetManager's
// lastLaunchTime starts at its creation).
func (p *Policy) StageReleased(ctx *engine.Context, job engine.JobID, stage int) {
	k := stageKey{job, stage}
	if _, ok := p.sets[k]; !ok {
		p.sets[k] = newTaskSet(ctx, job, stage, ctx.Now())
	}
}

// AttemptEnded implements engine.AttemptEndedHook: the task of an attempt
// that failed or was killed goes back on top of its lists, as Spark's
// handleFailedTask re-adds it. The engine calls the hook before it
// re-queues the task, so the task is pushed whatever its state; if it
// does not run again (another attempt runs, the job failed), its entries
// are dropped when met like any other.
func (p *Policy) AttemptEnded(ctx *engine.Context, a *engine.Attempt) {
	ts, ok := p.sets[stageKey{a.Task.Job, int(a.Task.Stage)}]
	if ok && a.Outcome != engine.AttemptSucceeded {
		ts.add(ctx, a.Task.Index)
	}
}

// HostLost implements engine.HostLostHook: finished tasks whose outputs
// died are pending again and replicas are gone, so every task set
// rebuilds its lists and levels (Spark's recomputeLocality).
func (p *Policy) HostLost(ctx *engine.Context, _ cluster.HostID) {
	for _, ts := range p.sets {
		ts.recompute(ctx)
	}
}

// JobFinished implements engine.JobFinishedHook: its task sets are gone.
func (p *Policy) JobFinished(ctx *engine.Context, job engine.JobID) {
	for s := range ctx.Job(job).Stages {
		delete(p.sets, stageKey{job, s})
	}
}

// ScheduleRound implements engine.RoundScheduler as resourceOffers: the
// shuffled offers, the task sets in pool order, per task set each level
// with passes of one task per offer until a pass launches nothing.
func (p *Policy) ScheduleRound(ctx *engine.Context, free []cluster.HostID) {
	p.offers = p.offers[:0]
	for _, h := range free {
		if n := ctx.FreeSlots(h); n > 0 && ctx.Alive(h) {
			p.offers = append(p.offers, offer{host: h, free: n})
		}
	}
	ctx.Rand().Shuffle(len(p.offers), func(a, b int) { p.offers[a], p.offers[b] = p.offers[b], p.offers[a] })
	p.sortTaskSets(ctx)
	for _, ts := range p.sorted {
		// the levels of this call, as Spark iterates myLocalityLevels
		p.levels = append(p.levels[:0], ts.levels...)
		for _, maxLevel := range p.levels {
			for {
				launched := false
				for k := range p.offers {
					if p.offers[k].free > 0 && p.resourceOffer(ctx, ts, p.offers[k].host, maxLevel) {
						p.offers[k].free--
						launched = true
					}
				}
				if !launched {
					break
				}
			}
		}
	}
}

// sortTaskSets fills p.sorted with the task sets that have pending tasks,
// in pool order (getSortedTaskSetQueue, once per round).
func (p *Policy) sortTaskSets(ctx *engine.Context) {
	p.order = p.order[:0]
	for _, j := range ctx.Running() {
		if j.Pending > 0 {
			p.order = append(p.order, j)
		}
	}
	if p.cfg.Order == "fair" {
		qs := ctx.Queues()
		share := func(q int) float64 {
			w := qs[q].Weight
			if w <= 0 {
				w = 1
			}
			return float64(qs[q].Running) / w
		}
		sort.SliceStable(p.order, func(a, b int) bool {
			ja, jb := p.order[a], p.order[b]
			if ja.Queue != jb.Queue {
				if sa, sb := share(ja.Queue), share(jb.Queue); sa != sb {
					return sa < sb
				}
				return ja.Queue < jb.Queue
			}
			return qs[ja.Queue].Ordering.Resolve(engine.OrderFIFO).Less(ja, jb)
		})
	}
	p.sorted = p.sorted[:0]
	for _, j := range p.order {
		for s, st := range j.Stages {
			if st.Pending == 0 {
				continue
			}
			k := stageKey{j.ID, s}
			ts, ok := p.sets[k]
			if !ok { // released before the policy could see it
				ts = newTaskSet(ctx, j.ID, s, ctx.Now())
				p.sets[k] = ts
			}
			p.sorted = append(p.sorted, ts)
		}
	}
}

// resourceOffer is TaskSetManager.resourceOffer: one task at most for an
// offer on host h at locality no farther than maxLevel (and than the delay
// allows, except in the NO_PREF pass). It reports whether it launched.
func (p *Policy) resourceOffer(ctx *engine.Context, ts *taskSet, h cluster.HostID, maxLevel Level) bool {
	now := ctx.Now()
	allowed := maxLevel
	if maxLevel != NoPref {
		allowed = min(ts.allowedLevel(ctx, now, p.wait), maxLevel)
	}
	i, booked, noPref, ok := ts.dequeue(ctx, h, allowed)
	if !ok {
		return false
	}
	t := engine.TaskRef{Job: ts.job, Stage: int16(ts.stage), Index: i}
	if !ctx.CanRun(t) {
		return false // a reducer held back by the early-shuffle limit
	}
	opt := engine.LaunchOptions{Note: engine.DecisionNote{Reason: reasonNoPref}}
	if ts.isMap && !noPref {
		src, ok := source(ctx, t, h)
		if !ok {
			return false // every replica died since the lists were built
		}
		opt.Source = &src
		opt.Note.Reason = reason(ctx.Topology(), src, h)
	}
	if _, err := ctx.Launch(t, h, opt); err != nil {
		return false // the engine counted the refusal
	}
	p.reasons[opt.Note.Reason]++
	if maxLevel != NoPref {
		ts.cur = ts.localityIndex(booked)
		ts.lastLaunch = now
	}
	return true
}

// source is the replica a map on host h reads: the first replica on h in
// the block's list (Spark is tier-blind), else what the file system
// serves and the engine picks for the other baselines: the closest
// replica, fastest tier, lowest host.
func source(ctx *engine.Context, t engine.TaskRef, h cluster.HostID) (workload.Replica, bool) {
	reps := ctx.Replicas(t)
	if len(reps) == 0 {
		return workload.Replica{}, false
	}
	for _, r := range reps {
		if r.Host == h {
			return r, true
		}
	}
	topo := ctx.Topology()
	dist := func(r workload.Replica) int {
		if topo.RackOf(r.Host) == topo.RackOf(h) {
			return 1
		}
		return 2
	}
	best := reps[0]
	for _, r := range reps[1:] {
		db, dr := dist(best), dist(r)
		if dr < db || (dr == db && (r.Tier < best.Tier || (r.Tier == best.Tier && r.Host < best.Host))) {
			best = r
		}
	}
	return best, true
}

// reason is the class of a map's launch on h reading src.
func reason(topo *cluster.Topology, src workload.Replica, h cluster.HostID) string {
	switch {
	case src.Host == h:
		switch src.Tier {
		case cluster.Mem:
			return reasonMemory
		case cluster.SSD:
			return reasonSSD
		}
		return reasonHDD
	case topo.RackOf(src.Host) == topo.RackOf(h):
		return reasonRack
	}
	return reasonOffRack
}

// Inspect prints each live task set's levels and delay state, and the
// launches per reason so far, for scenario tests.
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	for _, j := range jobs {
		for s := range j.Stages {
			ts, ok := p.sets[stageKey{j.ID, s}]
			if !ok {
				continue
			}
			names := make([]string, len(ts.levels))
			for k, l := range ts.levels {
				names[k] = l.String()
			}
			fmt.Fprintf(&b, "%s/%d levels=%s current=%s last_launch=%g\n", j.Spec.ID, s, strings.Join(names, ","), ts.levels[ts.cur], ts.lastLaunch)
		}
	}
	b.WriteString("launched:")
	for _, r := range reasonNames {
		if n := p.reasons[r]; n > 0 {
			fmt.Fprintf(&b, " %s=%d", r, n)
		}
	}
	b.WriteByte('\n')
	return b.String()
}
