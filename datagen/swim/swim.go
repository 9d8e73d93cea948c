package swim

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/racklab/racklab/datagen/gen"
	"github.com/racklab/racklab/internal/units"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/racklab/racklab/coordinator/workload"
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
}

// DefaultOptions are those of `datagen swim` without flags: sizes as in
// the trace, 128 MiB blocks, 3 replicas, 1 GiB per reduce task, 5 ns/byte.
func DefaultOptions() Options {
	return Options{Scale: 1, BlockSize: 128 << 20, Replication: 3, ReduceBytes: 1 << 30, MaxReducers: 999, ComputeNsPerByte: 5}
}

func (o *Options) check() error {
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
}

// Import reads a SWIM trace; name is the file name for error messages.
func Import(r io.Reader, name string, opts Options) (*workload.Workload, *workload.Datasets, error) {
	w, ds, _, err := ImportStats(r, name, opts)
	return w, ds, err
}

// ImportStats is Import, also returning totals.
func ImportStats(r io.Reader, name string, opts Options) (*workload.Workload, *workload.Datasets, Stats, error) {
	var st Stats
	if err := opts.check(); err != nil {
		return nil, nil, st, fmt.Errorf("%s: %w", name, err)
	}
	w := &workload.Workload{}
	ds := &workload.Datasets{}
	seen := map[string]int{} // job id → line
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
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			return nil, nil, st, errf("want 6 tab-separated fields (job id, submit s, gap s, input, shuffle, output bytes), got %d", len(f))
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
		}
		in, shuffle, out := sizes[0], sizes[1], sizes[2]

		dname := "in-" + id
		ds.Datasets = append(ds.Datasets, workload.Dataset{Name: dname, Size: in, BlockSize: opts.BlockSize, Replication: opts.Replication})
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
			if in > 0 {
				m.Selectivity = float64(raw[1]) / float64(raw[0])
			} else {
				m.OutputBytes = shuffle
			}
			tasks := shuffle / opts.ReduceBytes
			if shuffle%opts.ReduceBytes != 0 {
				tasks++
			}
			if opts.MaxReducers > 0 && tasks > int64(opts.MaxReducers) {
				tasks = int64(opts.MaxReducers)
			}
			if tasks > math.MaxInt32 {
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
	if err := w.Validate(ds); err != nil {
		return nil, nil, st, fmt.Errorf("%s: %w", name, err)
	}
	return w, ds, st, nil
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
