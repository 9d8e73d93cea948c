package workload

import (
	"fmt"
	"math"
)

// The bounds on what a workload and its datasets may ask for. They are
// checked by Validate (and, with the line, by the file parsers), so that
// the engine's int64 byte arithmetic cannot overflow and its per-task
// state fits in memory; the engine itself does no such checks on its hot
// paths.
const (
	// MaxBytes bounds every byte count: a dataset, a block, a stage's
	// input or output (selectivity × input included), and the sum over
	// the whole workload of every stage's input and replicated output.
	// 2^62 leaves a factor of two below int64's limit, so that the
	// engine's sums (a stage's output plus its retried attempts, size +
	// block − 1 when splitting a dataset) cannot wrap around.
	MaxBytes = int64(1) << 62
	// MaxTasksPerStage bounds the tasks of one stage, and so the blocks of
	// one dataset (one map task per block).
	MaxTasksPerStage = 10_000_000
	// MaxTotalTasks bounds the tasks of the whole workload. The engine
	// holds about 440 bytes per task (Task 120, Attempt 264, Block 32 and
	// three replicas 24, measured with unsafe.Sizeof), about 1 KiB with
	// its queues and records: 10^7 tasks is some 10 GiB, the most a
	// simulation host can be expected to hold.
	MaxTotalTasks = 10_000_000
	// MaxReplicas bounds a dataset's replication and a stage's output
	// replicas, as HDFS's dfs.replication.max does (512).
	MaxReplicas = 512
	// MaxArrivalS bounds a job's arrival time (about 32 years): beyond it
	// a simulation would run for ages of simulated time, and float64
	// time steps of 0.01 s lose their meaning near 1e14 s.
	MaxArrivalS = 1e9
	// MaxSelectivity bounds output bytes per input byte of a stage; the
	// product with the stage's input is checked against MaxBytes too.
	MaxSelectivity = 1e6
	// MaxComputeNsPerByte bounds CPU time per input byte (1 ms per byte).
	MaxComputeNsPerByte = 1e6
	// MaxShare bounds one partition weight of Stage.Shares. It equals
	// MaxBytes, so that byte counts can serve as weights; with at most
	// MaxTasksPerStage weights their sum stays far from float64's limit.
	MaxShare = float64(MaxBytes)
)

// maxBytesText says MaxBytes in error messages.
const maxBytesText = "2^62"

// checkBytes reports a byte count (computed in float64, so that it cannot
// wrap) above MaxBytes.
func checkBytes(what string, v float64) error {
	if !(v <= float64(MaxBytes)) {
		return fmt.Errorf("%s is %.4g bytes, above the limit of %s bytes", what, v, maxBytesText)
	}
	return nil
}

// checkFloat reports a value outside [0, max] (NaN and Inf included).
func checkFloat(what string, v, max float64) error {
	if !(v >= 0 && v <= max) {
		return fmt.Errorf("%s %g is outside [0, %g]", what, v, max)
	}
	return nil
}

// checkStageBounds checks a stage's own numbers against the limits.
func (s *Stage) checkBounds() error {
	if s.Tasks > MaxTasksPerStage {
		return fmt.Errorf("tasks %d is above the limit of %d per stage", s.Tasks, MaxTasksPerStage)
	}
	if err := checkFloat("selectivity", s.Selectivity, MaxSelectivity); err != nil {
		return err
	}
	if s.OutputBytes > MaxBytes {
		return fmt.Errorf("output_bytes %d is above the limit of %s bytes", s.OutputBytes, maxBytesText)
	}
	if err := checkFloat("compute_ns_per_byte", s.ComputeNsPerByte, MaxComputeNsPerByte); err != nil {
		return err
	}
	if math.IsNaN(s.Skew) || math.IsInf(s.Skew, 0) {
		return fmt.Errorf("skew %g is not a finite number", s.Skew)
	}
	if s.OutputReplicas > MaxReplicas {
		return fmt.Errorf("output_replicas %d is above the limit of %d", s.OutputReplicas, MaxReplicas)
	}
	return nil
}

// checkShares checks a stage's explicit partition weights: only on
// reduce and generic stages, not together with a skew, one per task, each
// positive, finite and at most MaxShare.
func (s *Stage) checkShares() error {
	if len(s.Shares) == 0 {
		return nil
	}
	switch {
	case s.Kind == Map:
		return fmt.Errorf("shares: a map stage has no partitions to weigh (shares are for reduce and generic stages)")
	case s.Skew != 0:
		return fmt.Errorf("give skew or shares, not both (skew %g, %d shares)", s.Skew, len(s.Shares))
	case len(s.Shares) > MaxTasksPerStage:
		return fmt.Errorf("shares: %d weights is above the limit of %d per stage", len(s.Shares), MaxTasksPerStage)
	case len(s.Shares) != s.Tasks:
		return fmt.Errorf("shares: %d weights for %d tasks (want one per task)", len(s.Shares), s.Tasks)
	}
	for i, v := range s.Shares {
		if !(v > 0 && v <= MaxShare) {
			return fmt.Errorf("shares: weight #%d is %g; each must be positive, finite and at most %g", i+1, v, MaxShare)
		}
	}
	return nil
}

// Volume is how much work a workload asks for, in float64 so that
// nothing wraps: the sum over every stage of its input bytes and its
// (replicated) output bytes, of its CPU time, and its tasks; and the last
// arrival. A simulator derives a bound on simulated time from it.
type Volume struct {
	Bytes       float64
	ComputeNs   float64
	Tasks       float64
	LastArrival float64
}

// Volume measures a workload read against its datasets. It needs a
// workload that Validate accepts (an acyclic job DAG, known inputs).
func (w *Workload) Volume(ds *Datasets) (Volume, error) {
	ids := make(map[string]int, len(w.Jobs))
	for i := range w.Jobs {
		ids[w.Jobs[i].ID] = i
	}
	for _, j := range w.Jobs {
		for _, p := range j.Parents {
			if _, ok := ids[p]; !ok {
				return Volume{}, fmt.Errorf("job %q: unknown parent job %q", j.ID, p)
			}
		}
	}
	if err := w.checkAcyclic(ids); err != nil {
		return Volume{}, err
	}
	return w.volume(ds, ids)
}

// checkSizes checks a workload's volume against the limits.
func (w *Workload) checkSizes(ds *Datasets, ids map[string]int) error {
	_, err := w.volume(ds, ids)
	return err
}

// volume follows bytes and tasks through every job's stages and its
// parents' outputs, in float64 so that nothing wraps, and checks them
// against MaxBytes, MaxTasksPerStage and MaxTotalTasks. It needs an
// acyclic job DAG.
func (w *Workload) volume(ds *Datasets, ids map[string]int) (Volume, error) {
	type dataset struct {
		bytes  float64
		blocks float64
	}
	inputs := map[string]dataset{}
	if ds != nil {
		for i := range ds.Datasets {
			d := &ds.Datasets[i]
			x := dataset{bytes: float64(d.TotalBytes()), blocks: float64(len(d.Blocks))}
			if !d.Placed() && d.Size > 0 && d.BlockSize > 0 {
				x.blocks = math.Ceil(float64(d.Size) / float64(d.BlockSize))
			}
			inputs[d.Name] = x
		}
	}
	// per job: the bytes and the number of output blocks (tasks of its
	// final stages) that a child's map stage reading "@job" gets
	type output struct {
		bytes, blocks float64
	}
	outs := make([]output, len(w.Jobs))
	var vol Volume
	// each job after its parents, whose outputs it may read
	order, err := w.parentsFirst(ids)
	if err != nil {
		return Volume{}, err
	}
	visit := func(i int) error {
		j := &w.Jobs[i]
		vol.LastArrival = max(vol.LastArrival, j.Arrival)
		stageOut := make(map[string]float64, len(j.Stages))
		final := make(map[string]bool, len(j.Stages))
		stageTasks := make(map[string]float64, len(j.Stages))
		for k := range j.Stages {
			s := &j.Stages[k]
			var in, tasks float64
			switch s.Kind {
			case Map:
				var x dataset
				if len(s.Input) > 1 && s.Input[:1] == ParentOutputPrefix {
					o := outs[ids[s.Input[1:]]]
					x = dataset(o)
				} else {
					x = inputs[s.Input]
				}
				in, tasks = x.bytes, x.blocks
				if tasks == 0 {
					tasks = float64(max(s.Tasks, 1))
				}
			default:
				for _, a := range s.After {
					in += stageOut[a]
					final[a] = false
				}
				tasks = float64(s.Tasks)
			}
			out := in * s.Selectivity
			if s.OutputBytes > 0 {
				out = float64(s.OutputBytes)
			}
			where := fmt.Sprintf("job %q stage %q", j.ID, s.Name)
			if err := checkBytes(where+": input", in); err != nil {
				return err
			}
			if err := checkBytes(where+": output (selectivity × input)", out); err != nil {
				return err
			}
			if tasks > MaxTasksPerStage {
				return fmt.Errorf("%s: %.0f tasks (one per input block) is above the limit of %d per stage", where, tasks, MaxTasksPerStage)
			}
			stageOut[s.Name], final[s.Name], stageTasks[s.Name] = out, true, tasks
			vol.Tasks += tasks
			vol.ComputeNs += in * s.ComputeNsPerByte
			if vol.Tasks > MaxTotalTasks {
				return fmt.Errorf("%s: the workload's tasks add up to more than the limit of %d", where, MaxTotalTasks)
			}
			vol.Bytes += in + out*float64(max(s.OutputReplicas, 1))
			if err := checkBytes(where+": the workload's total of stage inputs and outputs", vol.Bytes); err != nil {
				return err
			}
		}
		var o output
		for k := range j.Stages {
			if n := j.Stages[k].Name; final[n] {
				o.bytes += stageOut[n]
				o.blocks += stageTasks[n]
			}
		}
		outs[i] = o
		return nil
	}
	for _, i := range order {
		if err := visit(i); err != nil {
			return Volume{}, err
		}
	}
	return vol, nil
}
