package tpch

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/describe"
	"github.com/racklab/racklab/datagen/gen"
)

// The depths and job counts the package documentation lists.
var (
	wantDepth = []int{2, 6, 4, 4, 7, 1, 7, 9, 6, 5, 5, 3, 4, 2, 4, 4, 3, 4, 2, 6, 5, 5}
	wantJobs  = []int{2, 7, 4, 4, 7, 1, 7, 9, 7, 5, 6, 3, 4, 2, 5, 5, 4, 5, 2, 8, 7, 6}
)

func TestPlansMatchDawn(t *testing.T) {
	qs := Plans()
	if len(qs) != 22 {
		t.Fatalf("%d query plans, want TPC-H's 22", len(qs))
	}
	var deep []int
	var deepSum, jobs int
	depths := []int{11, 8, 11} // Fig. 2's HiBench ML workloads: K-means, Bayes, PageRank (Table 2)
	for i, q := range qs {
		d := q.DAG(nil, 0).Depth()
		if q.N != i+1 || d != wantDepth[i] || len(q.Jobs) != wantJobs[i] {
			t.Errorf("q%d: depth %d with %d jobs, want q%d: depth %d with %d jobs", q.N, d, len(q.Jobs), i+1, wantDepth[i], wantJobs[i])
		}
		if d > 4 {
			deep = append(deep, q.N)
			deepSum += d
		}
		if d > qs[7].DAG(nil, 0).Depth() {
			t.Errorf("q%d is deeper than q8", q.N)
		}
		depths = append(depths, d)
		jobs += len(q.Jobs)
	}
	// Dawn Table 4: the queries of depth larger than 4.
	if want := []int{2, 5, 7, 8, 9, 10, 11, 20, 21, 22}; !reflect.DeepEqual(deep, want) {
		t.Errorf("queries deeper than 4: %v, want Table 4's %v", deep, want)
	}
	// §6.1.3: "the depth of 6 in query workloads" (Table 4's).
	if avg := float64(deepSum) / float64(len(deep)); math.Round(avg) != 6 {
		t.Errorf("Table 4 queries average depth %.2f, want 6", avg)
	}
	// §2.2: the median of Fig. 2's 25 workloads is 5.
	sort.Ints(depths)
	if len(depths) != 25 || depths[12] != 5 {
		t.Errorf("median depth of %d workloads is %d, want 5", len(depths), depths[12])
	}
	if jobs != 110 {
		t.Errorf("%d jobs, want 110", jobs)
	}
}

func TestTableSizes(t *testing.T) {
	o := DefaultOptions()
	o.ScaleFactor = 1
	_, ds, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	size := map[string]int64{}
	for _, d := range ds.Datasets {
		size[strings.TrimPrefix(d.Name, "tpch-")] = d.Size
		total += d.Size
	}
	if len(ds.Datasets) != 8 || total != 1100693130 {
		t.Errorf("%d tables, %d bytes at SF 1; want 8 tables, 1100693130 bytes", len(ds.Datasets), total)
	}
	// lineitem ≈ 0.76 GB × SF; the shares of spec/dawn.md §5.2.
	for table, share := range map[string]float64{"lineitem": 0.70, "orders": 0.16, "partsupp": 0.11, "part": 0.02, "customer": 0.02, "supplier": 0.001} {
		if got := float64(size[table]) / float64(total); math.Abs(got-share) > 0.015 {
			t.Errorf("%s is %.3f of the bytes, want about %.3f", table, got, share)
		}
	}
	o.ScaleFactor = 50
	_, ds, _ = Generate(o)
	for _, d := range ds.Datasets {
		want := TableBytes[strings.TrimPrefix(d.Name, "tpch-")]
		if !fixedTables[strings.TrimPrefix(d.Name, "tpch-")] {
			want *= 50
		}
		if d.Size != want || d.BlockSize != 128<<20 || d.Replication != 3 {
			t.Errorf("SF 50: %+v, want size %d", d, want)
		}
	}
}

func TestWorkload(t *testing.T) {
	o := DefaultOptions()
	w, ds, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 110 {
		t.Fatalf("%d jobs, want 110", len(w.Jobs))
	}
	arrival := map[string]float64{}
	for _, j := range w.Jobs {
		q := j.ID[:len("tpch-q05")]
		if a, ok := arrival[q]; ok && a != j.Arrival {
			t.Errorf("%s arrives at %g, its query at %g", j.ID, j.Arrival, a)
		}
		arrival[q] = j.Arrival
		if j.Arrival < 0 || j.Arrival >= 600 || j.Recurring != q+j.ID[len(q):] {
			t.Errorf("%s: arrival %g, recurring %q", j.ID, j.Arrival, j.Recurring)
		}
		for _, s := range j.Stages {
			if s.Kind == workload.Map && strings.HasPrefix(s.Input, "@") && !slices.Contains(j.Parents, s.Input[1:]) {
				t.Errorf("%s reads %s", j.ID, s.Input)
			}
		}
	}
	if len(arrival) != 22 {
		t.Errorf("%d queries", len(arrival))
	}
	// Q8's first job: part (1/500 kept) and lineitem (0.3 kept), 5 ns/B.
	var q8 workload.Job
	for _, j := range w.Jobs {
		if j.ID == "tpch-q08-j1" {
			q8 = j
		}
	}
	want := []workload.Stage{
		{Name: "map-tpch-part", Kind: workload.Map, Input: "tpch-part", Selectivity: 0.002, ComputeNsPerByte: 5},
		{Name: "map-tpch-lineitem", Kind: workload.Map, Input: "tpch-lineitem", Selectivity: 0.3, ComputeNsPerByte: 5},
		{Name: "reduce", Kind: workload.Reduce, Tasks: 45, After: []string{"map-tpch-part", "map-tpch-lineitem"}, Selectivity: 0.005, ComputeNsPerByte: 5},
	}
	if !reflect.DeepEqual(q8.Stages, want) { // ⌈(0.002×24135125 + 0.3×759863287)×50 / 256e6⌉ = 45
		t.Errorf("q8 j1 stages\n got %+v\nwant %+v", q8.Stages, want)
	}
	w2, ds2, err := workload.RoundTrip(w, ds, nil)
	if err != nil || !reflect.DeepEqual(w2, w) || !reflect.DeepEqual(ds2, ds) {
		t.Errorf("the workload does not survive its files: %v", err)
	}
	again, _, _ := Generate(o)
	if !reflect.DeepEqual(again, w) {
		t.Error("same seed, different workload")
	}
	o.Seed = 2
	other, _, _ := Generate(o)
	if reflect.DeepEqual(other, w) {
		t.Error("another seed, same arrivals")
	}
}

func TestMultiStage(t *testing.T) {
	o := DefaultOptions()
	o.MultiStage = true
	w, ds, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 22 {
		t.Fatalf("%d jobs, want 22", len(w.Jobs))
	}
	mr, _, _ := Generate(DefaultOptions())
	s, m := describe.Describe(w, ds), describe.Describe(mr, ds)
	if s.JobDAGDepth != 1 || s.InputBytes != m.InputBytes {
		t.Errorf("tez: job depth %d, input %d; mapreduce input %d", s.JobDAGDepth, s.InputBytes, m.InputBytes)
	}
	// The stage DAG of a query is its job DAG plus the map stages.
	for _, j := range w.Jobs {
		var q Query
		for _, p := range Plans() {
			if j.ID == fmt.Sprintf("tpch-q%02d", p.N) {
				q = p
			}
		}
		one := &workload.Workload{Jobs: []workload.Job{j}}
		if d := describe.Describe(one, ds).StageDepth; d != q.DAG(nil, 0).Depth()+1 {
			t.Errorf("%s: stage depth %d, job depth %d", j.ID, d, q.DAG(nil, 0).Depth())
		}
		if st := j.Stages[len(j.Stages)-1]; st.Kind != workload.Generic {
			t.Errorf("%s ends with a %s stage", j.ID, st.Kind)
		}
	}
	if _, _, err := workload.RoundTrip(w, ds, nil); err != nil {
		t.Fatal(err)
	}
}

func TestOptions(t *testing.T) {
	o := DefaultOptions()
	o.Queries = []int{5, 1}
	o.Rounds = 3
	o.Window = 1500
	o.Scale = 0.001
	w, ds, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 3*(7+2) {
		t.Errorf("%d jobs", len(w.Jobs))
	}
	for _, j := range w.Jobs {
		r := int(j.ID[len("tpch-r")] - '1')
		if j.Arrival < float64(r)*1500 || j.Arrival >= float64(r+1)*1500 {
			t.Errorf("%s arrives at %g", j.ID, j.Arrival)
		}
	}
	for _, d := range ds.Datasets {
		if d.BlockSize != int64(math.Round(0.001*(128<<20))) {
			t.Errorf("scaled block size %d", d.BlockSize)
		}
	}
	// Scaling keeps the task counts.
	full := o
	full.Scale = 1
	wf, dsf, _ := Generate(full)
	if a, b := describe.Describe(w, ds).Tasks, describe.Describe(wf, dsf).Tasks; a != b {
		t.Errorf("scaled: %d tasks, unscaled %d", a, b)
	}
	o = DefaultOptions()
	o.Arrivals = gen.Once
	w, _, _ = Generate(o)
	for _, j := range w.Jobs {
		if j.Arrival != 0 {
			t.Fatalf("once: %s at %g", j.ID, j.Arrival)
		}
	}
	for _, tc := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.ScaleFactor = 0 }, "scale factor must be positive"},
		{func(o *Options) { o.Rounds = 0 }, "rounds must be at least 1"},
		{func(o *Options) { o.Rounds = math.MaxInt }, "above the limit of 10000000 tasks a workload"},
		{func(o *Options) { o.Window = -1 }, "window must be positive"},
		{func(o *Options) { o.Queries = []int{23} }, "no plan for query 23"},
		{func(o *Options) { o.Queries = []int{3, 3} }, "query 3 is selected twice"},
		{func(o *Options) { o.Arrivals = gen.Poisson }, "poisson arrivals need a positive rate"},
		{func(o *Options) { o.Rate = 1 }, "a rate applies to poisson arrivals only"},
		{func(o *Options) { o.Scale = -1 }, "scale must be positive"},
		{func(o *Options) { o.MaxReducers = -1 }, "max reducers must not be negative"},
	} {
		o := DefaultOptions()
		tc.mod(&o)
		if _, _, err := Generate(o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestMalformedPlans(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"q1 j1 group\n", "p.txt:1: want \"q<query> <job> <op> <input> ... [sel=<x>]\", got 3 fields"},
		{"# c\n\nx1 j1 group lineitem\n", `p.txt:3: query "x1": want q1 … q99`},
		{"q0 j1 group lineitem\n", `p.txt:1: query "q0"`},
		{"q1 j1 sort lineitem\n", `p.txt:1: op "sort": want scan, join, group, order or agg`},
		{"q1 j1 group lineitem\nq1 j1 group orders\n", `p.txt:2: q1: job "j1" is defined twice (first on line 1)`},
		{"q1 orders group lineitem\n", `p.txt:1: job name "orders" is a table's`},
		{"q1 j1 group lineitem*0\n", `p.txt:1: input "lineitem*0": the fraction must be a number in (0, 1]`},
		{"q1 j1 group lineitem*2\n", `p.txt:1: input "lineitem*2"`},
		{"q1 j1 group lineitem sel=-1\n", `p.txt:1: sel "-1": want a number from 0 to 1e+06`},
		{"q1 j1 group lineitem sel=1e300\n", `p.txt:1: sel "1e300": want a number from 0 to 1e+06`},
		{"q1 tpch-orders group orders\n", `p.txt:1: job name "tpch-orders": want letters, digits and _`},
		{"q1 a group orders\nq1 a-tpch-orders group a\n", `p.txt:2: job name "a-tpch-orders": want letters, digits and _`},
		{"q1 j1 group lineitem sel=x\n", `p.txt:1: sel "x"`},
		{"q1 j1 group j2\n", `p.txt:1: input "j2" is neither a table nor an earlier job of q1`},
		{"q1 j1 group lineitem\nq2 j2 group j1\n", `p.txt:2: input "j1" is neither a table nor an earlier job of q2`},
		{"q1 j1 scan lineitem sel=0.5\n", "p.txt:1: a scan is map-only: it has no sel"},
		{"q1 j1 group lineitem\nq1 j2 scan j1\n", `p.txt:2: a scan is map-only: it reads tables, not job "j1"`},
		{"q1 j1 join lineitem lineitem*0.5\n", `p.txt:1: input "lineitem" is listed twice`},
		{"q1 j1 group sel=1 sel=2\n", `p.txt:1: job "j1" reads nothing`},
		{"q1 j*1 group lineitem\n", `p.txt:1: job name "j*1"`},
		{"# nothing\n", "p.txt: no query plans"},
		{"q1 j1 group lineitem\nq2 jé\xe9 group lineitem\n", "p.txt:2: column 6: byte 0xe9 is not UTF-8 text"},
	} {
		_, err := ParsePlans(strings.NewReader(tc.src), "p.txt")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
	// A custom plan file replaces the built-in plans.
	qs, err := ParsePlans(strings.NewReader("q3 a scan lineitem*0.5 # comment\nq3 b order a\n"), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Plans = qs
	w, ds, err := Generate(o)
	if err != nil || len(w.Jobs) != 2 || len(ds.Datasets) != 1 || w.Jobs[1].Stages[0].Input != "@tpch-q03-a" {
		t.Errorf("custom plans: %v %+v %+v", err, w, ds)
	}
}

// Rounds whose tasks pass the limit are refused after the first round is
// made, not after all of them: the check before counts a task a job, and
// 90,000 rounds (110 jobs, 8,080 tasks each) took some 10 GB to refuse.
func TestRoundsBeyondTaskLimit(t *testing.T) {
	o := DefaultOptions()
	o.Rounds = 5000 // under 10^7 / 110 jobs, over 10^7 / 8,080 tasks
	_, _, err := Generate(o)
	if err == nil || !strings.Contains(err.Error(), "rounds 5000 of 8080 tasks each is above the limit of 10000000 tasks a workload") {
		t.Fatalf("error %v, want the rounds' tasks past the limit", err)
	}
}
