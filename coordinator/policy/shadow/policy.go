package shadow

import (
	"math/rand/v2"
	"slices"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Pair states of §2.5.
type pairState uint8

const (
	pending    pairState = iota // undecided: the original's output is held
	dupChosen                   // the duplicate's output feeds the shuffle
	origChosen                  // the original's output feeds the shuffle
)

var pairStateNames = [...]string{"PENDING", "DUP_CHOSEN", "ORIG_CHOSEN"}

// original is what the policy knows of one original map attempt.
type original struct {
	attempt    engine.AttemptID
	rack       int
	start, end float64
	output     int64
	running    bool
	finished   bool
	killed     bool
}

// pair is a duplicated split: its original and its duplicate.
type pair struct {
	split     int32
	dup       engine.AttemptID
	from, to  int // racks
	local     bool
	state     pairState
	launch    float64 // the duplicate's launch, absolute
	readBytes float64 // D: 0 when local
	bandwidth float64 // B_iu from the max-min snapshot
	dupDone   bool
	early     bool // chosen before T
}

// jobState is the policy's state of one job.
type jobState struct {
	mapStage, reduceStage int // -1: none
	originals             map[int32]*original
	t0                    float64
	started               bool
	waitSince             float64 // delay scheduling: first skipped offer, <0 none
	duplicated            bool    // SHADOW-DUPLICATE has run
	duplicating           bool    // launching the plan: no CHECK-T yet
	planned               []int   // racksMapCount after duplication
	plan                  []Duplication
	pairs                 map[int32]*pair
	reducerQuota          []int
	reducersPlaced        []int
	tReached              bool
	T                     float64 // from t0
	predicted             float64 // T_t of SELECT-AT-T, from t0
	baseline              float64 // T_t with every pending pair's original
	actual                float64 // see Policy.Figures
	reducersLeft          int
}

// Policy is the Shadow scheduler: an engine.HostScheduler with an
// OutputChooser and the attempt hooks. Its base scheduler is delay
// scheduling with a rack-locality delay only (§2.2, §4.2).
type Policy struct {
	cfg  Config
	jobs map[engine.JobID]*jobState

	// run counters, for Figures
	originals, duplicates, chosen, early, relocated int
}

// New builds the policy from its args.
func New(cfg Config) *Policy {
	return &Policy{cfg: cfg, jobs: map[engine.JobID]*jobState{}}
}

// Name is the registry name.
func (*Policy) Name() string { return "shadow" }

// Configure states the paper's slow-start (§5.1): reducers start once 80%
// of the maps are done.
func (*Policy) Configure(cfg *engine.Config) { cfg.SlowStart = 0.8 }

func (p *Policy) job(ctx *engine.Context, id engine.JobID) *jobState {
	if js := p.jobs[id]; js != nil {
		return js
	}
	j := ctx.Job(id)
	js := &jobState{mapStage: -1, reduceStage: -1, originals: map[int32]*original{}, pairs: map[int32]*pair{}, waitSince: -1}
	for i, st := range j.Stages {
		if st.Spec.Kind == workload.Map && js.mapStage < 0 {
			js.mapStage = i
			p.originals += len(st.Tasks)
		}
		if st.Spec.Kind == workload.Reduce && js.reduceStage < 0 {
			js.reduceStage = i
			js.reducersLeft = len(st.Tasks)
		}
	}
	p.jobs[id] = js
	return js
}

// OfferHost is a heartbeat from host h: each running job in submission
// order gets its maps placed by delay scheduling, then its reducers by
// the configured placement.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	for _, j := range ctx.Running() {
		js := p.job(ctx, j.ID)
		if ctx.Offering() != engine.ReduceSlot {
			p.offerMaps(ctx, j.ID, js, h)
		}
		if ctx.Offering() != engine.MapSlot {
			p.offerReducers(ctx, j.ID, js, h)
		}
	}
}

// offerMaps is the base scheduler: rack-local maps at once, others only
// after the job has waited RackLocalityDelay since its first skipped
// offer. When it launches the job's last pending map it runs the
// duplication (§2.4 trigger: all originals placed, last wave).
func (p *Policy) offerMaps(ctx *engine.Context, id engine.JobID, js *jobState, h cluster.HostID) {
	for ctx.FreeMapSlots(h) > 0 && ctx.PendingMaps(id) > 0 {
		t, _, ok := ctx.PickMap(id, h, engine.RackLocal)
		if ok {
			js.waitSince = -1
		} else {
			if js.waitSince < 0 {
				js.waitSince = ctx.Now()
			}
			if ctx.Now()-js.waitSince < p.cfg.RackLocalityDelay {
				return // skip: wait for a rack-local slot
			}
			if t, _, ok = ctx.PickMap(id, h, engine.Remote); !ok {
				return
			}
		}
		a, err := ctx.Launch(t, h, engine.LaunchOptions{})
		if err != nil {
			return
		}
		if int(t.Stage) == js.mapStage {
			if !js.started {
				js.started, js.t0 = true, ctx.Now()
			}
			js.originals[t.Index] = &original{attempt: a, rack: int(ctx.Topology().RackOf(h)), start: ctx.Now(), running: true}
		}
	}
	if js.mapStage >= 0 && !js.duplicated && js.started && ctx.PendingMaps(id) == 0 {
		p.duplicate(ctx, id, js)
	}
}

// duplicate runs SHADOW-DUPLICATE over the live racks and launches its
// plan; a rack-local duplicate replaces its original at once (A5).
func (p *Policy) duplicate(ctx *engine.Context, id engine.JobID, js *jobState) {
	js.duplicated = true
	topo := ctx.Topology()
	n := len(topo.Racks)
	free := make([]int, n)
	for _, r := range topo.Racks {
		for _, h := range r.Hosts {
			if ctx.Alive(h) {
				free[r.ID] += ctx.FreeMapSlots(h)
			}
		}
	}
	st := ctx.Job(id).Stages[js.mapStage]
	var in []Original
	for i := range st.Tasks {
		o := js.originals[int32(i)]
		if o == nil || o.killed {
			continue // never launched by us, or replaced: not an original of this plan
		}
		ref := engine.TaskRef{Job: id, Stage: int16(js.mapStage), Index: int32(i)}
		in = append(in, Original{Split: i, Rack: o.rack, ReplicaRacks: replicaRacks(ctx, ref), Done: o.finished || !o.running})
	}
	var rng *rand.Rand
	if !p.cfg.DeterministicPick {
		rng = ctx.Rand()
	}
	theta := Theta(p.cfg.Theta, len(st.Tasks))
	plan, planned, err := Duplicate(DuplicateInput{Racks: n, Originals: in, FreeSlots: free, Theta: theta, Rand: rng})
	if err != nil {
		ctx.Reject("shadow duplicate: " + err.Error())
		return
	}
	js.planned = planned
	js.duplicating = true
	var flows []Flow
	var remote []*pair
	for _, d := range plan {
		ref := engine.TaskRef{Job: id, Stage: int16(js.mapStage), Index: int32(d.Split)}
		host, src, ok := chooseNode(ctx, ref, d)
		if !ok {
			// the rack's slots went between planning and launching: keep
			// the original where it is
			js.planned[d.To]--
			js.planned[d.From]++
			continue
		}
		a, err := ctx.LaunchDuplicate(ref, host, engine.LaunchOptions{Source: src})
		if err != nil {
			js.planned[d.To]--
			js.planned[d.From]++
			continue
		}
		p.duplicates++
		js.plan = append(js.plan, d)
		pr := &pair{split: int32(d.Split), dup: a, from: d.From, to: d.To, local: d.Local, state: pending, launch: ctx.Now()}
		js.pairs[pr.split] = pr
		if d.Local {
			if p.cfg.KillLocalOriginal {
				pr.state = dupChosen
				p.relocated++
				o := js.originals[pr.split]
				o.killed = true
				_ = ctx.Kill(o.attempt)
			}
		} else {
			pr.readBytes = float64(ctx.Task(ref).InputBytes)
			flows = append(flows, Flow{Src: d.From, Dst: d.To})
			remote = append(remote, pr)
		}
	}
	js.duplicating = false
	if len(flows) > 0 {
		up, down := capacities(topo)
		if rates, err := MaxMinBandwidth(flows, up, down); err == nil {
			for i, pr := range remote {
				pr.bandwidth = rates[i]
			}
		}
	}
	p.setReducerQuota(ctx, id, js)
	p.checkT(ctx, id, js)
}

func capacities(topo *cluster.Topology) (up, down []float64) {
	for _, r := range topo.Racks {
		up = append(up, r.UplinkBps)
		down = append(down, r.DownlinkBps)
	}
	return up, down
}

func replicaRacks(ctx *engine.Context, ref engine.TaskRef) []int {
	var racks []int
	for _, r := range ctx.Replicas(ref) {
		rk := int(ctx.Topology().RackOf(r.Host))
		if !slices.Contains(racks, rk) {
			racks = append(racks, rk)
		}
	}
	return racks
}

// chooseNode picks the duplicate's host in rack d.To and the replica it
// reads: for a local duplicate a host holding a replica if one has a free
// map slot, else any host of the rack reading the rack's replica; for a
// remote one the host of the rack with the most free map slots (lowest id
// on ties), reading the replica in the original's rack (A13).
func chooseNode(ctx *engine.Context, ref engine.TaskRef, d Duplication) (cluster.HostID, *workload.Replica, bool) {
	topo := ctx.Topology()
	reps := ctx.Replicas(ref)
	var src *workload.Replica
	for i := range reps {
		rk := int(topo.RackOf(reps[i].Host))
		if (d.Local && rk == d.To) || (!d.Local && rk == d.From) {
			src = &reps[i]
			break
		}
	}
	if d.Local {
		for i := range reps {
			h := reps[i].Host
			if int(topo.RackOf(h)) == d.To && ctx.Alive(h) && ctx.FreeMapSlots(h) > 0 {
				return h, &reps[i], true
			}
		}
	}
	best, most := cluster.HostID(-1), 0
	for _, h := range topo.Racks[d.To].Hosts {
		if ctx.Alive(h) && ctx.FreeMapSlots(h) > most {
			best, most = h, ctx.FreeMapSlots(h)
		}
	}
	return best, src, best >= 0
}

// setReducerQuota fixes H for the job from its planned map counts (A11).
func (p *Policy) setReducerQuota(ctx *engine.Context, id engine.JobID, js *jobState) {
	if js.reduceStage < 0 || js.reducerQuota != nil {
		return
	}
	t := len(ctx.Job(id).Stages[js.reduceStage].Tasks)
	switch p.cfg.ReducePlacement {
	case PlaceRandom:
		racks := RoundRobinOrder(js.planned)
		js.reducerQuota = make([]int, len(js.planned))
		if len(racks) > 0 {
			for k := 0; k < t; k++ {
				js.reducerQuota[racks[ctx.Rand().IntN(len(racks))]]++
			}
		}
	default:
		js.reducerQuota = RoundRobinQuota(js.planned, t)
	}
	js.reducersPlaced = make([]int, len(js.planned))
}

// offerReducers launches the job's pending reducers on h while h's rack
// is under its quota, or while a rack under quota has no free reduce slot
// (the cycle skips a full rack, §2.3). Before the quota is known (maps
// still unplaced) reducers wait, except under the hadoop placement.
func (p *Policy) offerReducers(ctx *engine.Context, id engine.JobID, js *jobState, h cluster.HostID) {
	for ctx.FreeReduceSlots(h) > 0 {
		t, ok := ctx.NextPendingShuffle(id)
		if !ok || !ctx.CanRun(t) {
			return
		}
		rack := int(ctx.Topology().RackOf(h))
		if int(t.Stage) == js.reduceStage && p.cfg.ReducePlacement != PlaceHadoop {
			if js.reducerQuota == nil {
				return
			}
			if js.reducersPlaced[rack] >= js.reducerQuota[rack] && !p.quotaBlocked(ctx, js) {
				return
			}
		}
		if _, err := ctx.Launch(t, h, engine.LaunchOptions{}); err != nil {
			return
		}
		if int(t.Stage) == js.reduceStage && js.reducersPlaced != nil {
			js.reducersPlaced[rack]++
		}
	}
}

// quotaBlocked reports whether some rack still owed reducers has no free
// reduce slot on any live host.
func (p *Policy) quotaBlocked(ctx *engine.Context, js *jobState) bool {
	for r, q := range js.reducerQuota {
		if js.reducersPlaced[r] >= q {
			continue
		}
		free := 0
		for _, h := range ctx.Topology().Racks[r].Hosts {
			if ctx.Alive(h) {
				free += ctx.FreeReduceSlots(h)
			}
		}
		if free == 0 {
			return true
		}
	}
	return false
}

var (
	_ engine.HostScheduler    = (*Policy)(nil)
	_ engine.OutputChooser    = (*Policy)(nil)
	_ engine.AttemptEndedHook = (*Policy)(nil)
	_ engine.Configurer       = (*Policy)(nil)
	_ engine.FigureReporter   = (*Policy)(nil)
)
