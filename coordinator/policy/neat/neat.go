package neat

import (
	"slices"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/fair"
	"github.com/racklab/racklab/coordinator/policy/netprio"
	"github.com/racklab/racklab/coordinator/workload"
)

// The reasons NEAT gives for a launch in its decision note.
const (
	// ReasonArrival: placed by the task-arrival heuristic (N1–N3).
	ReasonArrival = "arrival"
	// ReasonSlot: placed on a freed slot (N5).
	ReasonSlot = "slot"
)

// Policy is NEAT.
type Policy struct {
	cfg     Config
	net     netprio.FIFO
	started bool
	// flows are the placed attempts still receiving remote input, per
	// receiving host in placement order: the network state the predictor
	// reads.
	flows   map[engine.AttemptID]*flow
	byHost  [][]*flow
	batches []stageKey // stages released and not yet placed (N1)
	outs    map[stageKey]*stageOutput
	sizes   map[stageKey]float64 // released map stages' coflow sizes

	order []*engine.Job
	cands []engine.TaskRef
	keys  []rankedCoflow
}

// flow is an attempt's remote input as the policy placed it.
type flow struct {
	id     engine.AttemptID
	coflow stageKey
	host   cluster.HostID
	remote float64 // bytes from other hosts, predicted at placement
	end    float64 // predicted end of its transfer, at placement
}

type stageKey struct {
	job   engine.JobID
	stage int
}

// stageOutput is where a shuffling stage's upstream output is: the total
// (done outputs as written, the rest as expected) and the done part per
// host, as of stamp (the upstream's done tasks).
type stageOutput struct {
	stamp  int
	total  float64
	onHost []float64
}

type rankedCoflow struct {
	key  stageKey
	size float64
	sub  engine.Time
}

// New returns NEAT with the given args.
func New(cfg Config) *Policy {
	p := &Policy{cfg: cfg, flows: map[engine.AttemptID]*flow{}, outs: map[stageKey]*stageOutput{}, sizes: map[stageKey]float64{}}
	if cfg.Network == NetworkJobFIFO {
		p.net = netprio.FIFO{Mode: netprio.JobFIFO, Classes: cfg.Classes}
	}
	return p
}

// Name implements engine.Policy.
func (*Policy) Name() string { return "neat" }

// Config is the configuration the policy runs with.
func (p *Policy) Config() Config { return p.cfg }

func (p *Policy) start(ctx *engine.Context) {
	if !p.started {
		p.started = true
		p.byHost = make([][]*flow, len(ctx.Topology().Hosts))
	}
}

// StageReleased queues the stage for the task-arrival heuristic (N1),
// run at the next offer. With no free slot anywhere at release there is
// no machine to predict for: the tasks wait for freed slots (N5), which
// the engine offers one host at a time.
func (p *Policy) StageReleased(ctx *engine.Context, j engine.JobID, stage int) {
	for h := range ctx.Topology().Hosts {
		if id := cluster.HostID(h); ctx.Alive(id) && ctx.FreeSlots(id) > 0 {
			p.batches = append(p.batches, stageKey{j, stage})
			return
		}
	}
}

// InputDone forgets the attempt's flow: it no longer holds the receiver.
func (p *Policy) InputDone(ctx *engine.Context, a *engine.Attempt) { p.drop(ctx, a.ID) }

// AttemptEnded forgets an attempt that ended while receiving.
func (p *Policy) AttemptEnded(ctx *engine.Context, a *engine.Attempt) { p.drop(ctx, a.ID) }

// JobFinished moves the later jobs up a class under job_fifo.
func (p *Policy) JobFinished(ctx *engine.Context, _ engine.JobID) { p.net.Remark(ctx) }

func (p *Policy) drop(ctx *engine.Context, id engine.AttemptID) {
	f := p.flows[id]
	if f == nil {
		return
	}
	delete(p.flows, id)
	hs := p.byHost[f.host]
	if i := slices.Index(hs, f); i >= 0 {
		p.byHost[f.host] = slices.Delete(hs, i, i+1)
	}
	p.remarkSCF(ctx)
}

// OfferHost implements engine.HostScheduler: the released stages' tasks
// first (N1–N3), then the host's free slots (N5), work-conserving (N4).
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	p.start(ctx)
	if len(p.batches) > 0 {
		p.arrivals(ctx)
	}
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		if !p.slotChange(ctx, h) {
			return
		}
	}
}

// arrivals places each released stage's tasks in index order, each where
// its coflow is predicted to finish first (N1–N3), stages in job order.
func (p *Policy) arrivals(ctx *engine.Context) {
	p.order = p.jobOrder(ctx, p.order)
	pos := func(k stageKey) int {
		for i, o := range p.order {
			if o.ID == k.job {
				return i
			}
		}
		return len(p.order)
	}
	sort.SliceStable(p.batches, func(a, b int) bool { return pos(p.batches[a]) < pos(p.batches[b]) })
	batches := p.batches
	p.batches = nil
	hosts := ctx.Topology().Hosts
	for _, k := range batches {
		j := ctx.Job(k.job)
		if j.State != engine.JobRunning || j.Stages[k.stage].Pending == 0 {
			continue
		}
		st := j.Stages[k.stage]
		for i := range st.Tasks {
			t := engine.TaskRef{Job: k.job, Stage: int16(k.stage), Index: int32(i)}
			if !ctx.CanRun(t) {
				continue
			}
			v := p.view(ctx, k)
			best, bestPred, bestOwn := cluster.HostID(-1), 0.0, 0.0
			for h := range hosts {
				id := cluster.HostID(h)
				if !ctx.Alive(id) || ctx.FreeSlotsFor(id, t) == 0 {
					continue // a host with split pools may have slots, but not of t's kind
				}
				pred, own := p.predict(ctx, t, id, v, p.ahead(ctx, id, v.class))
				if best < 0 || pred < bestPred || (pred == bestPred && own < bestOwn) {
					best, bestPred, bestOwn = id, pred, own
				}
			}
			if best < 0 {
				return // no free slot: the rest wait for slot changes
			}
			p.place(ctx, t, best, bestOwn, ReasonArrival)
		}
	}
}

// slotChange gives one free slot of h to the first job in order with a
// runnable task, the task the predictor ranks first on h (N5).
func (p *Policy) slotChange(ctx *engine.Context, h cluster.HostID) bool {
	p.order = p.jobOrder(ctx, p.order)
	for _, j := range p.order {
		p.cands = ctx.Pending(j.ID, p.cands[:0])
		var best engine.TaskRef
		found, bestPred, bestOwn := false, 0.0, 0.0
		// Pending lists a job's tasks stage by stage: the class, the
		// bytes ahead on h and the coflow's end are per stage
		v, ahead := stageView{key: stageKey{-1, -1}}, 0.0
		for _, t := range p.cands {
			if !ctx.CanRun(t) {
				continue
			}
			if k := (stageKey{t.Job, int(t.Stage)}); k != v.key {
				v = p.view(ctx, k)
				ahead = p.ahead(ctx, h, v.class)
			}
			pred, own := p.predict(ctx, t, h, v, ahead)
			if !found || pred < bestPred || (pred == bestPred && own < bestOwn) {
				best, found, bestPred, bestOwn = t, true, pred, own
			}
		}
		if found {
			return p.place(ctx, best, h, bestOwn, ReasonSlot)
		}
	}
	return false
}

// stageView is what the predictor needs of a task's coflow: the class
// its flows get and the latest predicted end of its placed flows.
type stageView struct {
	key   stageKey
	class uint8
	end   float64
}

// view ranks the coflow among the receiving ones (which ahead then
// reads) and finds its end.
func (p *Policy) view(ctx *engine.Context, k stageKey) stageView {
	return stageView{key: k, class: p.class(ctx, k), end: p.coflowEnd(ctx, k)}
}

// predict is N2: when task t's coflow (v) would finish receiving if t
// ran on h (pred), and when t's own transfer would (own), with ahead the
// bytes the network serves on h before or alongside t's.
func (p *Policy) predict(ctx *engine.Context, t engine.TaskRef, h cluster.HostID, v stageView, ahead float64) (pred, own float64) {
	now := ctx.Now()
	own = now
	if d := p.remoteBytes(ctx, t, h); d > 0 {
		own = now + (ahead+d)/ctx.Topology().Hosts[h].NICBps
	}
	return max(v.end, own), own
}

// ahead is the remote input still to arrive on h in flows of class c or
// a higher priority (a lower class): what the network serves before or
// alongside a new flow of class c.
func (p *Policy) ahead(ctx *engine.Context, h cluster.HostID, c uint8) float64 {
	var n float64
	for _, f := range p.byHost[h] {
		a := ctx.Attempt(f.id)
		if a == nil {
			continue
		}
		fc := a.Priority
		if p.cfg.Network == NetworkSCF {
			// the rank it would have beside the candidate's coflow
			// (p.keys, as class ranked them): a smaller new coflow
			// moves it down before the new flow starts
			fc = p.rankOf(f.coflow)
		}
		if fc <= c {
			n += p.remaining(a, f)
		}
	}
	return n
}

// rankOf is a coflow's class from the last ranking (p.keys).
func (p *Policy) rankOf(k stageKey) uint8 {
	for i, r := range p.keys {
		if r.key == k {
			return uint8(min(i, p.cfg.Classes-1))
		}
	}
	return uint8(p.cfg.Classes - 1)
}

// remaining is what of a flow's remote input has not arrived, taking its
// received bytes as spread over its local and remote sources alike.
func (p *Policy) remaining(a *engine.Attempt, f *flow) float64 {
	if a.InputBytes <= 0 {
		return f.remote
	}
	left := 1 - float64(a.Received)/float64(a.InputBytes)
	return f.remote * min(max(left, 0), 1)
}

// coflowEnd is the latest predicted end of a coflow's placed flows still
// receiving, and now if it has none.
func (p *Policy) coflowEnd(ctx *engine.Context, k stageKey) float64 {
	end := ctx.Now()
	for _, hs := range p.byHost {
		for _, f := range hs {
			if f.coflow == k {
				end = max(end, f.end)
			}
		}
	}
	return end
}

// remoteBytes is d_t on h: a map's block unless h holds a replica; a
// shuffling task's expected partition less the part of its upstream's
// done output already on h.
func (p *Policy) remoteBytes(ctx *engine.Context, t engine.TaskRef, h cluster.HostID) float64 {
	j := ctx.Job(t.Job)
	st := j.Stages[t.Stage]
	task := &st.Tasks[t.Index]
	if st.Spec.Kind == workload.Map {
		for _, r := range ctx.Replicas(t) {
			if r.Host == h {
				return 0
			}
		}
		return float64(task.InputBytes)
	}
	out := p.upstream(ctx, j, int(t.Stage))
	input := float64(task.InputBytes)
	if input <= 0 {
		input = ctx.PartitionShare(t) * out.total
	}
	if out.total <= 0 {
		return input
	}
	return input * max(0, 1-out.onHost[h]/out.total)
}

// upstream is where a shuffling stage's upstream output is, recomputed
// when an upstream task finishes.
func (p *Policy) upstream(ctx *engine.Context, j *engine.Job, stage int) *stageOutput {
	st := j.Stages[stage]
	var ups []*engine.Stage
	for _, name := range st.Spec.After {
		for _, u := range j.Stages {
			if u.Spec.Name == name {
				ups = append(ups, u)
			}
		}
	}
	// found again when one of the job's tasks has launched, ended or been
	// released since: an upstream's expected output moves with any of them
	stamp := j.Progress()
	k := stageKey{j.ID, stage}
	if o := p.outs[k]; o != nil && o.stamp == stamp {
		return o
	}
	o := &stageOutput{stamp: stamp, onHost: make([]float64, len(ctx.Topology().Hosts))}
	for _, u := range ups {
		o.total += float64(ctx.ExpectedStageOutput(j.ID, u.Index))
		for i := range u.Tasks {
			ut := &u.Tasks[i]
			if ut.State == engine.TaskDone && ut.OutHost >= 0 && int(ut.OutHost) < len(o.onHost) {
				o.onHost[ut.OutHost] += float64(ut.OutputBytes)
			}
		}
	}
	p.outs[k] = o
	return o
}

// coflowSize is a stage's total network input: a map stage's blocks, a
// shuffling stage's upstream output.
func (p *Policy) coflowSize(ctx *engine.Context, k stageKey) float64 {
	j := ctx.Job(k.job)
	st := j.Stages[k.stage]
	if st.Spec.Kind != workload.Map {
		return p.upstream(ctx, j, k.stage).total
	}
	if n, ok := p.sizes[k]; ok {
		return n
	}
	var n float64
	for i := range st.Tasks {
		n += float64(st.Tasks[i].InputBytes)
	}
	if st.Released {
		p.sizes[k] = n
	}
	return n
}

// class is the network class coflow k's flows get now; under scf it
// leaves the ranking with k in p.keys.
func (p *Policy) class(ctx *engine.Context, k stageKey) uint8 {
	switch p.cfg.Network {
	case NetworkJobFIFO:
		return p.net.Class(ctx, k.job)
	case NetworkSCF:
		p.rankCoflows(ctx, k)
		return p.rankOf(k)
	}
	return 0
}

// rankCoflows orders the coflows with flows receiving, plus extra, into
// p.keys: smallest first, then earlier submitted job, job id, stage.
func (p *Policy) rankCoflows(ctx *engine.Context, extra stageKey) {
	p.keys = p.keys[:0]
	add := func(k stageKey) {
		for _, r := range p.keys {
			if r.key == k {
				return
			}
		}
		p.keys = append(p.keys, rankedCoflow{key: k, size: p.coflowSize(ctx, k), sub: ctx.Job(k.job).Submitted})
	}
	for _, hs := range p.byHost {
		for _, f := range hs {
			add(f.coflow)
		}
	}
	if extra.job >= 0 {
		add(extra)
	}
	sort.Slice(p.keys, func(a, b int) bool {
		x, y := p.keys[a], p.keys[b]
		switch {
		case x.size != y.size:
			return x.size < y.size
		case x.sub != y.sub:
			return x.sub < y.sub
		case x.key.job != y.key.job:
			return x.key.job < y.key.job
		}
		return x.key.stage < y.key.stage
	})
}

// remarkSCF re-marks every flow with its coflow's current rank: a coflow
// arriving or leaving moves the larger ones.
func (p *Policy) remarkSCF(ctx *engine.Context) {
	if p.cfg.Network != NetworkSCF {
		return
	}
	p.rankCoflows(ctx, stageKey{-1, -1})
	for _, hs := range p.byHost {
		for _, f := range hs {
			c := p.rankOf(f.coflow)
			if a := ctx.Attempt(f.id); a != nil && a.Priority != c {
				_ = ctx.SetPriority(f.id, c)
			}
		}
	}
}

// place launches t on h with its class and records its flow (N3: the
// machine's state the next prediction reads).
func (p *Policy) place(ctx *engine.Context, t engine.TaskRef, h cluster.HostID, own float64, reason string) bool {
	remote := p.remoteBytes(ctx, t, h)
	opt := engine.LaunchOptions{Priority: p.class(ctx, stageKey{t.Job, int(t.Stage)}), Note: engine.DecisionNote{Reason: reason}}
	id, err := ctx.Launch(t, h, opt)
	if err != nil {
		return false
	}
	if remote > 0 {
		f := &flow{id: id, coflow: stageKey{t.Job, int(t.Stage)}, host: h, remote: remote, end: own}
		p.flows[id] = f
		p.byHost[h] = append(p.byHost[h], f)
		p.remarkSCF(ctx)
	}
	return true
}

// jobOrder is the slot policy's order of the jobs with runnable tasks.
func (p *Policy) jobOrder(ctx *engine.Context, buf []*engine.Job) []*engine.Job {
	if p.cfg.Order == "fair" {
		return fair.Order(ctx, buf)
	}
	buf = buf[:0]
	for _, j := range ctx.Running() {
		if j.Pending > 0 {
			buf = append(buf, j)
		}
	}
	sort.SliceStable(buf, func(a, b int) bool { return engine.OrderFIFO.Less(buf[a], buf[b]) })
	return buf
}
