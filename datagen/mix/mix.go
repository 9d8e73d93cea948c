package mix

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/gen"
	"github.com/racklab/racklab/datagen/ml"
	"github.com/racklab/racklab/internal/units"
)

// Class is how the suites characterise an application.
type Class string

const (
	IO      Class = "io"      // I/O-intensive
	CPU     Class = "cpu"     // CPU-intensive
	Shuffle Class = "shuffle" // shuffle-intensive
)

// App is one benchmark application.
type App struct {
	Name   string
	Suites string
	Class  Class
	// MapSel is shuffle bytes per input byte, ReduceSel output bytes per
	// shuffle byte; MapNs and ReduceNs CPU nanoseconds per input byte.
	MapSel, ReduceSel float64
	MapNs, ReduceNs   float64
	// Generator apps read nothing and write their size (teragen).
	Generator bool
	// ML names the package ml benchmark of an iterative application.
	ML string
}

// Apps are the applications a mix may name.
var Apps = []App{
	{Name: "terasort", Suites: "PUMA HiBench", Class: IO, MapSel: 1, ReduceSel: 1, MapNs: 2, ReduceNs: 2},
	{Name: "sort", Suites: "HiBench", Class: IO, MapSel: 1, ReduceSel: 1, MapNs: 1, ReduceNs: 1},
	{Name: "teragen", Suites: "Hadoop", Class: IO, Generator: true, MapNs: 2},
	{Name: "wordcount", Suites: "PUMA HiBench", Class: CPU, MapSel: 0.05, ReduceSel: 0.5, MapNs: 30, ReduceNs: 10},
	{Name: "grep", Suites: "PUMA", Class: CPU, MapSel: 0.0001, ReduceSel: 1, MapNs: 15, ReduceNs: 1},
	{Name: "aggregation", Suites: "HiBench", Class: IO, MapSel: 0.1, ReduceSel: 0.5, MapNs: 4, ReduceNs: 4},
	{Name: "join", Suites: "HiBench", Class: CPU, MapSel: 0.4, ReduceSel: 0.2, MapNs: 25, ReduceNs: 20},
	{Name: "nutchindex", Suites: "HiBench", Class: Shuffle, MapSel: 1.5, ReduceSel: 0.6, MapNs: 10, ReduceNs: 10},
	{Name: "kmeans", Suites: "PUMA HiBench", Class: IO, ML: "kmeans", MapNs: 4, ReduceNs: 4},
	{Name: "bayes", Suites: "HiBench", Class: CPU, ML: "bayes", MapNs: 25, ReduceNs: 25},
	{Name: "pagerank", Suites: "HiBench", Class: CPU, ML: "pagerank", MapNs: 20, ReduceNs: 20},
	{Name: "inverted-index", Suites: "PUMA", Class: Shuffle, MapSel: 1, ReduceSel: 0.8, MapNs: 12, ReduceNs: 8},
	{Name: "ranked-inverted-index", Suites: "PUMA", Class: Shuffle, MapSel: 1.2, ReduceSel: 0.9, MapNs: 12, ReduceNs: 12},
	{Name: "term-vector", Suites: "PUMA", Class: Shuffle, MapSel: 1.1, ReduceSel: 0.1, MapNs: 15, ReduceNs: 15},
	{Name: "self-join", Suites: "PUMA", Class: Shuffle, MapSel: 1, ReduceSel: 1.5, MapNs: 5, ReduceNs: 8},
	{Name: "adjacency-list", Suites: "PUMA", Class: Shuffle, MapSel: 1.2, ReduceSel: 1, MapNs: 8, ReduceNs: 8},
	{Name: "sequence-count", Suites: "PUMA", Class: Shuffle, MapSel: 1.5, ReduceSel: 0.3, MapNs: 12, ReduceNs: 8},
	{Name: "histogram-movies", Suites: "PUMA", Class: CPU, MapSel: 0.0001, ReduceSel: 1, MapNs: 15, ReduceNs: 1},
	{Name: "histogram-ratings", Suites: "PUMA", Class: CPU, MapSel: 0.0001, ReduceSel: 1, MapNs: 15, ReduceNs: 1},
	{Name: "classification", Suites: "PUMA", Class: CPU, MapSel: 0.01, ReduceSel: 1, MapNs: 50, ReduceNs: 5},
	// Shadow's evaluation runs PUMA with no combiner (shadow.md §5.2), which
	// these two change. Their selectivities are ours, not measured:
	// WordCount's map emits (word, IntWritable 1) for every ~6-byte token
	// (a 5-letter word and a space), 12 bytes with the record's length
	// fields, so 2 shuffle bytes per input byte; its final output is
	// wordcount's (0.05 × 0.5 of the input), 0.0125 of the shuffle.
	{Name: "wordcount-nocombiner", Suites: "PUMA", Class: Shuffle, MapSel: 2, ReduceSel: 0.0125, MapNs: 30, ReduceNs: 5},
	// K-means as one MapReduce job (one iteration of PUMA's k-means, not
	// the iterative DAG of kmeans): the map sends every point to its
	// nearest centroid's reducer, so the shuffle is the input; the
	// reducers write the new centroids (1% of the shuffle, our figure).
	{Name: "kmeans-iteration", Suites: "PUMA", Class: Shuffle, MapSel: 1, ReduceSel: 0.01, MapNs: 4, ReduceNs: 4},
}

// FindApp returns the application of a name.
func FindApp(name string) (*App, bool) {
	for i := range Apps {
		if Apps[i].Name == name {
			return &Apps[i], true
		}
	}
	return nil, false
}

// Entry is one line of a mix: Count runs of App over Bytes of input.
type Entry struct {
	Count int
	App   *App
	Bytes int64
	Skew  float64
	Line  int
}

// Mix is a parsed mix file.
type Mix struct {
	Sequential bool
	Entries    []Entry
}

// Jobs is the number of application runs.
func (m *Mix) Jobs() int {
	n := 0
	for _, e := range m.Entries {
		n += e.Count
	}
	return n
}

// ParseMix reads a mix file; name is the file name for error messages,
// which give the line.
func ParseMix(r io.Reader, name string) (*Mix, error) {
	m := &Mix{Sequential: true}
	patternLine, total := 0, 0
	err := gen.ScanFields(r, name, func(lineNo int, f []string) error {
		if f[0] == "pattern" {
			switch {
			case patternLine > 0:
				return fmt.Errorf("the pattern is already given on line %d", patternLine)
			case len(f) != 2 || f[1] != "sequential" && f[1] != "batch":
				return fmt.Errorf("want \"pattern sequential\" or \"pattern batch\"")
			}
			m.Sequential, patternLine = f[1] == "sequential", lineNo
			return nil
		}
		if len(f) < 3 || len(f) > 4 {
			return fmt.Errorf("want \"<count> <app> <input size> [skew=<x>]\", got %d fields", len(f))
		}
		e := Entry{Line: lineNo}
		n, err := strconv.Atoi(f[0])
		if err != nil || n < 1 || n > 100000 {
			return fmt.Errorf("count %q: want a whole number from 1 to 100000", f[0])
		}
		e.Count = n
		app, ok := FindApp(f[1])
		if !ok {
			names := make([]string, len(Apps))
			for i, a := range Apps {
				names[i] = a.Name
			}
			sort.Strings(names)
			return fmt.Errorf("unknown application %q (want one of %s)", f[1], strings.Join(names, ", "))
		}
		e.App = app
		if e.Bytes, err = units.ParseBytes(f[2]); err != nil {
			return fmt.Errorf("input size: %v", err)
		}
		if e.Bytes <= 0 {
			return fmt.Errorf("input size %q must be positive", f[2])
		}
		if len(f) == 4 {
			v, ok := strings.CutPrefix(f[3], "skew=")
			x, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil || !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("%q: want skew=<Zipf exponent, 0 or more>", f[3])
			}
			if app.ML != "" || app.Generator {
				return fmt.Errorf("%s has no single reduce stage to skew", app.Name)
			}
			e.Skew = x
		}
		if total += n; total > 100000 {
			return fmt.Errorf("the mix has over 100000 applications")
		}
		m.Entries = append(m.Entries, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(m.Entries) == 0 {
		return nil, fmt.Errorf("%s: the mix has no applications", name)
	}
	return m, nil
}

//go:embed presets/*.mix
var presets embed.FS

// PresetBlockSize is the HDFS block size each preset's source used:
// 1 GiB for PushBox's testbed (spec/pushbox.md §5.1), 128 MiB otherwise.
var PresetBlockSize = map[string]int64{
	"pushbox-w1": 1 << 30, "pushbox-w2": 1 << 30,
	"hibench-small": 128 << 20, "hibench-large": 128 << 20, "hibench-huge": 128 << 20, "puma": 128 << 20,
}

// Preset parses a preset mix.
func Preset(name string) (*Mix, error) {
	data, err := presets.ReadFile("presets/" + name + ".mix")
	if err != nil {
		names := make([]string, 0, len(PresetBlockSize))
		for n := range PresetBlockSize {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown preset %q (want one of %s)", name, strings.Join(names, ", "))
	}
	return ParseMix(bytes.NewReader(data), name+".mix")
}

// Options shape the workload. DefaultOptions gives the usual values.
type Options struct {
	gen.Options
	// ReduceBytes (before scaling) is the shuffle per reduce task.
	ReduceBytes int64
	MaxReducers int
	// Ratio sizes the iterative applications (see package ml).
	Ratio float64
	// ComputeScale multiplies every stage's CPU cost per byte. Scale
	// shrinks a task's bytes, and so its compute time, and its transfer
	// time too; on a cluster whose NICs are n times the source's, the
	// transfer time shrinks by Scale/n and compute by Scale only, and
	// ComputeScale = 1/n keeps the two in their source's proportion.
	ComputeScale float64
	// OutputReplicas is the replication of every job's output (its final
	// stages'), as HDFS's dfs.replication (3) gives a job's output files;
	// 0 sets none, so that the engine writes one replica.
	OutputReplicas int
}

// DefaultOptions: 1 GiB of shuffle per reduce task, no cap, ratio 12,
// CPU costs as the applications have them.
func DefaultOptions() Options {
	return Options{Options: gen.DefaultOptions(), ReduceBytes: 1 << 30, Ratio: 12, ComputeScale: 1}
}

// Generate builds the workload of a mix and its datasets.
func Generate(m *Mix, o Options) (*workload.Workload, *workload.Datasets, error) {
	if err := o.Options.Check(); err != nil {
		return nil, nil, err
	}
	switch {
	case o.ReduceBytes <= 0:
		return nil, nil, fmt.Errorf("reduce bytes must be positive (got %d)", o.ReduceBytes)
	case o.MaxReducers < 0:
		return nil, nil, fmt.Errorf("max reducers must not be negative (got %d)", o.MaxReducers)
	case !(o.Ratio >= 4 && o.Ratio <= 1000):
		return nil, nil, fmt.Errorf("ratio must be between 4 and 1000 (got %g)", o.Ratio)
	case !(o.ComputeScale > 0 && o.ComputeScale <= 1e6):
		return nil, nil, fmt.Errorf("compute scale must be above 0 and at most 1e6 (got %g)", o.ComputeScale)
	case o.OutputReplicas < 0 || o.OutputReplicas > workload.MaxReplicas:
		return nil, nil, fmt.Errorf("output replicas must be between 0 (none set) and %d (got %d)", workload.MaxReplicas, o.OutputReplicas)
	}
	rng := o.RNG()
	n := m.Jobs()
	times := o.Times(rng, n, func() []float64 { return make([]float64, n) })
	sequential := m.Sequential && o.Arrivals == gen.Trace
	w := &workload.Workload{}
	ds := &workload.Datasets{}
	var prev []string // the previous application's last jobs
	// a block or reduce size past the limit is the flags', not a line's
	o.Block()
	o.Bytes(float64(o.ReduceBytes))
	if err := o.Beyond(); err != nil {
		return nil, nil, fmt.Errorf("block size or reduce bytes: %w", err)
	}
	k := 0
	// The running total of the applications' tasks stops a mix past the
	// task limit while it is made: checked at the end, 100,000 runs of an
	// iterative application took some 8 GB before they were refused.
	var tasks float64
	for _, e := range m.Entries {
		for range e.Count {
			id := fmt.Sprintf("mix-%03d-%s", k+1, e.App.Name)
			jobs, sets, err := o.app(e, id)
			if err == nil {
				// the line whose size the scale takes past the limit
				err = o.Beyond()
			}
			var v workload.Volume
			if err == nil {
				// before the sequential parents, which are not in jobs
				v, err = (&workload.Workload{Jobs: jobs}).Volume(&workload.Datasets{Datasets: sets})
			}
			if tasks += v.Tasks; err == nil && tasks > workload.MaxTotalTasks {
				err = fmt.Errorf("the first %d applications have %.0f tasks, above the limit of %d a workload", k+1, tasks, workload.MaxTotalTasks)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("line %d: %w", e.Line, err)
			}
			ds.Datasets = append(ds.Datasets, sets...)
			for i := range jobs {
				jobs[i].Arrival = times[k]
				for st := range jobs[i].Stages {
					jobs[i].Stages[st].ComputeNsPerByte *= o.ComputeScale
				}
				if o.OutputReplicas > 0 {
					setOutputReplicas(&jobs[i], o.OutputReplicas)
				}
				if sequential && len(jobs[i].Parents) == 0 {
					jobs[i].Parents = slices.Clone(prev)
				}
			}
			prev = sinks(jobs)
			w.Jobs = append(w.Jobs, jobs...)
			k++
		}
	}
	if err := gen.Check(w, ds); err != nil {
		return nil, nil, err
	}
	return w, ds, nil
}

// app builds one run of an application.
func (o *Options) app(e Entry, id string) ([]workload.Job, []workload.Dataset, error) {
	a := e.App
	size := o.Bytes(float64(e.Bytes))
	reduceBytes := o.Bytes(float64(o.ReduceBytes))
	if a.ML != "" {
		b, _, _ := ml.Find(a.ML)
		parts := b.Parts("in-"+id, size)
		var sets []workload.Dataset
		for _, p := range parts {
			sets = append(sets, o.Dataset(p.Name, p.Bytes))
		}
		jobs, err := b.DAG(parts, a.MapNs, o.Ratio).Jobs(gen.DAGOptions{ID: id, ReduceBytes: reduceBytes, MaxReducers: o.MaxReducers})
		return jobs, sets, err
	}
	if a.Generator {
		d := o.Dataset("in-"+id, 0)
		tasks := int(min(math.MaxInt32, max(1, (size+d.BlockSize-1)/d.BlockSize)))
		return []workload.Job{{ID: id, Stages: []workload.Stage{{Name: "map", Kind: workload.Map, Input: d.Name,
			Tasks: tasks, OutputBytes: size, ComputeNsPerByte: a.MapNs}}}}, []workload.Dataset{d}, nil
	}
	d := o.Dataset("in-"+id, size)
	return []workload.Job{{ID: id, Stages: []workload.Stage{
		{Name: "map", Kind: workload.Map, Input: d.Name, Selectivity: a.MapSel, ComputeNsPerByte: a.MapNs},
		{Name: "reduce", Kind: workload.Reduce, After: []string{"map"}, Selectivity: a.ReduceSel, ComputeNsPerByte: a.ReduceNs,
			Tasks: gen.ReduceTasks(int64(math.Ceil(float64(size)*a.MapSel)), reduceBytes, o.MaxReducers), Skew: e.Skew},
	}}}, []workload.Dataset{d}, nil
}

// sinks are the jobs no other job of the list names as a parent.
func sinks(jobs []workload.Job) []string {
	read := map[string]bool{}
	for _, j := range jobs {
		for _, p := range j.Parents {
			read[p] = true
		}
	}
	var out []string
	for _, j := range jobs {
		if !read[j.ID] {
			out = append(out, j.ID)
		}
	}
	return out
}

// setOutputReplicas sets the replication of a job's final stages, those
// no other stage of the job reads.
func setOutputReplicas(j *workload.Job, n int) {
	read := map[string]bool{}
	for _, s := range j.Stages {
		for _, a := range s.After {
			read[a] = true
		}
	}
	for st := range j.Stages {
		if !read[j.Stages[st].Name] {
			j.Stages[st].OutputReplicas = n
		}
	}
}
