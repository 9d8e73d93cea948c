package engine

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/internal/traffic"
)

// Time is seconds since the start of a run. The engine never reads a clock:
// the driver hands time in through Advance.
type Time = float64

// JobID indexes the engine's jobs in workload order; AttemptID numbers
// attempts in launch order.
type (
	JobID     int32
	AttemptID int64
)

// TaskRef names one task: a job, a stage of it and the task's index.
type TaskRef struct {
	Job   JobID
	Stage int16
	Index int32
}

// JobState is where a job is in its life.
type JobState uint8

const (
	JobWaiting   JobState = iota // not yet arrived, or parents unfinished
	JobRunning                   // submitted
	JobSucceeded                 // every task done
	JobFailed                    // input lost for good
	// JobUnfinished is the state of a job's record when the run stopped
	// at its experiment window before the job ended (Engine.Cut); the
	// engine's own jobs never take it.
	JobUnfinished
)

var jobStateNames = [...]string{"waiting", "running", "succeeded", "failed", "unfinished"}

func (s JobState) String() string { return jobStateNames[s] }

// TaskState is where a task is in its life.
type TaskState uint8

const (
	TaskBlocked TaskState = iota // its stage is not yet released
	TaskPending                  // runnable, no attempt running
	TaskRunning                  // at least one attempt running
	TaskDone                     // an attempt succeeded and its output is in use
)

// AttemptOutcome is how an attempt ended.
type AttemptOutcome uint8

const (
	AttemptRunning AttemptOutcome = iota
	AttemptSucceeded
	AttemptFailed // its host died, or the driver reported a failure
	AttemptKilled // killed by the policy or as the loser of a duplicate race
	// AttemptCut is the outcome of an attempt still running when the run
	// stopped at its experiment window (Engine.Cut).
	AttemptCut
)

var outcomeNames = [...]string{"running", "succeeded", "failed", "killed", "cut"}

func (o AttemptOutcome) String() string { return outcomeNames[o] }

// Locality is how close an attempt ran to its input.
type Locality uint8

const (
	NodeLocal Locality = iota
	RackLocal
	Remote
	NoLocality // tasks that shuffle from many sources
	NumLocalities
)

var localityNames = [...]string{"node", "rack", "remote", "none"}

func (l Locality) String() string { return localityNames[l] }

// Level is where bytes came from relative to the reader.
type Level uint8

const (
	LevelLocal Level = iota
	LevelRack
	LevelCross
	NumLevels
)

// Class is a traffic class (internal/traffic); it is also the DSCP class
// of the sockets that carry it in the live testbed. The engine counts the
// job classes only, so NumClasses is traffic.NumJobClasses.
type Class = traffic.Class

const (
	ClassInput     = traffic.Input     // a map reading a dataset block
	ClassShuffle   = traffic.Shuffle   // a reduce or generic stage fetching partitions
	ClassDependent = traffic.Dependent // a map reading a parent job's output
	ClassDuplicate = traffic.Duplicate // anything read by a duplicate attempt
	ClassOutput    = traffic.Output    // job output replicas written to other hosts
	NumClasses     = traffic.NumJobClasses
)

// ByteCounts holds bytes by traffic class and level.
type ByteCounts [NumClasses][NumLevels]int64

// Add adds another count to this one.
func (b *ByteCounts) Add(o *ByteCounts) {
	for c := range b {
		for l := range b[c] {
			b[c][l] += o[c][l]
		}
	}
}

// Cross is the cross-rack bytes of all classes.
func (b *ByteCounts) Cross() int64 {
	var n int64
	for c := range b {
		n += b[c][LevelCross]
	}
	return n
}

// Attempt is one execution of a task on a host.
type Attempt struct {
	ID        AttemptID
	Task      TaskRef
	Host      cluster.HostID
	Start     Time
	End       Time
	Outcome   AttemptOutcome
	Duplicate bool  // launched while another attempt of the task ran or had run
	Priority  uint8 // network priority class, 0 highest
	// Source is the replica a map attempt reads (Host < 0: none).
	Source   workload.Replica
	Locality Locality
	// InputBytes is what the attempt reads in all.
	InputBytes int64
	// OutputBytes is what it writes; OutputReplicas where (the first
	// replica is local).
	OutputBytes    int64
	OutputReplicas []workload.Replica
	// Bytes is the engine's accounting of what the attempt read, filled in
	// when it ends.
	Bytes ByteCounts
	// Reported is the driver's own measurement, when it has one.
	Reported *ByteCounts
	// Note is what the policy that launched the attempt acted on
	// (LaunchOptions.Note); zero when it gave none.
	Note DecisionNote

	// Received is the input bytes the attempt has read or fetched so far,
	// as the driver last reported (Engine.Progress); InputDone says it
	// has all of it, since InputDoneAt (Engine.InputDone).
	Received    int64
	InputDone   bool
	InputDoneAt Time
	// InputFixed says the attempt's input is final: a map's always; a
	// reduce or generic attempt's once every upstream output is in place,
	// when InputBytes and OutputBytes take their actual values.
	InputFixed bool

	// fetched is where a shuffling attempt's input was, by level, when
	// the engine fixed it: what the attempt fetched, even if an
	// upstream output is lost and recomputed elsewhere afterwards.
	fetched *[NumLevels]int64
	// fetchedFrom is fetched[LevelCross] split by the rack each part
	// comes from (nil when nothing came across racks): the rack uplinks
	// the fetch loads.
	fetchedFrom []int64
}

// AttemptRecord is what a run records of a finished attempt.
type AttemptRecord struct {
	Attempt
	JobName string
	Kind    workload.StageKind
	Rack    cluster.RackID
	Tier    cluster.TierKind // tier of the input source (maps only)
	// InputClass is what the attempt's stage reads: ClassInput (a map
	// of a dataset), ClassDependent (a map of parent jobs' outputs) or
	// ClassShuffle (a reduce or generic stage's upstream partitions),
	// whether or not the attempt is a duplicate.
	InputClass Class
}

// JobRecord is what a run records of a finished job, or of one a run
// stopped at its window left unfinished (State JobUnfinished): then
// Finished is NaN, and so are Submitted and Started if the job had not
// got that far.
type JobRecord struct {
	ID        JobID
	Name      string
	Queue     string
	Arrival   Time
	Submitted Time
	Started   Time // first attempt launched
	Finished  Time
	State     JobState
	Tasks     int
	Attempts  int
	Reason    string // why it failed, or how far an unfinished job got
	// InputBytes is what the job's maps read from datasets (not from its
	// parents' outputs): the job's input size, by which papers bin jobs
	// (Trident's Table 2).
	InputBytes int64
	// ShuffleUp and ShuffleDown are the cross-rack shuffle bytes the
	// job's successful reduce and generic attempts fetched, by rack: out
	// of the rack where each upstream output lay (its uplink) and into
	// the rack where the attempt ran (its downlink); nil when they
	// fetched nothing across racks. A run's metrics take Shadow's Skew
	// over them (its Eq. 1: each link apart). Each sums to the job's
	// cross-rack shuffle bytes: its attempts' ClassShuffle bytes at
	// LevelCross, plus the ClassDuplicate ones of its duplicate reduce
	// and generic attempts, which load the same links.
	ShuffleUp, ShuffleDown []int64
	// Duplicates and DuplicatesUsed are the job's duplicate attempts and
	// those whose output was used (Job.Duplicates).
	Duplicates, DuplicatesUsed int
}
