package recurring

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/gen"
)

func generate(t *testing.T, o Options) (*workload.Workload, *workload.Datasets, *Predicted) {
	t.Helper()
	w, ds, p, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	w2, ds2, err := workload.RoundTrip(w, ds, nil)
	if err != nil || !reflect.DeepEqual(w2, w) || !reflect.DeepEqual(ds2, ds) {
		t.Fatalf("the workload does not survive its files: %v", err)
	}
	if err := p.CheckAgainst(w); err != nil {
		t.Fatal(err)
	}
	return w, ds, p
}

// nearestRank is the q-th percentile, nearest-rank.
func nearestRank(v []float64, q int) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[(q*len(s)+99)/100-1]
}

func TestW1(t *testing.T) {
	o := DefaultOptions()
	_, _, p := generate(t, o)
	if len(p.Jobs) != 100 {
		t.Fatalf("%d jobs, want 100", len(p.Jobs))
	}
	classes := map[string]int{}
	underRack := 0
	for _, j := range p.Jobs {
		tasks := j.MapTasks + j.ReduceTasks
		switch {
		case tasks >= 4 && tasks <= 50:
			classes["small"]++
		case tasks > 50 && tasks <= 500:
			classes["medium"]++
		case tasks >= 1000 && tasks <= 2000:
			classes["large"]++
		default:
			t.Errorf("%s has %d tasks, in no size class", j.ID, tasks)
		}
		if tasks < 240 {
			underRack++
		}
		// selectivities between 1:4 and 4:1
		for _, s := range []float64{float64(j.ShuffleBytes) / float64(j.InputBytes), float64(j.OutputBytes) / float64(j.ShuffleBytes)} {
			if s < 0.25-1e-6 || s > 4+1e-6 {
				t.Errorf("%s: selectivity %g", j.ID, s)
			}
		}
		if j.InputBytes != int64(j.MapTasks)*128<<20 || j.Arrival < 0 || j.Arrival >= 3600 {
			t.Errorf("%+v", j)
		}
	}
	if want := map[string]int{"small": 60, "medium": 30, "large": 10}; !reflect.DeepEqual(classes, want) {
		t.Errorf("classes %v, want %v", classes, want)
	}
	if underRack < 65 || underRack > 80 { // about 3/4 fit one rack's 240 slots
		t.Errorf("%d of 100 jobs under 240 tasks", underRack)
	}
}

func TestW2(t *testing.T) {
	o := DefaultOptions()
	o.Workload = "w2"
	w, ds, p := generate(t, o)
	if len(p.Jobs) != 400 || len(w.Jobs) != 400 || len(ds.Datasets) != 400 {
		t.Fatalf("%d jobs, want 400", len(p.Jobs))
	}
	tiny, large := 0, 0
	for _, j := range p.Jobs {
		if j.InputBytes < 200e6 && j.ShuffleBytes < 75e6 {
			tiny++
		}
		if j.InputBytes == 5.5e12 {
			large++
			if j.ShuffleBytes != 1.8*5.5e12 || j.ReduceTasks != int(math.Ceil(9.9e12/(1<<30))) {
				t.Errorf("large job %+v", j)
			}
		}
	}
	if tiny != 360 || large != 2 {
		t.Errorf("%d tiny and %d large jobs, want 360 and 2", tiny, large)
	}
}

func TestW3(t *testing.T) {
	o := DefaultOptions()
	o.Workload = "w3"
	_, _, p := generate(t, o)
	if len(p.Jobs) != 200 {
		t.Fatalf("%d jobs, want 200", len(p.Jobs))
	}
	var tasks, in, inter []float64
	for _, j := range p.Jobs {
		tasks = append(tasks, float64(j.MapTasks+j.ReduceTasks))
		in = append(in, float64(j.InputBytes))
		inter = append(inter, float64(j.ShuffleBytes))
	}
	// Corral Table 1.
	for _, tc := range []struct {
		name     string
		v        []float64
		p50, p95 float64
	}{{"tasks", tasks, 180, 2060}, {"input", in, 7.1e9, 162.3e9}, {"intermediate", inter, 6e9, 71.5e9}} {
		for _, q := range []struct {
			q    int
			want float64
		}{{50, tc.p50}, {95, tc.p95}} {
			if got := nearestRank(tc.v, q.q); math.Abs(got/q.want-1) > 0.1 {
				t.Errorf("%s p%d = %g, want %g (Table 1)", tc.name, q.q, got, q.want)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	o := DefaultOptions()
	o.Jobs = 2000
	o.SizeError = 0.5
	o.ArrivalError = 0.3
	w, ds, p := generate(t, o)
	size := map[string]int64{}
	for _, d := range ds.Datasets {
		size[d.Name] = d.Size
	}
	arrival := map[string]float64{}
	for _, j := range w.Jobs {
		arrival[j.ID] = j.Arrival
	}
	var sum float64
	moved := 0
	for _, j := range p.Jobs {
		e := float64(size["in-"+j.ID])/float64(j.InputBytes) - 1
		if math.Abs(e) > 0.5+1e-9 {
			t.Errorf("%s: size error %g", j.ID, e)
		}
		sum += math.Abs(e)
		if d := arrival[j.ID] - j.Arrival; d != 0 {
			moved++
			if math.Abs(d) > 240 {
				t.Errorf("%s moved %g s", j.ID, d)
			}
		}
	}
	if m := sum / 2000; math.Abs(m-0.25) > 0.02 {
		t.Errorf("mean size error %g, want 0.25", m)
	}
	if moved > 600 || moved < 590 { // 600 shifted, a few clamped at 0 may stay
		t.Errorf("%d arrivals moved, want 600", moved)
	}
	o = DefaultOptions() // 6.5% on average
	o.Jobs = 2000
	_, ds, p = generate(t, o)
	sum = 0
	for _, j := range p.Jobs {
		for _, d := range ds.Datasets {
			if d.Name == "in-"+j.ID {
				sum += math.Abs(float64(d.Size)/float64(j.InputBytes) - 1)
			}
		}
	}
	if m := sum / 2000; math.Abs(m-0.065) > 0.005 {
		t.Errorf("default mean size error %g, want 0.065", m)
	}
}

func TestAdHocAndOptions(t *testing.T) {
	o := DefaultOptions()
	o.AdHoc = 50
	o.Arrivals = gen.Once
	w, _, p := generate(t, o)
	adhoc := 0
	for _, j := range w.Jobs {
		if j.Queue == "adhoc" {
			adhoc++
			if j.Recurring != "" || j.Arrival != 0 {
				t.Errorf("ad hoc %+v", j)
			}
		} else if j.Recurring != j.ID || j.Arrival != 0 {
			t.Errorf("recurring %s: %q at %g", j.ID, j.Recurring, j.Arrival)
		}
	}
	if adhoc != 50 || len(p.Jobs) != 100 {
		t.Errorf("%d ad hoc, %d predicted", adhoc, len(p.Jobs))
	}
	// Scaling keeps task counts.
	o = DefaultOptions()
	o.Workload = "w3"
	_, _, p1 := generate(t, o)
	o.Scale = 0.001
	_, _, p2 := generate(t, o)
	for i := range p1.Jobs {
		a, b := p1.Jobs[i], p2.Jobs[i]
		if a.MapTasks != b.MapTasks || a.ReduceTasks != b.ReduceTasks || math.Abs(float64(b.InputBytes)/float64(a.InputBytes)-0.001) > 1e-3 {
			t.Fatalf("scaled %+v, unscaled %+v", b, a)
		}
	}
	again, _, _, _ := Generate(DefaultOptions())
	w1, _, _, _ := Generate(DefaultOptions())
	if !reflect.DeepEqual(again, w1) {
		t.Error("same seed, different workload")
	}
	for _, tc := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.Workload = "w4" }, `unknown workload "w4"`},
		{func(o *Options) { o.Jobs = -1 }, "jobs must not be negative"},
		{func(o *Options) { o.AdHoc = -1 }, "ad hoc jobs must not be negative"},
		{func(o *Options) { o.Jobs = math.MaxInt }, "jobs 9223372036854775807 is above 5000000"},
		{func(o *Options) { o.AdHoc = math.MaxInt }, "ad hoc jobs 9223372036854775807 is above 5000000"},
		{func(o *Options) { o.TaskScale = 1e20 }, "task scale 1e+20 makes W1's largest jobs 2e+23 tasks"},
		{func(o *Options) { o.Jobs = 5_000_000 }, "the jobs asked for have"},
		{func(o *Options) { o.Window = 0 }, "window must be positive"},
		{func(o *Options) { o.SizeError = 1 }, "size error must be in [0, 1)"},
		{func(o *Options) { o.ArrivalError = 1.5 }, "arrival error must be a fraction"},
		{func(o *Options) { o.ArrivalShift = -1 }, "arrival shift must not be negative"},
		{func(o *Options) { o.Arrivals, o.Rate = gen.Poisson, -1 }, "poisson arrivals need a positive rate"},
	} {
		o := DefaultOptions()
		tc.mod(&o)
		if _, _, _, err := Generate(o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestPredictedFile(t *testing.T) {
	_, _, p, err := Generate(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WritePredicted(&b, p); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p2, err := LoadPredicted(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p2.CheckAgainst(&workload.Workload{}); err == nil || !strings.HasPrefix(err.Error(), path+":3: prediction for job ") {
		t.Errorf("predictions for missing jobs: %v, want the file and line", err)
	}
	// where each was read is not what it predicts
	p2.File = ""
	for i := range p2.Jobs {
		p2.Jobs[i].Line = 0
	}
	if !reflect.DeepEqual(p2, p) {
		t.Fatalf("predictions do not survive their file")
	}
	if err := p.CheckAgainst(&workload.Workload{}); err == nil {
		t.Error("predictions for missing jobs accepted")
	}
	b.Reset()
	_ = WritePredicted(&b, &Predicted{})
	if p, err := ParsePredicted("e.yaml", b.Bytes()); err != nil || len(p.Jobs) != 0 {
		t.Errorf("empty: %v %v", p, err)
	}
	const ok = "{id: a, arrival_s: 1, input_bytes: 1, shuffle_bytes: 1, output_bytes: 1, map_tasks: 1, reduce_tasks: 1}"
	for _, tc := range []struct{ src, want string }{
		{"jobs:\n  - " + ok + "\n  - {id: b, arrival_s: 1}\n", `p.yaml:3: job "b": missing field "input_bytes"`},
		{"jobs:\n  - " + ok + "\n  - " + ok + "\n", `p.yaml:3: job "a": job id "a" is used twice (first at line 2)`},
		{"jobs:\n  - " + strings.Replace(ok, "arrival_s: 1", "arrival_s: -1", 1) + "\n", `p.yaml:2: job "a": arrival_s must not be negative`},
		{"jobs:\n  - " + strings.Replace(ok, "input_bytes: 1", "input_bytes: -5", 1) + "\n", `p.yaml:2: job "a": input_bytes must not be negative`},
		{"jobs:\n  - " + strings.Replace(ok, "map_tasks: 1", "map_tasks: 1.5", 1) + "\n", `p.yaml:2: job "a": map_tasks: want a whole number`},
		{"jobs:\n\n  - " + strings.Replace(ok, "}", ", deadline: 3}", 1) + "\n", `p.yaml:3: job "a": unknown field "deadline"`},
		{"job: []\n", `p.yaml:1: unknown field "job"`},
		{"jobs: [\n", "p.yaml:1: YAML syntax"},
	} {
		if _, err := ParsePredicted("p.yaml", []byte(tc.src)); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TaskScale shrinks W1's jobs, not their number or their mix: every job
// keeps its draw, with its task count scaled (at least 2) and its input
// one block per map; only W1 takes it.
func TestTaskScale(t *testing.T) {
	o := DefaultOptions()
	o.Arrivals = gen.Once
	_, _, full := generate(t, o)
	o.TaskScale = 0.025
	o.AdHoc = 3
	w, _, scaled := generate(t, o)
	if len(scaled.Jobs) != len(full.Jobs) || len(w.Jobs) != len(full.Jobs)+3 {
		t.Fatalf("%d jobs predicted, %d in all; want %d and %d", len(scaled.Jobs), len(w.Jobs), len(full.Jobs), len(full.Jobs)+3)
	}
	fitRack := 0
	for i, a := range full.Jobs {
		b := scaled.Jobs[i]
		tasks := b.MapTasks + b.ReduceTasks
		if want := max(2, int(math.Round(0.025*float64(a.MapTasks+a.ReduceTasks)))); tasks != want || b.MapTasks < 1 || b.ReduceTasks < 1 {
			t.Errorf("%s: %d maps and %d reduces, want %d tasks (from %d)", b.ID, b.MapTasks, b.ReduceTasks, want, a.MapTasks+a.ReduceTasks)
		}
		if b.InputBytes != int64(b.MapTasks)*128<<20 {
			t.Errorf("%s: input %d B for %d maps of 128 MiB", b.ID, b.InputBytes, b.MapTasks)
		}
		if a.MapTasks+a.ReduceTasks < 240 {
			fitRack++
			if tasks > 6 { // a rack of 240 slots scaled by 1/40
				t.Errorf("%s fits one rack unscaled (%d tasks) but not scaled (%d)", b.ID, a.MapTasks+a.ReduceTasks, tasks)
			}
		}
	}
	if fitRack < 65 {
		t.Errorf("only %d jobs fit a rack", fitRack)
	}
	for _, set := range []string{"w2", "w3"} {
		o := DefaultOptions()
		o.Workload, o.TaskScale = set, 0.5
		if _, _, _, err := Generate(o); err == nil || !strings.Contains(err.Error(), "only W1's task counts scale") {
			t.Errorf("%s at task scale 0.5: %v", set, err)
		}
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		o := DefaultOptions()
		o.TaskScale = bad
		if _, _, _, err := Generate(o); err == nil || !strings.Contains(err.Error(), "task scale must be positive") {
			t.Errorf("task scale %g: %v", bad, err)
		}
	}
}

// TestArrivalErrorSweep: workloads that differ only by the fraction of
// shifted jobs differ only in those jobs' arrivals; the jobs a smaller
// fraction shifts are shifted alike by a larger one, the planner sees the
// same predicted arrivals, and each shift is within ±ArrivalShift.
func TestArrivalErrorSweep(t *testing.T) {
	type result struct {
		w  *workload.Workload
		ds *workload.Datasets
		p  *Predicted
	}
	var runs []result
	fractions := []float64{0, 0.25, 0.5}
	for _, f := range fractions {
		o := DefaultOptions()
		o.ArrivalError = f
		w, ds, p := generate(t, o)
		runs = append(runs, result{w, ds, p})
	}
	arrivals := func(w *workload.Workload) map[string]float64 {
		out := map[string]float64{}
		for _, j := range w.Jobs {
			out[j.ID] = j.Arrival
		}
		return out
	}
	predicted := map[string]float64{}
	for _, j := range runs[0].p.Jobs {
		predicted[j.ID] = j.Arrival
	}
	var prevMoved map[string]float64
	for k, r := range runs {
		if !reflect.DeepEqual(r.ds, runs[0].ds) {
			t.Errorf("f=%g: the datasets (actual sizes) differ from f=0's", fractions[k])
		}
		if !reflect.DeepEqual(r.p, runs[0].p) {
			t.Errorf("f=%g: the predictions differ from f=0's", fractions[k])
		}
		moved := map[string]float64{}
		for id, a := range arrivals(r.w) {
			if d := a - predicted[id]; d != 0 {
				moved[id] = a
				if math.Abs(d) > 240 {
					t.Errorf("f=%g: %s moved %g s, more than 240", fractions[k], id, d)
				}
			}
		}
		want := int(math.Round(fractions[k] * 100))
		if len(moved) > want || len(moved) < want-3 { // a few clamped at 0 may stay
			t.Errorf("f=%g: %d of 100 arrivals moved, want %d", fractions[k], len(moved), want)
		}
		for id, a := range prevMoved {
			if got, ok := moved[id]; !ok || got != a {
				t.Errorf("f=%g: %s arrives at %g, at the smaller fraction at %g", fractions[k], id, got, a)
			}
		}
		prevMoved = moved
	}
}

// OutputReplicas sets every job output's replication (the reduce stage's,
// the job's last), as corral.md §2.6's default DFS policy asks; the maps'
// outputs stay intermediate. Out of range is refused.
func TestOutputReplicas(t *testing.T) {
	o := DefaultOptions()
	o.Workload, o.OutputReplicas = "w3", 3
	w, _, _ := generate(t, o)
	for _, j := range w.Jobs {
		for _, st := range j.Stages {
			want := 0
			if st.Kind == workload.Reduce {
				want = 3
			}
			if st.OutputReplicas != want {
				t.Fatalf("%s/%s: output replicas %d, want %d", j.ID, st.Name, st.OutputReplicas, want)
			}
		}
	}
	for _, n := range []int{-1, workload.MaxReplicas + 1} {
		o.OutputReplicas = n
		if _, _, _, err := Generate(o); err == nil || !strings.Contains(err.Error(), "output replicas must be between 0") {
			t.Errorf("output replicas %d: err %v", n, err)
		}
	}
}

// Sizes past 2^62 are refused, naming the options: W1's (block multiples,
// where int64(maps) × block wrapped to a workload of 0-byte jobs) when
// the options are checked, W3's (scaled bytes, which Bytes capped at
// 2^62 and handed out as asked for) once drawn.
func TestSizesBeyondTheLimitRefused(t *testing.T) {
	o := DefaultOptions()
	o.Jobs, o.Seed, o.Scale = 1, 50, 17179869184
	if _, _, _, err := Generate(o); err == nil || !strings.Contains(err.Error(), "W1's largest jobs read up to 1999 blocks") {
		t.Errorf("W1 at scale %g: %v", o.Scale, err)
	}
	o = DefaultOptions()
	o.Workload, o.Scale = "w3", 1e9
	if _, _, _, err := Generate(o); err == nil || !strings.Contains(err.Error(), "scale 1e+09 makes a size of") {
		t.Errorf("W3 at scale %g: %v", o.Scale, err)
	}
}
