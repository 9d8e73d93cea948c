package recurring

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/gen"
)

// Jobs is each workload's job count (spec/corral.md §5.2).
var Jobs = map[string]int{"w1": 100, "w2": 400, "w3": 200}

// Options shape the workload. DefaultOptions gives the usual values.
type Options struct {
	gen.Options
	Workload string // w1, w2 or w3
	// Jobs is the number of recurring jobs; 0: the workload's count.
	Jobs int
	// Window is the span, in seconds, of the trace arrivals.
	Window float64
	// SizeError is the largest relative error of the actual sizes.
	SizeError float64
	// ArrivalError is the fraction of jobs whose start moves, by up to
	// ArrivalShift seconds either way.
	ArrivalError float64
	ArrivalShift float64
	// AdHoc is the number of ad hoc W1 jobs added.
	AdHoc int
	// ReduceBytes (before scaling) is W2's shuffle per reduce task.
	ReduceBytes      int64
	ComputeNsPerByte float64
	// TaskScale multiplies every W1 job's task count (rounded, at least
	// one map and one reduce; ad hoc jobs too), with the block size
	// unchanged, so that a job's bytes follow its tasks: a cluster with
	// f times the slots per rack and W1 at task scale f keep the share of
	// jobs that fit in one rack (spec/corral.md §7.5). W2's and W3's task
	// counts come with their bytes (block size, ReduceBytes, Table 1);
	// they take only 1.
	TaskScale float64
	// OutputReplicas is the replication of every job's output (its reduce
	// stage's), as HDFS's dfs.replication; 0 sets none (one replica, on
	// the writer). corral.md §2.6 writes outputs by the default DFS policy.
	OutputReplicas int
}

// DefaultOptions: W1, the online scenario over 60 minutes, 6.5% mean size
// error, no arrival error (t = 4 minutes when there is), 1 GiB of shuffle
// per W2 reduce task, 5 ns of CPU per byte.
func DefaultOptions() Options {
	return Options{Options: gen.DefaultOptions(), Workload: "w1", Window: 3600, SizeError: 0.13,
		ArrivalShift: 240, ReduceBytes: 1 << 30, ComputeNsPerByte: 5, TaskScale: 1}
}

func (o *Options) check() error {
	if err := o.Options.Check(); err != nil {
		return err
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case Jobs[o.Workload] == 0:
		return fmt.Errorf("unknown workload %q (want w1, w2 or w3)", o.Workload)
	case o.Jobs < 0:
		return fmt.Errorf("jobs must not be negative (got %d)", o.Jobs)
	case o.AdHoc < 0:
		return fmt.Errorf("ad hoc jobs must not be negative (got %d)", o.AdHoc)
	case !(o.Window > 0) || !finite(o.Window):
		return fmt.Errorf("window must be positive (got %g s)", o.Window)
	case !(o.SizeError >= 0 && o.SizeError < 1):
		return fmt.Errorf("size error must be in [0, 1) (got %g)", o.SizeError)
	case !(o.ArrivalError >= 0 && o.ArrivalError <= 1):
		return fmt.Errorf("arrival error must be a fraction of the jobs, in [0, 1] (got %g)", o.ArrivalError)
	case !(o.ArrivalShift >= 0) || !finite(o.ArrivalShift):
		return fmt.Errorf("arrival shift must not be negative (got %g s)", o.ArrivalShift)
	case !(o.TaskScale > 0) || !finite(o.TaskScale):
		return fmt.Errorf("task scale must be positive (got %g)", o.TaskScale)
	case o.Jobs > workload.MaxTotalTasks/2:
		return fmt.Errorf("jobs %d is above %d: every job has a map and a reduce task, and a workload at most %d tasks", o.Jobs, workload.MaxTotalTasks/2, workload.MaxTotalTasks)
	case o.AdHoc > workload.MaxTotalTasks/2:
		return fmt.Errorf("ad hoc jobs %d is above %d: every job has a map and a reduce task, and a workload at most %d tasks", o.AdHoc, workload.MaxTotalTasks/2, workload.MaxTotalTasks)
	case o.TaskScale*w1MaxTasks > workload.MaxTotalTasks:
		return fmt.Errorf("task scale %g makes W1's largest jobs %.4g tasks, above the limit of %d tasks a workload", o.TaskScale, o.TaskScale*w1MaxTasks, workload.MaxTotalTasks)
	case o.OutputReplicas < 0 || o.OutputReplicas > workload.MaxReplicas:
		return fmt.Errorf("output replicas must be between 0 (none set) and %d (got %d)", workload.MaxReplicas, o.OutputReplicas)
	case o.TaskScale != 1 && o.Workload != "w1":
		return fmt.Errorf("task scale %g: only W1's task counts scale; %s's come with its bytes", o.TaskScale, o.Workload)
	case o.Workload == "w1" && float64(o.Block())*float64(o.scaleTasks(w1MaxTasks))*w1MaxGrowth > float64(workload.MaxBytes):
		// W1's sizes are block multiples, not scaled bytes (Bytes would
		// have capped them): past the limit, int64(maps) × block wraps
		return fmt.Errorf("block size %d × scale %g: W1's largest jobs read up to %d blocks of %d bytes and write up to %d times that, above the limit of 2^62 bytes",
			o.BlockSize, o.Scale, o.scaleTasks(w1MaxTasks)-1, o.Block(), w1MaxGrowth)
	}
	return gen.CheckSizing(o.ReduceBytes, 0, o.ComputeNsPerByte)
}

// arrivalShiftStream tells the arrival shifts' random stream from the
// generator's main one (gen.Options.RNG), seeded alike.
const arrivalShiftStream = 0x5ca1ab1e0ddba11

// spec is a job's predicted shape, scaled bytes.
type spec struct {
	input, shuffle, output int64
	mapTasks, reduceTasks  int
	block                  int64
}

// Generate builds the workload, its datasets and the predictions.
func Generate(o Options) (*workload.Workload, *workload.Datasets, *Predicted, error) {
	if err := o.check(); err != nil {
		return nil, nil, nil, err
	}
	n := o.Jobs
	if n == 0 {
		n = Jobs[o.Workload]
	}
	rng := o.RNG()
	var specs []spec
	switch o.Workload {
	case "w1":
		specs = o.w1(rng, n)
	case "w2":
		specs = o.w2(rng, n)
	default:
		specs = o.w3(rng, n)
	}
	rng.Shuffle(len(specs), func(a, b int) { specs[a], specs[b] = specs[b], specs[a] })
	times := o.Times(rng, n, func() []float64 { return gen.Uniform(rng, n, o.Window) })
	actual := slices.Clone(times)
	// The shifts come from a stream of their own, one drawn for every job
	// in the permutation's order whatever the fraction: a sensitivity
	// sweep over ArrivalError then compares like with like. The jobs a
	// smaller fraction shifts are the first of those a larger one shifts,
	// by the same amounts, and the sizes and their errors (the main
	// stream) do not change with the fraction.
	order := rng.Perm(n)
	shifted := int(math.Round(o.ArrivalError * float64(n)))
	shifts := rand.New(rand.NewPCG(o.Seed, arrivalShiftStream))
	for k, i := range order {
		if u := 2*shifts.Float64() - 1; k < shifted {
			actual[i] = max(0, actual[i]+u*o.ArrivalShift)
		}
	}

	if err := checkTasks(specs, nil); err != nil {
		return nil, nil, nil, err
	}
	w := &workload.Workload{}
	ds := &workload.Datasets{}
	p := &Predicted{}
	for i, s := range specs {
		id := fmt.Sprintf("%s-j%03d", o.Workload, i+1)
		p.Jobs = append(p.Jobs, Prediction{ID: id, Recurring: id, Arrival: times[i], InputBytes: s.input,
			ShuffleBytes: s.shuffle, OutputBytes: s.output, MapTasks: s.mapTasks, ReduceTasks: s.reduceTasks})
		job, d := o.job(id, s)
		// The actual input; the selectivities scale shuffle and output with it.
		d.Size = int64(math.Round(float64(s.input) * (1 + (2*rng.Float64()-1)*o.SizeError)))
		job.Arrival, job.Recurring = actual[i], id
		w.Jobs = append(w.Jobs, job)
		ds.Datasets = append(ds.Datasets, d)
	}
	adhoc := o.w1(rng, o.AdHoc)
	if err := checkTasks(specs, adhoc); err != nil {
		return nil, nil, nil, err
	}
	for i, s := range adhoc {
		job, d := o.job(fmt.Sprintf("w1-adhoc%03d", i+1), s)
		job.Queue = "adhoc"
		w.Jobs = append(w.Jobs, job)
		ds.Datasets = append(ds.Datasets, d)
	}
	w.SortByArrival()
	if err := o.Beyond(); err != nil {
		return nil, nil, nil, err
	}
	if err := gen.Check(w, ds); err != nil {
		return nil, nil, nil, err
	}
	return w, ds, p, nil
}

// checkTasks refuses jobs of more tasks in all than a workload may hold,
// before they are made.
func checkTasks(specs ...[]spec) error {
	total := 0
	for _, ss := range specs {
		for _, s := range ss {
			total += s.mapTasks + s.reduceTasks
		}
	}
	if total > workload.MaxTotalTasks {
		return fmt.Errorf("the jobs asked for have %d tasks, above the limit of %d a workload", total, workload.MaxTotalTasks)
	}
	return nil
}

// job is a MapReduce job reading its own dataset of s.input bytes, with
// the selectivities of s.
func (o *Options) job(id string, s spec) (workload.Job, workload.Dataset) {
	d := o.Dataset("in-"+id, s.input)
	d.BlockSize = s.block
	ns := o.ComputeNsPerByte
	m := workload.Stage{Name: "map", Kind: workload.Map, Input: d.Name, ComputeNsPerByte: ns}
	if s.input > 0 {
		m.Selectivity = float64(s.shuffle) / float64(s.input)
	}
	r := workload.Stage{Name: "reduce", Kind: workload.Reduce, Tasks: s.reduceTasks, After: []string{"map"}, ComputeNsPerByte: ns, OutputReplicas: o.OutputReplicas}
	if s.shuffle > 0 {
		r.Selectivity = float64(s.output) / float64(s.shuffle)
	}
	return workload.Job{ID: id, Stages: []workload.Stage{m, r}}, d
}

// w1MaxGrowth is the most a W1 job's shuffle or output is of its input:
// each of the two ratios it draws is at most 4.
const w1MaxGrowth = 16

// w1MaxTasks is the most tasks a W1 job has, before TaskScale.
const w1MaxTasks = 2000

// scaleTasks is a job's task count times TaskScale, at least one map and
// one reduce.
func (o *Options) scaleTasks(tasks int) int {
	if o.TaskScale == 1 {
		return tasks
	}
	return max(2, int(math.Round(float64(tasks)*o.TaskScale)))
}

// w1 draws n W1 jobs: 60% small, 30% medium, 10% large, by total tasks.
func (o *Options) w1(rng *rand.Rand, n int) []spec {
	classes := []struct {
		share  float64
		lo, hi int
	}{{0.6, 4, 50}, {0.3, 51, 500}, {0.1, 1000, w1MaxTasks}}
	out := make([]spec, 0, n)
	for c, cl := range classes {
		k := int(math.Round(cl.share * float64(n)))
		if c == len(classes)-1 {
			k = n - len(out)
		}
		for range max(0, min(k, n-len(out))) {
			tasks := o.scaleTasks(cl.lo + rng.IntN(cl.hi-cl.lo+1))
			sm, sr := gen.LogUniform(rng, 0.25, 4), gen.LogUniform(rng, 0.25, 4)
			maps := min(tasks-1, max(1, int(math.Round(float64(tasks)/(1+sm)))))
			s := spec{mapTasks: maps, reduceTasks: tasks - maps, block: o.Block()}
			s.input = int64(maps) * s.block
			s.shuffle = int64(math.Round(float64(s.input) * sm))
			s.output = int64(math.Round(float64(s.shuffle) * sr))
			out = append(out, s)
		}
	}
	return out
}

// w2 draws n W2 jobs: 90% tiny, 2 in 400 large, the rest medium.
func (o *Options) w2(rng *rand.Rand, n int) []spec {
	const mb = 1e6
	tiny := int(math.Round(0.9 * float64(n)))
	large := min(n-tiny, int(math.Round(float64(n)/200)))
	out := make([]spec, 0, n)
	for i := range n {
		var in, sm float64
		switch {
		case i < tiny:
			in = gen.LogUniform(rng, 1*mb, 200*mb)
			sm = gen.LogUniform(rng, 0.01, min(1, 75*mb/in))
		case i < tiny+large:
			in, sm = 5.5e12, 1.8
		default:
			in = gen.LogUniform(rng, 200*mb, 500e3*mb)
			sm = gen.LogUniform(rng, 0.1, 2)
		}
		s := spec{input: o.Bytes(in), block: o.Block()}
		s.shuffle = o.Bytes(math.Floor(in * sm))
		s.output = int64(math.Round(float64(s.shuffle) * gen.LogUniform(rng, 0.1, 1)))
		s.mapTasks = int(max(1, (s.input+s.block-1)/s.block))
		s.reduceTasks = gen.ReduceTasks(s.shuffle, o.Bytes(float64(o.ReduceBytes)), 0)
		out = append(out, s)
	}
	return out
}

// Table 1 of the Corral paper (W3): medians and 95th percentiles.
const (
	w3TasksMedian, w3TasksP95 = 180, 2060
	w3InputMedian, w3InputP95 = 7.1e9, 162.3e9
	w3InterMedian, w3InterP95 = 6e9, 71.5e9
	z95                       = 1.6448536269514722
)

// w3 draws n W3 jobs from log-normals through Table 1's quantiles.
func (o *Options) w3(rng *rand.Rand, n int) []spec {
	ln := func(median, p95, z float64) float64 { return median * math.Exp(z*math.Log(p95/median)/z95) }
	out := make([]spec, 0, n)
	for i := range n {
		// stratified: the i-th of n equal-probability slices
		z := normalQuantile((float64(i) + rng.Float64()) / float64(n))
		tasks := max(2, int(math.Round(ln(w3TasksMedian, w3TasksP95, z))))
		in, inter := ln(w3InputMedian, w3InputP95, z), ln(w3InterMedian, w3InterP95, z)
		maps := min(tasks-1, max(1, int(math.Round(float64(tasks)*in/(in+inter)))))
		s := spec{input: o.Bytes(in), shuffle: o.Bytes(inter), mapTasks: maps, reduceTasks: tasks - maps}
		s.output = int64(math.Round(float64(s.shuffle) * gen.LogUniform(rng, 0.25, 1)))
		s.block = max(1, (s.input+int64(maps)-1)/int64(maps))
		s.mapTasks = int((s.input + s.block - 1) / s.block)
		out = append(out, s)
	}
	return out
}

// normalQuantile is the standard normal's inverse CDF.
func normalQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }
