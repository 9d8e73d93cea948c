package trident

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/fair"
	"github.com/racklab/racklab/coordinator/policy/internal/tierpick"
	"github.com/racklab/racklab/coordinator/policy/internal/yarnrm"
	"github.com/racklab/racklab/coordinator/workload"
)

// Config is the policy's args: the cost profile of Eq. 1 (§1.2-1.3), the
// pruning mode (§2.6) and the inter-job order (§2.7).
type Config struct {
	// Pruning is "paper" (Algorithms 1 and 2 as published, the default)
	// or "off".
	Pruning string `yaml:"pruning"`
	// Order is the platform's inter-job policy, which decides which job is
	// served and how many slots it may take (§2.7): "fifo" (the default:
	// the Capacity Scheduler's default queue and Spark's default mode
	// are FIFO) or "fair" (fair.Order, each job capped at its share).
	Order string `yaml:"order"`
	// Mode is "single" (the default: one matching over the free slots,
	// the Spark driver's or the testbed's single-level scheduler, §2.7)
	// or "yarn" (the two-level path of §2.9: the RM allocates containers
	// for a job's map requests by Algorithm 3, then the AM matches the
	// maps to those containers). Reducers go as in single mode.
	Mode string `yaml:"mode"`
	// Offers is how a shuffle stage's tasks (no preferred locations, every
	// slot at C0) meet the free slots: "heartbeat" (the default: as stock
	// MapReduce gives reducers their containers, §2.9.3, one node
	// heartbeat after another, each host's free slots together) or
	// "spark" (Spark's order, §2.8: the driver offers the executors round
	// robin, one task each a pass, so the tasks spread over the hosts).
	Offers string `yaml:"offers"`
	// OneOffSwitch ends a node's heartbeat after its first off-switch
	// container (Hadoop 2.7's root queue, yarnrm.Heartbeats), as the
	// YARN baselines' arg of the same name: a host takes at most one
	// reducer (asked for at "*") or off-rack or no-preference map, and
	// then nothing until its next heartbeat, Heartbeat later. Only with
	// heartbeat offers; off by default, as trident.md does not state it.
	OneOffSwitch bool `yaml:"one_off_switch_per_heartbeat"`
	// Heartbeat is the nodes' heartbeat interval the rule waits out
	// (Hadoop 2.7's 1s).
	Heartbeat time.Duration `yaml:"heartbeat"`
	// Delay is trident+delay(D) of §2.10: while a job has waited less
	// than Delay since its maps became pending or since its last
	// node-local launch, its maps may only take node-local slots. 0 (the
	// default) is the paper-level Trident, which never waits.
	Delay time.Duration `yaml:"delay"`
	// The tier scores and cost constants; the defaults are profile P.
	Memory int64 `yaml:"memory"`
	SSD    int64 `yaml:"ssd"`
	HDD    int64 `yaml:"hdd"`
	C0     int64 `yaml:"c0"`
	C1     int64 `yaml:"c1"`
	C2     int64 `yaml:"c2"`
	D      int   `yaml:"d"`
}

// DefaultConfig is the spec's configuration: profile P, pruning as in the
// paper, FIFO between jobs, no delay (§2.10: the paper-level Trident
// never waits).
func DefaultConfig() Config {
	p := DefaultProfile()
	return Config{Pruning: "paper", Order: "fifo", Mode: "single", Offers: "heartbeat", Heartbeat: yarnrm.DefaultHeartbeat, Memory: p.Memory, SSD: p.SSD, HDD: p.HDD, C0: p.C0, C1: p.C1, C2: p.C2, D: p.D}
}

func (c Config) profile() Profile {
	return Profile{Memory: c.Memory, SSD: c.SSD, HDD: c.HDD, C0: c.C0, C1: c.C1, C2: c.C2, D: c.D}
}

// Validate checks the args, naming each bad one.
func (c Config) Validate() error {
	var errs []error
	if _, err := ParsePruning(c.Pruning); err != nil {
		errs = append(errs, err)
	}
	if c.Order != "fifo" && c.Order != "fair" {
		errs = append(errs, fmt.Errorf("trident: order %q: want fifo or fair", c.Order))
	}
	if c.Delay < 0 {
		errs = append(errs, fmt.Errorf("trident: delay %v is negative", c.Delay))
	}
	if c.Offers != "heartbeat" && c.Offers != "spark" {
		errs = append(errs, fmt.Errorf("trident: offers %q: want heartbeat or spark", c.Offers))
	}
	if err := yarnrm.CheckRule(c.OneOffSwitch, c.Heartbeat, c.Offers == "spark"); err != nil {
		errs = append(errs, fmt.Errorf("trident: %w", err))
	}
	if c.Mode != "single" && c.Mode != "yarn" {
		errs = append(errs, fmt.Errorf("trident: mode %q: want single or yarn", c.Mode))
	}
	if err := c.profile().Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Decision-note reasons: the locality class of each launch (§2.7 line 7),
// which attempts.csv records per attempt.
var classReasons = [numClasses]string{"process-local", tierpick.MemoryLocal, tierpick.SSDLocal, tierpick.HDDLocal, tierpick.NoPref, tierpick.RackLocal, tierpick.OffRack}

// Policy is Trident as a single-level scheduler (§2.7): on every
// scheduling round it serves the jobs in the platform's order and, for
// each, matches the runnable tasks of each stage to the slots still free
// by a minimum-cost maximum matching (Schedule).
type Policy struct {
	cfg   Config
	sched Scheduler
	alloc Allocator
	beats yarnrm.Heartbeats

	order   []*engine.Job
	pending []engine.TaskRef
	refs    []engine.TaskRef
	tasks   []Task
	prefs   []Preference
	sets    []ResourceSet
	rotated []ResourceSet // a shuffle stage's view of sets (reducerSets)
	// nextReducer is the host the next shuffle stage's slots start
	// from: the one after the last host given a reducer
	nextReducer cluster.HostID
	granted     []ResourceSet // yarn mode: the containers the RM allocated, per node
	setOf       map[cluster.HostID]int
	allot       []int
	classes     [numClasses]int64 // launches per class, for Inspect
	// waitFrom is, per job, when its locality wait began (delay only):
	// when its maps became pending (submission, or a later map stage's
	// release), or its last node-local launch
	waitFrom map[engine.JobID]engine.Time
	last     round
}

// round is what the last scheduling call saw, for Inspect.
type round struct {
	calls, tasks, launched int
	cost                   int64
	granted                []string // yarn mode: containers the RM granted, as node(cost)
}

// New returns a Trident policy; the factory has validated cfg.
func New(cfg Config) *Policy {
	pr, _ := ParsePruning(cfg.Pruning)
	return &Policy{cfg: cfg, sched: Scheduler{Profile: cfg.profile(), Pruning: pr}, setOf: make(map[cluster.HostID]int),
		waitFrom: make(map[engine.JobID]engine.Time), beats: yarnrm.Heartbeats{OneOffSwitch: cfg.OneOffSwitch, Interval: cfg.Heartbeat}}
}

// Name implements engine.Policy.
func (*Policy) Name() string { return "trident" }

// Config is the configuration the policy runs with.
func (p *Policy) Config() Config { return p.cfg }

// ScheduleRound implements engine.RoundScheduler. Jobs come in the
// platform's order; within a job, shuffle stages (reducers: no preferred
// locations, cost C0 on every slot) before map stages, as the Hadoop AM
// asks for reducers at a higher priority than maps and as the baselines'
// heartbeat schedulers do; each stage is one matching, Spark's task set or
// the MR AM's map list.
func (p *Policy) ScheduleRound(ctx *engine.Context, free []cluster.HostID) {
	p.last = round{}
	p.sets = p.sets[:0]
	clear(p.setOf)
	topo := ctx.Topology()
	for _, h := range free {
		if n := ctx.FreeSlots(h); n > 0 && ctx.Alive(h) && p.beats.Open(ctx, h) {
			p.setOf[h] = len(p.sets)
			p.sets = append(p.sets, ResourceSet{Node: int(h), Rack: int(topo.RackOf(h)), Executor: int(h), Free: n})
		}
	}
	p.jobOrder(ctx)
jobs:
	for k, j := range p.order {
		limit := -1
		if p.cfg.Order == "fair" {
			limit = p.allot[k]
		}
		for _, shuffle := range []bool{true, false} {
			for s := range j.Stages {
				if !p.anyFree() {
					return
				}
				if limit == 0 {
					continue jobs
				}
				st := j.Stages[s]
				if st.Pending == 0 || (st.Spec.Kind == workload.Map) == shuffle {
					continue
				}
				limit -= p.matchStage(ctx, j.ID, s, limit)
			}
		}
	}
}

func (p *Policy) anyFree() bool {
	for _, s := range p.sets {
		if s.Free > 0 {
			return true
		}
	}
	return false
}

// jobOrder fills p.order with the jobs that have pending tasks, in the
// configured order, and for "fair" p.allot with each job's share of the
// free slots: one slot at a time to the job with the fewest running plus
// allotted attempts (the Fair Scheduler's per-heartbeat choice, made for
// the whole round), ties in fair.Order's order.
func (p *Policy) jobOrder(ctx *engine.Context) {
	p.order = p.order[:0]
	if p.cfg.Order == "fifo" {
		for _, j := range ctx.Running() {
			if j.Pending > 0 {
				p.order = append(p.order, j)
			}
		}
		return
	}
	p.order = fair.Order(ctx, p.order)
	p.allot = append(p.allot[:0], make([]int, len(p.order))...)
	free := 0
	for _, s := range p.sets {
		free += s.Free
	}
	for range free {
		best := -1
		for k, j := range p.order {
			if p.allot[k] >= j.Pending {
				continue
			}
			if best < 0 || j.Running+p.allot[k] < p.order[best].Running+p.allot[best] {
				best = k
			}
		}
		if best < 0 {
			break
		}
		p.allot[best]++
	}
}

// matchStage runs one Trident call (§2.7) for a stage's runnable tasks
// over the slots still free, launches the pairs, and returns how many it
// launched. With one off-switch container a heartbeat, a pair the host's
// ended heartbeat refused (two off-switch pairs on one host) makes it
// call again over the slots left: each such call closed a host, so the
// calls end.
func (p *Policy) matchStage(ctx *engine.Context, job engine.JobID, stage int, limit int) int {
	launched := 0
	for {
		n, refused := p.matchOnce(ctx, job, stage, limit)
		launched += n
		if limit > 0 {
			limit -= n
		}
		if !refused || limit == 0 {
			return launched
		}
	}
}

// matchOnce is one Trident call of matchStage: it returns how many pairs
// it launched and whether a host's ended heartbeat refused one.
func (p *Policy) matchOnce(ctx *engine.Context, job engine.JobID, stage int, limit int) (launched int, refused bool) {
	p.refs = p.refs[:0]
	p.tasks = p.tasks[:0]
	p.prefs = p.prefs[:0]
	topo := ctx.Topology()
	isMap := ctx.Job(job).Stages[stage].Spec.Kind == workload.Map
	localOnly := false
	if isMap && p.cfg.Delay > 0 {
		from, ok := p.waitFrom[job]
		if !ok {
			from = ctx.Now()
			p.waitFrom[job] = from
		}
		localOnly = ctx.Now()-from < p.cfg.Delay.Seconds()
	}
	// a task's Prefs view stays valid when p.prefs grows: the old array
	// keeps its values
	p.pending = ctx.Pending(job, p.pending[:0])
	for _, t := range p.pending {
		if int(t.Stage) != stage || !ctx.CanRun(t) {
			continue
		}
		start := len(p.prefs)
		if isMap {
			for _, r := range ctx.Replicas(t) {
				p.prefs = append(p.prefs, Preference{Node: int(r.Host), Rack: int(topo.RackOf(r.Host)), Tier: tierOf(r.Tier)})
			}
		}
		p.refs = append(p.refs, t)
		p.tasks = append(p.tasks, Task{Prefs: p.prefs[start:len(p.prefs):len(p.prefs)], LocalOnly: localOnly})
	}
	if len(p.tasks) == 0 {
		return 0, false
	}
	sets := p.sets
	if !isMap {
		sets = p.reducerSets()
	}
	if isMap && p.cfg.Mode == "yarn" {
		var err error
		if sets, err = p.allocate(limit); err != nil {
			ctx.Reject("trident allocation failed")
			return 0, false
		}
	}
	pairs, _, err := p.sched.ScheduleAtMost(p.tasks, sets, limit) // the cost Inspect reports is of the launches
	if err != nil {
		// unreachable with a validated profile; counted, not hidden
		ctx.Reject("trident matching failed")
		return 0, false
	}
	p.last.calls++
	p.last.tasks += len(p.tasks)
	// a heartbeat's node- and rack-local containers come before its one
	// off-switch container, which ends it
	offSwitch := func(a Assignment) bool {
		return p.cfg.OneOffSwitch && (!isMap || a.Class == NoPref || a.Class == OffRack)
	}
	if p.cfg.OneOffSwitch {
		slices.SortStableFunc(pairs, func(a, b Assignment) int {
			switch oa, ob := offSwitch(a), offSwitch(b); {
			case !oa && ob:
				return -1
			case oa && !ob:
				return 1
			}
			return 0
		})
	}
	for _, a := range pairs {
		h := cluster.HostID(a.Slot.Node)
		if p.sets[p.setOf[h]].Free <= 0 {
			refused = true // the host's heartbeat ended at an off-switch container
			continue
		}
		opt := engine.LaunchOptions{Note: engine.DecisionNote{Reason: classReasons[a.Class]}}
		if isMap {
			src, ok := p.source(ctx, p.refs[a.Task], a)
			if ok {
				opt.Source = &src
			}
		}
		if !isMap && ctx.HeldByEarlyLimit(p.refs[a.Task]) {
			// the early-shuffle limit, reached by the reducers this round
			// launched, holds the rest too: asked for, each was refused,
			// and counted in rejected_actions as a policy's mistake
			break
		}
		if _, err := ctx.Launch(p.refs[a.Task], h, opt); err != nil {
			// the engine counted the refusal
			if !isMap {
				break
			}
			continue
		}
		p.sets[p.setOf[h]].Free--
		if offSwitch(a) {
			p.sets[p.setOf[h]].Free = 0 // its requests were all "*"
			p.beats.Ended(ctx, h)
		}
		if !isMap {
			p.nextReducer = h + 1
		}
		p.classes[a.Class]++
		p.last.cost += a.Cost
		if p.cfg.Delay > 0 && isMap && a.Class <= HDDLocal {
			p.waitFrom[job] = ctx.Now()
		}
		launched++
	}
	p.last.launched += launched
	return launched, refused
}

// reducerSets is the free slots as a shuffle stage sees them: reducers
// have no preferred locations (every slot costs C0) and go to their
// containers as stock MapReduce gives them (§2.9.3), one node heartbeat
// after another, so the slots come in host order from the host after the
// last one given a reducer, wrapping round. In plain host order the
// matching's lowest-column tie-break (§2.11) would give every reducer to
// the lowest free host: on the FB workload 612 of 622 went to host 0.
//
// With one off-switch container a heartbeat (arg
// one_off_switch_per_heartbeat) a host offers one slot: a reducer ends
// its heartbeat.
//
// Under Spark's offers (arg offers: spark) the slots come one per host a
// pass, in the same rotated host order: the first slot of every host with
// one free, then the second, so that the tie-break spreads the tasks as
// Spark's TaskScheduler does (one task per executor per offer round),
// where each host's slots together would put a stage's reducers on its
// first hosts and their shuffle through those hosts' NICs.
func (p *Policy) reducerSets() []ResourceSet {
	k := 0
	for k < len(p.sets) && cluster.HostID(p.sets[k].Node) < p.nextReducer {
		k++
	}
	p.rotated = append(append(p.rotated[:0], p.sets[k:]...), p.sets[:k]...)
	if p.cfg.OneOffSwitch {
		for i := range p.rotated {
			p.rotated[i].Free = min(p.rotated[i].Free, 1)
		}
	}
	if p.cfg.Offers != "spark" {
		return p.rotated
	}
	n := len(p.rotated)
	for pass := 0; ; pass++ {
		added := false
		for i := 0; i < n; i++ {
			if s := p.rotated[i]; s.Free > pass {
				s.Free = 1
				p.rotated = append(p.rotated, s)
				added = true
			}
		}
		if !added {
			break
		}
	}
	p.rotated = append(p.rotated[:0], p.rotated[n:]...)
	return p.rotated
}

// allocate is the RM's side of the YARN path for the stage's tasks in
// p.tasks: their requests (BuildRequests), then Algorithm 3 over the
// free slots, at most limit containers (the job's share; -1: no cap).
// It returns the containers granted as resource sets, one per node in
// the order the RM ranked them.
func (p *Policy) allocate(limit int) ([]ResourceSet, error) {
	rq := BuildRequests(&p.sched.Profile, p.tasks)
	cs, err := p.alloc.Allocate(&p.sched.Profile, &rq, p.sets, limit)
	if err != nil {
		return nil, err
	}
	p.granted = p.granted[:0]
	for _, c := range cs {
		p.last.granted = append(p.last.granted, fmt.Sprintf("h%d(%d)", c.Slot.Node, c.Cost))
		k := slices.IndexFunc(p.granted, func(s ResourceSet) bool { return s.Node == c.Slot.Node })
		if k < 0 {
			p.granted = append(p.granted, ResourceSet{Node: c.Slot.Node, Rack: c.Slot.Rack, Executor: c.Slot.Executor})
			k = len(p.granted) - 1
		}
		p.granted[k].Free++
	}
	return p.granted, nil
}

// JobFinished implements engine.JobFinishedHook: the job's wait is over.
func (p *Policy) JobFinished(_ *engine.Context, j engine.JobID) { delete(p.waitFrom, j) }

// JobSubmitted implements engine.JobSubmittedHook: under delay, the
// job's maps are pending from now, and its wait runs from now, however
// long the cluster stays full (§2.10: "the first D after a task became
// pending").
func (p *Policy) JobSubmitted(ctx *engine.Context, j engine.JobID) {
	if p.cfg.Delay > 0 {
		p.waitFrom[j] = ctx.Now()
	}
}

// StageReleased implements engine.StageReleasedHook: a map stage that
// becomes runnable later (a DAG's) starts a wait of its own.
func (p *Policy) StageReleased(ctx *engine.Context, j engine.JobID, stage int) {
	if p.cfg.Delay > 0 && ctx.Job(j).Stages[stage].Spec.Kind == workload.Map {
		p.waitFrom[j] = ctx.Now()
	}
}

// source is the replica the pair's cost priced (Eq. 1): on the slot's node
// the fastest local replica; rack-local the fastest in the slot's rack;
// off-rack the fastest anywhere (C2 has no tier term, so any would do;
// the fastest, lowest host first, is the engine's own choice too). The
// matching's class is where the task's nearest replica is, so this is the
// replica the tier-aware baselines read for the same slot (tierpick.Read).
func (p *Policy) source(ctx *engine.Context, t engine.TaskRef, a Assignment) (workload.Replica, bool) {
	src, _, _, ok := tierpick.Read(ctx.Topology(), ctx.Replicas(t), cluster.HostID(a.Slot.Node))
	return src, ok
}

// tierOf maps the cluster's tier kinds onto the scores' tiers.
func tierOf(k cluster.TierKind) Tier {
	switch k {
	case cluster.Mem:
		return Memory
	case cluster.SSD:
		return SSD
	}
	return HDD
}

// Inspect prints the last round (matchings run, tasks and slots offered to
// them, pairs launched, their total cost) and the launches per locality
// class so far, for scenario tests.
func (p *Policy) Inspect([]*engine.Job) string {
	var b strings.Builder
	fmt.Fprintf(&b, "last round: matchings=%d tasks=%d launched=%d cost=%d\n", p.last.calls, p.last.tasks, p.last.launched, p.last.cost)
	if len(p.last.granted) > 0 {
		fmt.Fprintf(&b, "rm granted: %s\n", strings.Join(p.last.granted, " "))
	}
	b.WriteString("launched:")
	for c, n := range p.classes {
		if n > 0 {
			fmt.Fprintf(&b, " %s=%d", Class(c), n)
		}
	}
	b.WriteByte('\n')
	return b.String()
}
