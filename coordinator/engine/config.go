package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
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
	// all, over every job. It keeps slow-started reducers from taking
	// every slot while the maps they wait for cannot run. Default 0.5, the
	// value of Hadoop's reduce ramp-up limit, which is per job and comes
	// with preemption (the MapReduce AM; policies fair and capacity add
	// it with yarn_am, package policy/internal/mram).
	EarlyShuffleLimit float64
	// IntermediateTiers is the tier preference for map outputs, OutputTiers
	// for job outputs: the first kind a host has is used.
	IntermediateTiers []cluster.TierKind
	OutputTiers       []cluster.TierKind
	// Placer places unplaced datasets; a policy that is a DatasetPlacer
	// takes precedence. Default: HDFS's rack-aware placement.
	Placer DatasetPlacer
	// OutputPlacer places the replicas of job outputs, as a file system
	// would (hdfs.Placer places them HDFS-style); a policy that is an
	// OutputPlacer takes precedence. Default: the writer, then other
	// hosts of its rack.
	OutputPlacer ReplicaPlacer
	// Predicted is what an offline planner is told of the workload ahead
	// of time (Foreknowledge.Predicted): predicted arrivals and sizes,
	// with their errors. Nil tells it nothing beyond the workload.
	Predicted *workload.Predicted
	// MaxTaskFailures is how many failed attempts of one task (not counting
	// attempts lost with their host) fail its job, as Hadoop's
	// maxattempts. Default 4.
	MaxTaskFailures uint16
	// Stopwatch, when set, returns a monotonic time in nanoseconds; the
	// engine uses it only to measure how long policy decisions take.
	Stopwatch func() int64
	// OnDecision, when set with a Stopwatch, is told how long each
	// decision took (a live run's metrics); Stats.DecisionTimes
	// summarises them either way.
	OnDecision func(nanos int64)
	// MemoryLRU makes each host's memory tier a cache of capacity
	// cluster.Tier.CapacityBytes (0: unbounded) with LRU eviction, as
	// OctopusFS runs for Trident's FB-like workload (spec §5.2, §7.3):
	// the memory replicas a placer chose are held on HDD (SSD on a host
	// without one) until the first job that reads their dataset is
	// submitted, then moved into memory, demoting the least recently used
	// blocks back (never dropping them) to make room (memlru.go). Job
	// outputs an output placer writes to memory are cached the same way,
	// admitted when their attempt launches. Off, memory replicas stay
	// where the placer put them, unbounded.
	MemoryLRU bool
	// OutputPipeline writes a job output's replicas as HDFS's write
	// pipeline does: each replica from the one before it (the writer's
	// own copy first), so that under HDFS's rack-aware placement, whose
	// second and third replicas share a rack, one copy crosses racks.
	// Off, every replica is sent from the writer. It sets the output
	// bytes' levels (local, in-rack, cross-rack), each copy's path in the
	// simulator, and how the live workers send the copies
	// (wire.Launch.Pipeline).
	OutputPipeline bool
}

// Queue is a scheduling queue.
type Queue struct {
	Name   string
	Weight float64
	// Capacity is the guaranteed share of the cluster's slots, MaxCapacity
	// the most the queue may use (0: no limit).
	Capacity    float64
	MaxCapacity float64
	// Ordering is how the queue orders its own jobs: the policy's own
	// order by default, or FIFO (submission order) or Fair (fewest
	// running slots first).
	Ordering Ordering
	// Running is the number of slots the queue's jobs hold now.
	Running int
}

// Ordering is a queue's order of its jobs.
type Ordering uint8

const (
	// OrderDefault leaves the order to the policy (Fair's is fair,
	// Capacity's FIFO, as in YARN).
	OrderDefault Ordering = iota
	// OrderFIFO serves a queue's jobs in submission order.
	OrderFIFO
	// OrderFair serves first the job that holds the fewest slots, then
	// in submission order.
	OrderFair
)

var orderingNames = [...]string{"default", "fifo", "fair"}

func (o Ordering) String() string {
	if int(o) < len(orderingNames) {
		return orderingNames[o]
	}
	return fmt.Sprintf("ordering(%d)", uint8(o))
}

// ParseOrdering reads "default", "fifo" or "fair".
func ParseOrdering(s string) (Ordering, error) {
	for i, n := range orderingNames {
		if n == s {
			return Ordering(i), nil
		}
	}
	return 0, fmt.Errorf("unknown queue ordering %q (default, fifo or fair)", s)
}

// Resolve is the ordering a queue uses under a policy whose own ordering
// is def.
func (o Ordering) Resolve(def Ordering) Ordering {
	if o == OrderDefault {
		return def
	}
	return o
}

// Less orders two jobs of one queue: by submission (FIFO), or by the
// slots they hold, then submission (Fair). Job ids break ties.
func (o Ordering) Less(a, b *Job) bool {
	if o == OrderFair && a.Running != b.Running {
		return a.Running < b.Running
	}
	if a.Submitted != b.Submitted {
		return a.Submitted < b.Submitted
	}
	return a.ID < b.ID
}

// Check says what is wrong with a queue's configuration, if anything.
func (q Queue) Check() error {
	switch {
	case q.Name == "":
		return fmt.Errorf("a queue needs a name")
	case q.Weight < 0:
		return fmt.Errorf("queue %s: weight %g is negative", q.Name, q.Weight)
	case q.Capacity < 0 || q.Capacity > 1:
		return fmt.Errorf("queue %s: capacity %g is outside [0,1]", q.Name, q.Capacity)
	case q.MaxCapacity < 0 || q.MaxCapacity > 1:
		return fmt.Errorf("queue %s: max capacity %g is outside [0,1]", q.Name, q.MaxCapacity)
	case q.MaxCapacity > 0 && q.MaxCapacity < q.Capacity:
		return fmt.Errorf("queue %s: max capacity %g is below its capacity %g", q.Name, q.MaxCapacity, q.Capacity)
	case int(q.Ordering) >= len(orderingNames):
		return fmt.Errorf("queue %s: unknown ordering %d", q.Name, q.Ordering)
	}
	return nil
}

// New builds an engine for a workload on a topology. It does not modify
// its inputs: the datasets it places and the queues it adds are its own
// (Datasets returns them). In order, it
//
//   - asks a Configurer policy for its defaults;
//   - calls a Planner policy's Plan with the workload's foreknowledge,
//     before any data is placed, so that a planner can place it;
//   - places unplaced datasets, by the policy if it is a DatasetPlacer,
//     else by cfg.Placer (HDFS's placement by default).
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
	if cfg.Predicted != nil {
		if err := cfg.Predicted.CheckAgainst(w); err != nil {
			return nil, fmt.Errorf("predictions: %w", err)
		}
	}
	if _, ok := p.(HostScheduler); !ok {
		if _, ok := p.(RoundScheduler); !ok {
			return nil, fmt.Errorf("policy %s schedules nothing: it is neither a HostScheduler nor a RoundScheduler", p.Name())
		}
	}
	if c, ok := p.(Configurer); ok {
		cfg = withPolicyDefaults(cfg, c)
	}
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, err
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
	e.network.Window = NetworkWindow
	e.network.UplinkLoad = make([]float64, len(topo.Racks))
	e.network.DownlinkLoad = make([]float64, len(topo.Racks))
	e.network.HostRxBps = make([]float64, len(topo.Hosts))
	e.network.HostCrossRxBps = make([]float64, len(topo.Hosts))
	e.hosts = make([]hostState, len(topo.Hosts))
	for i := range topo.Hosts {
		host := &topo.Hosts[i]
		e.hosts[i] = hostState{alive: true, free: host.Slots, freeReduce: host.ReduceSlots, split: host.SplitSlots(), freePos: -1}
		e.anySplit = e.anySplit || host.SplitSlots()
		e.liveSlots += host.AllSlots()
		e.addFree(cluster.HostID(i))
	}
	e.queues = append(e.queues, cfg.Queues...)
	if pl, ok := p.(Planner); ok {
		t0 := e.stopwatch()
		pl.Plan(&e.ctx, &Foreknowledge{Workload: w, Datasets: ds, Predicted: cfg.Predicted})
		e.Stats.PlanNanos = e.stopwatch() - t0
	}
	// the engine's own copy: placing a dataset must not change the caller's
	e.datasets = &workload.Datasets{Datasets: append([]workload.Dataset(nil), ds.Datasets...)}
	if err := e.placeDatasets(e.datasets); err != nil {
		return nil, err
	}
	e.countInputByRack()
	if cfg.MemoryLRU {
		e.holdMemoryReplicas()
	}
	if err := e.buildJobs(w, e.datasets); err != nil {
		return nil, err
	}
	return e, nil
}

// withPolicyDefaults lets a policy fill the fields of the run's config
// that the caller left unset; a value the caller set stays.
func withPolicyDefaults(cfg Config, c Configurer) Config {
	def := cfg
	c.Configure(&def)
	if cfg.SlowStart == 0 {
		cfg.SlowStart = def.SlowStart
	}
	if cfg.EarlyShuffleLimit == 0 {
		cfg.EarlyShuffleLimit = def.EarlyShuffleLimit
	}
	if cfg.MaxTaskFailures == 0 {
		cfg.MaxTaskFailures = def.MaxTaskFailures
	}
	if len(cfg.IntermediateTiers) == 0 {
		cfg.IntermediateTiers = def.IntermediateTiers
	}
	if len(cfg.OutputTiers) == 0 {
		cfg.OutputTiers = def.OutputTiers
	}
	if len(cfg.Queues) == 0 {
		cfg.Queues = def.Queues
	}
	if cfg.Placer == nil {
		cfg.Placer = def.Placer
	}
	if cfg.OutputPlacer == nil {
		cfg.OutputPlacer = def.OutputPlacer
	}
	return cfg
}

// withDefaults fills the engine's own defaults and checks the ranges.
func withDefaults(cfg Config) (Config, error) {
	if cfg.SlowStart == 0 {
		cfg.SlowStart = 0.05
	}
	if !(cfg.SlowStart >= 0 && cfg.SlowStart <= 1) { // NaN too
		return cfg, fmt.Errorf("slow-start fraction %g is outside [0,1]", cfg.SlowStart)
	}
	if cfg.EarlyShuffleLimit == 0 {
		cfg.EarlyShuffleLimit = 0.5
	}
	if cfg.EarlyShuffleLimit < 0 || cfg.EarlyShuffleLimit > 1 {
		return cfg, fmt.Errorf("early shuffle limit %g is outside [0,1]", cfg.EarlyShuffleLimit)
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
	if cfg.Placer == nil {
		cfg.Placer = &hdfs.Placer{}
	}
	named := map[string]int{}
	capacity := 0.0
	for i, q := range cfg.Queues {
		if err := q.Check(); err != nil {
			return cfg, fmt.Errorf("queue %d: %w", i, err)
		}
		if j, dup := named[q.Name]; dup {
			return cfg, fmt.Errorf("queue %d: the name %s is queue %d's too", i, q.Name, j)
		}
		named[q.Name] = i
		capacity += q.Capacity
	}
	if capacity > 1+1e-9 {
		return cfg, fmt.Errorf("queues: capacities add up to %g, above 1", capacity)
	}
	return cfg, nil
}

// stopwatch reads Config.Stopwatch, or 0 without one.
func (e *Engine) stopwatch() int64 {
	if e.cfg.Stopwatch == nil {
		return 0
	}
	return e.cfg.Stopwatch()
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
		// d is the engine's copy of the caller's dataset: its Blocks are
		// set anew below, never written through
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

// countInputByRack fills Stats.InputRackBytes and InputRackFirstBytes
// from the placed datasets.
func (e *Engine) countInputByRack() {
	all := make([]int64, len(e.topo.Racks))
	first := make([]int64, len(e.topo.Racks))
	for _, d := range e.datasets.Datasets {
		for _, b := range d.Blocks {
			for i, r := range b.Replicas {
				rack := e.topo.RackOf(r.Host)
				all[rack] += b.Size
				if i == 0 {
					first[rack] += b.Size
				}
			}
		}
	}
	e.Stats.InputRackBytes, e.Stats.InputRackFirstBytes = all, first
}

// RecordPolicyFigures reads the policy's own figures into
// Stats.PolicyFigures, if it is a FigureReporter. A driver calls it once
// the run has ended, before it hands Stats to the run's records; it
// changes nothing the run decides.
func (e *Engine) RecordPolicyFigures() {
	if fr, ok := e.policy.(FigureReporter); ok {
		e.Stats.PolicyFigures = fr.Figures()
	}
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
			st := &Stage{Spec: ss, Index: si, Final: true, job: j}
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
					if e.readers == nil {
						e.readers = map[string][]*Stage{}
					}
					e.readers[ss.Input] = append(e.readers[ss.Input], st)
					n := len(st.blocks)
					if n == 0 {
						n = max(ss.Tasks, 1)
					}
					st.Tasks = make([]Task, n)
				}
			default:
				st.InputClass = ClassShuffle
				st.Tasks = make([]Task, ss.Tasks)
				if len(ss.Shares) > 0 {
					st.cumShares = weightsCumulative(ss.Shares)
				} else {
					st.cumShares = zipfCumulative(ss.Tasks, ss.Skew)
				}
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

// weightsCumulative returns the len(w)+1 cumulative shares of partitions
// whose sizes are proportional to the weights w (positive and finite, as
// workload.Validate checks).
func weightsCumulative(w []float64) []float64 {
	c := make([]float64, len(w)+1)
	var sum float64
	for _, x := range w {
		sum += x
	}
	var acc float64
	for i, x := range w {
		acc += x
		c[i+1] = acc / sum
	}
	c[len(w)] = 1
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
