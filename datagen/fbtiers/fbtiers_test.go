package fbtiers

import (
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/describe"
	"github.com/racklab/racklab/datagen/gen"
	"github.com/racklab/racklab/datagen/swim"
)

// testOptions are the defaults with the repository's FB-2010 trace.
func testOptions() Options {
	o := DefaultOptions()
	o.Trace = filepath.Join("..", "..", DefaultTrace)
	return o
}

func mustGenerate(t *testing.T, o Options) (*workload.Workload, *workload.Datasets, Stats) {
	t.Helper()
	w, ds, st, err := GenerateStats(o)
	if err != nil {
		t.Fatal(err)
	}
	return w, ds, st
}

// binOfDataset is the bin a dataset was made in, by its name.
func binOfDataset(t *testing.T, name string) int {
	t.Helper()
	for b, bin := range Bins {
		if strings.HasPrefix(name, "in-"+bin.Name) {
			return b
		}
	}
	t.Fatalf("dataset %q names no bin", name)
	return -1
}

// The paper's workload: Table 2's job shares, 92 GiB of distinct input
// that every byte of is read, files within their bins.
func TestDefaultWorkload(t *testing.T) {
	o := testOptions()
	w, ds, st := mustGenerate(t, o)
	if len(w.Jobs) != 1000 {
		t.Fatalf("%d jobs, want 1000", len(w.Jobs))
	}
	if want := []int{744, 162, 40, 30, 16, 8}; !slices.Equal(st.BinJobs, want) {
		t.Errorf("jobs per bin %v, want %v", st.BinJobs, want)
	}
	size := map[string]int64{}
	var distinct int64
	for _, d := range ds.Datasets {
		b := binOfDataset(t, d.Name)
		lo := Bins[b].Lo
		if b > 0 {
			lo++
		}
		if d.Size < lo || d.Size > Bins[b].Hi {
			t.Errorf("%s: %d bytes, outside bin %s's [%d, %d]", d.Name, d.Size, Bins[b].Name, lo, Bins[b].Hi)
		}
		if d.Placed() || d.BlockSize != 128<<20 || d.Replication != 3 {
			t.Errorf("%s: placed %v, block size %d, replication %d; want unplaced, 128 MiB, 3", d.Name, d.Placed(), d.BlockSize, d.Replication)
		}
		size[d.Name] = d.Size
		distinct += d.Size
	}
	if distinct != 92<<30 || st.DistinctBytes != distinct {
		t.Errorf("distinct input %d B (stats %d), want 92 GiB = %d", distinct, st.DistinctBytes, int64(92<<30))
	}

	// Each job reads a file of its bin, as datagen/describe bins it; every
	// file is read.
	readers := map[string]int{}
	jobsPerBin := make([]int, len(Bins))
	var read, ioBig, io float64
	prev := 0.0
	for _, j := range w.Jobs {
		in := j.Stages[0].Input
		readers[in]++
		jobsPerBin[binOfDataset(t, in)]++
		read += float64(size[in])
		if j.Arrival < prev || j.Arrival < 0 || j.Arrival >= o.Duration {
			t.Errorf("job %s arrives at %g s, want ascending within [0, %g)", j.ID, j.Arrival, o.Duration)
		}
		prev = j.Arrival
		bytes := float64(size[in]) + float64(j.Stages[0].OutputBytes)
		if len(j.Stages) == 2 {
			bytes += float64(j.Stages[1].OutputBytes)
		}
		io += bytes
		if size[in] > 1<<30 {
			ioBig += bytes
		}
	}
	if !slices.Equal(jobsPerBin, st.BinJobs) {
		t.Errorf("jobs per bin by their files %v, stats %v", jobsPerBin, st.BinJobs)
	}
	sum := describe.Describe(w, ds)
	for b := range Bins {
		if got := sum.Trident[b].Jobs; got != st.BinJobs[b] {
			t.Errorf("datagen/describe puts %d jobs in %s, the generator %d", got, sum.Trident[b].Name, st.BinJobs[b])
		}
	}
	if len(readers) != len(ds.Datasets) || st.Files != len(ds.Datasets) {
		t.Errorf("%d of %d files are read (stats: %d files)", len(readers), len(ds.Datasets), st.Files)
	}
	if int64(read) != st.ReadBytes || read < 2*float64(distinct) || read > 3.5*float64(distinct) {
		t.Errorf("%g bytes read (stats %d), want 2 to 3.5 times the %d distinct", read, st.ReadBytes, distinct)
	}
	// spec/trident.md §5.2: jobs above 1 GB are over 68% of the I/O.
	if ioBig/io < 0.5 {
		t.Errorf("jobs above 1 GiB do %.0f%% of the I/O, want over half", 100*ioBig/io)
	}
	if st.TopTenthReads < 0.35 {
		t.Errorf("the top tenth of the files take %.1f%% of the reads, want a skew", 100*st.TopTenthReads)
	}
	t.Logf("jobs per bin %v, files %v; distinct %.2f GiB, read %.2f GiB; top %d files: %.1f%% of reads, %.1f%% of bytes read; %d map-only; shuffle %.1f GiB, output %.1f GiB",
		st.BinJobs, st.BinFiles, float64(st.DistinctBytes)/(1<<30), float64(st.ReadBytes)/(1<<30), st.TopTenthFiles,
		100*st.TopTenthReads, 100*st.TopTenthRead, st.MapOnly, float64(st.ShuffleBytes)/(1<<30), float64(st.OutputBytes)/(1<<30))
}

// The popularity skew is Zipf's: without it (exponent 0), the most read
// tenth of the files take a much smaller share of the reads.
func TestPopularitySkew(t *testing.T) {
	o := testOptions()
	_, _, skewed := mustGenerate(t, o)
	o.Zipf = 0
	_, _, flat := mustGenerate(t, o)
	o.Zipf = 2
	_, _, steep := mustGenerate(t, o)
	if !(flat.TopTenthReads < 0.25 && skewed.TopTenthReads > flat.TopTenthReads+0.1 && steep.TopTenthReads > skewed.TopTenthReads+0.1) {
		t.Errorf("top tenth's share of the reads: %.3f at zipf 0, %.3f at 1, %.3f at 2; want rising with the exponent",
			flat.TopTenthReads, skewed.TopTenthReads, steep.TopTenthReads)
	}
}

// Shuffle and output come from the trace: map-only and shuffling jobs
// both occur, each job within the cap, reducers by gen.ReduceTasks.
func TestShuffleAndOutput(t *testing.T) {
	w, ds, st := mustGenerate(t, testOptions())
	size := map[string]int64{}
	for _, d := range ds.Datasets {
		size[d.Name] = d.Size
	}
	mapOnly := 0
	for _, j := range w.Jobs {
		m := j.Stages[0]
		most := OutputCap * Bins[binOfDataset(t, m.Input)].Hi
		if m.Tasks != 0 || m.ComputeNsPerByte != 5 {
			t.Fatalf("job %s: map stage %+v, want a task a block and 5 ns a byte", j.ID, m)
		}
		switch len(j.Stages) {
		case 1:
			mapOnly++
		case 2:
			r := j.Stages[1]
			if want := gen.ReduceTasks(m.OutputBytes, 1<<30, 999); r.Tasks != want || m.OutputBytes <= 0 {
				t.Errorf("job %s: %d reduce tasks for %d B of shuffle, want %d", j.ID, r.Tasks, m.OutputBytes, want)
			}
			if r.OutputBytes > most {
				t.Errorf("job %s: output %d B, above the cap %d", j.ID, r.OutputBytes, most)
			}
		}
		if m.OutputBytes > most {
			t.Errorf("job %s: map output %d B, above the cap %d", j.ID, m.OutputBytes, most)
		}
	}
	if mapOnly != st.MapOnly || mapOnly < 250 || mapOnly > 550 {
		t.Errorf("%d map-only jobs (stats %d), want about the trace's share, a third to a half", mapOnly, st.MapOnly)
	}
	if st.OutputBytes > 300<<30 || st.ShuffleBytes > 300<<30 {
		t.Errorf("shuffle %d B and output %d B, want each under 300 GiB with the cap", st.ShuffleBytes, st.OutputBytes)
	}
}

// A job takes the ratios of trace jobs near its size: in a trace whose
// small jobs are map-only and large ones shuffle twice their input, the
// generated jobs do the same.
func TestRatiosFollowSize(t *testing.T) {
	var trace []swim.JobSizes
	for i := range 100 {
		trace = append(trace, swim.JobSizes{Input: 2 << 10, Output: 4 << 10})                          // 2 KiB, map-only
		trace = append(trace, swim.JobSizes{Input: int64(100+i) << 20, Shuffle: int64(200+2*i) << 20}) // ~100 MiB, 2×
	}
	// No jobs in B–F: those bins take A's, the nearest.
	o := testOptions()
	o.Jobs, o.TotalInput = 200, 30<<30
	w, ds, _, err := generate(o, trace)
	if err != nil {
		t.Fatal(err)
	}
	size := map[string]int64{}
	for _, d := range ds.Datasets {
		size[d.Name] = d.Size
	}
	for _, j := range w.Jobs {
		in := size[j.Stages[0].Input]
		switch {
		case in < 100<<10 && len(j.Stages) != 1:
			t.Errorf("job %s reads %d B and shuffles, want map-only like the trace's small jobs", j.ID, in)
		case in > 200<<20:
			// above A: the largest of A's trace jobs, shuffling 2×
			if r := float64(j.Stages[0].OutputBytes) / float64(in); len(j.Stages) != 2 || math.Abs(r-2) > 0.01 {
				t.Errorf("job %s reads %d B and shuffles %g×, want 2× like A's large jobs", j.ID, in, r)
			}
		}
	}
}

func TestDeterministicPerSeed(t *testing.T) {
	o := testOptions()
	w1, ds1, _ := mustGenerate(t, o)
	w2, ds2, _ := mustGenerate(t, o)
	if !reflect.DeepEqual(w1, w2) || !reflect.DeepEqual(ds1, ds2) {
		t.Error("one seed made two workloads")
	}
	o.Seed = 2
	w3, ds3, _ := mustGenerate(t, o)
	if reflect.DeepEqual(w1, w3) || reflect.DeepEqual(ds1, ds3) {
		t.Error("seeds 1 and 2 made the same workload")
	}
}

// Scale shrinks the bytes and keeps the tasks.
func TestScale(t *testing.T) {
	o := testOptions()
	w1, ds1, _ := mustGenerate(t, o)
	o.Scale = 0.001
	w2, ds2, st := mustGenerate(t, o)
	if want := 0.001 * float64(92<<30); math.Abs(float64(st.DistinctBytes)-want) > float64(st.Files) {
		t.Errorf("distinct input %d B at scale 0.001, want %g (to a byte a file)", st.DistinctBytes, want)
	}
	s1, s2 := describe.Describe(w1, ds1), describe.Describe(w2, ds2)
	if s1.Tasks != s2.Tasks || ds2.Datasets[0].BlockSize != 134218 {
		t.Errorf("tasks %d at scale 1 and %d at 0.001, block size %d; want the tasks kept and the blocks scaled", s1.Tasks, s2.Tasks, ds2.Datasets[0].BlockSize)
	}
}

func TestBadOptions(t *testing.T) {
	cases := map[string]struct {
		edit func(*Options)
		want string
	}{
		"no jobs":              {func(o *Options) { o.Jobs = 0 }, "jobs must be in [1, 1000000] (got 0)"},
		"zero duration":        {func(o *Options) { o.Duration = 0 }, "duration must be positive"},
		"NaN duration":         {func(o *Options) { o.Duration = math.NaN() }, "duration must be positive"},
		"no input":             {func(o *Options) { o.TotalInput = 0 }, "total input must be positive"},
		"negative zipf":        {func(o *Options) { o.Zipf = -1 }, "zipf exponent must be 0 or more (got -1)"},
		"infinite zipf":        {func(o *Options) { o.Zipf = math.Inf(1) }, "zipf exponent must be 0 or more"},
		"no trace":             {func(o *Options) { o.Trace = "" }, "no trace"},
		"missing trace":        {func(o *Options) { o.Trace = "nope.tsv" }, "trace: open nope.tsv"},
		"zero block":           {func(o *Options) { o.BlockSize = 0 }, "block size must be positive"},
		"no replicas":          {func(o *Options) { o.Replication = 0 }, "replication must be at least 1"},
		"zero scale":           {func(o *Options) { o.Scale = 0 }, "scale"},
		"zero reduce bytes":    {func(o *Options) { o.ReduceBytes = 0 }, "reduce bytes must be positive"},
		"input too small":      {func(o *Options) { o.TotalInput = 1 << 30 }, "total input 1GiB is below"},
		"input too large":      {func(o *Options) { o.TotalInput = 100 << 40 }, "is above the"},
		"rate without poisson": {func(o *Options) { o.Rate = 1 }, "a rate applies to poisson arrivals only"},
	}
	for name, tc := range cases {
		o := testOptions()
		tc.edit(&o)
		_, _, err := Generate(o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
	if _, _, _, err := generate(testOptions(), []swim.JobSizes{{Input: 0, Shuffle: 5}, {Input: 20 << 30}}); err == nil ||
		!strings.Contains(err.Error(), "no job reads between 1 byte and 10GiB") {
		t.Errorf("a trace of no binned job: error %v", err)
	}
}

// The bins' edges are datagen/describe's: a file at a bin's upper edge
// has its bin's most map tasks.
func TestBinsMatchDescribe(t *testing.T) {
	for b, bin := range Bins {
		if tasks := bin.Hi / (128 << 20); tasks != describe.TridentBins[b].MaxTasks {
			t.Errorf("bin %s ends at %d blocks, describe's at %d", bin.Name, tasks, describe.TridentBins[b].MaxTasks)
		}
	}
	var share float64
	for _, bin := range Bins {
		share += bin.Share
	}
	if math.Abs(share-1) > 1e-9 {
		t.Errorf("the bins' shares add up to %g", share)
	}
	for n, want := range map[int][]int{1000: {744, 162, 40, 30, 16, 8}, 10: {8, 2, 0, 0, 0, 0}, 1: {1, 0, 0, 0, 0, 0}} {
		if got := binCounts(n); !slices.Equal(got, want) {
			t.Errorf("%d jobs: %v a bin, want %v", n, got, want)
		}
	}
}

// lruByteHits replays the jobs' reads, in arrival order, through one LRU
// cache of whole files holding capacity bytes (a memory tier without
// nodes or replicas), and returns the share of the bytes read that hit.
func lruByteHits(w *workload.Workload, ds *workload.Datasets, capacity int64) float64 {
	size := map[string]int64{}
	for _, d := range ds.Datasets {
		size[d.Name] = d.Size
	}
	var recent []string // least recently read first
	var used, hit, all int64
	for _, j := range w.Jobs {
		f := j.Stages[0].Input
		all += size[f]
		if i := slices.Index(recent, f); i >= 0 {
			hit += size[f]
			recent = append(slices.Delete(recent, i, i+1), f)
			continue
		}
		for used+size[f] > capacity && len(recent) > 0 {
			used -= size[recent[0]]
			recent = recent[1:]
		}
		recent = append(recent, f)
		used += size[f]
	}
	return float64(hit) / float64(all)
}

// The reuse is what an LRU memory tier smaller than the input gains from:
// 40 GiB of whole-file LRU hits a good share of the bytes read, short of
// what unbounded memory hits (every read but a file's first).
func TestLRUMatters(t *testing.T) {
	w, ds, st := mustGenerate(t, testOptions())
	h40, all := lruByteHits(w, ds, 40<<30), lruByteHits(w, ds, 1<<62)
	if want := 1 - float64(st.DistinctBytes)/float64(st.ReadBytes); math.Abs(all-want) > 1e-9 {
		t.Errorf("unbounded LRU hits %.3f of the bytes read, want all but the first reads, %.3f", all, want)
	}
	if !(h40 > 0.3 && h40 < all-0.05) {
		t.Errorf("a 40 GiB LRU hits %.3f of the bytes read (unbounded %.3f); want over 0.3 and clearly short of unbounded", h40, all)
	}
	t.Logf("byte hit ratio: 40 GiB LRU %.3f, unbounded %.3f", h40, all)
}
