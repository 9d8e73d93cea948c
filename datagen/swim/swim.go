package swim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/gen"
	"github.com/racklab/racklab/internal/units"
	"github.com/racklab/racklab/internal/utf8text"
)

// Options shape the import. DefaultOptions gives the usual values.
type Options struct {
	// Scale multiplies every size (input, shuffle, output); 1 keeps the
	// trace's sizes.
	Scale float64
	// BlockSize and Replication are those of the input datasets.
	BlockSize   int64
	Replication int
	// ReduceBytes is the shuffle data per reduce task.
	ReduceBytes int64
	// MaxReducers caps a job's reduce tasks, as Hive's
	// hive.exec.reducers.max (999 in the Hive of the traces' time) does;
	// 0 means no cap.
	MaxReducers int
	// ComputeNsPerByte is the CPU cost of every stage.
	ComputeNsPerByte float64
	// MaxJobs stops after this many jobs; 0 reads them all.
	MaxJobs int
	// Sample, when positive, imports that many jobs drawn at random with
	// SampleSeed, keeping their own inter-arrival gaps (see Sample).
	Sample     int
	SampleSeed uint64
	// LiteralPaths takes the input paths of a trace with paths as they are
	// written. By default, a trace whose first input path is inputPath<N>
	// has its paths decoded by the numbering of SWIM's WorkloadSynthesis.pl
	// (see swimNumbering).
	LiteralPaths bool
}

// DefaultOptions are those of `datagen swim` without flags: sizes as in
// the trace, 128 MiB blocks, 3 replicas, 1 GiB per reduce task, 5 ns/byte.
func DefaultOptions() Options {
	return Options{Scale: 1, BlockSize: 128 << 20, Replication: 3, ReduceBytes: 1 << 30, MaxReducers: 999, ComputeNsPerByte: 5}
}

// Check says what is wrong with the options, before a trace is read.
func (o *Options) Check() error {
	if err := units.Positive("scale", o.Scale); err != nil {
		return err
	}
	if err := gen.CheckSizing(o.ReduceBytes, o.MaxReducers, o.ComputeNsPerByte); err != nil {
		return err
	}
	switch {
	case o.BlockSize <= 0:
		return fmt.Errorf("block size must be positive (got %d)", o.BlockSize)
	case o.Replication < 1:
		return fmt.Errorf("replication must be at least 1 (got %d)", o.Replication)
	case o.MaxJobs < 0:
		return fmt.Errorf("max jobs must not be negative (got %d)", o.MaxJobs)
	case o.Sample < 0:
		return fmt.Errorf("sample must not be negative (got %d)", o.Sample)
	case o.BlockSize > workload.MaxBytes:
		return fmt.Errorf("block size %d is above the limit of 2^62 bytes", o.BlockSize)
	case o.ReduceBytes > workload.MaxBytes:
		return fmt.Errorf("reduce bytes %d is above the limit of 2^62 bytes", o.ReduceBytes)
	case o.Replication > workload.MaxReplicas:
		return fmt.Errorf("replication %d is above the limit of %d", o.Replication, workload.MaxReplicas)
	case o.ComputeNsPerByte > workload.MaxComputeNsPerByte:
		return fmt.Errorf("compute ns per byte %g is above the limit of %g", o.ComputeNsPerByte, float64(workload.MaxComputeNsPerByte))
	}
	return nil
}

// Stats totals an import, in bytes after scaling.
type Stats struct {
	Jobs         int
	MapOnly      int // jobs without shuffle
	EmptyInput   int // jobs whose input is empty (after scaling)
	InputBytes   int64
	ShuffleBytes int64
	OutputBytes  int64

	// WithPaths reports a trace of 9 fields a line, with input and output
	// paths.
	WithPaths bool
	// Datasets counts the input datasets and DatasetBytes adds up their
	// sizes. Without paths there is one a job, of its input; with paths,
	// the jobs that read one path share one dataset, so both can be less
	// than Jobs and InputBytes (which adds up what the trace says each job
	// read).
	Datasets     int
	DatasetBytes int64
	// SharedInputJobs counts the jobs that read a dataset which another
	// job also reads.
	SharedInputJobs int
	// InputWasOutput counts the jobs whose input path is the output path
	// of an earlier job. The import does not make them children of that
	// job (see the package documentation); the count says what is lost.
	InputWasOutput int
}

// Import reads a SWIM trace; name is the file name for error messages.
func Import(r io.Reader, name string, opts Options) (*workload.Workload, *workload.Datasets, error) {
	w, ds, _, err := ImportStats(r, name, opts)
	return w, ds, err
}

// Field counts of the two line formats.
const (
	plainFields    = 6 // job id, submit s, gap s, input, shuffle, output bytes
	withPathFields = 9 // the same, input path, output path, and an empty field
)

// ImportStats is Import, also returning totals.
func ImportStats(r io.Reader, name string, opts Options) (*workload.Workload, *workload.Datasets, Stats, error) {
	return importStats(r, name, opts, nil)
}

// JobSizes are one job's bytes as the trace gives them, unscaled.
type JobSizes struct{ Input, Shuffle, Output int64 }

// ReadSizes returns every job's sizes, in trace order, from a trace that
// Import accepts (it is checked as Import checks it): production jobs'
// input, shuffle and output, as other importers take them (the coflow
// importer synthesises map inputs from their input/shuffle ratios).
func ReadSizes(r io.Reader, name string) ([]JobSizes, error) {
	var sizes []JobSizes
	_, _, _, err := importStats(r, name, DefaultOptions(), func(s JobSizes) { sizes = append(sizes, s) })
	if err != nil {
		return nil, err
	}
	return sizes, nil
}

// importStats is ImportStats; onJob, when not nil, is given each job's
// sizes as it is read.
func importStats(r io.Reader, name string, opts Options, onJob func(JobSizes)) (*workload.Workload, *workload.Datasets, Stats, error) {
	var st Stats
	if err := opts.Check(); err != nil {
		return nil, nil, st, fmt.Errorf("%s: %w", name, err)
	}
	if opts.Sample > 0 {
		sampled, err := Sample(r, name, opts.Sample, opts.SampleSeed)
		if err != nil {
			return nil, nil, st, err
		}
		r, name = sampled, fmt.Sprintf("%s (sample of %d, seed %d)", name, opts.Sample, opts.SampleSeed)
	}
	w := &workload.Workload{}
	ds := &workload.Datasets{}
	seen := map[string]int{}   // job id → line
	fields, fieldsLine := 0, 0 // the trace's field count, from its first line
	paths := pathReader{literal: opts.LiteralPaths, outputs: map[string]bool{}}
	datasetOf := map[string]int{} // input path key → index in ds.Datasets
	var reads []jobRead           // per job, in w.Jobs order
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		if opts.MaxJobs > 0 && st.Jobs >= opts.MaxJobs {
			break
		}
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		errf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, lineNo, fmt.Sprintf(format, args...))
		}
		if bad := utf8text.CheckLine(line); bad != nil {
			// the ids and paths become YAML strings, which must be UTF-8
			return nil, nil, st, errf("%v", bad)
		}
		f := strings.Split(line, "\t")
		switch {
		case fields == 0 && (len(f) == plainFields || len(f) == withPathFields):
			fields, fieldsLine = len(f), lineNo
			st.WithPaths = fields == withPathFields
		case fields == 0:
			return nil, nil, st, errf("want 6 tab-separated fields (job id, submit s, gap s, input, shuffle, output bytes), "+
				"or 9 (the same, then input path, output path and an empty field), got %d", len(f))
		case len(f) != fields:
			return nil, nil, st, errf("want %d tab-separated fields, as on line %d, got %d", fields, fieldsLine, len(f))
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		id := f[0]
		if id == "" {
			return nil, nil, st, errf("job id (field 1) is empty")
		}
		if first, dup := seen[id]; dup {
			return nil, nil, st, errf("job id %q is used twice (first on line %d)", id, first)
		}
		seen[id] = lineNo
		var secs [2]float64
		for i, what := range []string{"submit time", "gap"} {
			v, err := strconv.ParseFloat(f[1+i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, st, errf("%s (field %d): %q is not a number of seconds", what, 2+i, f[1+i])
			}
			if v < 0 {
				return nil, nil, st, errf("%s (field %d): %s is negative", what, 2+i, f[1+i])
			}
			secs[i] = v
		}
		if secs[0] > workload.MaxArrivalS {
			return nil, nil, st, errf("submit time (field 2): %s s is above the limit of %g s", f[1], float64(workload.MaxArrivalS))
		}
		var raw, sizes [3]int64
		for i, what := range []string{"map input bytes", "shuffle bytes", "reduce output bytes"} {
			v, err := strconv.ParseInt(f[3+i], 10, 64)
			if err != nil {
				if errors.Is(err, strconv.ErrRange) {
					return nil, nil, st, errf("%s (field %d): %s is out of range", what, 4+i, f[3+i])
				}
				return nil, nil, st, errf("%s (field %d): %q is not a whole number", what, 4+i, f[3+i])
			}
			if v < 0 {
				return nil, nil, st, errf("%s (field %d): %s is negative", what, 4+i, f[3+i])
			}
			raw[i] = v
			if sizes[i], err = scale(v, opts.Scale); err != nil {
				return nil, nil, st, errf("%s (field %d): %v", what, 4+i, err)
			}
			if sizes[i] > workload.MaxBytes {
				return nil, nil, st, errf("%s (field %d): %d bytes (scaled) is above the limit of 2^62", what, 4+i, sizes[i])
			}
		}
		in, shuffle, out := sizes[0], sizes[1], sizes[2]
		if onJob != nil {
			onJob(JobSizes{Input: raw[0], Shuffle: raw[1], Output: raw[2]})
		}

		// The job's input dataset: its own, or the one of its input path.
		dataset := -1
		pathKey := ""
		if fields == withPathFields {
			if f[8] != "" {
				return nil, nil, st, errf("field 9: %q should be empty (SWIM ends each line with a tab after the output path)", f[8])
			}
			if paths.wasOutput(f[6]) {
				st.InputWasOutput++
			}
			var err error
			if pathKey, err = paths.key(f[6]); err != nil {
				return nil, nil, st, errf("input path (field 7): %v", err)
			}
			paths.wrote(f[7])
			if d, ok := datasetOf[pathKey]; ok {
				dataset = d
			}
		}
		if dataset < 0 {
			dataset = len(ds.Datasets)
			ds.Datasets = append(ds.Datasets, workload.Dataset{Name: "in-" + id, Size: in, BlockSize: opts.BlockSize, Replication: opts.Replication})
			if pathKey != "" {
				datasetOf[pathKey] = dataset
			}
		}
		// A shared dataset is as large as the most that any job read
		// from its path. A map stage reads its whole dataset, and the
		// jobs of one path read different amounts (a table that grows
		// through the day, a query over some of its partitions): the
		// dataset must hold the largest read, and a job that read less
		// reads more here, but only its map input changes (see the
		// adjustment after the loop).
		ds.Datasets[dataset].Size = max(ds.Datasets[dataset].Size, in)
		reads = append(reads, jobRead{dataset: dataset, input: in, shuffle: shuffle})

		dname := ds.Datasets[dataset].Name
		m := workload.Stage{Name: "map", Kind: workload.Map, Input: dname, ComputeNsPerByte: opts.ComputeNsPerByte}
		if in == 0 {
			// No blocks to split: one task, whose output is given directly.
			m.Tasks = 1
			st.EmptyInput++
		}
		job := workload.Job{ID: id, Arrival: secs[0]}
		if shuffle == 0 {
			// Map-only: the map stage's output is the job's output.
			m.OutputBytes = out
			job.Stages = []workload.Stage{m}
			st.MapOnly++
		} else {
			if sel := float64(raw[1]) / float64(raw[0]); in > 0 && sel <= workload.MaxSelectivity {
				m.Selectivity = sel
			} else {
				// no input, or a tiny input with a large shuffle: the
				// shuffle is given directly
				m.OutputBytes = shuffle
			}
			tasks := shuffle / opts.ReduceBytes
			if shuffle%opts.ReduceBytes != 0 {
				tasks++
			}
			if opts.MaxReducers > 0 && tasks > int64(opts.MaxReducers) {
				tasks = int64(opts.MaxReducers)
			}
			if tasks > workload.MaxTasksPerStage {
				return nil, nil, st, errf("shuffle bytes (field 5): %d bytes make %d reduce tasks; raise --reduce-bytes", shuffle, tasks)
			}
			red := workload.Stage{Name: "reduce", Kind: workload.Reduce, Tasks: int(max(1, tasks)), After: []string{"map"},
				OutputBytes: out, ComputeNsPerByte: opts.ComputeNsPerByte}
			job.Stages = []workload.Stage{m, red}
		}
		w.Jobs = append(w.Jobs, job)
		st.Jobs++
		var ok1, ok2, ok3 bool
		st.InputBytes, ok1 = add(st.InputBytes, in)
		st.ShuffleBytes, ok2 = add(st.ShuffleBytes, shuffle)
		st.OutputBytes, ok3 = add(st.OutputBytes, out)
		if !ok1 || !ok2 || !ok3 {
			return nil, nil, st, errf("the trace's total bytes exceed 2^63")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, st, fmt.Errorf("%s:%d: %w", name, lineNo+1, err)
	}
	shareJobs(w, ds, reads, &st)
	if err := w.Validate(ds); err != nil {
		return nil, nil, st, fmt.Errorf("%s: %w", gen.TraceLine(name, err, seen, ""), err)
	}
	return w, ds, st, nil
}

// jobRead is what one job reads: its dataset (an index into the
// datasets), and the input and shuffle bytes of the trace, scaled.
type jobRead struct {
	dataset        int
	input, shuffle int64
}

// shareJobs fits the map stage of every job that reads a dataset larger
// than its own input, and fills the dataset totals of st. Without paths,
// every dataset is its job's input and nothing changes.
func shareJobs(w *workload.Workload, ds *workload.Datasets, reads []jobRead, st *Stats) {
	readers := make([]int, len(ds.Datasets))
	for _, r := range reads {
		readers[r.dataset]++
	}
	for i, r := range reads {
		if readers[r.dataset] > 1 {
			st.SharedInputJobs++
		}
		if ds.Datasets[r.dataset].Size == r.input {
			continue
		}
		m := &w.Jobs[i].Stages[0]
		// The dataset has blocks, which make the tasks.
		m.Tasks = 0
		// The map output stays the trace's shuffle: a selectivity would
		// scale it up with the larger input.
		if m.Selectivity > 0 {
			m.Selectivity, m.OutputBytes = 0, r.shuffle
		}
	}
	st.Datasets = len(ds.Datasets)
	for _, d := range ds.Datasets {
		// No overflow: each dataset is as large as one job's input, and
		// no two datasets are that of the same job; InputBytes fits.
		st.DatasetBytes += d.Size
	}
}

// pathReader names the input paths of a trace with paths, and remembers
// its output paths.
type pathReader struct {
	literal bool // take paths as written
	decided bool // literal is settled, by the first input path
	swim    swimNumbering
	outputs map[string]bool // output paths of the jobs so far
}

// key identifies the path that an input path names: the path as written,
// or its number in SWIM's numbering; "" for an empty path.
func (p *pathReader) key(input string) (string, error) {
	if input == "" {
		return "", nil
	}
	if !p.decided {
		p.literal = p.literal || !swimPathName.MatchString(input)
		p.decided = true
	}
	if p.literal {
		return input, nil
	}
	k, err := p.swim.decode(input)
	if err != nil {
		return "", err
	}
	return "#" + strconv.Itoa(k), nil
}

// wasOutput reports whether an earlier job wrote the input path.
func (p *pathReader) wasOutput(input string) bool { return input != "" && p.outputs[input] }

// wrote records a job's output path.
func (p *pathReader) wrote(output string) {
	if output != "" {
		p.outputs[output] = true
	}
}

var swimPathName = regexp.MustCompile(`^inputPath(0|[1-9][0-9]*)$`)

// swimNumbering decodes the anonymised input paths that SWIM's
// WorkloadSynthesis.pl writes. The script numbers the distinct paths of a
// workload from 0 in the order they are first read, but the first job to
// read path k prints "inputPath<k+1>" and every later one "inputPath<k>":
// `$inputHash{$p} = scalar(keys(%inputHash))` stores the count before the
// key is inserted, and the script prints the count after. So with n
// distinct paths so far, inputPath<n+1> is a new path and inputPath<k>,
// k < n, a repeat of path k; nothing else can occur.
//
// The numbers matter: in FB-2010_samples_24_times_1hr_withInputPaths_0,
// job5 ("inputPath2", 88 MB read, shuffle 1.16 × input) repeats job2
// ("inputPath3", 90 MB, 1.23 ×), not job1 ("inputPath2", 21 GB); job48
// ("inputPath21", 1 byte read, 49 shuffled) repeats job28 ("inputPath22",
// 1 byte, 29), not job27 ("inputPath21", 206 GB). Read literally, the names
// would pair each repeat with the wrong path.
type swimNumbering struct{ distinct int }

// decode returns the path number of name.
func (s *swimNumbering) decode(name string) (int, error) {
	m := swimPathName.FindStringSubmatch(name)
	var k int
	var err error
	if m != nil {
		k, err = strconv.Atoi(m[1])
	}
	switch {
	case m != nil && err == nil && k == s.distinct+1:
		s.distinct++
		return k - 1, nil
	case m != nil && err == nil && k < s.distinct:
		return k, nil
	}
	want := fmt.Sprintf("inputPath%d", s.distinct+1)
	if s.distinct > 0 {
		want += fmt.Sprintf(" (a new path) or inputPath0 to inputPath%d (a repeat)", s.distinct-1)
	}
	return 0, fmt.Errorf("%q does not follow the numbering of SWIM's WorkloadSynthesis.pl, as the trace's first input path does: "+
		"after %d distinct paths, want %s; import with literal paths (datagen swim --literal-paths) to take the paths as written",
		name, s.distinct, want)
}

// scale multiplies a size, rounding to a whole byte.
func scale(v int64, s float64) (int64, error) {
	if s == 1 {
		return v, nil
	}
	x := math.Round(float64(v) * s)
	if x >= math.MaxInt64 {
		return 0, fmt.Errorf("%d × %g is out of range", v, s)
	}
	return int64(x), nil
}

func add(a, b int64) (int64, bool) {
	s := a + b
	return s, s >= a
}
