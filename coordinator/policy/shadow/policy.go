package shadow

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/internal/mapplace"
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
	t0                    float64 // launch of the first original map
	duplicated            bool    // SHADOW-DUPLICATE has run
	duplicating           bool    // launching the plan: no CHECK-T yet
	planned               []int   // racksMapCount after duplication
	plan                  []Duplication
	pairs                 map[int32]*pair
	tReached              bool
	T                     float64 // from t0
	predicted             float64 // T_t of SELECT-AT-T, from t0
	baseline              float64 // T_t with every pending pair's original
	actual                float64 // see Policy.Figures
	reducersLeft          int
}

// Policy is the Shadow scheduler: an engine.HostScheduler with an
// OutputChooser and the attempt hooks. Its base scheduler is delay
// scheduling with a rack-locality delay only (§2.2, §4.2), and its
// reducers go by the reduce_placement arg, round-robin on the planned map
// counts by default (§2.3, A11); both are mapplace's.
type Policy struct {
	cfg      Config
	maps     *mapplace.Placer
	reducers *mapplace.Reducers
	jobs     map[engine.JobID]*jobState

	// run counters, for Figures
	originals, duplicates, chosen, early, relocated int
}

// New builds the policy from its args.
func New(cfg Config) *Policy {
	return &Policy{
		cfg:      cfg,
		maps:     mapplace.NewPlacer(mapplace.Config{Mode: mapplace.Delay, RackLocalityDelay: cfg.RackLocalityDelay}),
		reducers: mapplace.NewReducers(mapplace.ReducePlacement(cfg.ReducePlacement)),
		jobs:     map[engine.JobID]*jobState{},
	}
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
	js := &jobState{mapStage: -1, reduceStage: -1, originals: map[int32]*original{}, pairs: map[int32]*pair{}, t0: math.Inf(1)}
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

// OfferHost is a heartbeat from host h: the base scheduler places
// original maps, then every job whose original maps are all launched (the
// last wave: none pending) gets its duplicates, then reducers are placed.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	p.maps.OfferMaps(ctx, h)
	for _, j := range ctx.Running() {
		js := p.job(ctx, j.ID)
		if js.mapStage >= 0 && !js.duplicated && p.maps.AllOriginalMapsAssigned(ctx, j.ID) {
			p.duplicate(ctx, j.ID, js)
		}
	}
	p.reducers.OfferReducers(ctx, h)
}

// JobFinished forgets the job in the placers; the policy keeps its own
// record for the figures.
func (p *Policy) JobFinished(_ *engine.Context, id engine.JobID) {
	p.maps.JobFinished(id)
	p.reducers.JobFinished(id)
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
	var in []Original
	for _, m := range p.maps.Originals(ctx, id, nil) {
		if int(m.Task.Stage) != js.mapStage {
			continue
		}
		task := ctx.Task(m.Task)
		o := js.originals[m.Task.Index]
		if o == nil {
			o = &original{rack: int(m.Rack), attempt: -1}
			js.originals[m.Task.Index] = o
		}
		for _, a := range task.Running() {
			if at := ctx.Attempt(a); at != nil && at.Host == m.Host {
				o.attempt, o.start = a, at.Start
				break
			}
		}
		if o.attempt >= 0 {
			js.t0 = min(js.t0, o.start)
		}
		in = append(in, Original{Split: int(m.Task.Index), Rack: int(m.Rack), ReplicaRacks: replicaRacks(ctx, m.Task),
			Done: task.State == engine.TaskDone || o.attempt < 0})
	}
	var rng *rand.Rand
	if !p.cfg.DeterministicPick {
		rng = ctx.Rand()
	}
	theta := Theta(p.cfg.Theta, len(ctx.Job(id).Stages[js.mapStage].Tasks))
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
		var a engine.AttemptID
		if ok {
			a, err = ctx.LaunchDuplicate(ref, host, engine.LaunchOptions{Source: src, Note: engine.DecisionNote{Reason: reasonOf(d)}})
		}
		if !ok || err != nil {
			// the rack's slots went between planning and launching: the
			// original stays where it is
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
	p.reducers.SetMapCounts(id, js.planned)
	p.checkT(ctx, id, js, -1)
}

// Reason codes of the duplicates' launches (DecisionNote.Reason).
const (
	ReasonDupLocal  = "shadow-dup-local"
	ReasonDupRemote = "shadow-dup-remote"
)

func reasonOf(d Duplication) string {
	if d.Local {
		return ReasonDupLocal
	}
	return ReasonDupRemote
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

var (
	_ engine.HostScheduler    = (*Policy)(nil)
	_ engine.OutputChooser    = (*Policy)(nil)
	_ engine.AttemptEndedHook = (*Policy)(nil)
	_ engine.Configurer       = (*Policy)(nil)
	_ engine.FigureReporter   = (*Policy)(nil)
	_ engine.JobFinishedHook  = (*Policy)(nil)
)
