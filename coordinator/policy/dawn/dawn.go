package dawn

import (
	"fmt"
	"sort"
	"strings"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/fair"
	"github.com/racklab/racklab/coordinator/policy/internal/netmon"
	"github.com/racklab/racklab/coordinator/workload"
)

// Policy is the Dawn scheduler.
type Policy struct {
	cfg     Config
	deps    *Deps
	depsErr error
	plans   []jobPlan // per job
	// weighedDone counts, per job x, the finishes of the jobs whose
	// output its dep_reduce weighs (∪_{y ∈ Next_x} Prev_{x,y}):
	// Algorithm 2's New ∩ that set (A2-13)
	weighedDone []int
	// released is when each stage became runnable (StageReleased): its
	// pending tasks wait since then (§2.8), until Algorithm 2 plans it
	released map[stageRef]engine.Time
	// mapPhase holds a job's map-phase plan while another of its stages
	// is current and map stages still wait (keepMapPhase)
	mapPhase map[engine.JobID]jobPlan
	// Balanced counts Algorithm 3's additions (Fig. 15).
	Balanced int
	mon      netmon.Monitor // §2.4's window over the driver's measurements
	// replicated marks the map stages the unaware mode found to have a
	// replica for every task (localNowhere scans them no more): replicas
	// of a released stage's input only vanish with a host, and HostLost
	// forgets the marks
	replicated map[stageRef]bool

	// scratch, reused across calls
	active []*engine.Job
	load   []int
	cands  []candidate
}

type candidate struct {
	job      *engine.Job
	plan     *jobPlan
	key      int64
	eligible bool
	starving bool
}

// The reasons Dawn gives for a launch in its decision note
// (engine.DecisionNote), for the records: why this job on this rack.
// Algorithm 1 sorts the jobs preferring the rack by the traffic they
// would cause there; what puts the chosen job first is one of these.
const (
	// ReasonAggregate: unsaturated, the job that moves the most data to
	// this rack (gathering it while the network is free, §2.5).
	ReasonAggregate = "aggregate"
	// ReasonZeroTraffic: saturated, the job that moves the least (none
	// where one moves none, §2.5).
	ReasonZeroTraffic = "zero-traffic"
	// ReasonBalance: the job prefers the rack only because online plan
	// balancing added it (Algorithm 3, §2.6).
	ReasonBalance = "balance"
	// ReasonStarved: the starvation guard put the job first (§2.8).
	ReasonStarved = "starved"
	// ReasonUnaware: the dependency-unaware scheduler (§4.3), which does
	// not look at the network (its note's saturation is unknown).
	ReasonUnaware = "unaware"
)

// Reasons are every reason Dawn gives, in the order above.
var Reasons = []string{ReasonAggregate, ReasonZeroTraffic, ReasonBalance, ReasonStarved, ReasonUnaware}

// New returns a Dawn scheduler.
func New(cfg Config) *Policy {
	return &Policy{cfg: cfg, mon: netmon.Monitor{Window: cfg.MonitorWindow}}
}

// Config is the configuration the policy runs with.
func (p *Policy) Config() Config { return p.cfg }

// Name implements engine.Policy.
func (p *Policy) Name() string { return "dawn" }

// Configure states Dawn's engine default: a job's stages do not overlap,
// reducers wait for every map (§1.2, reduce slow-start 1.0).
func (*Policy) Configure(cfg *engine.Config) { cfg.SlowStart = 1 }

type stageRef struct {
	job   engine.JobID
	stage int
}

// JobFinished implements engine.JobFinishedHook: a finished job may move
// the dep_reduce of the other parents of its children (Algorithm 2 lines
// 13–16), and no other job's.
func (p *Policy) JobFinished(ctx *engine.Context, z engine.JobID) {
	for st := range ctx.Job(z).Stages {
		delete(p.released, stageRef{z, st})
	}
	delete(p.mapPhase, z)
	if p.deps == nil {
		return // nothing planned yet
	}
	for _, y := range p.deps.Next[z] {
		for _, x := range p.deps.Parents[y] {
			if x == z {
				continue
			}
			for int(x) >= len(p.weighedDone) {
				p.weighedDone = append(p.weighedDone, 0)
			}
			p.weighedDone[x]++
		}
	}
}

// weighed is how many finishes job x's dep_reduce has had to weigh.
func (p *Policy) weighed(x engine.JobID) int {
	if int(x) < len(p.weighedDone) {
		return p.weighedDone[x]
	}
	return 0
}

// StageReleased implements engine.StageReleasedHook: the stage's tasks
// start waiting (the starvation guard's clock, §2.8).
func (p *Policy) StageReleased(ctx *engine.Context, j engine.JobID, stage int) {
	if p.released == nil {
		p.released = make(map[stageRef]engine.Time)
	}
	p.released[stageRef{j, stage}] = ctx.Now()
}

// NetworkMeasured implements engine.NetworkMeasuredHook: the monitor
// keeps every measurement of the last W seconds (§2.4).
func (p *Policy) NetworkMeasured(ctx *engine.Context) { p.mon.Add(ctx.Now(), ctx.Network()) }

// HostLost implements engine.HostLostHook (§2.8): a lost host takes map
// outputs and input replicas with it, so a reduce-like stage is planned
// again from where its data now is (max_reduce, dep_reduce) when
// Algorithm 2 next runs, and the map phase only if the host held a
// replica of its input (max_map); racks balancing added go with the old
// plan.
func (p *Policy) HostLost(_ *engine.Context, h cluster.HostID) {
	clear(p.replicated)
	for i := range p.plans {
		pl := &p.plans[i]
		if pl.stage < 0 || pl.kind == mapLike && pl.byHost[h] == 0 {
			continue
		}
		pl.lost = true
	}
	for j, pl := range p.mapPhase {
		if pl.byHost[h] != 0 {
			pl.lost = true
			p.mapPhase[j] = pl
		}
	}
}

// OfferHost implements engine.HostScheduler: Algorithm 1, once per free
// container of the heartbeat's host.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	if p.deps == nil && p.depsErr == nil {
		p.deps, p.depsErr = DetectDeps(ctx.Jobs())
	}
	if p.depsErr != nil {
		ctx.Reject(p.depsErr.Error())
		return
	}
	if p.cfg.DependencyUnaware {
		p.unaware(ctx, h)
		return
	}
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		if !p.assign(ctx, h) {
			return
		}
	}
}

// updatePlan is Algorithm 2: plan each active job's current stage once
// when it starts, and recompute dep_reduce when a job whose output it
// weighs has finished since it was last computed (A2-13; a job with
// nothing pending when that happened, its reducers all placed, catches
// up when one of them runs again).
func (p *Policy) updatePlan(ctx *engine.Context) {
	for len(p.plans) < len(ctx.Jobs()) {
		p.plans = append(p.plans, jobPlan{stage: -1})
	}
	nr := len(ctx.Topology().Racks)
	if len(p.load) != nr {
		p.load = make([]int, nr)
	}
	clear(p.load)
	p.active = p.active[:0]
	// P_r is every other job's current preference: count first the jobs
	// whose plan stands, then plan the others in order, each counted once
	// planned. (Counting as the loop goes would let a job planned now see
	// only the jobs submitted before it, whatever the later ones prefer.)
	replan := func(j *engine.Job, st *engine.Stage) bool {
		pl := &p.plans[j.ID]
		return pl.stage != planStage(j, st) || pl.lost || pl.kind == outputLike && pl.weighed != p.weighed(j.ID)
	}
	for _, j := range ctx.Running() {
		if st, ok := currentStage(j); ok && !replan(j, st) {
			for _, e := range p.plans[j.ID].pref {
				p.load[e.rack]++
			}
		}
	}
	for _, j := range ctx.Running() {
		st, ok := currentStage(j)
		if !ok {
			continue
		}
		p.active = append(p.active, j)
		pl := &p.plans[j.ID]
		if !replan(j, st) {
			continue // counted above
		}
		switch stage := planStage(j, st); {
		case pl.stage != stage || pl.lost:
			if pl.kind == mapLike && pl.stage >= 0 && pl.stage != stage && mapsPending(j) {
				// left for a stage between its map stages; a plan a lost
				// host spoilt is kept too, for its clock
				p.keepMapPhase(j.ID, pl)
			}
			kept, back := p.mapPhase[j.ID]
			if back = back && kept.stage == stage; back {
				delete(p.mapPhase, j.ID)
			}
			if back && !kept.lost {
				// back to the map phase: max_map was set once (A2-3..5),
				// its stage has waited since its release, and the racks
				// balancing added went with the stage change
				kept.pref, kept.adds = kept.pref[:len(kept.pref)-kept.adds], 0
				*pl = kept
				break
			}
			since := p.releasedAt(ctx, j, st)
			if back {
				since = kept.since // replanned after a host loss: it has waited since
			}
			if pl.lost && pl.stage == stage {
				since = pl.since // replanned, not a new stage: it has waited since
			}
			*pl = jobPlan{stage: stage, since: since}
			pl.measure(ctx, j, st)
			pl.maxRack = argmaxRack(pl.byRack, p.load)
			pl.maxCost = pl.stageCost(pl.maxRack)
			pl.pref = []pref{{pl.maxRack, pl.maxCost}}
			switch {
			case st.Spec.Kind == workload.Map:
				pl.kind = mapLike
			case st.Final:
				pl.kind = outputLike
				p.planDep(ctx, j, st, pl)
			default:
				pl.kind = middle
			}
		case pl.kind == outputLike && pl.weighed != p.weighed(j.ID):
			p.planDep(ctx, j, st, pl) // A2-13..16, keeping balancing's adds
		}
		for _, e := range pl.pref {
			p.load[e.rack]++
		}
	}
}

// keepMapPhase keeps a job's map-phase plan while a stage between its
// map stages is current (a Tez job's [scan x, join, scan y, ...]: its
// first join runs while the second scan's maps still wait), so that the
// job finds it again.
func (p *Policy) keepMapPhase(j engine.JobID, pl *jobPlan) {
	if p.mapPhase == nil {
		p.mapPhase = map[engine.JobID]jobPlan{}
	}
	p.mapPhase[j] = *pl
}

// releasedAt is when the stage st plans for was released, forgotten
// once read: for the map phase, its earliest map stage's release (every
// map stage is released at submission); the time now for a stage
// released before the policy was told.
func (p *Policy) releasedAt(ctx *engine.Context, j *engine.Job, st *engine.Stage) engine.Time {
	since, found := ctx.Now(), false
	for _, s := range j.Stages {
		if s != st && (st.Spec.Kind != workload.Map || s.Spec.Kind != workload.Map) {
			continue
		}
		key := stageRef{j.ID, s.Index}
		if t, ok := p.released[key]; ok && (!found || t < since) {
			since, found = t, true
		}
		delete(p.released, key)
	}
	return since
}

// planDep sets dep_reduce and rebuilds Pref: max_reduce, dep_reduce when
// it differs, then the racks balancing added.
func (p *Policy) planDep(ctx *engine.Context, j *engine.Job, st *engine.Stage, pl *jobPlan) {
	pl.weighed = p.weighed(j.ID)
	pl.depRack, pl.depCost = pl.maxRack, pl.maxCost
	if p.cfg.LookAhead >= 2 {
		pl.depRack, pl.depCost = p.depReduce(ctx, j, st, pl, p.load)
	}
	adds := pl.pref[len(pl.pref)-pl.adds:]
	prefs := []pref{{pl.maxRack, pl.maxCost}}
	if pl.depRack != pl.maxRack {
		prefs = append(prefs, pref{pl.depRack, pl.depCost})
	}
	n := 0
	for _, a := range adds {
		if a.rack != pl.maxRack && a.rack != pl.depRack {
			prefs = append(prefs, a)
			n++
		}
	}
	pl.pref, pl.adds = prefs, n
}

// balance is Algorithm 3 for rack i: when P_i <= b·P_max, give rack i to
// the job preferring the hotspot that is cheapest at i (or to all of
// them, with balance_all).
func (p *Policy) balance(i cluster.RackID) {
	m := 0
	for r := range p.load {
		if p.load[r] > p.load[m] {
			m = r
		}
	}
	if float64(p.load[i]) > p.cfg.Balance*float64(p.load[m]) || int(i) == m {
		return
	}
	var best *jobPlan
	for _, j := range p.active { // submission order: ties go to the earliest
		pl := &p.plans[j.ID]
		if !pl.prefers(cluster.RackID(m)) || pl.prefers(i) {
			continue
		}
		if p.cfg.BalanceAll {
			p.add(pl, i)
			continue
		}
		if best == nil || pl.stageCost(i) < best.stageCost(i) {
			best = pl
		}
	}
	if best != nil {
		p.add(best, i)
	}
}

func (p *Policy) add(pl *jobPlan, i cluster.RackID) {
	pl.pref = append(pl.pref, pref{i, pl.stageCost(i)})
	pl.adds++
	p.load[i]++
	p.Balanced++
}

// saturated is NetworkSaturated(i) in the configured scope (§2.4), on
// the loads averaged over the monitor's window: a rack's load is the
// larger of its uplink and downlink loads.
func (p *Policy) saturated(ctx *engine.Context, i cluster.RackID) bool {
	upLoad, downLoad := p.mon.Loads(ctx.Now(), ctx.Network())
	load := func(r int) float64 { return netmon.RackLoad(upLoad, downLoad, r) }
	θ := p.cfg.SaturationThreshold
	switch p.cfg.SaturationScope {
	case "global":
		for r := range ctx.Topology().Racks {
			if load(r) >= θ {
				return true
			}
		}
		return false
	case "aggregate":
		var sum float64
		nr := len(ctx.Topology().Racks)
		for r := 0; r < nr; r++ {
			if r < len(upLoad) {
				sum += upLoad[r]
			}
			if r < len(downLoad) {
				sum += downLoad[r]
			}
		}
		return sum >= θ*2*float64(nr)
	}
	return load(int(i)) >= θ
}

// key and eligibility of a job at rack i under the selection variant
// (§2.5's table).
func (p *Policy) keyAt(pl *jobPlan, i cluster.RackID, sat bool) (int64, bool) {
	switch p.cfg.Variant {
	case "A":
		k := pl.pref[0].cost
		for _, e := range pl.pref[1:] {
			if sat {
				k = min(k, e.cost)
			} else {
				k = max(k, e.cost)
			}
		}
		return k, pl.prefers(i)
	case "B":
		sel := pl.pref[0]
		for _, e := range pl.pref[1:] {
			if sat && e.cost < sel.cost || !sat && e.cost > sel.cost || e.cost == sel.cost && e.rack == i {
				sel = e
			}
		}
		return sel.cost, sel.rack == i
	}
	c, ok := pl.costAt(i)
	return c, ok
}

// assign runs Algorithm 1 for one free container of host h.
func (p *Policy) assign(ctx *engine.Context, h cluster.HostID) bool {
	i := ctx.Topology().RackOf(h)
	p.updatePlan(ctx)
	p.balance(i)
	sat := p.saturated(ctx, i)
	p.cands = p.cands[:0]
	for _, j := range p.active {
		pl := &p.plans[j.ID]
		k, ok := p.keyAt(pl, i, sat)
		starving := p.cfg.StarveAfter > 0 && ctx.Now()-pl.since > p.cfg.StarveAfter
		p.cands = append(p.cands, candidate{job: j, plan: pl, key: k, eligible: ok, starving: starving})
	}
	sort.SliceStable(p.cands, func(a, b int) bool {
		ca, cb := p.cands[a], p.cands[b]
		if ca.starving != cb.starving {
			return ca.starving
		}
		if sat {
			return ca.key < cb.key
		}
		return ca.key > cb.key
	})
	first := -1
	for k := range p.cands {
		if p.cands[k].eligible {
			first = k
			break
		}
	}
	if first < 0 {
		return false // no job prefers this rack: the container stays free
	}
	pick := p.cands[first]
	if !pick.starving {
		// A1-23..27: S is the eligible jobs whose key equals the first's
		// (within ε of it, not of the pick so far, which would let the
		// tolerance walk away from the first job's key)
		firstKey := pick.key
		for _, c := range p.cands[first+1:] {
			if !c.eligible || c.starving || absDiff(c.key, firstKey) > p.cfg.Epsilon {
				continue
			}
			// A1-31: node-level cost, then submission order (the list's)
			cn, pn := c.plan.nodeCost(h), pick.plan.nodeCost(h)
			if sat && cn < pn || !sat && cn > pn {
				pick = c
			}
		}
	}
	return launchIn(ctx, pick.job, pick.plan, h, engine.DecisionNote{Saturation: saturation(sat), Reason: reason(pick, i, sat)})
}

func saturation(sat bool) engine.Saturation {
	if sat {
		return engine.Saturated
	}
	return engine.Unsaturated
}

// reason says what put the chosen job first for rack i.
func reason(pick candidate, i cluster.RackID, sat bool) string {
	switch {
	case pick.starving:
		return ReasonStarved
	case pick.plan.balancedAt(i):
		return ReasonBalance
	case sat:
		return ReasonZeroTraffic
	}
	return ReasonAggregate
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// launchIn starts one task of the job's current stage on h (§2.7): a map
// with a replica on h, else in h's rack, else any; a reducer by index.
func launchIn(ctx *engine.Context, j *engine.Job, pl *jobPlan, h cluster.HostID, note engine.DecisionNote) bool {
	var t engine.TaskRef
	var ok bool
	if pl.kind == mapLike {
		t, _, ok = ctx.PickMap(j.ID, h, engine.Remote)
	} else {
		t, ok = ctx.NextPendingShuffle(j.ID)
	}
	if !ok {
		return false
	}
	_, err := ctx.Launch(t, h, engine.LaunchOptions{Note: note})
	return err == nil
}

// unaware is the dependency-unaware scheduler of the case study (§4.3),
// Fair with map locality forced: jobs in fair-share order; a reducer
// takes whichever container frees (heartbeats come in a seeded random
// order), a map only a container on a host holding its block.
func (p *Policy) unaware(ctx *engine.Context, h cluster.HostID) {
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		launched := false
		p.active = fair.Order(ctx, p.active)
		for _, j := range p.active {
			t, ok := ctx.NextPendingShuffle(j.ID)
			if !ok {
				t, _, ok = ctx.PickMap(j.ID, h, engine.NodeLocal)
			}
			if !ok {
				t, ok = p.localNowhere(ctx, j)
			}
			if !ok {
				continue
			}
			if _, err := ctx.Launch(t, h, engine.LaunchOptions{Note: engine.DecisionNote{Reason: ReasonUnaware}}); err != nil {
				return
			}
			launched = true
			break
		}
		if !launched {
			return
		}
	}
}

// localNowhere is a pending map of the job with no live replica (the
// task of an empty input, or a block of a parent's empty output): it is
// node-local on no host, so the node-local rule alone left it waiting
// for ever, every slot idle, until the run stalled. Any host is as good
// for it; a map with a replica still waits for a host holding it. A
// stage found with a replica for every task is not scanned again (the
// scan ran at every offer a host had no node-local map for).
func (p *Policy) localNowhere(ctx *engine.Context, j *engine.Job) (engine.TaskRef, bool) {
	for _, st := range j.Stages {
		key := stageRef{j.ID, st.Index}
		if st.Pending == 0 || st.Spec.Kind != workload.Map || p.replicated[key] {
			continue
		}
		every := true
		for i := range st.Tasks {
			t := engine.TaskRef{Job: j.ID, Stage: int16(st.Index), Index: int32(i)}
			if len(ctx.Replicas(t)) > 0 {
				continue
			}
			every = false
			if st.Tasks[i].State == engine.TaskPending && ctx.CanRun(t) {
				return t, true
			}
		}
		if every {
			if p.replicated == nil {
				p.replicated = map[stageRef]bool{}
			}
			p.replicated[key] = true
		}
	}
	return engine.TaskRef{}, false
}

// Inspect shows the dependency detector's output and each planned job's
// preferred racks with their costs (policytest.Inspector).
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	if p.deps == nil {
		deps, err := DetectDeps(jobs)
		if err != nil {
			return err.Error() + "\n"
		}
		p.deps = deps
	}
	names := func(ids []engine.JobID) string {
		var s []string
		for _, id := range ids {
			s = append(s, jobs[id].Spec.ID)
		}
		return "{" + strings.Join(s, ",") + "}"
	}
	for _, j := range jobs {
		fmt.Fprintf(&b, "%s next=%s", j.Spec.ID, names(p.deps.Next[j.ID]))
		for _, y := range p.deps.Next[j.ID] {
			fmt.Fprintf(&b, " prev(%s)=%s", jobs[y].Spec.ID, names(p.deps.Prev(j.ID, y)))
		}
		if int(j.ID) < len(p.plans) && p.plans[j.ID].stage >= 0 {
			pl := &p.plans[j.ID]
			fmt.Fprintf(&b, " stage=%d", pl.stage)
			for _, e := range pl.pref {
				fmt.Fprintf(&b, " r%d:%d", e.rack, e.cost)
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "balanced=%d\n", p.Balanced)
	return b.String()
}
