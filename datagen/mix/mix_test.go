package mix

import (
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/describe"
	"github.com/racklab/racklab/datagen/gen"
)

func TestApps(t *testing.T) {
	// PUMA's 13 benchmarks and Trident's 8 HiBench applications.
	for _, name := range []string{"adjacency-list", "classification", "grep", "histogram-movies", "histogram-ratings",
		"inverted-index", "kmeans", "ranked-inverted-index", "self-join", "sequence-count", "terasort", "term-vector", "wordcount"} {
		if a, ok := FindApp(name); !ok || !strings.Contains(a.Suites, "PUMA") {
			t.Errorf("PUMA's %s is missing", name)
		}
	}
	for _, name := range []string{"terasort", "wordcount", "aggregation", "join", "bayes", "kmeans", "pagerank", "nutchindex"} {
		if a, ok := FindApp(name); !ok || !strings.Contains(a.Suites, "HiBench") {
			t.Errorf("HiBench's %s is missing", name)
		}
	}
	// Trident §5.3's classes.
	for name, c := range map[string]Class{"terasort": IO, "aggregation": IO, "kmeans": IO, "wordcount": CPU, "join": CPU,
		"bayes": CPU, "pagerank": CPU, "nutchindex": Shuffle} {
		if a, _ := FindApp(name); a.Class != c {
			t.Errorf("%s is %s, want %s", name, a.Class, c)
		}
	}
	maxIO, minCPU := 0.0, 1e9
	for _, a := range Apps {
		ns := a.MapNs + a.ReduceNs
		switch a.Class {
		case IO:
			maxIO = max(maxIO, ns)
		case CPU:
			minCPU = min(minCPU, ns)
		case Shuffle:
			if a.MapSel < 1 {
				t.Errorf("shuffle-intensive %s keeps %g of its input", a.Name, a.MapSel)
			}
		}
		if a.ML == "" && !a.Generator && a.Class != Shuffle && a.MapSel > 1 {
			t.Errorf("%s shuffles %g × its input", a.Name, a.MapSel)
		}
	}
	if maxIO >= minCPU {
		t.Errorf("an I/O-intensive app costs %g ns/B, a CPU-intensive one %g", maxIO, minCPU)
	}
}

func gen1(t *testing.T, preset string, o Options) (*workload.Workload, *workload.Datasets) {
	t.Helper()
	m, err := Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	o.BlockSize = PresetBlockSize[preset]
	w, ds, err := Generate(m, o)
	if err != nil {
		t.Fatal(err)
	}
	w2, ds2, err := workload.RoundTrip(w, ds, nil)
	if err != nil || !reflect.DeepEqual(w2, w) || !reflect.DeepEqual(ds2, ds) {
		t.Fatalf("%s does not survive its files: %v", preset, err)
	}
	again, _, _ := Generate(m, o)
	if !reflect.DeepEqual(again, w) {
		t.Errorf("%s: same options, different workload", preset)
	}
	return w, ds
}

func TestPushBox(t *testing.T) {
	w, ds := gen1(t, "pushbox-w2", DefaultOptions())
	// spec/pushbox.md §5.1: 1 × terasort 300 GB, 1 × terasort 100 GB,
	// 1 × wordcount 50 GB, 3 × grep 5 GB, 3 × grep 1 GB, 10 × teragen
	// 100 MB, 10 × teragen 10 MB: 29 jobs; 1 GB blocks.
	count := map[string]int{}
	bytes := map[string]int64{}
	for _, j := range w.Jobs {
		app := j.ID[len("mix-001-"):]
		count[app]++
		if j.Arrival != 0 || len(j.Parents) > 0 {
			t.Errorf("%s: batch job at %g after %v", j.ID, j.Arrival, j.Parents)
		}
		if app == "teragen" {
			bytes[app] += j.Stages[0].OutputBytes
		}
		if app == "terasort" && j.Stages[1].Skew != 0.5 {
			t.Errorf("terasort reducers are not skewed: %+v", j.Stages[1])
		}
	}
	for _, d := range ds.Datasets {
		app := d.Name[len("in-mix-001-"):]
		bytes[app] += d.Size
		if d.BlockSize != 1<<30 {
			t.Errorf("%s: block %d", d.Name, d.BlockSize)
		}
	}
	if len(w.Jobs) != 29 || !reflect.DeepEqual(count, map[string]int{"terasort": 2, "wordcount": 1, "grep": 6, "teragen": 20}) {
		t.Errorf("%d jobs: %v", len(w.Jobs), count)
	}
	if want := map[string]int64{"terasort": 400e9, "wordcount": 50e9, "grep": 18e9, "teragen": 1.1e9}; !reflect.DeepEqual(bytes, want) {
		t.Errorf("bytes %v, want %v", bytes, want)
	}
	w, _ = gen1(t, "pushbox-w1", DefaultOptions())
	if len(w.Jobs) != 30 {
		t.Errorf("workload 1: %d jobs, want 30", len(w.Jobs))
	}
}

func TestHiBench(t *testing.T) {
	for preset, size := range map[string]int64{"hibench-small": 200e6, "hibench-large": 1.5e9, "hibench-huge": 10e9} {
		w, ds := gen1(t, preset, DefaultOptions())
		apps := map[string]bool{}
		var total int64
		for _, d := range ds.Datasets {
			total += d.Size
			if d.BlockSize != 128<<20 {
				t.Errorf("%s: block %d", d.Name, d.BlockSize)
			}
		}
		for _, j := range w.Jobs {
			apps[strings.Split(j.ID, "-")[2]] = true
		}
		if len(apps) != 8 || total != 8*size {
			t.Errorf("%s: %d applications, %d bytes", preset, len(apps), total)
		}
		// One at a time: each application's first jobs wait for the
		// previous application's last ones.
		s := describe.Describe(w, ds)
		if s.JobsWithParents != len(w.Jobs)-1 || s.JobDAGDepth != 1+1+1+1+8+11+11+1 {
			t.Errorf("%s: %d of %d jobs with parents, depth %d", preset, s.JobsWithParents, len(w.Jobs), s.JobDAGDepth)
		}
	}
	// Poisson arrivals drop the chaining.
	o := DefaultOptions()
	o.Arrivals, o.Rate = gen.Poisson, 0.01
	w, _ := gen1(t, "hibench-small", o)
	for _, j := range w.Jobs {
		if j.Arrival == 0 || len(j.Parents) > 0 && !strings.HasPrefix(j.Parents[0], j.ID[:len("mix-001")]) {
			t.Fatalf("poisson: %s at %g after %v", j.ID, j.Arrival, j.Parents)
		}
	}
	// Scaling keeps the task counts.
	o = DefaultOptions()
	w1, ds1 := gen1(t, "puma", o)
	o.Scale = 0.01
	w2, ds2 := gen1(t, "puma", o)
	if a, b := describe.Describe(w1, ds1), describe.Describe(w2, ds2); a.Tasks != b.Tasks || a.InputBytes/100 != b.InputBytes {
		t.Errorf("scaled %d tasks, %d bytes; unscaled %d, %d", b.Tasks, b.InputBytes, a.Tasks, a.InputBytes)
	}
}

func TestMalformed(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"1 terasort\n", `m.mix:1: want "<count> <app> <input size> [skew=<x>]", got 2 fields`},
		{"# c\n\n0 grep 1GB\n", `m.mix:3: count "0": want a whole number from 1 to 100000`},
		{"x grep 1GB\n", `m.mix:1: count "x"`},
		{"1 hadoop 1GB\n", `m.mix:1: unknown application "hadoop" (want one of adjacency-list, aggregation,`},
		{"1 grep lots\n", `m.mix:1: input size: bad size "lots"`},
		{"1 grep 0GB\n", `m.mix:1: input size "0GB" must be positive`},
		{"1 grep 1GB skew\n", `m.mix:1: "skew": want skew=<Zipf exponent, 0 or more>`},
		{"1 grep 1GB skew=-1\n", `m.mix:1: "skew=-1"`},
		{"1 kmeans 1GB skew=1\n", "m.mix:1: kmeans has no single reduce stage to skew"},
		{"pattern batch\npattern batch\n", "m.mix:2: the pattern is already given on line 1"},
		{"pattern random\n", `m.mix:1: want "pattern sequential" or "pattern batch"`},
		{"99999 grep 1GB\n2 grep 1GB\n", "m.mix:2: the mix has over 100000 applications"},
		{"pattern batch\n", "m.mix: the mix has no applications"},
		{"# caf\xe9\n1 gr\xe9p 1GB\n", "m.mix:2: column 5: byte 0xe9 is not UTF-8 text"},
	} {
		if _, err := ParseMix(strings.NewReader(tc.src), "m.mix"); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
	if _, err := Preset("hibench"); err == nil || !strings.Contains(err.Error(), `unknown preset "hibench" (want one of hibench-huge,`) {
		t.Errorf("unknown preset: %v", err)
	}
	m, _ := Preset("puma")
	for _, tc := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.ReduceBytes = 0 }, "reduce bytes must be positive"},
		{func(o *Options) { o.MaxReducers = -1 }, "max reducers must not be negative"},
		{func(o *Options) { o.Ratio = 1 }, "ratio must be between 4 and 1000"},
		{func(o *Options) { o.BlockSize = 0 }, "block size must be positive"},
	} {
		o := DefaultOptions()
		tc.mod(&o)
		if _, _, err := Generate(m, o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// ComputeScale multiplies every stage's CPU cost, the iterative
// applications' included, and nothing else; a scale of 0 is refused.
func TestComputeScale(t *testing.T) {
	m, o, plain, scaled := generateBoth(t, "1 terasort 1GB\n1 kmeans 1GB\n", func(o *Options) { o.ComputeScale = 100 })
	for i, j := range plain.Jobs {
		for s, st := range j.Stages {
			got := scaled.Jobs[i].Stages[s]
			if got.ComputeNsPerByte != 100*st.ComputeNsPerByte {
				t.Errorf("%s/%s: %g ns/B, want 100 × %g", j.ID, st.Name, got.ComputeNsPerByte, st.ComputeNsPerByte)
			}
			got.ComputeNsPerByte = st.ComputeNsPerByte
			if !reflect.DeepEqual(got, st) {
				t.Errorf("%s/%s: more than the compute cost changed: %+v vs %+v", j.ID, st.Name, got, st)
			}
		}
	}
	o.ComputeScale = 0
	if _, _, err := Generate(m, o); err == nil || !strings.Contains(err.Error(), "compute scale") {
		t.Errorf("compute scale 0: err %v", err)
	}
}

// OutputReplicas sets every job's final stages' replication, nothing
// else; unset (0), no stage has one; a negative count is refused.
func TestOutputReplicas(t *testing.T) {
	m, o, plain, three := generateBoth(t, "1 terasort 1GB\n1 kmeans 1GB\n1 grep 1GB\n", func(o *Options) { o.OutputReplicas = 3 })
	finals := 0
	for i, j := range plain.Jobs {
		read := map[string]bool{}
		for _, st := range j.Stages {
			for _, a := range st.After {
				read[a] = true
			}
		}
		for s, st := range j.Stages {
			if st.OutputReplicas != 0 {
				t.Errorf("unset: %s/%s has %d output replicas", j.ID, st.Name, st.OutputReplicas)
			}
			got := three.Jobs[i].Stages[s]
			want := 0
			if !read[st.Name] {
				want = 3
				finals++
			}
			if got.OutputReplicas != want {
				t.Errorf("%s/%s: %d output replicas, want %d", j.ID, st.Name, got.OutputReplicas, want)
			}
			got.OutputReplicas = 0
			if !reflect.DeepEqual(got, st) {
				t.Errorf("%s/%s: more than the replication changed", j.ID, st.Name)
			}
		}
	}
	if finals < len(plain.Jobs) || len(plain.Jobs) < 3 {
		t.Fatalf("%d final stages in %d jobs", finals, len(plain.Jobs))
	}
	o.OutputReplicas = -1
	if _, _, err := Generate(m, o); err == nil || !strings.Contains(err.Error(), "output replicas") {
		t.Errorf("output replicas -1: err %v", err)
	}
}

// generateBoth generates a mix with the default options and again with
// set applied to them, and returns the mix, the changed options and both
// workloads, for tests of one option.
func generateBoth(t *testing.T, text string, set func(*Options)) (*Mix, Options, *workload.Workload, *workload.Workload) {
	t.Helper()
	m, err := ParseMix(strings.NewReader(text), "t.mix")
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	plain, _, err := Generate(m, o)
	if err != nil {
		t.Fatal(err)
	}
	set(&o)
	changed, _, err := Generate(m, o)
	if err != nil {
		t.Fatal(err)
	}
	return m, o, plain, changed
}

// A size the scale takes past 2^62 names the mix's line that asked for
// it, or the flags when it is the block or reduce size.
func TestBeyondNamesItsLine(t *testing.T) {
	m, err := ParseMix(strings.NewReader("1 grep 1GB\n# big\n2 terasort 1PB\n"), "m.mix")
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Scale = 1e4
	if _, _, err := Generate(m, o); err == nil || !strings.HasPrefix(err.Error(), "line 3: scale 10000 makes a size of") {
		t.Errorf("error %v, want line 3's size past the limit", err)
	}
	o.Scale = 1e10
	if _, _, err := Generate(m, o); err == nil || !strings.HasPrefix(err.Error(), "block size or reduce bytes: scale 1e+10") {
		t.Errorf("error %v, want the block size past the limit", err)
	}
}

// A mix whose tasks pass the limit is refused at the application that
// passes it, not after every application is made (100,000 runs of
// pagerank took some 8 GB before the workload was refused).
func TestMixBeyondTaskLimit(t *testing.T) {
	m, err := ParseMix(strings.NewReader("pattern batch\n5000 pagerank 100GB\n"), "big.mix")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Generate(m, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "line 2: the first 4243 applications have 10000751 tasks, above the limit of 10000000 a workload") {
		t.Fatalf("error %v, want the applications past the task limit", err)
	}
}
