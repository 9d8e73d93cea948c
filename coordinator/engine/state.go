package engine

import (
	"math/rand/v2"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

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
	// Duplicates counts the duplicate attempts the job launched
	// (Stats.Duplicates, per job), DuplicatesUsed those whose output its
	// task used (Stats.DuplicatesUsed).
	Duplicates     int
	DuplicatesUsed int

	// shuffleUp and shuffleDown are the cross-rack shuffle bytes its
	// successful reduce and generic attempts fetched, by the rack they
	// left and the rack they entered (JobRecord.ShuffleUp); nil until
	// the first such byte.
	shuffleUp, shuffleDown []int64

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

	job          *Job
	shuffleDirty bool // its upstream outputs changed since the last Ready
	running      int  // attempts running
	upDone       bool // every upstream task done (stages with upstream only)
	// heldSplits counts its tasks that are not done but hold an output a
	// policy has yet to choose: slow-start counts them as completed
	// (one completion per split, whichever copy finished first)
	heldSplits int

	queue  taskQueue
	byHost hostQueues
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
	alive bool
	// free is the free slots of the host's one pool, or of its map pool
	// when split (its topology gives it reduce slots of its own: then
	// freeReduce is the free slots of its reduce pool)
	free, freeReduce int
	split            bool
	running          []AttemptID
	freePos          int // position in Engine.freeHosts, -1 if absent
}

// Ready is what the driver must act on after a call into the engine.
type Ready struct {
	Launches   []*Attempt
	Kills      []AttemptID
	Priorities []AttemptID // attempts whose Priority changed
	Attempts   []AttemptRecord
	Jobs       []JobRecord
	// Shuffles lists running reduce and generic attempts whose upstream
	// outputs changed: more are done, or some were lost. The driver
	// tells the attempt where to fetch from (ShuffleSources).
	Shuffles []ShuffleUpdate
	// TierMoves are replicas the policy or the memory tier's cache
	// (Config.MemoryLRU) moved between tiers of a host, in the order
	// made: the driver moves the bytes.
	TierMoves []TierMove
}

// TierMove is a replica of a dataset's block (Context.SetReplicaTier),
// or of a job output (the memory cache's demotions), moved from one tier
// of its host to another. A job output's move has no Dataset: it is of
// Attempt's output.
type TierMove struct {
	Dataset  string
	Block    int
	Attempt  AttemptID
	Host     cluster.HostID
	From, To cluster.TierKind
}

// Object names the object whose replica moves, as InputObject names
// what a map reads.
func (m TierMove) Object() ObjectRef {
	if m.Dataset != "" {
		return ObjectRef{Dataset: m.Dataset, Block: m.Block}
	}
	return ObjectRef{Attempt: m.Attempt}
}

// ShuffleUpdate says that the upstream outputs a running reduce or generic
// attempt fetches from have changed. Complete says they are all in place:
// the attempt's input and output sizes are final (Attempt.InputFixed).
type ShuffleUpdate struct {
	Attempt  AttemptID
	Complete bool
}

// Engine is the deterministic scheduling core. It is not safe for
// concurrent use; a driver calls it from one goroutine.
type Engine struct {
	cfg      Config
	topo     *cluster.Topology
	policy   Policy
	rng      *rand.Rand
	offerRng *rand.Rand
	// tierMoves counts the replica tier changes so far (TierMoves)
	tierMoves int64
	offering  SlotKind // the pool of the offer under way
	anySplit  bool     // some host has map and reduce pools of its own
	now       Time
	ctx       Context
	network   NetworkStatus

	datasets *workload.Datasets // placed: the engine's own copy
	// readers lists, per dataset, the map stages that read it, and
	// ownBlocks the datasets whose blocks the engine has copied to
	// change them (copy on write: the caller's stay as they were)
	readers   map[string][]*Stage
	ownBlocks map[string]bool
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
	// pendingMaps is the map tasks among pending, for the offers of
	// split pools
	pendingMaps int
	finished    int
	early       int // running attempts of stages whose upstream is unfinished

	ready       Ready
	dirtyStages []*Stage // stages whose upstream outputs changed
	lru         *memLRU  // the memory tier's cache; nil without Config.MemoryLRU

	// Stats counts what happened, for the run's records.
	Stats Stats
}

// Stats are the engine's counters.
type Stats struct {
	Decisions int64 // policy hook calls that offered slots
	// DecisionTimes is how long they took (with Config.Stopwatch).
	DecisionTimes    DecisionTimes
	Launches         int64
	Duplicates       int64
	DuplicatesUsed   int64
	Rejected         int64
	RejectedByReason map[string]int64
	HostsLost        int
	Recomputed       int64 // tasks rerun because their output was lost
	// PlanNanos is how long the policy's offline plan took, by the
	// Stopwatch (wall time: it measures the machine, not the run); 0
	// without a Planner or a Stopwatch.
	PlanNanos int64
	// InputRackBytes is the dataset bytes stored on each rack once every
	// dataset is placed, counting every replica; InputRackFirstBytes
	// counts first replicas only (the data balance of Corral's §2.8).
	InputRackBytes, InputRackFirstBytes []int64
	// PolicyFigures are the policy's own figures (FigureReporter), as
	// Engine.RecordPolicyFigures read them; nil before, or when the
	// policy reports none.
	PolicyFigures map[string]float64
	// MemoryUploads counts the block replicas moved into memory when
	// their dataset was uploaded, MemoryDemotions those the memory
	// tier's LRU eviction moved down to make room (Config.MemoryLRU;
	// both 0 without it); demotions include job outputs' replicas.
	MemoryUploads, MemoryDemotions int64
	// MemoryOutputs counts the job outputs' replicas written to memory
	// that the cache admitted (Config.MemoryLRU; 0 without it).
	MemoryOutputs int64
}
