package ml

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/describe"
	"github.com/racklab/racklab/datagen/gen"
)

func TestBenchmarksMatchDawn(t *testing.T) {
	// Dawn Table 2: depths and input sizes.
	want := map[string]struct {
		depth int
		gb    [3]float64
	}{
		"kmeans": {11, [3]float64{2.5, 6.5, 10.2}}, "bayes": {8, [3]float64{5.8, 7.8, 11.9}},
		"pagerank": {11, [3]float64{3.4, 6.6, 8.8}}, "mf": {21, [3]float64{4.5, 5.5, 7.3}},
		"lda": {18, [3]float64{6.2, 8.4, 10.1}},
	}
	jobs, withParent, withTwo, depthSum := 0, 0, 0, 0
	for i := range Benchmarks {
		b := &Benchmarks[i]
		input := int64(b.InputGB[0] * 1e9)
		parts := b.Parts("x", input)
		var sum int64
		for _, p := range parts {
			sum += p.Bytes
		}
		d := b.DAG(parts, 5, 12)
		if err := d.Check(); err != nil {
			t.Fatal(err)
		}
		if w := want[b.Name]; d.Depth() != w.depth || b.InputGB != w.gb || sum != input {
			t.Errorf("%s: depth %d, inputs %v GB (parts add up to %d of %d)", b.Name, d.Depth(), b.InputGB, sum, input)
		}
		if r := Ratio(d); math.Abs(r-12) > 1e-6 {
			t.Errorf("%s: dependent + intermediate = %g × input, want 12", b.Name, r)
		}
		roots := 0
		for _, n := range d.Nodes {
			parents := 0
			for _, in := range n.Inputs {
				if in.Dataset == "" {
					parents++
				}
			}
			switch {
			case parents == 0:
				roots++
			case parents >= 2:
				withTwo++
				withParent++
			default:
				withParent++
			}
		}
		if roots != b.Roots {
			t.Errorf("%s: %d roots", b.Name, roots)
		}
		jobs += len(d.Nodes)
		depthSum += d.Depth()
	}
	// 38,572 jobs in 1,417 workloads (§2.4); 80% of jobs with a parent,
	// 47% with two or more (§2.2); mean depth 13.8 (Table 2).
	if perWorkload := float64(jobs) / 5; math.Abs(perWorkload-38572.0/1417) > 0.1 {
		t.Errorf("%.2f jobs per workload, want %.2f", perWorkload, 38572.0/1417)
	}
	if f := float64(withParent) / float64(jobs); math.Abs(f-0.80) > 0.01 {
		t.Errorf("%.3f of jobs have a parent, want 0.80", f)
	}
	if f := float64(withTwo) / float64(jobs); math.Abs(f-0.47) > 0.01 {
		t.Errorf("%.3f of jobs have two parents or more, want 0.47", f)
	}
	if m := float64(depthSum) / 5; m != 13.8 {
		t.Errorf("mean depth %g, want 13.8", m)
	}
}

func TestWorkload(t *testing.T) {
	for _, tc := range []struct {
		workloads int
	}{{581}, {310}} {
		o := DefaultOptions()
		o.Workloads = tc.workloads
		w, ds, err := Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		subs := map[string]float64{}
		byLabel := map[string]int{}
		for _, j := range w.Jobs {
			sub := j.ID[:strings.LastIndexByte(j.ID, '-')]
			if a, ok := subs[sub]; ok && a != j.Arrival {
				t.Fatalf("%s arrives apart from its workload", j.ID)
			}
			if _, ok := subs[sub]; !ok {
				byLabel[strings.Split(sub, "-")[2]]++
			}
			subs[sub] = j.Arrival
			if j.Arrival < 0 || j.Arrival >= 4*3600 {
				t.Errorf("%s arrives at %g", j.ID, j.Arrival)
			}
		}
		if len(subs) != tc.workloads || len(byLabel) != 15 {
			t.Errorf("%d workloads over %d labels, want %d over 15", len(subs), len(byLabel), tc.workloads)
		}
		for l, n := range byLabel { // uniform: about workloads/15 each
			if exp := float64(tc.workloads) / 15; math.Abs(float64(n)-exp) > 4*math.Sqrt(exp) {
				t.Errorf("%s drawn %d times of %d", l, n, tc.workloads)
			}
		}
		s := describe.Describe(w, ds)
		if r := float64(s.ShuffleBytes+s.DependentBytes) / float64(s.InputBytes); math.Abs(r-12) > 0.01 {
			t.Errorf("describe: dependent + intermediate = %.3f × input", r)
		}
		if s.JobDAGDepth != 21 || len(ds.Datasets) != 9*5+6*6 {
			t.Errorf("depth %d, %d datasets", s.JobDAGDepth, len(ds.Datasets))
		}
		for _, d := range ds.Datasets {
			if strings.HasPrefix(d.Name, "ml-B1-main") && d.Size != int64(2.5e9)-4*int64(2.5e7) {
				t.Errorf("B1 main input %d", d.Size)
			}
		}
		w2, ds2, err := workload.RoundTrip(w, ds, nil)
		if err != nil || !reflect.DeepEqual(w2, w) || !reflect.DeepEqual(ds2, ds) {
			t.Errorf("the workload does not survive its files: %v", err)
		}
		again, _, _ := Generate(o)
		if !reflect.DeepEqual(again, w) {
			t.Error("same seed, different workload")
		}
	}
}

func TestArrivals(t *testing.T) {
	// The trace pattern is bursty: 10-minute counts vary far more than a
	// Poisson process's (index of dispersion 1).
	o := DefaultOptions()
	disp := func(o Options) float64 {
		w, _, err := Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]float64, 24)
		seen := map[string]bool{}
		for _, j := range w.Jobs {
			sub := j.ID[:strings.LastIndexByte(j.ID, '-')]
			if !seen[sub] && j.Arrival < 4*3600 {
				seen[sub] = true
				counts[int(j.Arrival/600)]++
			}
		}
		var m, v float64
		for _, c := range counts {
			m += c / 24
		}
		for _, c := range counts {
			v += (c - m) * (c - m) / 23
		}
		return v / m
	}
	if d := disp(o); d < 3 {
		t.Errorf("trace arrivals: index of dispersion %.2f, want bursty (> 3)", d)
	}
	o.Arrivals, o.Rate = gen.Poisson, 581.0/(4*3600)
	if d := disp(o); d > 2.5 {
		t.Errorf("poisson arrivals: index of dispersion %.2f, want about 1", d)
	}
	ts := GoogleShaped(o.RNG(), 1000, 1000)
	for _, x := range ts {
		if x < 0 || x >= 1000 {
			t.Fatalf("arrival %g outside [0, 1000)", x)
		}
	}
}

func TestOptions(t *testing.T) {
	o := DefaultOptions()
	o.Labels = []string{"B10", "B3"}
	o.Workloads = 20
	o.Scale = 0.01
	w, ds, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	full := o
	full.Scale = 1
	wf, dsf, _ := Generate(full)
	a, b := describe.Describe(w, ds), describe.Describe(wf, dsf)
	if a.Tasks != b.Tasks || math.Abs(float64(a.InputBytes)/float64(b.InputBytes)-0.01) > 1e-6 {
		t.Errorf("scaled: %d tasks, %d bytes; unscaled %d tasks, %d bytes", a.Tasks, a.InputBytes, b.Tasks, b.InputBytes)
	}
	for _, j := range w.Jobs {
		if !strings.Contains(j.ID, "-B10-") && !strings.Contains(j.ID, "-B3-") {
			t.Fatalf("job %s of another label", j.ID)
		}
	}
	for _, tc := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.Workloads = 0 }, "workloads must be at least 1"},
		{func(o *Options) { o.Workloads = 1 << 40 }, "workloads must be at most 10000000"},
		{func(o *Options) { o.Duration = 0 }, "duration must be positive"},
		{func(o *Options) { o.Labels = []string{"B16"} }, `unknown benchmark label "B16"`},
		{func(o *Options) { o.Labels = []string{"kmeans"} }, `unknown benchmark label "kmeans"`},
		{func(o *Options) { o.Labels = []string{"B1", "B1"} }, "label B1 is given twice"},
		{func(o *Options) { o.Ratio = 2 }, "ratio must be between 4 and 1000"},
		{func(o *Options) { o.ComputeNsPerByte = -1 }, "compute ns per byte must not be negative"},
		{func(o *Options) { o.Arrivals = gen.Poisson }, "poisson arrivals need a positive rate"},
		{func(o *Options) { o.Replication = 0 }, "replication must be at least 1"},
	} {
		o := DefaultOptions()
		tc.mod(&o)
		if _, _, err := Generate(o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// A duration past the limit of arrival times is refused: the trace
// pattern's rate bins for it could not be allocated (1e18 s panicked with
// makeslice: len out of range).
func TestDurationBeyondArrivalLimit(t *testing.T) {
	o := DefaultOptions()
	o.Duration = 1e18
	_, _, err := Generate(o)
	if err == nil || !strings.Contains(err.Error(), "duration must be at most 1e+09 s") {
		t.Fatalf("error %v, want the duration's limit", err)
	}
}

// Submissions past the task limit are refused while the workload is made,
// once their tasks pass it, not after every job is made (300,000 took
// some 8 GB before the error, 10 million ran out of memory).
func TestWorkloadsBeyondTaskLimit(t *testing.T) {
	o := DefaultOptions()
	o.Workloads = 60000 // the default labels pass the limit at about 20,000
	_, _, err := Generate(o)
	if err == nil || !strings.Contains(err.Error(), "submissions have") || !strings.Contains(err.Error(), "above the limit of 10000000 a workload") {
		t.Fatalf("error %v, want the submissions past the task limit", err)
	}
}
