package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// Config sets the mechanisms a run uses.
type Config struct {
	Seed uint64
	// SlowStart is the fraction of a stage's upstream tasks that must be
	// done before its tasks become runnable (Hadoop's
	// reduce.slowstart.completedmaps). Default 0.05; 1 waits for all.
	SlowStart float64
	// Queues configures named queues; jobs naming another queue get one
	// with weight 1 and an equal share.
	Queues []Queue
	// EarlyShuffleLimit is the share of the live slots that reduce and
	// generic attempts started before their upstream finished may hold in
	// all (Hadoop's reduce ramp-up limit). It keeps slow-started reducers
	// from taking every slot while the maps they wait for cannot run.
	// Default 0.5.
	EarlyShuffleLimit float64
	// IntermediateTiers is the tier preference for map outputs, OutputTiers
	// for job outputs: the first kind a host has is used.
	IntermediateTiers []cluster.TierKind
	OutputTiers       []cluster.TierKind
	// Placer places unplaced datasets; a policy that is a DatasetPlacer
	// takes precedence.
	Placer DatasetPlacer
	// MaxTaskFailures is how many failed attempts of one task (not counting
	// attempts lost with their host) fail its job, as Hadoop's
	// maxattempts. Default 4.
	MaxTaskFailures uint16
	// Stopwatch, when set, returns a monotonic time in nanoseconds; the
	// engine uses it only to measure how long policy decisions take.
	Stopwatch func() int64
}

// Queue is a scheduling queue.
type Queue struct {
	Name   string
	Weight float64
	// Capacity is the guaranteed share of the cluster's slots, MaxCapacity
	// the most the queue may use (0: no limit).
	Capacity    float64
	MaxCapacity float64
	// Running is the number of slots the queue's jobs hold now.
	Running int
}

// Job is the engine's state of one job. Policies read it; only the engine
// writes it.
type Job struct {
	ID        JobID
	Spec      *workload.Job
	Queue     int
	State     JobState
	Arrival   Time
	Submitted Time
	Started   Time
	Finished  Time
	Stages    []*Stage
	// Running is the number of slots the job holds; Pending its runnable
	// tasks without an attempt.
	Running   int
	Pending   int
	Tasks     int
	TasksDone int
	Attempts  int
	Reason    string

	parentsLeft int
	children    []JobID
	launched    bool
}

// Stage is the engine's state of one stage of a job.
type Stage struct {
	Spec     *workload.Stage
	Index    int
	Tasks    []Task
	Released bool
	Done     int
	Pending  int
	Final    bool // no stage of the job consumes it: its output is the job's
	// InputClass is the traffic class of the stage's reads.
	InputClass Class

	upstream  []int
	consumers []int
	blocks    []workload.Block // map input
	cumShares []float64        // reduce: cumulative partition shares, len Tasks+1

	// outputs of done tasks, for consumers to fetch
	outByHost map[cluster.HostID]int64
	outByRack []int64
	outTotal  int64
	outVer    uint64 // bumped whenever the outputs change

	running int  // attempts running
	upDone  bool // every upstream task done (stages with upstream only)

	queue  taskQueue
	byHost map[cluster.HostID]*taskQueue
	byRack map[cluster.RackID]*taskQueue
}

// Task is the engine's state of one task.
type Task struct {
	State       TaskState
	Block       int32 // map: index of its input block
	Attempts    uint16
	Failures    uint16 // attempts that failed by themselves
	InputBytes  int64
	OutputBytes int64
	// Output is the attempt whose output consumers read, once done.
	OutHost     cluster.HostID
	OutTier     cluster.TierKind
	OutReplicas []workload.Replica // final stages: where the job output lives
	// OutAttempt is the attempt whose output is in use, once done.
	OutAttempt AttemptID
	running    []AttemptID
	held       []*Attempt
}

// Running lists the task's running attempts.
func (t *Task) Running() []AttemptID { return t.running }

type hostState struct {
	alive   bool
	free    int
	running []AttemptID
	freePos int // position in Engine.freeHosts, -1 if absent
}

// Ready is what the driver must act on after a call into the engine.
type Ready struct {
	Launches   []*Attempt
	Kills      []AttemptID
	Priorities []AttemptID // attempts whose Priority changed
	Attempts   []AttemptRecord
	Jobs       []JobRecord
}

// Engine is the deterministic scheduling core. It is not safe for
// concurrent use; a driver calls it from one goroutine.
type Engine struct {
	cfg      Config
	topo     *cluster.Topology
	policy   Policy
	rng      *rand.Rand
	offerRng *rand.Rand
	now      Time
	ctx      Context
	network  NetworkStatus

	jobs      []*Job
	byName    map[string]JobID
	arrivals  []JobID // not yet arrived, by arrival time
	nextArr   int
	running   []*Job
	queues    []Queue
	hosts     []hostState
	freeHosts []cluster.HostID
	offerBuf  []cluster.HostID
	liveSlots int
	attempts  map[AttemptID]*Attempt
	held      map[AttemptID]*Attempt
	nextID    AttemptID
	pending   int
	finished  int
	early     int // running attempts of stages whose upstream is unfinished

	ready Ready

	// Stats counts what happened, for the run's records.
	Stats Stats
}

// Stats are the engine's counters.
type Stats struct {
	Decisions        int64 // policy hook calls that offered slots
	DecisionNanos    []int64
	Launches         int64
	Duplicates       int64
	DuplicatesUsed   int64
	Rejected         int64
	RejectedByReason map[string]int64
	HostsLost        int
	Recomputed       int64 // tasks rerun because their output was lost
}

// New builds an engine for a workload on a topology. Unplaced datasets
// are placed now, by the policy if it is a DatasetPlacer, else by
// cfg.Placer. The engine takes ownership of the workload and datasets.
func New(cfg Config, topo *cluster.Topology, w *workload.Workload, ds *workload.Datasets, p Policy) (*Engine, error) {
	if err := topo.Validate(); err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	if ds == nil {
		ds = &workload.Datasets{}
	}
	if err := ds.Validate(topo); err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	if err := w.Validate(ds); err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	if _, ok := p.(HostScheduler); !ok {
		if _, ok := p.(RoundScheduler); !ok {
			return nil, fmt.Errorf("policy %s schedules nothing: it is neither a HostScheduler nor a RoundScheduler", p.Name())
		}
	}
	if cfg.SlowStart == 0 {
		cfg.SlowStart = 0.05
	}
	if cfg.SlowStart < 0 || cfg.SlowStart > 1 {
		return nil, fmt.Errorf("slow-start fraction %g is outside [0,1]", cfg.SlowStart)
	}
	if cfg.EarlyShuffleLimit == 0 {
		cfg.EarlyShuffleLimit = 0.5
	}
	if cfg.MaxTaskFailures == 0 {
		cfg.MaxTaskFailures = 4
	}
	if len(cfg.IntermediateTiers) == 0 {
		cfg.IntermediateTiers = []cluster.TierKind{cluster.SSD, cluster.HDD, cluster.Mem}
	}
	if len(cfg.OutputTiers) == 0 {
		cfg.OutputTiers = []cluster.TierKind{cluster.HDD, cluster.SSD, cluster.Mem}
	}
	e := &Engine{
		cfg:      cfg,
		topo:     topo,
		policy:   p,
		rng:      rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		offerRng: rand.New(rand.NewPCG(cfg.Seed^0x5851f42d4c957f2d, 11)),
		byName:   make(map[string]JobID, len(w.Jobs)),
		attempts: map[AttemptID]*Attempt{},
		held:     map[AttemptID]*Attempt{},
		Stats:    Stats{RejectedByReason: map[string]int64{}},
	}
	e.ctx.e = e
	e.network.SaturationThreshold = 0.8
	e.network.UplinkLoad = make([]float64, len(topo.Racks))
	e.network.DownlinkLoad = make([]float64, len(topo.Racks))
	e.network.HostRxBps = make([]float64, len(topo.Hosts))
	e.hosts = make([]hostState, len(topo.Hosts))
	for i := range topo.Hosts {
		e.hosts[i] = hostState{alive: true, free: topo.Hosts[i].Slots, freePos: -1}
		e.liveSlots += topo.Hosts[i].Slots
		e.addFree(cluster.HostID(i))
	}
	if err := e.placeDatasets(ds); err != nil {
		return nil, err
	}
	e.queues = append(e.queues, cfg.Queues...)
	if err := e.buildJobs(w, ds); err != nil {
		return nil, err
	}
	if pl, ok := p.(Planner); ok {
		pl.Plan(&e.ctx, &Foreknowledge{Workload: w, Datasets: ds})
	}
	return e, nil
}

func (e *Engine) placeDatasets(ds *workload.Datasets) error {
	placer := e.cfg.Placer
	if pp, ok := e.policy.(DatasetPlacer); ok {
		placer = pp
	}
	for i := range ds.Datasets {
		d := &ds.Datasets[i]
		if d.Placed() {
			continue
		}
		sizes := d.BlockSizes()
		if len(sizes) == 0 {
			continue
		}
		if placer == nil {
			return fmt.Errorf("dataset %q is unplaced and no placement policy is configured", d.Name)
		}
		reps, err := placer.PlaceDataset(e.topo, e.rng, d, sizes)
		if err != nil {
			return fmt.Errorf("placing dataset %q: %w", d.Name, err)
		}
		if len(reps) != len(sizes) {
			return fmt.Errorf("placing dataset %q: placer returned %d replica lists for %d blocks", d.Name, len(reps), len(sizes))
		}
		d.Blocks = make([]workload.Block, len(sizes))
		for b := range sizes {
			if len(reps[b]) == 0 {
				return fmt.Errorf("placing dataset %q: block %d got no replica", d.Name, b)
			}
			d.Blocks[b] = workload.Block{Size: sizes[b], Replicas: reps[b]}
		}
	}
	return ds.Validate(e.topo)
}

func (e *Engine) queueIndex(name string) int {
	if name == "" {
		name = "default"
	}
	for i := range e.queues {
		if e.queues[i].Name == name {
			return i
		}
	}
	e.queues = append(e.queues, Queue{Name: name, Weight: 1})
	return len(e.queues) - 1
}

func (e *Engine) buildJobs(w *workload.Workload, ds *workload.Datasets) error {
	blocks := map[string][]workload.Block{}
	for i := range ds.Datasets {
		blocks[ds.Datasets[i].Name] = ds.Datasets[i].Blocks
	}
	for i := range w.Jobs {
		e.byName[w.Jobs[i].ID] = JobID(i)
	}
	for i := range w.Jobs {
		spec := &w.Jobs[i]
		j := &Job{ID: JobID(i), Spec: spec, Arrival: spec.Arrival, Queue: e.queueIndex(spec.Queue), parentsLeft: len(spec.Parents)}
		stageIdx := map[string]int{}
		for si := range spec.Stages {
			ss := &spec.Stages[si]
			st := &Stage{Spec: ss, Index: si, Final: true}
			stageIdx[ss.Name] = si
			for _, a := range ss.After {
				up := stageIdx[a]
				st.upstream = append(st.upstream, up)
				j.Stages[up].consumers = append(j.Stages[up].consumers, si)
				j.Stages[up].Final = false
			}
			switch ss.Kind {
			case workload.Map:
				st.InputClass = ClassInput
				if len(ss.Input) > 1 && ss.Input[:1] == workload.ParentOutputPrefix {
					st.InputClass = ClassDependent
					// tasks are made when the parent's output exists
				} else {
					st.blocks = blocks[ss.Input]
					n := len(st.blocks)
					if n == 0 {
						n = max(ss.Tasks, 1)
					}
					st.Tasks = make([]Task, n)
				}
			default:
				st.InputClass = ClassShuffle
				st.Tasks = make([]Task, ss.Tasks)
				st.cumShares = zipfCumulative(ss.Tasks, ss.Skew)
			}
			j.Stages = append(j.Stages, st)
		}
		e.jobs = append(e.jobs, j)
	}
	for _, j := range e.jobs {
		for _, p := range j.Spec.Parents {
			pj := e.jobs[e.byName[p]]
			pj.children = append(pj.children, j.ID)
		}
		for _, st := range j.Stages {
			j.Tasks += len(st.Tasks)
		}
	}
	e.arrivals = make([]JobID, 0, len(e.jobs))
	for _, j := range e.jobs {
		e.arrivals = append(e.arrivals, j.ID)
	}
	sort.SliceStable(e.arrivals, func(a, b int) bool { return e.jobs[e.arrivals[a]].Arrival < e.jobs[e.arrivals[b]].Arrival })
	return nil
}

// zipfCumulative returns n+1 cumulative shares of n partitions whose sizes
// follow a Zipf law with exponent s (s = 0: equal).
func zipfCumulative(n int, s float64) []float64 {
	c := make([]float64, n+1)
	var sum float64
	for i := 0; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), s)
	}
	var acc float64
	for i := 0; i < n; i++ {
		acc += 1 / math.Pow(float64(i+1), s) / sum
		c[i+1] = acc
	}
	c[n] = 1
	return c
}

// partition is partition i's part of an aggregate of bytes: the parts of
// all partitions add up to the aggregate exactly.
func partition(cum []float64, i int, total int64) int64 {
	if total <= 0 {
		return 0
	}
	hi := int64(math.Floor(float64(total) * cum[i+1]))
	lo := int64(math.Floor(float64(total) * cum[i]))
	if i+1 == len(cum)-1 {
		hi = total
	}
	return hi - lo
}

// Now is the engine's current time.
func (e *Engine) Now() Time { return e.now }

// Topology is the cluster the engine schedules.
func (e *Engine) Topology() *cluster.Topology { return e.topo }

// Job returns a job by id.
func (e *Engine) Job(id JobID) *Job { return e.jobs[id] }

// Jobs lists every job in workload order.
func (e *Engine) Jobs() []*Job { return e.jobs }

// Attempt returns a running attempt, or nil.
func (e *Engine) Attempt(id AttemptID) *Attempt { return e.attempts[id] }

// Queues lists the run's queues.
func (e *Engine) Queues() []Queue { return e.queues }

// HasFreeSlot reports whether any live host has an idle slot.
func (e *Engine) HasFreeSlot() bool { return len(e.freeHosts) > 0 }

// JobsFinished is the number of jobs that have succeeded or failed.
func (e *Engine) JobsFinished() int { return e.finished }

// IntermediateTier is the tier on which a host keeps map outputs.
func (e *Engine) IntermediateTier(h cluster.HostID) cluster.TierKind {
	return e.tierFor(h, e.cfg.IntermediateTiers)
}

// StageInfo returns the kind and compute cost (ns per input byte) of a
// task's stage.
func (e *Engine) StageInfo(t TaskRef) (workload.StageKind, float64) {
	st := e.jobs[t.Job].Stages[t.Stage]
	return st.Spec.Kind, st.Spec.ComputeNsPerByte
}

// Done reports whether every job has finished.
func (e *Engine) Done() bool { return e.finished == len(e.jobs) }

// Pending is the number of runnable tasks without a running attempt.
func (e *Engine) Pending() int { return e.pending }

// FreeSlots is the number of idle slots on live hosts.
func (e *Engine) FreeSlots() int {
	n := 0
	for _, h := range e.freeHosts {
		n += e.hosts[h].free
	}
	return n
}

// NextArrival is the time of the next job arrival, if any job has yet to
// arrive.
func (e *Engine) NextArrival() (Time, bool) {
	if e.nextArr >= len(e.arrivals) {
		return 0, false
	}
	return e.jobs[e.arrivals[e.nextArr]].Arrival, true
}

// Ready returns what the driver must act on and clears it.
func (e *Engine) Ready() Ready {
	r := e.ready
	e.ready = Ready{}
	return r
}

// SetNetwork hands the engine the driver's latest network measurement.
// Slices are copied; nil slices leave the old values.
func (e *Engine) SetNetwork(n NetworkStatus) {
	copyInto(e.network.UplinkLoad, n.UplinkLoad)
	copyInto(e.network.DownlinkLoad, n.DownlinkLoad)
	copyInto(e.network.HostRxBps, n.HostRxBps)
	if n.SaturationThreshold > 0 {
		e.network.SaturationThreshold = n.SaturationThreshold
	}
}

func copyInto(dst, src []float64) {
	if src != nil {
		copy(dst, src)
	}
}

// Network returns the engine's network status, for drivers that update it
// in place (the slices are the engine's).
func (e *Engine) Network() *NetworkStatus { return &e.network }

// Advance moves time forward to now and submits the jobs that have arrived
// and whose parents have finished.
func (e *Engine) Advance(now Time) error {
	if now < e.now {
		return fmt.Errorf("time went backwards: %g after %g", now, e.now)
	}
	e.now = now
	for e.nextArr < len(e.arrivals) {
		j := e.jobs[e.arrivals[e.nextArr]]
		if j.Arrival > now {
			break
		}
		e.nextArr++
		if j.parentsLeft == 0 {
			e.submit(j)
		}
	}
	return nil
}

func (e *Engine) arrived(j *Job) bool { return j.Arrival <= e.now }

func (e *Engine) submit(j *Job) {
	j.State = JobRunning
	j.Submitted = e.now
	e.running = append(e.running, j)
	for _, st := range j.Stages {
		if st.Spec.Kind == workload.Map && st.InputClass == ClassDependent {
			e.buildDependentInput(j, st)
		}
		if st.Spec.Kind == workload.Map {
			e.release(j, st)
		}
	}
	if h, ok := e.policy.(JobSubmittedHook); ok {
		h.JobSubmitted(&e.ctx, j.ID)
	}
	if j.TasksDone == j.Tasks { // a job with nothing to do
		e.finishJob(j, JobSucceeded, "")
	}
}

// buildDependentInput turns a parent's output into the blocks of a map
// stage: one block per output-producing task of the parent.
func (e *Engine) buildDependentInput(j *Job, st *Stage) {
	parent := e.jobs[e.byName[st.Spec.Input[1:]]]
	var blocks []workload.Block
	for _, ps := range parent.Stages {
		if !ps.Final {
			continue
		}
		for ti := range ps.Tasks {
			t := &ps.Tasks[ti]
			blocks = append(blocks, workload.Block{Size: t.OutputBytes, Replicas: t.OutReplicas})
		}
	}
	st.blocks = blocks
	n := max(len(blocks), 1)
	j.Tasks += n - len(st.Tasks)
	st.Tasks = make([]Task, n)
}

// release makes a stage's tasks runnable.
func (e *Engine) release(j *Job, st *Stage) {
	if st.Released {
		return
	}
	st.Released = true
	if st.Spec.Kind == workload.Map {
		e.sizeMapTasks(st)
		st.byHost = map[cluster.HostID]*taskQueue{}
		st.byRack = map[cluster.RackID]*taskQueue{}
	}
	for i := range st.Tasks {
		if st.Tasks[i].State == TaskBlocked {
			e.makePending(j, st, int32(i))
		}
	}
	if h, ok := e.policy.(StageReleasedHook); ok {
		h.StageReleased(&e.ctx, j.ID, st.Index)
	}
}

func (e *Engine) sizeMapTasks(st *Stage) {
	var total int64
	for _, b := range st.blocks {
		total += b.Size
	}
	var cum int64
	for i := range st.Tasks {
		t := &st.Tasks[i]
		t.Block = int32(i)
		if i < len(st.blocks) {
			t.InputBytes = st.blocks[i].Size
		} else {
			t.Block = -1
		}
		if st.Spec.OutputBytes > 0 {
			// apportion the stage's output by input share, exactly
			lo := apportion(st.Spec.OutputBytes, cum, total, len(st.Tasks), i)
			cum += t.InputBytes
			hi := apportion(st.Spec.OutputBytes, cum, total, len(st.Tasks), i+1)
			t.OutputBytes = hi - lo
		} else {
			t.OutputBytes = int64(math.Round(float64(t.InputBytes) * st.Spec.Selectivity))
		}
	}
}

// apportion returns the part of out that belongs before position done of
// total (or before task index i of n when total is 0).
func apportion(out, done, total int64, n, i int) int64 {
	if total == 0 {
		return out * int64(i) / int64(n)
	}
	return int64(float64(out) * float64(done) / float64(total))
}

func (e *Engine) makePending(j *Job, st *Stage, i int32) {
	t := &st.Tasks[i]
	t.State = TaskPending
	st.Pending++
	j.Pending++
	e.pending++
	st.queue.push(i)
	if st.Spec.Kind != workload.Map || t.Block < 0 {
		return
	}
	var lastRack cluster.RackID = -1
	for _, r := range st.blocks[t.Block].Replicas {
		q := st.byHost[r.Host]
		if q == nil {
			q = &taskQueue{}
			st.byHost[r.Host] = q
		}
		q.push(i)
		rack := e.topo.RackOf(r.Host)
		if rack != lastRack {
			rq := st.byRack[rack]
			if rq == nil {
				rq = &taskQueue{}
				st.byRack[rack] = rq
			}
			if n := len(rq.items); n == 0 || rq.items[n-1] != i {
				rq.push(i)
			}
			lastRack = rack
		}
	}
}

func (e *Engine) unPend(j *Job, st *Stage) {
	st.Pending--
	j.Pending--
	e.pending--
}

// taskQueue is a FIFO of task indexes with lazy deletion: entries whose
// task is no longer pending are skipped when met.
type taskQueue struct {
	items []int32
	head  int
}

func (q *taskQueue) push(i int32) { q.items = append(q.items, i) }

func (q *taskQueue) first(st *Stage) (int32, bool) {
	for q.head < len(q.items) {
		i := q.items[q.head]
		if st.Tasks[i].State == TaskPending {
			return i, true
		}
		q.head++
	}
	if q.head > 0 {
		q.items, q.head = q.items[:0], 0
	}
	return 0, false
}

func (e *Engine) nextLocal(j *Job, h cluster.HostID) (TaskRef, bool) {
	for _, st := range j.Stages {
		if st.Pending == 0 || st.Spec.Kind != workload.Map {
			continue
		}
		if q := st.byHost[h]; q != nil {
			if i, ok := q.first(st); ok {
				return TaskRef{j.ID, int16(st.Index), i}, true
			}
		}
	}
	return TaskRef{}, false
}

func (e *Engine) nextRackLocal(j *Job, r cluster.RackID) (TaskRef, bool) {
	for _, st := range j.Stages {
		if st.Pending == 0 || st.Spec.Kind != workload.Map {
			continue
		}
		if q := st.byRack[r]; q != nil {
			if i, ok := q.first(st); ok {
				return TaskRef{j.ID, int16(st.Index), i}, true
			}
		}
	}
	return TaskRef{}, false
}

func (e *Engine) nextPending(j *Job, maps bool) (TaskRef, bool) {
	for _, st := range j.Stages {
		if st.Pending == 0 || (st.Spec.Kind == workload.Map) != maps {
			continue
		}
		if !maps && !st.upDone && !e.earlyAllowed() {
			continue
		}
		if i, ok := st.queue.first(st); ok {
			return TaskRef{j.ID, int16(st.Index), i}, true
		}
	}
	return TaskRef{}, false
}

func (e *Engine) pendingOfKind(j *Job, maps bool) int {
	n := 0
	for _, st := range j.Stages {
		if (st.Spec.Kind == workload.Map) == maps {
			n += st.Pending
		}
	}
	return n
}

// earlyAllowed reports whether one more shuffle attempt may start before
// its upstream is done.
func (e *Engine) earlyAllowed() bool {
	return float64(e.early+1) <= e.cfg.EarlyShuffleLimit*float64(e.liveSlots)
}

// refreshUpstream keeps each stage's upDone flag, and the count of early
// shuffle attempts, in step with its upstream.
func (e *Engine) refreshUpstream(j *Job) {
	for _, st := range j.Stages {
		if len(st.upstream) == 0 {
			continue
		}
		done := e.upstreamDone(j, st)
		if done == st.upDone {
			continue
		}
		st.upDone = done
		if done {
			e.early -= st.running
		} else {
			e.early += st.running
		}
	}
}

func (e *Engine) liveReplicas(st *Stage, i int32) []workload.Replica {
	t := &st.Tasks[i]
	if t.Block < 0 {
		return nil
	}
	reps := st.blocks[t.Block].Replicas
	for _, r := range reps {
		if !e.hosts[r.Host].alive {
			live := make([]workload.Replica, 0, len(reps))
			for _, r := range reps {
				if e.hosts[r.Host].alive {
					live = append(live, r)
				}
			}
			return live
		}
	}
	return reps
}

func (e *Engine) addFree(h cluster.HostID) {
	hs := &e.hosts[h]
	if hs.freePos >= 0 || !hs.alive || hs.free == 0 {
		return
	}
	hs.freePos = len(e.freeHosts)
	e.freeHosts = append(e.freeHosts, h)
}

func (e *Engine) dropFree(h cluster.HostID) {
	hs := &e.hosts[h]
	if hs.freePos < 0 {
		return
	}
	last := e.freeHosts[len(e.freeHosts)-1]
	e.freeHosts[hs.freePos] = last
	e.hosts[last].freePos = hs.freePos
	e.freeHosts = e.freeHosts[:len(e.freeHosts)-1]
	hs.freePos = -1
}

// Schedule offers the free slots to the policy: host by host for a
// HostScheduler (a heartbeat from every host with a free slot, in a
// rotating order), or all at once for a RoundScheduler.
func (e *Engine) Schedule() {
	if e.pending == 0 || len(e.freeHosts) == 0 {
		return
	}
	if rs, ok := e.policy.(RoundScheduler); ok {
		free := e.sortedFree()
		e.timed(func() { rs.ScheduleRound(&e.ctx, free) })
		return
	}
	// heartbeats come in no fixed order: offer the free hosts in a seeded
	// random order, from a stream of its own so that the policy's draws do
	// not depend on how often the driver schedules
	hosts := append(e.offerBuf[:0], e.freeHosts...)
	e.offerBuf = hosts
	e.offerRng.Shuffle(len(hosts), func(a, b int) { hosts[a], hosts[b] = hosts[b], hosts[a] })
	for _, h := range hosts {
		if e.pending == 0 {
			break
		}
		e.Offer(h)
	}
}

func (e *Engine) sortedFree() []cluster.HostID {
	hosts := append([]cluster.HostID(nil), e.freeHosts...)
	sort.Slice(hosts, func(a, b int) bool { return hosts[a] < hosts[b] })
	return hosts
}

// Offer offers one host's free slots to a HostScheduler (a heartbeat).
func (e *Engine) Offer(h cluster.HostID) {
	hs, ok := e.policy.(HostScheduler)
	if !ok || int(h) >= len(e.hosts) || h < 0 {
		return
	}
	if e.hosts[h].free == 0 || !e.hosts[h].alive || e.pending == 0 {
		return
	}
	e.timed(func() { hs.OfferHost(&e.ctx, h) })
}

func (e *Engine) timed(f func()) {
	e.Stats.Decisions++
	if e.cfg.Stopwatch == nil {
		f()
		return
	}
	t0 := e.cfg.Stopwatch()
	f()
	e.Stats.DecisionNanos = append(e.Stats.DecisionNanos, e.cfg.Stopwatch()-t0)
}

func (e *Engine) reject(reason string) {
	e.Stats.Rejected++
	e.Stats.RejectedByReason[reason]++
}

var errRejected = errors.New("rejected")

func (e *Engine) rejectf(reason, format string, args ...any) error {
	e.reject(reason)
	return fmt.Errorf("%w: %s: %s", errRejected, reason, fmt.Sprintf(format, args...))
}

func (e *Engine) lookup(t TaskRef) (*Job, *Stage, *Task, bool) {
	if t.Job < 0 || int(t.Job) >= len(e.jobs) {
		return nil, nil, nil, false
	}
	j := e.jobs[t.Job]
	if t.Stage < 0 || int(t.Stage) >= len(j.Stages) {
		return nil, nil, nil, false
	}
	st := j.Stages[t.Stage]
	if t.Index < 0 || int(t.Index) >= len(st.Tasks) {
		return nil, nil, nil, false
	}
	return j, st, &st.Tasks[t.Index], true
}

func (e *Engine) launch(ref TaskRef, h cluster.HostID, opt LaunchOptions, dup bool) (AttemptID, error) {
	j, st, t, ok := e.lookup(ref)
	if !ok {
		return 0, e.rejectf("unknown task", "%+v", ref)
	}
	if h < 0 || int(h) >= len(e.hosts) {
		return 0, e.rejectf("unknown host", "host %d", h)
	}
	hs := &e.hosts[h]
	if !hs.alive {
		return 0, e.rejectf("dead host", "host %s", e.topo.Hosts[h].Name)
	}
	if hs.free == 0 {
		return 0, e.rejectf("full host", "host %s has no free slot", e.topo.Hosts[h].Name)
	}
	if j.State != JobRunning {
		return 0, e.rejectf("job not running", "job %s is %s", j.Spec.ID, j.State)
	}
	switch {
	case !dup && t.State != TaskPending:
		return 0, e.rejectf("task not pending", "%s/%s[%d]", j.Spec.ID, st.Spec.Name, ref.Index)
	case dup && t.State != TaskRunning:
		return 0, e.rejectf("duplicate of a task not running", "%s/%s[%d]", j.Spec.ID, st.Spec.Name, ref.Index)
	}
	if len(st.upstream) > 0 && !st.upDone && !e.earlyAllowed() {
		return 0, e.rejectf("early shuffle limit", "%s/%s[%d] would take a slot its upstream may need", j.Spec.ID, st.Spec.Name, ref.Index)
	}
	a := &Attempt{ID: e.nextID, Task: ref, Host: h, Start: e.now, Priority: opt.Priority, Duplicate: dup, Locality: NoLocality}
	a.Source.Host = -1
	if st.Spec.Kind == workload.Map {
		if t.Block >= 0 {
			src, err := e.chooseSource(st, ref.Index, h, opt.Source)
			if err != nil {
				return 0, err
			}
			a.Source = src
			a.Locality = e.localityOf(src.Host, h)
		}
		a.InputBytes = t.InputBytes
	} else {
		a.InputBytes = e.shuffleInput(j, st, ref.Index)
		t.InputBytes = a.InputBytes
		t.OutputBytes = e.reduceOutput(st, ref.Index, a.InputBytes)
	}
	a.OutputBytes = t.OutputBytes
	a.OutputReplicas = e.placeOutput(st, a)
	e.nextID++
	if !dup {
		e.unPend(j, st)
		t.State = TaskRunning
	} else {
		e.Stats.Duplicates++
	}
	t.Attempts++
	t.running = append(t.running, a.ID)
	st.running++
	if len(st.upstream) > 0 && !st.upDone {
		e.early++
	}
	j.Attempts++
	j.Running++
	e.queues[j.Queue].Running++
	if !j.launched {
		j.launched = true
		j.Started = e.now
	}
	hs.free--
	hs.running = append(hs.running, a.ID)
	if hs.free == 0 {
		e.dropFree(h)
	}
	e.attempts[a.ID] = a
	e.Stats.Launches++
	e.ready.Launches = append(e.ready.Launches, a)
	return a.ID, nil
}

func (e *Engine) localityOf(src, dst cluster.HostID) Locality {
	switch {
	case src == dst:
		return NodeLocal
	case e.topo.RackOf(src) == e.topo.RackOf(dst):
		return RackLocal
	}
	return Remote
}

// chooseSource picks the replica a map attempt on host h reads: the
// policy's choice if valid, else the closest live replica, fastest tier
// first, then lowest host id.
func (e *Engine) chooseSource(st *Stage, i int32, h cluster.HostID, want *workload.Replica) (workload.Replica, error) {
	reps := e.liveReplicas(st, i)
	if len(reps) == 0 {
		return workload.Replica{}, e.rejectf("input lost", "every replica of the block is on a dead host")
	}
	if want != nil {
		for _, r := range reps {
			if r == *want {
				return r, nil
			}
		}
		return workload.Replica{}, e.rejectf("bad source replica", "replica %d:%s does not hold the task's block", want.Host, want.Tier)
	}
	best := reps[0]
	for _, r := range reps[1:] {
		lb, lr := e.localityOf(best.Host, h), e.localityOf(r.Host, h)
		if lr < lb || (lr == lb && (r.Tier < best.Tier || (r.Tier == best.Tier && r.Host < best.Host))) {
			best = r
		}
	}
	return best, nil
}

// shuffleInput is what a reduce or generic task fetches in all: its
// partition of every upstream task's output. Before the upstream is done
// it is the expectation from the stage specs.
func (e *Engine) shuffleInput(j *Job, st *Stage, i int32) int64 {
	var n int64
	for _, u := range st.upstream {
		us := j.Stages[u]
		n += partition(st.cumShares, int(i), e.stageOutputTotal(us))
	}
	return n
}

// stageOutputTotal is a stage's total output: what its done tasks wrote
// plus what the rest are expected to write.
func (e *Engine) stageOutputTotal(st *Stage) int64 {
	var n int64
	for k := range st.Tasks {
		n += st.Tasks[k].OutputBytes
	}
	return n
}

func (e *Engine) reduceOutput(st *Stage, i int32, input int64) int64 {
	if st.Spec.OutputBytes > 0 {
		return partition(st.cumShares, int(i), st.Spec.OutputBytes)
	}
	return int64(math.Round(float64(input) * st.Spec.Selectivity))
}

func (e *Engine) placeOutput(st *Stage, a *Attempt) []workload.Replica {
	if !st.Final {
		return []workload.Replica{{Host: a.Host, Tier: e.tierFor(a.Host, e.cfg.IntermediateTiers)}}
	}
	n := max(st.Spec.OutputReplicas, 1)
	if op, ok := e.policy.(OutputPlacer); ok {
		if reps := op.PlaceOutput(&e.ctx, a, n); e.validReplicas(reps) {
			return reps
		}
		e.reject("bad output placement")
	}
	return e.defaultOutput(a.Host, n)
}

func (e *Engine) validReplicas(reps []workload.Replica) bool {
	if len(reps) == 0 {
		return false
	}
	for _, r := range reps {
		if r.Host < 0 || int(r.Host) >= len(e.hosts) || !e.hosts[r.Host].alive {
			return false
		}
		if _, ok := e.topo.Hosts[r.Host].Tier(r.Tier); !ok {
			return false
		}
	}
	return true
}

// defaultOutput writes the first replica on the writer and the others on
// other live hosts of its rack (HDFS-style pipeline kept in-rack).
func (e *Engine) defaultOutput(h cluster.HostID, n int) []workload.Replica {
	reps := []workload.Replica{{Host: h, Tier: e.tierFor(h, e.cfg.OutputTiers)}}
	rack := e.topo.Racks[e.topo.RackOf(h)]
	start := int(h)
	for k := 0; k < len(rack.Hosts) && len(reps) < n; k++ {
		o := rack.Hosts[(start+k)%len(rack.Hosts)]
		if o != h && e.hosts[o].alive {
			reps = append(reps, workload.Replica{Host: o, Tier: e.tierFor(o, e.cfg.OutputTiers)})
		}
	}
	return reps
}

func (e *Engine) tierFor(h cluster.HostID, pref []cluster.TierKind) cluster.TierKind {
	host := &e.topo.Hosts[h]
	for _, k := range pref {
		if _, ok := host.Tier(k); ok {
			return k
		}
	}
	return host.Tiers[0].Kind
}

func (e *Engine) setPriority(id AttemptID, class uint8) error {
	a := e.attempts[id]
	if a == nil {
		return e.rejectf("unknown attempt", "attempt %d is not running", id)
	}
	if a.Priority != class {
		a.Priority = class
		e.ready.Priorities = append(e.ready.Priorities, id)
	}
	return nil
}

func (e *Engine) kill(id AttemptID, why string) error {
	a := e.attempts[id]
	if a == nil {
		return e.rejectf("unknown attempt", "attempt %d is not running", id)
	}
	e.endAttempt(a, AttemptKilled)
	e.ready.Kills = append(e.ready.Kills, id)
	_ = why
	// the task's only attempt: it must run again
	j, st, t, _ := e.lookup(a.Task)
	return e.requeue(j, st, t, a)
}

// requeue makes a running task whose last attempt ended unsuccessfully
// runnable again, or uses an output held back from an earlier attempt.
func (e *Engine) requeue(j *Job, st *Stage, t *Task, a *Attempt) error {
	if t.State == TaskRunning && len(t.running) == 0 && j.State == JobRunning {
		if len(t.held) > 0 {
			return e.useHeld(t.held[0].ID)
		}
		t.State = TaskBlocked
		e.makePending(j, st, a.Task.Index)
	}
	return nil
}

// preemptEarly kills the youngest attempts started before their upstream
// finished until they fit the early-shuffle limit again, as Hadoop
// preempts reducers when maps starve. It is needed when a host's loss
// shrinks the slots or sends finished maps back to run: reducers holding
// every live slot would wait forever for maps that have no slot.
func (e *Engine) preemptEarly() {
	limit := e.cfg.EarlyShuffleLimit * float64(e.liveSlots)
	if float64(e.early) <= limit {
		return
	}
	var early []*Attempt
	for _, a := range e.attempts {
		if _, st, _, ok := e.lookup(a.Task); ok && len(st.upstream) > 0 && !st.upDone {
			early = append(early, a)
		}
	}
	// youngest first; ids break ties, so the choice is deterministic
	sort.Slice(early, func(i, k int) bool {
		if early[i].Start != early[k].Start {
			return early[i].Start > early[k].Start
		}
		return early[i].ID > early[k].ID
	})
	for _, a := range early {
		if float64(e.early) <= limit {
			return
		}
		_ = e.kill(a.ID, "preempted: its upstream needs the slot")
	}
}

// AttemptSucceeded tells the engine an attempt finished its work. reported
// is the driver's own byte count, or nil.
func (e *Engine) AttemptSucceeded(id AttemptID, reported *ByteCounts) error {
	a := e.attempts[id]
	if a == nil {
		return fmt.Errorf("attempt %d is not running", id)
	}
	j, st, t, _ := e.lookup(a.Task)
	// an attempt whose input was fixed fetched all of it, even if an
	// upstream output has since been lost and is being recomputed
	if st.Spec.Kind != workload.Map && !e.upstreamDone(j, st) && a.fetched == nil {
		return fmt.Errorf("attempt %d of %s/%s cannot finish before its upstream stages", id, j.Spec.ID, st.Spec.Name)
	}
	a.Reported = reported
	e.FinishShuffle(a)
	if t.State == TaskDone {
		// lost the race but finished at the same moment
		e.endAttempt(a, AttemptSucceeded)
		return nil
	}
	decision := UseOutput
	if oc, ok := e.policy.(OutputChooser); ok {
		decision = oc.ChooseOutput(&e.ctx, a)
	}
	e.endAttempt(a, AttemptSucceeded)
	switch decision {
	case HoldOutput:
		t.held = append(t.held, a)
		e.held[a.ID] = a
		if len(t.running) == 0 && t.State == TaskRunning {
			// nothing else can finish: use the best held so far
			return e.useHeld(a.ID)
		}
	case DiscardOutput:
		if len(t.running) == 0 && t.State == TaskRunning {
			t.State = TaskBlocked
			e.makePending(j, st, a.Task.Index)
		}
	default:
		e.finishTask(j, st, t, a)
	}
	return nil
}

func (e *Engine) useHeld(id AttemptID) error {
	a := e.held[id]
	if a == nil {
		return e.rejectf("unknown held output", "attempt %d holds no output", id)
	}
	j, st, t, _ := e.lookup(a.Task)
	e.finishTask(j, st, t, a)
	return nil
}

func (e *Engine) finishTask(j *Job, st *Stage, t *Task, a *Attempt) {
	if t.State == TaskDone {
		return
	}
	if a.Duplicate {
		e.Stats.DuplicatesUsed++
	}
	t.State = TaskDone
	t.OutHost = a.OutputReplicas[0].Host
	t.OutTier = a.OutputReplicas[0].Tier
	t.OutReplicas = a.OutputReplicas
	t.OutAttempt = a.ID
	t.OutputBytes = a.OutputBytes
	for _, h := range t.held {
		delete(e.held, h.ID)
	}
	t.held = nil
	for len(t.running) > 0 {
		_ = e.kill(t.running[0], "duplicate lost")
	}
	st.Done++
	j.TasksDone++
	e.addOutput(st, t)
	e.refreshUpstream(j)
	e.checkReleases(j)
	if j.TasksDone == j.Tasks && j.State == JobRunning {
		e.finishJob(j, JobSucceeded, "")
	}
}

func (e *Engine) addOutput(st *Stage, t *Task) {
	if st.outByHost == nil {
		st.outByHost = map[cluster.HostID]int64{}
		st.outByRack = make([]int64, len(e.topo.Racks))
	}
	st.outByHost[t.OutHost] += t.OutputBytes
	st.outByRack[e.topo.RackOf(t.OutHost)] += t.OutputBytes
	st.outTotal += t.OutputBytes
	st.outVer++
}

func (e *Engine) removeOutput(st *Stage, t *Task) {
	st.outByHost[t.OutHost] -= t.OutputBytes
	st.outByRack[e.topo.RackOf(t.OutHost)] -= t.OutputBytes
	st.outTotal -= t.OutputBytes
	st.outVer++
}

func (e *Engine) upstreamDone(j *Job, st *Stage) bool {
	for _, u := range st.upstream {
		if j.Stages[u].Done < len(j.Stages[u].Tasks) {
			return false
		}
	}
	return true
}

// FinishShuffle fixes a reduce or generic attempt's input and output sizes
// from its upstream's actual outputs, once they are all done; the driver
// calls it before the attempt writes its output.
func (e *Engine) FinishShuffle(a *Attempt) {
	j, st, t, ok := e.lookup(a.Task)
	if !ok || st.Spec.Kind == workload.Map || !e.upstreamDone(j, st) {
		return
	}
	var in int64
	for _, u := range st.upstream {
		in += partition(st.cumShares, int(a.Task.Index), j.Stages[u].outTotal)
	}
	a.InputBytes = in
	a.OutputBytes = e.reduceOutput(st, a.Task.Index, in)
	t.InputBytes, t.OutputBytes = a.InputBytes, a.OutputBytes
	local, inRack, total := e.shuffleLevels(j, st, a)
	a.fetched = &[NumLevels]int64{local, inRack - local, total - inRack}
}

// shuffleLevels is a shuffling attempt's input as the upstream outputs
// lie now: on its host, in its rack (host included), and in all.
func (e *Engine) shuffleLevels(j *Job, st *Stage, a *Attempt) (local, inRack, total int64) {
	rack := e.topo.RackOf(a.Host)
	for _, u := range st.upstream {
		us := j.Stages[u]
		if us.outByRack == nil {
			continue
		}
		local += partition(st.cumShares, int(a.Task.Index), us.outByHost[a.Host])
		inRack += partition(st.cumShares, int(a.Task.Index), us.outByRack[rack])
		total += partition(st.cumShares, int(a.Task.Index), us.outTotal)
	}
	return local, inRack, total
}

// UpstreamDone reports whether every upstream task of an attempt's stage
// has its output in place, so that a reduce can finish its fetch.
func (e *Engine) UpstreamDone(a *Attempt) bool {
	j, st, _, ok := e.lookup(a.Task)
	return ok && e.upstreamDone(j, st)
}

// UpstreamVersion changes whenever the outputs an attempt's stage shuffles
// from change, so that a driver can skip asking ShuffleAvailable again.
func (e *Engine) UpstreamVersion(a *Attempt) uint64 {
	j, st, _, ok := e.lookup(a.Task)
	if !ok {
		return 0
	}
	var v uint64
	for _, u := range st.upstream {
		v += j.Stages[u].outVer
	}
	return v
}

// ShuffleAvailable fills byRack with the bytes of the attempt's partition
// that sit, now, in the done outputs of its upstream tasks in each rack,
// and returns the part on the attempt's own host.
func (e *Engine) ShuffleAvailable(a *Attempt, byRack []int64) (onHost int64) {
	for r := range byRack {
		byRack[r] = 0
	}
	j, st, _, ok := e.lookup(a.Task)
	if !ok || st.Spec.Kind == workload.Map {
		return 0
	}
	for _, u := range st.upstream {
		us := j.Stages[u]
		if us.outByRack == nil {
			continue
		}
		for r, b := range us.outByRack {
			byRack[r] += partition(st.cumShares, int(a.Task.Index), b)
		}
		onHost += partition(st.cumShares, int(a.Task.Index), us.outByHost[a.Host])
	}
	return onHost
}

func (e *Engine) checkReleases(j *Job) {
	for _, st := range j.Stages {
		if st.Released || len(st.upstream) == 0 {
			continue
		}
		ok := true
		for _, u := range st.upstream {
			us := j.Stages[u]
			need := int(math.Ceil(e.cfg.SlowStart * float64(len(us.Tasks))))
			if !us.Released || us.Done < need {
				ok = false
				break
			}
		}
		if ok {
			e.release(j, st)
		}
	}
}

// AttemptFailed tells the engine an attempt failed; its task becomes
// runnable again unless another attempt still runs.
func (e *Engine) AttemptFailed(id AttemptID, reason string) error {
	return e.attemptFailed(id, reason, true)
}

// AttemptAbandoned ends an attempt that failed through no fault of its
// task — its worker restarted, or forgot it — so that it does not count
// toward MaxTaskFailures.
func (e *Engine) AttemptAbandoned(id AttemptID, reason string) error {
	return e.attemptFailed(id, reason, false)
}

// attemptFailed ends an attempt as failed; counted failures (the task's
// own, not its host's loss) fail the job after MaxTaskFailures, as
// Hadoop's max attempts do.
func (e *Engine) attemptFailed(id AttemptID, reason string, counted bool) error {
	a := e.attempts[id]
	if a == nil {
		return fmt.Errorf("attempt %d is not running", id)
	}
	e.endAttempt(a, AttemptFailed)
	j, st, t, _ := e.lookup(a.Task)
	if counted {
		t.Failures++
		if t.Failures >= e.cfg.MaxTaskFailures && j.State == JobRunning {
			e.finishJob(j, JobFailed, fmt.Sprintf("task %s[%d] failed %d times; last: %s", st.Spec.Name, a.Task.Index, t.Failures, reason))
			return nil
		}
	}
	return e.requeue(j, st, t, a)
}

// endAttempt frees the attempt's slot and records it.
func (e *Engine) endAttempt(a *Attempt, outcome AttemptOutcome) {
	j, st, t, _ := e.lookup(a.Task)
	a.End = e.now
	a.Outcome = outcome
	delete(e.attempts, a.ID)
	t.running = removeID(t.running, a.ID)
	st.running--
	if len(st.upstream) > 0 && !st.upDone {
		e.early--
	}
	hs := &e.hosts[a.Host]
	hs.running = removeID(hs.running, a.ID)
	if hs.alive {
		hs.free++
		e.addFree(a.Host)
	}
	j.Running--
	e.queues[j.Queue].Running--
	if outcome == AttemptSucceeded {
		e.account(j, st, a)
	}
	rec := AttemptRecord{Attempt: *a, JobName: j.Spec.ID, Kind: st.Spec.Kind, Rack: e.topo.RackOf(a.Host)}
	if a.Source.Host >= 0 {
		rec.Tier = a.Source.Tier
	}
	e.ready.Attempts = append(e.ready.Attempts, rec)
	if h, ok := e.policy.(AttemptEndedHook); ok {
		h.AttemptEnded(&e.ctx, a)
	}
}

// account fills the engine's expectation of the bytes an attempt moved.
func (e *Engine) account(j *Job, st *Stage, a *Attempt) {
	class := st.InputClass
	if a.Duplicate {
		class = ClassDuplicate
	}
	if st.Spec.Kind == workload.Map {
		if a.Source.Host >= 0 {
			a.Bytes[class][levelOf(a.Locality)] += a.InputBytes
		}
	} else if a.fetched != nil {
		for l, n := range a.fetched {
			a.Bytes[class][l] += n
		}
	} else {
		local, inRack, total := e.shuffleLevels(j, st, a)
		a.Bytes[class][LevelLocal] += local
		a.Bytes[class][LevelRack] += inRack - local
		a.Bytes[class][LevelCross] += total - inRack
	}
	for _, r := range a.OutputReplicas[1:] {
		a.Bytes[ClassOutput][levelOf(e.localityOf(a.Host, r.Host))] += a.OutputBytes
	}
}

func levelOf(l Locality) Level {
	switch l {
	case NodeLocal:
		return LevelLocal
	case RackLocal:
		return LevelRack
	}
	return LevelCross
}

func removeID(s []AttemptID, id AttemptID) []AttemptID {
	for i, x := range s {
		if x == id {
			copy(s[i:], s[i+1:])
			return s[:len(s)-1]
		}
	}
	return s
}

func (e *Engine) finishJob(j *Job, state JobState, reason string) {
	j.State = state
	j.Finished = e.now
	j.Reason = reason
	if !j.launched {
		j.Started = e.now
	}
	for i, r := range e.running {
		if r == j {
			e.running = append(e.running[:i], e.running[i+1:]...)
			break
		}
	}
	for _, st := range j.Stages {
		for ti := range st.Tasks {
			t := &st.Tasks[ti]
			if t.State == TaskPending {
				e.unPend(j, st)
				t.State = TaskBlocked
			}
			for len(t.running) > 0 {
				_ = e.kill(t.running[0], "job finished")
			}
		}
		// the indexes are only needed while tasks are pending
		st.byHost, st.byRack, st.queue = nil, nil, taskQueue{}
	}
	e.finished++
	e.ready.Jobs = append(e.ready.Jobs, JobRecord{
		ID: j.ID, Name: j.Spec.ID, Queue: e.queues[j.Queue].Name, Arrival: j.Arrival,
		Submitted: j.Submitted, Started: j.Started, Finished: j.Finished, State: state,
		Tasks: j.Tasks, Attempts: j.Attempts, Reason: reason,
	})
	if h, ok := e.policy.(JobFinishedHook); ok {
		h.JobFinished(&e.ctx, j.ID)
	}
	for _, c := range j.children {
		cj := e.jobs[c]
		cj.parentsLeft--
		if cj.State != JobWaiting {
			continue
		}
		if state == JobFailed {
			cj.parentsLeft = -1 << 30 // never submitted: fail it too
			e.failWaiting(cj, fmt.Sprintf("parent %s failed", j.Spec.ID))
			continue
		}
		if cj.parentsLeft == 0 && e.arrived(cj) {
			e.submit(cj)
		}
	}
}

func (e *Engine) failWaiting(j *Job, reason string) {
	j.Submitted = e.now
	e.running = append(e.running, j)
	e.finishJob(j, JobFailed, reason)
}

// HostLost tells the engine a host died: its running attempts fail, the
// map outputs on it that unfinished consumers still need are recomputed,
// and its replicas are no longer read. A job whose input block has no live
// replica left fails.
func (e *Engine) HostLost(h cluster.HostID) error {
	if h < 0 || int(h) >= len(e.hosts) {
		return fmt.Errorf("unknown host %d", h)
	}
	hs := &e.hosts[h]
	if !hs.alive {
		return nil
	}
	e.Stats.HostsLost++
	hs.alive = false
	e.dropFree(h)
	e.liveSlots -= e.topo.Hosts[h].Slots
	for len(hs.running) > 0 {
		if err := e.attemptFailed(hs.running[0], "host lost", false); err != nil {
			return err
		}
	}
	hs.free = 0
	for _, j := range append([]*Job(nil), e.running...) {
		e.recoverJob(j, h)
	}
	e.preemptEarly()
	if hl, ok := e.policy.(HostLostHook); ok {
		hl.HostLost(&e.ctx, h)
	}
	return nil
}

func (e *Engine) recoverJob(j *Job, h cluster.HostID) {
	if j.State != JobRunning {
		return
	}
	for _, st := range j.Stages {
		// outputs on the dead host that a consumer has yet to read in full
		needed := !st.Final && !e.consumersDone(j, st)
		for ti := range st.Tasks {
			t := &st.Tasks[ti]
			if st.Spec.Kind == workload.Map && st.Released && t.State != TaskDone && len(e.liveReplicas(st, int32(ti))) == 0 {
				e.finishJob(j, JobFailed, fmt.Sprintf("every replica of input block %d of stage %s is lost", t.Block, st.Spec.Name))
				return
			}
			if t.State != TaskDone {
				continue
			}
			if (needed && t.OutHost == h) || (st.Final && allOn(t.OutReplicas, h)) {
				e.removeOutput(st, t)
				st.Done--
				j.TasksDone--
				e.Stats.Recomputed++
				t.State = TaskBlocked
				e.makePending(j, st, int32(ti))
			}
		}
	}
	e.refreshUpstream(j)
}

func allOn(reps []workload.Replica, h cluster.HostID) bool {
	for _, r := range reps {
		if r.Host != h {
			return false
		}
	}
	return true
}

func (e *Engine) consumersDone(j *Job, st *Stage) bool {
	for _, c := range st.consumers {
		if j.Stages[c].Done < len(j.Stages[c].Tasks) {
			return false
		}
	}
	return true
}
