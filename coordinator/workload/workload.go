package workload

import (
	"errors"
	"fmt"
	"sort"

	"github.com/racklab/racklab/coordinator/cluster"
)

// StageKind says what a stage does with its input.
type StageKind uint8

const (
	// Map stages read blocks of a dataset (or of a parent job's output),
	// one task per block unless Tasks says otherwise.
	Map StageKind = iota
	// Reduce stages fetch partitions of the outputs of earlier stages.
	Reduce
	// Generic stages are any other DAG vertex (Tez-like): they fetch
	// partitions of earlier stages like a reduce.
	Generic
)

var stageKindNames = [...]string{Map: "map", Reduce: "reduce", Generic: "generic"}

func (k StageKind) String() string {
	if int(k) < len(stageKindNames) {
		return stageKindNames[k]
	}
	return fmt.Sprintf("stage(%d)", k)
}

// ParseStageKind turns "map", "reduce" or "generic" into a StageKind.
func ParseStageKind(s string) (StageKind, error) {
	for i, n := range stageKindNames {
		if n == s {
			return StageKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown stage kind %q (want map, reduce or generic)", s)
}

// ParentOutputPrefix marks a stage input that is the output of a parent job:
// "@job7" reads job7's output.
const ParentOutputPrefix = "@"

// Stage is one vertex of a job's DAG.
type Stage struct {
	Name string
	Kind StageKind
	// Tasks is the number of tasks; 0 on a map stage means one per block.
	Tasks int
	// Input is the dataset a map stage reads: a dataset name, or
	// ParentOutputPrefix + a parent job's id.
	Input string
	// After lists earlier stages of the same job whose outputs this stage
	// shuffles (reduce and generic stages).
	After []string
	// Selectivity is output bytes per input byte. OutputBytes, when
	// positive, sets the stage's total output directly instead.
	Selectivity float64
	OutputBytes int64
	// ComputeNsPerByte is CPU time per input byte, in nanoseconds.
	ComputeNsPerByte float64
	// Skew is the Zipf exponent of the partition sizes that this stage's
	// tasks fetch (reduce and generic stages; 0: all partitions equal).
	Skew float64
	// Shares, when not empty, gives the partition sizes explicitly
	// instead of Skew: one positive relative weight per task (reduce and
	// generic stages), task i fetching Shares[i]/sum(Shares) of every
	// upstream output. Importers of traces that list each reducer's bytes
	// (the coflow trace) keep them here.
	Shares []float64
	// OutputReplicas is the replication of the job's final output (final
	// stages only; 0 means 1).
	OutputReplicas int
}

// Job is one data-parallel job: a DAG of stages, and a node of the
// workload's job DAG through Parents.
type Job struct {
	ID        string
	Arrival   float64 // seconds from the workload's start
	Queue     string
	Recurring string
	Parents   []string
	Stages    []Stage
}

// Workload is a set of jobs, possibly linked into job DAGs.
type Workload struct {
	Jobs []Job
}

// Replica is one copy of a block on a host's tier.
type Replica struct {
	Host cluster.HostID
	Tier cluster.TierKind
}

// Block is one unit of a dataset, read by one map task.
type Block struct {
	Size     int64
	Replicas []Replica
}

// Dataset is a named file set. When Blocks is empty it is unplaced: the
// run's placement hook splits Size into BlockSize blocks and places
// Replication replicas of each at upload time.
type Dataset struct {
	Name        string
	Size        int64
	BlockSize   int64
	Replication int
	Blocks      []Block
}

// Placed reports whether the dataset's blocks are already laid out.
func (d *Dataset) Placed() bool { return len(d.Blocks) > 0 }

// TotalBytes is the dataset's size, from its blocks when placed.
func (d *Dataset) TotalBytes() int64 {
	if !d.Placed() {
		return d.Size
	}
	var n int64
	for _, b := range d.Blocks {
		n += b.Size
	}
	return n
}

// BlockSizes splits an unplaced dataset into block sizes.
func (d *Dataset) BlockSizes() []int64 {
	if d.Placed() {
		out := make([]int64, len(d.Blocks))
		for i, b := range d.Blocks {
			out[i] = b.Size
		}
		return out
	}
	if d.Size <= 0 {
		return nil
	}
	n := (d.Size + d.BlockSize - 1) / d.BlockSize
	out := make([]int64, n)
	for i := range out {
		out[i] = d.BlockSize
	}
	out[n-1] = d.Size - (n-1)*d.BlockSize
	return out
}

// Datasets is the set of input datasets of a workload.
type Datasets struct {
	Datasets []Dataset
}

// ErrNoJobs is what a run of a workload without jobs fails with: a file
// may hold none (`jobs: []`, what a generator given nothing to make
// writes), but a run of it would measure nothing and report zeros that
// look like figures.
var ErrNoJobs = errors.New("the workload has no jobs: there is nothing to run or measure")

// CheckRunnable says whether the workload can be run: ErrNoJobs if it
// has no jobs. The drivers (the simulator, the live coordinator) and a
// campaign's workload loading call it; the file formats do not.
func (w *Workload) CheckRunnable() error {
	if len(w.Jobs) == 0 {
		return ErrNoJobs
	}
	return nil
}

// Validate checks a workload against its datasets: unique ids, known
// parents and inputs, an acyclic job DAG, well-formed stages.
func (w *Workload) Validate(ds *Datasets) error {
	names := map[string]bool{}
	if ds != nil {
		for _, d := range ds.Datasets {
			names[d.Name] = true
		}
	}
	ids := make(map[string]int, len(w.Jobs))
	for i, j := range w.Jobs {
		if j.ID == "" {
			return fmt.Errorf("job #%d has no id", i+1) // numbered from 1, as the file parser does
		}
		if _, dup := ids[j.ID]; dup {
			return fmt.Errorf("job %q is listed twice", j.ID)
		}
		ids[j.ID] = i
	}
	for _, j := range w.Jobs {
		if err := j.validate(ids, names); err != nil {
			return err
		}
	}
	if err := w.checkAcyclic(ids); err != nil {
		return err
	}
	return w.checkSizes(ds, ids)
}

func (j *Job) validate(ids map[string]int, datasets map[string]bool) error {
	if !(j.Arrival >= 0 && j.Arrival <= MaxArrivalS) {
		return fmt.Errorf("job %q: arrival_s %g is outside [0, %g]", j.ID, j.Arrival, MaxArrivalS)
	}
	parents := map[string]bool{}
	for _, p := range j.Parents {
		if _, ok := ids[p]; !ok {
			return fmt.Errorf("job %q: unknown parent job %q", j.ID, p)
		}
		if p == j.ID {
			return fmt.Errorf("job %q is its own parent", j.ID)
		}
		parents[p] = true
	}
	if len(j.Stages) == 0 {
		return fmt.Errorf("job %q has no stages", j.ID)
	}
	stages := map[string]bool{}
	for _, s := range j.Stages {
		if s.Name == "" {
			return fmt.Errorf("job %q: a stage has no name", j.ID)
		}
		if stages[s.Name] {
			return fmt.Errorf("job %q: stage %q is listed twice", j.ID, s.Name)
		}
		if s.Tasks < 0 || s.Selectivity < 0 || s.OutputBytes < 0 || s.ComputeNsPerByte < 0 || s.Skew < 0 || s.OutputReplicas < 0 {
			return fmt.Errorf("job %q stage %q: counts, sizes and costs must not be negative", j.ID, s.Name)
		}
		if err := s.checkBounds(); err != nil {
			return fmt.Errorf("job %q stage %q: %w", j.ID, s.Name, err)
		}
		if err := s.checkShares(); err != nil {
			return fmt.Errorf("job %q stage %q: %w", j.ID, s.Name, err)
		}
		switch s.Kind {
		case Map:
			if len(s.After) > 0 {
				return fmt.Errorf("job %q stage %q: a map stage reads a dataset, not earlier stages", j.ID, s.Name)
			}
			if s.Input == "" {
				return fmt.Errorf("job %q stage %q: a map stage needs an input", j.ID, s.Name)
			}
			if len(s.Input) > 1 && s.Input[:1] == ParentOutputPrefix {
				if !parents[s.Input[1:]] {
					return fmt.Errorf("job %q stage %q: input %q is not the output of a parent job", j.ID, s.Name, s.Input)
				}
			} else if !datasets[s.Input] {
				return fmt.Errorf("job %q stage %q: unknown dataset %q", j.ID, s.Name, s.Input)
			}
		case Reduce, Generic:
			if s.Input != "" {
				return fmt.Errorf("job %q stage %q: only map stages read datasets", j.ID, s.Name)
			}
			if len(s.After) == 0 {
				return fmt.Errorf("job %q stage %q: a %s stage needs earlier stages in 'after'", j.ID, s.Name, s.Kind)
			}
			if s.Tasks == 0 {
				return fmt.Errorf("job %q stage %q: a %s stage needs a task count", j.ID, s.Name, s.Kind)
			}
			for _, a := range s.After {
				if !stages[a] {
					return fmt.Errorf("job %q stage %q: 'after' names %q, which is not an earlier stage", j.ID, s.Name, a)
				}
			}
		default:
			return fmt.Errorf("job %q stage %q: bad kind %d", j.ID, s.Name, s.Kind)
		}
		stages[s.Name] = true
	}
	return nil
}

func (w *Workload) checkAcyclic(ids map[string]int) error {
	_, err := w.parentsFirst(ids)
	return err
}

// ParentsFirst is the jobs' indexes with every job after its parents (see
// parentsFirst); parents not in the workload are passed over.
func (w *Workload) ParentsFirst() ([]int, error) {
	ids := make(map[string]int, len(w.Jobs))
	for i := range w.Jobs {
		ids[w.Jobs[i].ID] = i
	}
	return w.parentsFirst(ids)
}

// parentsFirst is the jobs' indexes with every job after its parents: a
// depth-first walk up the parent links from each job in file order,
// jobs in the order they finish, the order a recursive walk visits them
// in. The walk keeps its own stack, not the goroutine's: a chain of a
// million jobs, each the parent of the next, overflowed a recursive
// walk's stack, which Go cannot recover from. A cycle is an error naming
// a job on it. ids maps a job's ID to its index; a parent not in it is
// passed over.
func (w *Workload) parentsFirst(ids map[string]int) ([]int, error) {
	const (
		unseen = iota
		active
		done
	)
	state := make([]uint8, len(w.Jobs))
	order := make([]int, 0, len(w.Jobs))
	type frame struct{ job, next int } // next: the next parent to walk to
	var stack []frame
	for root := range w.Jobs {
		if state[root] != unseen {
			continue
		}
		state[root] = active
		stack = append(stack[:0], frame{job: root})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if parents := w.Jobs[f.job].Parents; f.next < len(parents) {
				p, ok := ids[parents[f.next]]
				f.next++
				if !ok {
					continue
				}
				switch state[p] {
				case active:
					return nil, fmt.Errorf("job DAG has a cycle through job %q", w.Jobs[p].ID)
				case unseen:
					state[p] = active
					stack = append(stack, frame{job: p})
				}
				continue
			}
			state[f.job] = done
			order = append(order, f.job)
			stack = stack[:len(stack)-1]
		}
	}
	return order, nil
}

// SortByArrival orders jobs by arrival time, keeping file order for ties.
func (w *Workload) SortByArrival() {
	sort.SliceStable(w.Jobs, func(a, b int) bool { return w.Jobs[a].Arrival < w.Jobs[b].Arrival })
}

// Validate checks datasets against a topology: replicas on known hosts and
// tiers that those hosts have. t may be nil when no dataset is placed.
func (ds *Datasets) Validate(t *cluster.Topology) error {
	seen := map[string]bool{}
	// stored is every dataset's bytes times its replicas, bounded as a
	// whole by MaxBytes: a layout's and a tier's sums of them must not wrap
	var stored int64
	store := func(name string, size, replicas int64) error {
		if replicas > 0 && size > (MaxBytes-stored)/replicas {
			return fmt.Errorf("dataset %q: the datasets' bytes times their replicas add up to more than the limit of %s", name, maxBytesText)
		}
		stored += size * replicas
		return nil
	}
	for _, d := range ds.Datasets {
		if d.Name == "" {
			return fmt.Errorf("a dataset has no name")
		}
		if seen[d.Name] {
			return fmt.Errorf("dataset %q is listed twice", d.Name)
		}
		seen[d.Name] = true
		if !d.Placed() {
			if d.Size < 0 || d.Size > MaxBytes {
				return fmt.Errorf("dataset %q: size_bytes %d is outside [0, %s]", d.Name, d.Size, maxBytesText)
			}
			if d.BlockSize <= 0 || d.BlockSize > MaxBytes {
				return fmt.Errorf("dataset %q: an unplaced dataset needs a block_size_bytes in [1, %s] (got %d)", d.Name, maxBytesText, d.BlockSize)
			}
			if d.Replication < 0 || d.Replication > MaxReplicas {
				return fmt.Errorf("dataset %q: replication %d is outside [0, %d]", d.Name, d.Replication, MaxReplicas)
			}
			if n := (d.Size + d.BlockSize - 1) / d.BlockSize; n > MaxTasksPerStage {
				return fmt.Errorf("dataset %q: size_bytes / block_size_bytes gives %d blocks, above the limit of %d (one map task per block)", d.Name, n, MaxTasksPerStage)
			}
			replicas := int64(d.Replication)
			if replicas == 0 {
				replicas = 3 // the placers' default, HDFS's dfs.replication
			}
			if err := store(d.Name, d.Size, replicas); err != nil {
				return err
			}
			continue
		}
		if t == nil {
			return fmt.Errorf("dataset %q is placed: its replicas need a topology to be checked against", d.Name)
		}
		if len(d.Blocks) > MaxTasksPerStage {
			return fmt.Errorf("dataset %q: %d blocks is above the limit of %d (one map task per block)", d.Name, len(d.Blocks), MaxTasksPerStage)
		}
		var total int64
		for bi, b := range d.Blocks {
			if b.Size < 0 || b.Size > MaxBytes {
				return fmt.Errorf("dataset %q block %d: size_bytes %d is outside [0, %s]", d.Name, bi, b.Size, maxBytesText)
			}
			if total += b.Size; total > MaxBytes {
				return fmt.Errorf("dataset %q block %d: the blocks add up to more than the limit of %s bytes", d.Name, bi, maxBytesText)
			}
			if len(b.Replicas) == 0 {
				return fmt.Errorf("dataset %q block %d has no replica", d.Name, bi)
			}
			if len(b.Replicas) > MaxReplicas {
				return fmt.Errorf("dataset %q block %d: %d replicas is above the limit of %d", d.Name, bi, len(b.Replicas), MaxReplicas)
			}
			if err := store(d.Name, b.Size, int64(len(b.Replicas))); err != nil {
				return err
			}
			for _, r := range b.Replicas {
				if r.Host < 0 || int(r.Host) >= len(t.Hosts) {
					return fmt.Errorf("dataset %q block %d: replica on unknown host %d", d.Name, bi, r.Host)
				}
				if _, ok := t.Hosts[r.Host].Tier(r.Tier); !ok {
					return fmt.Errorf("dataset %q block %d: host %q has no %s tier", d.Name, bi, t.Hosts[r.Host].Name, r.Tier)
				}
			}
		}
	}
	return nil
}
