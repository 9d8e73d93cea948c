package fbtiers

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/gen"
	"github.com/racklab/racklab/datagen/swim"
	"github.com/racklab/racklab/internal/units"
)

const (
	kib = int64(1) << 10
	mib = int64(1) << 20
	gib = int64(1) << 30
)

// Bin is one input-size class of Trident's Table 2: a job of the bin
// reads more than Lo bytes and at most Hi (bin A: at least Lo), and
// Share of the jobs fall in it.
type Bin struct {
	Name   string
	Lo, Hi int64
	Share  float64
}

// Bins are Table 2's six classes (spec/trident.md §5.2). The edges are
// binary, as the table's map-task column (1, 2–4, 5–8, 9–16, 17–40, 41–80
// tasks at 128 MB blocks) and datagen/describe's TridentBins read them.
// Bin A's lower edge is MinInput, not 0: see the package documentation.
var Bins = []Bin{
	{"A", MinInput, 128 * mib, 0.744},
	{"B", 128 * mib, 512 * mib, 0.162},
	{"C", 512 * mib, 1 * gib, 0.040},
	{"D", 1 * gib, 2 * gib, 0.030},
	{"E", 2 * gib, 5 * gib, 0.016},
	{"F", 5 * gib, 10 * gib, 0.008},
}

// MinInput is the smallest input file, bin A's lower edge.
const MinInput = 1 * kib

// OutputCap caps a job's shuffle and its output (before scaling), each, at
// this many times its bin's upper edge. See the package documentation.
const OutputCap = 5

// Neighbours is how many trace jobs of a bin, those nearest a job's input
// size, the job draws its shuffle and output ratios from.
const Neighbours = 25

// DefaultTrace is the FB-2010 SWIM trace, from the repository's root (the
// working directory of `datagen`); CampaignTrace is the same from a
// campaign file in the repository's campaigns directory.
const (
	DefaultTrace  = "traces/swim/FB-2010_samples_24_times_1hr_0.tsv"
	CampaignTrace = "../" + DefaultTrace
)

// Options shape the workload. DefaultOptions gives the paper's.
type Options struct {
	gen.Options
	// Jobs is the number of jobs, arriving over Duration seconds with
	// the trace arrivals (see the package documentation).
	Jobs     int
	Duration float64
	// TotalInput (before scaling) is the distinct input data: the sum of
	// the input files' sizes.
	TotalInput int64
	// Zipf is the exponent of the files' popularity within a bin; 0 makes
	// every file of a bin as popular.
	Zipf float64
	// Trace is the SWIM trace whose jobs give the shuffle and output
	// ratios.
	Trace string
	// ReduceBytes (before scaling) is the shuffle per reduce task, at
	// most MaxReducers tasks a job (0: no cap), as in datagen/swim.
	ReduceBytes int64
	MaxReducers int
	// ComputeNsPerByte is the CPU cost of every stage (the trace has no
	// CPU times).
	ComputeNsPerByte float64
}

// DefaultOptions: 1000 jobs over 6 hours reading 92 GiB of distinct
// input, Zipf exponent 1, the FB-2010 trace, and datagen/swim's 1 GiB a
// reduce task, at most 999 of them, 5 ns of CPU a byte.
func DefaultOptions() Options {
	return Options{Options: gen.DefaultOptions(), Jobs: 1000, Duration: 6 * 3600, TotalInput: 92 * gib, Zipf: 1,
		Trace: DefaultTrace, ReduceBytes: 1 * gib, MaxReducers: 999, ComputeNsPerByte: 5}
}

// maxJobs bounds Jobs: every job has at least one task.
const maxJobs = 1_000_000

func (o *Options) check() error {
	if err := o.Options.Check(); err != nil {
		return err
	}
	switch {
	case o.Jobs < 1 || o.Jobs > maxJobs:
		return fmt.Errorf("jobs must be in [1, %d] (got %d)", maxJobs, o.Jobs)
	case !(o.Duration > 0) || o.Duration > workload.MaxArrivalS:
		return fmt.Errorf("duration must be positive and at most %g s (got %g s)", float64(workload.MaxArrivalS), o.Duration)
	case o.TotalInput <= 0 || o.TotalInput > workload.MaxBytes:
		return fmt.Errorf("total input must be positive and at most 2^62 bytes (got %d)", o.TotalInput)
	case !(o.Zipf >= 0) || math.IsInf(o.Zipf, 0):
		return fmt.Errorf("zipf exponent must be 0 or more (got %g)", o.Zipf)
	case o.Trace == "":
		return fmt.Errorf("no trace: the shuffle and output ratios come from a SWIM trace (%s)", DefaultTrace)
	case o.ReduceBytes > workload.MaxBytes:
		return fmt.Errorf("reduce bytes %d is above the limit of 2^62 bytes", o.ReduceBytes)
	case o.ComputeNsPerByte > workload.MaxComputeNsPerByte:
		return fmt.Errorf("compute ns per byte %g is above the limit of %g", o.ComputeNsPerByte, float64(workload.MaxComputeNsPerByte))
	}
	return gen.CheckSizing(o.ReduceBytes, o.MaxReducers, o.ComputeNsPerByte)
}

// Stats describe a generated workload, bytes after scaling.
type Stats struct {
	// Per bin (Bins' order): jobs, input files, the files' total size
	// and the bytes the bin's jobs read.
	BinJobs, BinFiles         []int
	BinDistinct, BinRead      []int64
	Jobs, Files               int
	DistinctBytes, ReadBytes  int64
	ShuffleBytes, OutputBytes int64
	MapOnly                   int // jobs without shuffle
	// TopTenthFiles is a tenth of the files (rounded up): those read by
	// the most jobs. TopTenthReads is the share of the jobs that read
	// one of them, TopTenthRead the share of the bytes read.
	TopTenthFiles               int
	TopTenthReads, TopTenthRead float64
	// TraceJobs is how many of the trace's jobs are in a bin, with
	// input, and could be drawn.
	TraceJobs int
}

// Generate builds the workload and its unplaced input datasets.
func Generate(o Options) (*workload.Workload, *workload.Datasets, error) {
	w, ds, _, err := GenerateStats(o)
	return w, ds, err
}

// GenerateStats is Generate, also returning what the workload is made of.
func GenerateStats(o Options) (*workload.Workload, *workload.Datasets, Stats, error) {
	if err := o.check(); err != nil {
		return nil, nil, Stats{}, err
	}
	f, err := os.Open(o.Trace)
	if err != nil {
		return nil, nil, Stats{}, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	jobs, err := swim.ReadSizes(f, o.Trace)
	if err != nil {
		return nil, nil, Stats{}, err
	}
	return generate(o, jobs)
}

// file is one input file: its bin, its size (unscaled) and how many
// jobs read it.
type file struct {
	bin   int
	size  float64
	reads int
}

// generate is GenerateStats with the trace's jobs read.
func generate(o Options, trace []swim.JobSizes) (*workload.Workload, *workload.Datasets, Stats, error) {
	pools, traceJobs, err := tracePools(trace, o.Trace)
	if err != nil {
		return nil, nil, Stats{}, err
	}
	rng := o.RNG()
	counts := binCounts(o.Jobs)
	// The jobs' bins, in arrival order.
	order := make([]int, 0, o.Jobs)
	for b, n := range counts {
		for range n {
			order = append(order, b)
		}
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })

	files, err := o.pool(rng, counts)
	if err != nil {
		return nil, nil, Stats{}, err
	}
	// Each bin's reads: every file once, then Zipf draws, in a random
	// order, taken by the bin's jobs as they arrive.
	first := make([]int, len(Bins)) // index in files of each bin's first file
	for i := len(files) - 1; i >= 0; i-- {
		first[files[i].bin] = i
	}
	reads := make([][]int, len(Bins))
	for b, n := range counts {
		k := 0
		for _, f := range files {
			if f.bin == b {
				k++
			}
		}
		if n == 0 {
			continue
		}
		r := make([]int, 0, n)
		for i := range k {
			r = append(r, first[b]+i)
		}
		cdf := zipfCDF(k, o.Zipf)
		for range n - k {
			r = append(r, first[b]+sort.SearchFloat64s(cdf, rng.Float64()*cdf[k-1]))
		}
		rng.Shuffle(len(r), func(i, j int) { r[i], r[j] = r[j], r[i] })
		reads[b] = r
	}
	times := o.Times(rng, o.Jobs, func() []float64 { return gen.Uniform(rng, o.Jobs, o.Duration) })

	st := Stats{BinJobs: counts, BinFiles: make([]int, len(Bins)), BinDistinct: make([]int64, len(Bins)),
		BinRead: make([]int64, len(Bins)), Jobs: o.Jobs, Files: len(files), TraceJobs: traceJobs}
	w := &workload.Workload{}
	ds := &workload.Datasets{}
	names := make([]string, len(files))
	sizes := make([]int64, len(files))
	nth := make([]int, len(Bins))
	for i, f := range files {
		nth[f.bin]++
		names[i] = fmt.Sprintf("in-%s%0*d", Bins[f.bin].Name, digits(len(files)), nth[f.bin])
		sizes[i] = o.Bytes(f.size)
		ds.Datasets = append(ds.Datasets, o.Dataset(names[i], sizes[i]))
		st.BinFiles[f.bin]++
		st.BinDistinct[f.bin] += sizes[i]
		st.DistinctBytes += sizes[i]
	}
	nextRead := make([]int, len(Bins))
	for i, b := range order {
		fi := reads[b][nextRead[b]]
		nextRead[b]++
		files[fi].reads++
		t := pools[b].pick(rng, files[fi].size)
		job, shuffle, output := o.job(fmt.Sprintf("fb-%0*d", digits(o.Jobs), i+1), names[fi], b, files[fi].size, t)
		job.Arrival = times[i]
		w.Jobs = append(w.Jobs, job)
		st.BinRead[b] += sizes[fi]
		st.ReadBytes += sizes[fi]
		st.ShuffleBytes += shuffle
		st.OutputBytes += output
		if shuffle == 0 {
			st.MapOnly++
		}
	}
	st.topTenth(files, sizes)
	if err := o.Beyond(); err != nil {
		return nil, nil, Stats{}, err
	}
	if err := gen.Check(w, ds); err != nil {
		return nil, nil, Stats{}, err
	}
	return w, ds, st, nil
}

// topTenth fills the shares of the tenth of the files read the most.
func (st *Stats) topTenth(files []file, sizes []int64) {
	idx := make([]int, len(files))
	for i := range idx {
		idx[i] = i
	}
	// most reads first; on a tie the larger file, then the first
	slices.SortStableFunc(idx, func(a, b int) int {
		if files[a].reads != files[b].reads {
			return files[b].reads - files[a].reads
		}
		return cmp.Compare(sizes[b], sizes[a])
	})
	st.TopTenthFiles = (len(files) + 9) / 10
	var reads, bytes float64
	for _, i := range idx[:st.TopTenthFiles] {
		reads += float64(files[i].reads)
		bytes += float64(files[i].reads) * float64(sizes[i])
	}
	st.TopTenthReads = reads / float64(st.Jobs)
	if st.ReadBytes > 0 {
		st.TopTenthRead = bytes / float64(st.ReadBytes)
	}
}

// job is one job reading the named dataset of size bytes (unscaled),
// with the shuffle and output of trace job t scaled to its input: a map
// stage, one task a block, and a reduce stage when t shuffles. It returns
// the job's scaled shuffle and output bytes.
func (o *Options) job(id, input string, bin int, size float64, t swim.JobSizes) (workload.Job, int64, int64) {
	f := size / float64(t.Input)
	most := float64(OutputCap * Bins[bin].Hi)
	shuffle := o.Bytes(min(float64(t.Shuffle)*f, most))
	output := o.Bytes(min(float64(t.Output)*f, most))
	m := workload.Stage{Name: "map", Kind: workload.Map, Input: input, ComputeNsPerByte: o.ComputeNsPerByte}
	if t.Shuffle == 0 {
		// map-only: the map output is the job's
		m.OutputBytes = output
		return workload.Job{ID: id, Stages: []workload.Stage{m}}, 0, output
	}
	m.OutputBytes = shuffle
	r := workload.Stage{Name: "reduce", Kind: workload.Reduce, After: []string{"map"}, OutputBytes: output,
		Tasks: gen.ReduceTasks(shuffle, o.Bytes(float64(o.ReduceBytes)), o.MaxReducers), ComputeNsPerByte: o.ComputeNsPerByte}
	return workload.Job{ID: id, Stages: []workload.Stage{m, r}}, shuffle, output
}

// binCounts apportions n jobs to the bins by their shares, by largest
// remainder (the lower bin on a tie).
func binCounts(n int) []int {
	counts := make([]int, len(Bins))
	rem := make([]float64, len(Bins))
	left := n
	for b, bin := range Bins {
		q := bin.Share * float64(n)
		counts[b] = int(q)
		rem[b] = q - float64(counts[b])
		left -= counts[b]
	}
	for ; left > 0; left-- {
		best := 0
		for b := range rem {
			if rem[b] > rem[best] {
				best = b
			}
		}
		counts[best]++
		rem[best] = -1
	}
	return counts
}

// logUniformMean is the mean of a log-uniform draw on [lo, hi].
func logUniformMean(lo, hi int64) float64 {
	return float64(hi-lo) / math.Log(float64(hi)/float64(lo))
}

// pool draws the input files: per bin, as many as make each bin's files
// hold the same share of the bytes its jobs read, log-uniform sizes
// within the bin, all together TotalInput bytes.
func (o *Options) pool(rng *rand.Rand, counts []int) ([]file, error) {
	target := float64(o.TotalInput)
	// The bytes the jobs are expected to read, each bin's jobs reading
	// files of its mean size.
	var expected float64
	for b, n := range counts {
		expected += float64(n) * logUniformMean(Bins[b].Lo, Bins[b].Hi)
	}
	var files []file
	var lo, hi float64 // the least and the most the files can hold
	for b, n := range counts {
		if n == 0 {
			continue
		}
		k := min(n, max(1, int(math.Round(float64(n)*target/expected))))
		// Stratified draws: one from each k-th of the log range, so that
		// a bin of few files (F: 3) is not all large or all small.
		strata := rng.Perm(k)
		bin := Bins[b]
		for _, s := range strata {
			u := (float64(s) + rng.Float64()) / float64(k)
			size := float64(bin.Lo) * math.Exp(u*math.Log(float64(bin.Hi)/float64(bin.Lo)))
			files = append(files, file{bin: b, size: size})
		}
		lo += float64(k) * minSize(b)
		hi += float64(k) * float64(bin.Hi)
	}
	if target < lo {
		return nil, fmt.Errorf("total input %s is below the %s that the smallest files of the jobs' bins hold (one file a bin with jobs)",
			units.FormatBytes(o.TotalInput), units.Human(lo))
	}
	if target > hi {
		return nil, fmt.Errorf("total input %s is above the %s that %d jobs can read (one file each, at its bin's largest)",
			units.FormatBytes(o.TotalInput), units.Human(hi), o.Jobs)
	}
	fitTotal(files, target)
	return files, nil
}

// minSize is the smallest file of bin b: its lower edge is exclusive but
// for bin A's.
func minSize(b int) float64 {
	if b == 0 {
		return float64(Bins[0].Lo)
	}
	return float64(Bins[b].Lo + 1)
}

// fitTotal scales the files' sizes by a common factor so that they add
// up to target, keeping each within its bin: files that reach an edge
// stay there, and the others scale on. The sizes end whole bytes.
// target lies between the files' least and most.
func fitTotal(files []file, target float64) {
	for range 100 {
		var fixed, free float64
		sum := 0.0
		for _, f := range files {
			sum += f.size
		}
		if math.Abs(sum-target) < 0.5 {
			break
		}
		up := target > sum
		for _, f := range files {
			if up && f.size >= float64(Bins[f.bin].Hi) || !up && f.size <= minSize(f.bin) {
				fixed += f.size
			} else {
				free += f.size
			}
		}
		if free == 0 {
			break
		}
		k := (target - fixed) / free
		for i := range files {
			f := &files[i]
			f.size = min(float64(Bins[f.bin].Hi), max(minSize(f.bin), f.size*k))
		}
	}
	// Whole bytes, the rounding's remainder on files with room.
	var sum float64
	for i := range files {
		files[i].size = math.Round(files[i].size)
		sum += files[i].size
	}
	diff := math.Round(target - sum)
	for i := range files {
		if diff == 0 {
			break
		}
		f := &files[i]
		d := min(float64(Bins[f.bin].Hi)-f.size, max(minSize(f.bin)-f.size, diff))
		f.size += d
		diff -= d
	}
}

// zipfCDF is the cumulative weight of ranks 1..k, rank i weighing 1/i^s.
func zipfCDF(k int, s float64) []float64 {
	cdf := make([]float64, k)
	sum := 0.0
	for i := range cdf {
		sum += math.Pow(float64(i+1), -s)
		cdf[i] = sum
	}
	return cdf
}

// tracePool is a bin's trace jobs with input, ascending by input.
type tracePool []swim.JobSizes

// pick draws one of the Neighbours trace jobs nearest in input to size,
// by ratio (the lower of two as near).
func (p tracePool) pick(rng *rand.Rand, size float64) swim.JobSizes {
	// [lo, hi) grows from where size would go, one nearer job at a time.
	hi := sort.Search(len(p), func(i int) bool { return float64(p[i].Input) >= size })
	lo := hi
	for hi-lo < min(Neighbours, len(p)) {
		if hi == len(p) || lo > 0 && size/float64(p[lo-1].Input) <= float64(p[hi].Input)/size {
			lo--
		} else {
			hi++
		}
	}
	return p[lo+rng.IntN(hi-lo)]
}

// tracePools sorts the trace's jobs into the bins by input (jobs without
// input, or above the last bin, are left out); a bin without jobs takes
// the nearest bin's (the lower of two as near). It also returns how many
// jobs are in a bin.
func tracePools(trace []swim.JobSizes, name string) ([]tracePool, int, error) {
	own := make([]tracePool, len(Bins))
	n := 0
	for _, j := range trace {
		if b := binOf(j.Input); b >= 0 {
			own[b] = append(own[b], j)
			n++
		}
	}
	if n == 0 {
		return nil, 0, fmt.Errorf("%s: no job reads between 1 byte and %s, the bins' range", name, units.FormatBytes(Bins[len(Bins)-1].Hi))
	}
	for _, p := range own {
		slices.SortStableFunc(p, func(a, b swim.JobSizes) int { return cmp.Compare(a.Input, b.Input) })
	}
	pools := make([]tracePool, len(Bins))
	for b := range Bins {
		for d := 0; pools[b] == nil; d++ {
			if b-d >= 0 && len(own[b-d]) > 0 {
				pools[b] = own[b-d]
			} else if b+d < len(Bins) && len(own[b+d]) > 0 {
				pools[b] = own[b+d]
			}
		}
	}
	return pools, n, nil
}

// binOf is the bin of a trace job's input: upper edges inclusive, as in
// datagen/describe; -1 for no input or above the last bin.
func binOf(input int64) int {
	if input <= 0 {
		return -1
	}
	for b, bin := range Bins {
		if input <= bin.Hi {
			return b
		}
	}
	return -1
}

// digits is the width of the numbers 1..n.
func digits(n int) int {
	return len(fmt.Sprint(n))
}
