package pushbox

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// The reasons PushBox gives for a launch in its decision note, for the
// records: which test let the task take the slot.
const (
	// ReasonLegitimate: the legitimate job's local task (A2.10, A3.12).
	ReasonLegitimate = "legitimate"
	// ReasonNotHinder: a beneficiary's local task that finishes before
	// the machine's network work drains (A2.12, A3.12).
	ReasonNotHinder = "not-hinder"
	// ReasonConcurrency: a remote task under the threshold m (A1.10).
	ReasonConcurrency = "concurrency"
	// ReasonWildcard: a remote task of a smaller coflow past m under
	// Fair (A1.13–A1.14).
	ReasonWildcard = "wildcard"
)

// Policy is PushBox.
type Policy struct {
	cfg       Config
	started   bool
	rackLocal bool // rack-local input counts as local (oversubscribed mode)
	hosts     []hostState
	inputs    map[engine.AttemptID]*inputTask
	skips     []int // per job: delay-scheduling skips since its last node-local launch
	errs      map[engine.TaskRef]float64
	batches   []batch // stages released and not yet through Algorithm 3
	seq       uint64  // placement counter
	coflows   map[stageKey]coflowEntry
	stages    map[stageKey]*stageInfo

	order     []*engine.Job // Jobs[] of the current decision
	keyed     []keyedJob
	queueKeys []queueKey
	machines  []machineKey
	ranked    []*inputTask
	heads     []engine.JobID // per queue: the FIFO head (-1: none)
	cands     []engine.TaskRef
	rackBuf   []int64 // a reducer's available input by rack (crossRemaining)
}

type hostState struct {
	inputs []*inputTask // remote input-phase tasks, in placement order
	bhat   float64      // B̂: EMA of the measured receive rate, bytes/s
}

// inputTask is a task the policy placed with a network input phase that
// has not ended.
type inputTask struct {
	id     engine.AttemptID // -1 while being placed
	task   engine.TaskRef
	host   cluster.HostID
	seq    uint64
	coflow float64 // for ranking; filled by reprioritize
	lowest bool
}

type batch struct {
	job   engine.JobID
	stage int
}

type stageKey struct {
	job   engine.JobID
	stage int
}

type coflowEntry struct {
	stamp int
	bytes float64
}

// stageInfo is what the policy keeps of a stage: its upstream stages and
// whether its maps read blocks of one size.
type stageInfo struct {
	upstream  []int
	consumers []int
	blocks    bool // a map stage with input blocks: the locality branch
	uniform   bool // every block the same size
}

// candidate is a task selectTask chose for a machine.
type candidate struct {
	task  engine.TaskRef
	job   *engine.Job
	local bool
	level engine.Locality // maps: how close the input is; NoLocality otherwise
	input float64         // estimated network input, bytes (E applied)
}

// New returns PushBox with the given args.
func New(cfg Config) *Policy {
	return &Policy{cfg: cfg, inputs: map[engine.AttemptID]*inputTask{}, errs: map[engine.TaskRef]float64{},
		coflows: map[stageKey]coflowEntry{}, stages: map[stageKey]*stageInfo{}}
}

// Name implements engine.Policy.
func (*Policy) Name() string { return "pushbox" }

// Config is the configuration the policy runs with.
func (p *Policy) Config() Config { return p.cfg }

func (p *Policy) start(ctx *engine.Context) {
	if p.started {
		return
	}
	p.started = true
	topo := ctx.Topology()
	p.hosts = make([]hostState, len(topo.Hosts))
	for h := range p.hosts {
		p.hosts[h].bhat = topo.Hosts[h].NICBps
	}
	switch p.cfg.RackLocal {
	case "yes":
		p.rackLocal = true
	case "auto":
		for _, r := range topo.Racks {
			var nic float64
			for _, h := range r.Hosts {
				nic += topo.Hosts[h].NICBps
			}
			if r.UplinkBps < nic || r.DownlinkBps < nic {
				p.rackLocal = true
			}
		}
	}
}

func (p *Policy) grow(ctx *engine.Context) {
	p.start(ctx)
	if n := len(ctx.Jobs()); len(p.skips) < n {
		p.skips = append(p.skips, make([]int, n-len(p.skips))...)
	}
}

// StageReleased queues the stage's tasks for task-arrival mode (§2.9).
func (p *Policy) StageReleased(ctx *engine.Context, j engine.JobID, stage int) {
	p.batches = append(p.batches, batch{job: j, stage: stage})
}

// InputDone ends the attempt's input phase: its machine's priorities are
// recomputed (§2.7); the slot-change decision it allows comes with the
// next heartbeat.
func (p *Policy) InputDone(ctx *engine.Context, a *engine.Attempt) { p.drop(ctx, a.ID) }

// AttemptEnded forgets an attempt that ended in its input phase.
func (p *Policy) AttemptEnded(ctx *engine.Context, a *engine.Attempt) { p.drop(ctx, a.ID) }

// JobFinished re-ranks every machine: a FIFO queue may have a new head
// (§2.7, §3.3).
func (p *Policy) JobFinished(ctx *engine.Context, _ engine.JobID) {
	p.grow(ctx)
	for h := range p.hosts {
		if len(p.hosts[h].inputs) > 0 {
			p.reprioritize(ctx, cluster.HostID(h))
		}
	}
}

func (p *Policy) drop(ctx *engine.Context, id engine.AttemptID) {
	it := p.inputs[id]
	if it == nil {
		return
	}
	delete(p.inputs, id)
	hs := &p.hosts[it.host]
	if i := slices.Index(hs.inputs, it); i >= 0 {
		hs.inputs = slices.Delete(hs.inputs, i, i+1)
	}
	p.reprioritize(ctx, it.host)
}

// OfferHost implements engine.HostScheduler: Algorithm 3 for the stages
// released since the last decision, then Algorithm 2 on the offered host
// until it places nothing.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	p.grow(ctx)
	if len(p.batches) > 0 {
		p.arrivals(ctx)
	}
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		if !p.slotChange(ctx, h) {
			return // the slot stays empty on purpose
		}
	}
}

// slotChange is Algorithm 2 for one free slot of machine h.
func (p *Policy) slotChange(ctx *engine.Context, h cluster.HostID) bool {
	// most decisions end with the legitimate job: the rest of Jobs[] is
	// sorted only when it yields (Jobs[0] is then first again)
	first := p.firstJob(ctx)
	if first == nil {
		return false
	}
	yielded, onlySkips, sorted := false, true, false
	// h's dataTransferTime, the same for every candidate of this slot
	dttH := -1.0
	dtt := func() float64 {
		if dttH < 0 {
			dttH = p.dataTransferTime(ctx, h)
		}
		return dttH
	}
	for i := 0; ; i++ {
		j := first
		if i > 0 {
			if !sorted {
				p.order, sorted = p.jobOrder(ctx, p.order), true
			}
			if i >= len(p.order) {
				return false
			}
			j = p.order[i]
		}
		c, ok := p.selectTask(ctx, j, h, -1, true)
		if !ok { // A2.5: a skip, or (literal Jobs[]) nothing waiting
			yielded = true
			onlySkips = onlySkips && j.Pending > 0
			continue
		}
		if c.local {
			switch {
			case !yielded:
				return p.place(ctx, c, h, ReasonLegitimate)
			case p.cfg.YieldOnSkipBypassesNotHinder && onlySkips:
				return p.place(ctx, c, h, ReasonLegitimate)
			case p.notHinder(ctx, c, dtt()):
				return p.place(ctx, c, h, ReasonNotHinder)
			}
			continue
		}
		if reason, ok := p.canBePlaced(ctx, c, h); ok {
			return p.place(ctx, c, h, reason)
		}
		yielded, onlySkips = true, false
	}
}

// arrivals runs Algorithm 3 on each released stage, in Jobs[] order.
func (p *Policy) arrivals(ctx *engine.Context) {
	p.order = p.jobOrder(ctx, p.order)
	pos := func(j engine.JobID) int {
		for i, o := range p.order {
			if o.ID == j {
				return i
			}
		}
		return len(p.order)
	}
	sort.SliceStable(p.batches, func(a, b int) bool { return pos(p.batches[a].job) < pos(p.batches[b].job) })
	batches := p.batches
	p.batches = nil
	for _, b := range batches {
		j := ctx.Job(b.job)
		if j.State != engine.JobRunning || j.Stages[b.stage].Pending == 0 {
			continue
		}
		p.arrival(ctx, j, b.stage)
	}
}

type machineKey struct {
	h      cluster.HostID
	dtt    float64
	inputs int
}

// arrival is Algorithm 3 for one stage's waiting tasks.
func (p *Policy) arrival(ctx *engine.Context, j *engine.Job, stage int) {
	topo := ctx.Topology()
	// the stage's tasks take the pool of its kind: a host with split
	// pools may have free slots, but not of that one
	kindOf := engine.TaskRef{Job: j.ID, Stage: int16(stage)}
	for j.Stages[stage].Pending > 0 {
		p.machines = p.machines[:0]
		for h := range topo.Hosts {
			id := cluster.HostID(h)
			if ctx.Alive(id) && ctx.FreeSlotsFor(id, kindOf) > 0 {
				p.machines = append(p.machines, machineKey{h: id, dtt: p.dataTransferTime(ctx, id), inputs: len(p.hosts[h].inputs)})
			}
		}
		sort.Slice(p.machines, func(a, b int) bool {
			ma, mb := p.machines[a], p.machines[b]
			if ma.dtt != mb.dtt {
				return ma.dtt < mb.dtt
			}
			if ma.inputs != mb.inputs {
				return ma.inputs < mb.inputs
			}
			return ma.h < mb.h
		})
		placed := false
		for _, m := range p.machines {
			c, ok := p.selectTask(ctx, j, m.h, stage, false)
			if !ok {
				continue
			}
			if c.local {
				if p.firstJob(ctx) == j {
					placed = p.place(ctx, c, m.h, ReasonLegitimate)
				} else if p.notHinder(ctx, c, m.dtt) {
					placed = p.place(ctx, c, m.h, ReasonNotHinder)
				}
			} else if reason, ok := p.canBePlaced(ctx, c, m.h); ok {
				placed = p.place(ctx, c, m.h, reason)
			}
			if placed {
				break // A3.14, A3.20: again, with the machines re-sorted
			}
		}
		if !placed {
			return // the rest wait for slot-change decisions
		}
	}
}

// canBePlaced is controlled concurrency with the wildcard (A1.9–A1.17);
// it also says which rule admitted the task.
func (p *Policy) canBePlaced(ctx *engine.Context, c candidate, h cluster.HostID) (string, bool) {
	if p.cfg.GlobalPriority && !p.cfg.GPConcurrency {
		return ReasonConcurrency, true
	}
	ins := p.hosts[h].inputs
	if len(ins) < p.cfg.M {
		return ReasonConcurrency, true
	}
	if p.cfg.NoWildcard {
		return "", false
	}
	if p.ordering(ctx, c.job) != engine.OrderFair {
		// FIFO withholds the wildcard from jobs behind others (§2.5)
		if !p.cfg.FIFOHeadWildcard {
			return "", false
		}
		if p.fifoHeads(ctx); p.heads[c.job.Queue] != c.job.ID {
			return "", false
		}
	}
	// minCoflow is over every input-phase task on h (§2.2), so with
	// the strict < a coflow that already receives on h gets no second
	// wildcard there; min_coflow others leaves its own tasks out
	// (Scenario 4b's reading: there Rc passes on W1 with its sibling
	// Rb already receiving)
	size := p.coflowSize(ctx, c.job, int(c.task.Stage))
	for _, it := range ins {
		if p.cfg.MinCoflow == MinCoflowOthers && it.task.Job == c.task.Job && it.task.Stage == c.task.Stage {
			continue
		}
		if size >= p.coflowSize(ctx, ctx.Job(it.task.Job), int(it.task.Stage)) {
			return "", false
		}
	}
	return ReasonWildcard, true
}

// notHinder is A1.18: a beneficiary's local task must finish computing
// before its machine's network work drains, in dtt seconds.
func (p *Policy) notHinder(ctx *engine.Context, c candidate, dtt float64) bool {
	if p.cfg.NoNotHinder {
		return true
	}
	return p.computeTime(ctx, c.task) < dtt
}

// computeTime is the task's estimated computing phase, in seconds: its
// stage's CPU cost per byte times its input (the testbed's compute
// model; exact, as §5.2's default).
func (p *Policy) computeTime(ctx *engine.Context, t engine.TaskRef) float64 {
	j := ctx.Job(t.Job)
	st := j.Stages[t.Stage]
	return st.Spec.ComputeNsPerByte * p.expectedInput(ctx, j, t) * 1e-9
}

// dataTransferTime is R_i / B̂_i (§1.6): the estimated remaining input of
// machine h's input-phase tasks over its effective bandwidth.
func (p *Policy) dataTransferTime(ctx *engine.Context, h cluster.HostID) float64 {
	hs := &p.hosts[h]
	if len(hs.inputs) == 0 {
		return 0
	}
	var rem float64
	for _, it := range hs.inputs {
		if a := ctx.Attempt(it.id); a != nil {
			left := float64(max(a.InputBytes-a.Received, 0))
			if p.rackLocal {
				left = p.crossRemaining(ctx, a, left)
			}
			rem += left * p.errorOf(ctx, it.task)
		}
	}
	return rem / p.bandwidth(ctx, h)
}

// crossRemaining is the part of an attempt's remaining input (left) that
// crosses racks: in oversubscribed mode R_i counts only that (§1.6:
// "intra-rack transfers are left out of this accounting"). A remote map
// reads its block across racks. A reducer fetches what its own rack
// holds first (the simulator's and the workers' order) and then the
// other racks' part, which is therefore what is left of its input, up
// to that part's size: exact once its input is fixed, an estimate while
// its upstream still writes. The engine reports a total of bytes
// received, not one by source.
func (p *Policy) crossRemaining(ctx *engine.Context, a *engine.Attempt, left float64) float64 {
	if a.Locality != engine.NoLocality {
		if a.Locality == engine.Remote {
			return left
		}
		return 0
	}
	if len(p.rackBuf) != len(ctx.Topology().Racks) {
		p.rackBuf = make([]int64, len(ctx.Topology().Racks))
	}
	ctx.ShuffleAvailable(a.ID, p.rackBuf)
	own := ctx.Topology().RackOf(a.Host)
	var cross int64
	for r, b := range p.rackBuf {
		if cluster.RackID(r) != own {
			cross += b
		}
	}
	return min(left, float64(cross))
}

// NetworkMeasured implements engine.NetworkMeasuredHook: every
// measurement of a host's receive rate enters its B̂ while the host has
// input-phase tasks (§1.6), not only the last one before a decision.
func (p *Policy) NetworkMeasured(ctx *engine.Context) {
	net := ctx.Network()
	rx := net.HostRxBps
	if p.rackLocal {
		rx = net.HostCrossRxBps // §3.2: cross-rack bytes only
	}
	for h := range p.hosts {
		if hs := &p.hosts[h]; len(hs.inputs) > 0 && h < len(rx) {
			hs.bhat = p.cfg.EMAAlpha*rx[h] + (1-p.cfg.EMAAlpha)*hs.bhat
		}
	}
}

// bandwidth is B̂_h, or the NIC's rate while B̂_h is 0 (§1.6).
func (p *Policy) bandwidth(ctx *engine.Context, h cluster.HostID) float64 {
	hs := &p.hosts[h]
	if !(hs.bhat > 0) {
		return ctx.Topology().Hosts[h].NICBps
	}
	return hs.bhat
}

// errorOf is the task's estimation error E = f^(2U−1), drawn once.
func (p *Policy) errorOf(ctx *engine.Context, t engine.TaskRef) float64 {
	if p.cfg.ErrorFactor == 1 {
		return 1
	}
	if e, ok := p.errs[t]; ok {
		return e
	}
	e := math.Pow(p.cfg.ErrorFactor, 2*ctx.Rand().Float64()-1)
	p.errs[t] = e
	return e
}

// ordering is the ordering of the queue holding the job.
func (p *Policy) ordering(ctx *engine.Context, j *engine.Job) engine.Ordering {
	return ctx.Queues()[j.Queue].Ordering.Resolve(engine.OrderFair)
}

// jobOrder is Jobs[] (§2.6): queues below their guaranteed share first,
// then by running slots over weight; inside a queue FIFO by submission,
// Fair by running slots, then submission. Jobs with nothing waiting are
// left out unless KeepIdleJobs.
func (p *Policy) jobOrder(ctx *engine.Context, buf []*engine.Job) []*engine.Job {
	p.queueOrder(ctx)
	p.keyed = p.keyed[:0]
	for _, j := range ctx.Running() {
		if j.Pending > 0 || p.cfg.KeepIdleJobs {
			p.keyed = append(p.keyed, p.keyOf(j))
		}
	}
	slices.SortFunc(p.keyed, compareKeyed)
	buf = buf[:0]
	for _, k := range p.keyed {
		buf = append(buf, k.job)
	}
	return buf
}

// queueOrder fills p.queueKeys: each queue's place in Jobs[].
func (p *Policy) queueOrder(ctx *engine.Context) {
	qs := ctx.Queues()
	total := float64(ctx.TotalSlots())
	if cap(p.queueKeys) < len(qs) {
		p.queueKeys = make([]queueKey, len(qs))
	}
	p.queueKeys = p.queueKeys[:len(qs)]
	for i := range qs {
		q := &qs[i]
		k := queueKey{fair: q.Ordering.Resolve(engine.OrderFair) == engine.OrderFair}
		// below its minimum share (class 0) first, by usage/min share,
		// then the others (class 1) by usage/weight
		if min := q.Capacity * total; min > 0 && float64(q.Running) < min {
			k.usage = float64(q.Running) / min
		} else {
			w := q.Weight
			if w <= 0 {
				w = 1
			}
			k.class, k.usage = 1, float64(q.Running)/w
		}
		p.queueKeys[i] = k
	}
}

// firstJob is Jobs[0], the legitimate job, without sorting the rest.
func (p *Policy) firstJob(ctx *engine.Context) *engine.Job {
	p.queueOrder(ctx)
	var best keyedJob
	for _, j := range ctx.Running() {
		if j.Pending > 0 || p.cfg.KeepIdleJobs {
			if k := p.keyOf(j); best.job == nil || compareKeyed(k, best) < 0 {
				best = k
			}
		}
	}
	return best.job
}

func (p *Policy) keyOf(j *engine.Job) keyedJob {
	q := &p.queueKeys[j.Queue]
	k := keyedJob{job: j, class: q.class, usage: q.usage, queue: j.Queue, submitted: j.Submitted}
	if q.fair {
		k.running = j.Running
	}
	return k
}

func compareKeyed(a, b keyedJob) int {
	switch {
	case a.class != b.class:
		return cmp.Compare(a.class, b.class)
	case a.usage != b.usage:
		return cmp.Compare(a.usage, b.usage)
	case a.queue != b.queue:
		return cmp.Compare(a.queue, b.queue)
	case a.running != b.running:
		return cmp.Compare(a.running, b.running)
	case a.submitted != b.submitted:
		return cmp.Compare(a.submitted, b.submitted)
	}
	return cmp.Compare(a.job.ID, b.job.ID)
}

// queueKey is a queue's place in Jobs[]; keyedJob a job's.
type queueKey struct {
	class int
	usage float64
	fair  bool
}

type keyedJob struct {
	job       *engine.Job
	class     int
	usage     float64
	queue     int
	running   int // 0 in a FIFO queue
	submitted engine.Time
}

// place launches the candidate on h with its priority and, for a task
// with an input phase, re-ranks the machine (§2.7).
func (p *Policy) place(ctx *engine.Context, c candidate, h cluster.HostID, reason string) bool {
	note := engine.DecisionNote{Saturation: engine.Unsaturated, Reason: reason}
	if len(p.hosts[h].inputs) >= p.cfg.M {
		note.Saturation = engine.Saturated
	}
	p.seq++
	opt := engine.LaunchOptions{Note: note}
	var it *inputTask
	switch {
	case !c.local:
		it = &inputTask{id: -1, task: c.task, host: h, seq: p.seq}
		hs := &p.hosts[h]
		p.bandwidth(ctx, h) // a measurement taken before the task counts
		hs.inputs = append(hs.inputs, it)
		opt.Priority = p.rank(ctx, h, it)
	case c.level == engine.RackLocal:
		opt.Priority = p.lowestClass() // intra-rack flows (§1.6)
	}
	id, err := ctx.Launch(c.task, h, opt)
	if err != nil {
		if it != nil {
			hs := &p.hosts[h]
			hs.inputs = hs.inputs[:len(hs.inputs)-1]
		}
		return false
	}
	if c.level == engine.NodeLocal {
		p.skips[c.task.Job] = 0
	}
	if it != nil {
		it.id = id
		p.inputs[id] = it
		p.reprioritize(ctx, h)
	}
	return true
}

// expectedInput is what a task reads: a map its block, a reduce or
// generic task its partition of the upstream's output (done outputs as
// written, the rest as expected), or what a launch fixed. A task of a
// stage not yet released is estimated as a pending one: its InputBytes
// is still 0, and the critical stage's bottom level (§2.3) counts it.
func (p *Policy) expectedInput(ctx *engine.Context, j *engine.Job, t engine.TaskRef) float64 {
	st := j.Stages[t.Stage]
	task := &st.Tasks[t.Index]
	if st.Spec.Kind == workload.Map || task.State > engine.TaskPending || task.InputBytes > 0 {
		return float64(task.InputBytes)
	}
	return ctx.PartitionShare(t) * p.upstreamOutput(ctx, j, int(t.Stage))
}

// info returns what the policy keeps of a stage, built on first use.
func (p *Policy) info(ctx *engine.Context, j *engine.Job, stage int) *stageInfo {
	k := stageKey{j.ID, stage}
	if si := p.stages[k]; si != nil {
		return si
	}
	si := &stageInfo{}
	st := j.Stages[stage]
	for _, name := range st.Spec.After {
		for _, u := range j.Stages {
			if u.Spec.Name == name {
				si.upstream = append(si.upstream, u.Index)
			}
		}
	}
	for _, c := range j.Stages {
		if slices.Contains(c.Spec.After, st.Spec.Name) {
			si.consumers = append(si.consumers, c.Index)
		}
	}
	if st.Spec.Kind == workload.Map && st.Released {
		si.uniform = true
		for i := range st.Tasks {
			if st.Tasks[i].Block >= 0 {
				si.blocks = true
			}
			if st.Tasks[i].InputBytes != st.Tasks[0].InputBytes {
				si.uniform = false
			}
		}
	}
	if st.Released || st.Spec.Kind != workload.Map {
		p.stages[k] = si // a map stage's blocks are known once released
	}
	return si
}

// upstreamOutput is the output of the stages a stage shuffles from: what
// done and running tasks write plus what the others are expected to
// (engine.Context.ExpectedStageOutput), found again when one of the job's
// tasks has launched, ended or been released since.
func (p *Policy) upstreamOutput(ctx *engine.Context, j *engine.Job, stage int) float64 {
	si := p.info(ctx, j, stage)
	stamp := j.Progress()
	k := stageKey{j.ID, stage}
	if e, ok := p.coflows[k]; ok && e.stamp == stamp {
		return e.bytes
	}
	var n int64
	for _, u := range si.upstream {
		n += ctx.ExpectedStageOutput(j.ID, u)
	}
	p.coflows[k] = coflowEntry{stamp: stamp, bytes: float64(n)}
	return float64(n)
}

// coflowSize is the size of the coflow of a stage (§2.2): the total
// bytes of its input, or, with coflow_size remaining, what is not yet
// received of it.
func (p *Policy) coflowSize(ctx *engine.Context, j *engine.Job, stage int) float64 {
	st := j.Stages[stage]
	var total float64
	if st.Spec.Kind == workload.Map {
		k := stageKey{j.ID, -1 - stage}
		if e, ok := p.coflows[k]; ok {
			total = e.bytes
		} else {
			var n int64
			for i := range st.Tasks {
				n += st.Tasks[i].InputBytes
			}
			total = float64(n)
			if st.Released {
				p.coflows[k] = coflowEntry{bytes: total}
			}
		}
	} else {
		total = p.upstreamOutput(ctx, j, stage)
	}
	if p.cfg.CoflowSize == "total" {
		return total
	}
	var got int64
	for i := range st.Tasks {
		t := &st.Tasks[i]
		switch t.State {
		case engine.TaskDone:
			got += t.InputBytes
		case engine.TaskRunning:
			var most int64
			for _, id := range t.Running() {
				if a := ctx.Attempt(id); a != nil {
					most = max(most, a.Received)
				}
			}
			got += most
		}
	}
	return max(total-float64(got), 0)
}
