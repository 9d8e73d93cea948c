package gen

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

func TestProcess(t *testing.T) {
	for _, s := range []string{"trace", "poisson", "once"} {
		var p Process
		if err := p.Set(s); err != nil || p.String() != s {
			t.Errorf("%s: %v %v", s, p, err)
		}
	}
	var p Process
	if err := p.Set("burst"); err == nil || !strings.Contains(err.Error(), `unknown arrival process "burst"`) {
		t.Errorf("bad process: %v", err)
	}
	if Process(9).String() != "process(9)" || p.Type() == "" {
		t.Error("names")
	}
}

func TestTimes(t *testing.T) {
	o := DefaultOptions()
	o.Arrivals, o.Rate = Poisson, 0.5
	rng := o.RNG()
	ts := o.Times(rng, 20000, nil)
	var gaps, prev float64
	for _, x := range ts {
		if x < prev {
			t.Fatal("not sorted")
		}
		gaps += x - prev
		prev = x
	}
	if mean := gaps / 20000; math.Abs(mean-2) > 0.05 {
		t.Errorf("mean gap %g s, want 2", mean)
	}
	o.Arrivals = Once
	for _, x := range o.Times(rng, 5, nil) {
		if x != 0 {
			t.Fatal("once: not at 0")
		}
	}
	o.Arrivals = Trace
	if got := o.Times(rng, 3, func() []float64 { return []float64{3, 1, 2} }); !reflect.DeepEqual(got, []float64{1, 2, 3}) {
		t.Errorf("trace: %v", got)
	}
	for _, x := range Uniform(rng, 1000, 60) {
		if x < 0 || x >= 60 {
			t.Fatalf("uniform: %g", x)
		}
	}
	a, b := DefaultOptions(), DefaultOptions()
	if a.RNG().Uint64() != b.RNG().Uint64() {
		t.Error("same seed, different stream")
	}
}

func TestOptions(t *testing.T) {
	o := DefaultOptions()
	o.Scale = 0.001
	if o.Block() != 134218 || o.Bytes(0.2) != 1 || o.Bytes(0) != 0 || o.Bytes(1e30) != 1<<62 {
		t.Errorf("scaling: %d %d %d", o.Block(), o.Bytes(0.2), o.Bytes(1e30))
	}
	if d := o.Dataset("x", 5); !reflect.DeepEqual(d, workload.Dataset{Name: "x", Size: 5, BlockSize: 134218, Replication: 3}) {
		t.Errorf("dataset %+v", d)
	}
	for _, tc := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.Scale = 0 }, "scale must be positive"},
		{func(o *Options) { o.Scale = math.Inf(1) }, "scale must be positive"},
		{func(o *Options) { o.Arrivals = Poisson }, "poisson arrivals need a positive rate"},
		{func(o *Options) { o.Arrivals, o.Rate = Poisson, math.NaN() }, "poisson arrivals need a positive rate"},
		{func(o *Options) { o.Rate = 2 }, "a rate applies to poisson arrivals only"},
		{func(o *Options) { o.Arrivals = 7 }, "bad arrival process"},
		{func(o *Options) { o.BlockSize = 0 }, "block size must be positive"},
		{func(o *Options) { o.Scale = 1e20 }, "out of range"},
		{func(o *Options) { o.Replication = 0 }, "replication must be at least 1"},
		{func(o *Options) { o.Replication = 1 << 30 }, "replication must be at most 512"},
		{func(o *Options) { o.Arrivals, o.Rate = Poisson, 1e-300 }, "poisson arrivals need a rate of at least 1e-09"},
	} {
		o := DefaultOptions()
		tc.mod(&o)
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	if ReduceTasks(0, 10, 0) != 1 || ReduceTasks(25, 10, 0) != 3 || ReduceTasks(1e12, 1, 1009) != 1009 {
		t.Error("reduce tasks")
	}
}

func TestDAG(t *testing.T) {
	// a → c ← b(map-only); d after c
	d := &DAG{Nodes: []Node{
		{Name: "a", Reduce: true, Sel: 0.5, Inputs: []Input{{Dataset: "x", Bytes: 1000, Fraction: 0.4}}},
		{Name: "b", Inputs: []Input{{Dataset: "y", Bytes: 100, Fraction: 1}}},
		{Name: "c", Reduce: true, Sel: 2, Inputs: []Input{{Node: 0, Fraction: 1}, {Node: 1, Fraction: 0.5}}},
		{Name: "d", Reduce: true, Sel: 1, OneReducer: true, Inputs: []Input{{Node: 2, Fraction: 1}}},
	}}
	shuffle, output := d.Sizes()
	if !reflect.DeepEqual(shuffle, []float64{400, 100, 250, 500}) || !reflect.DeepEqual(output, []float64{200, 100, 500, 500}) {
		t.Errorf("sizes %v %v", shuffle, output)
	}
	if d.Depth() != 3 || !reflect.DeepEqual(d.Depths(), []int{1, 1, 2, 3}) {
		t.Errorf("depths %v", d.Depths())
	}
	ds := &workload.Datasets{Datasets: []workload.Dataset{{Name: "x", Size: 1000, BlockSize: 100}, {Name: "y", Size: 100, BlockSize: 100}}}
	jobs, err := d.Jobs(DAGOptions{ID: "q", Arrival: 5, Recurring: "r", ReduceBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := workload.Job{ID: "q-c", Arrival: 5, Recurring: "r-c", Parents: []string{"q-a", "q-b"}, Stages: []workload.Stage{
		{Name: "map-a", Kind: workload.Map, Input: "@q-a", Selectivity: 1},
		{Name: "map-b", Kind: workload.Map, Input: "@q-b", Selectivity: 0.5},
		{Name: "reduce", Kind: workload.Reduce, Tasks: 3, After: []string{"map-a", "map-b"}, Selectivity: 2},
	}}
	if len(jobs) != 4 || !reflect.DeepEqual(jobs[2], want) || jobs[3].Stages[1].Tasks != 1 || len(jobs[1].Stages) != 1 {
		t.Errorf("jobs %+v", jobs)
	}
	w := &workload.Workload{Jobs: jobs}
	if err := Check(w, ds); err != nil {
		t.Fatal(err)
	}
	tez, err := d.Jobs(DAGOptions{ID: "q", ReduceBytes: 100, MultiStage: true})
	if err != nil || len(tez) != 1 {
		t.Fatal(err)
	}
	// c reads a's 200 and b's 100 whole: 300 in, 500 out.
	st := tez[0].Stages
	if len(st) != 5 || st[3].Name != "c" || !reflect.DeepEqual(st[3].After, []string{"a", "b-y"}) || math.Abs(st[3].Selectivity-500.0/300) > 1e-12 {
		t.Errorf("tez stages %+v", st)
	}
	if err := Check(&workload.Workload{Jobs: tez}, ds); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []DAG{
		{Nodes: []Node{{Name: "a"}}},
		{Nodes: []Node{{Name: "a", Inputs: []Input{{Node: 0, Fraction: 1}}, Reduce: true}}},
		{Nodes: []Node{{Name: "a", Inputs: []Input{{Dataset: "x", Fraction: 0}}}}},
		{Nodes: []Node{{Name: "a", Inputs: []Input{{Dataset: "x", Fraction: 1}}}, {Name: "a", Inputs: []Input{{Dataset: "x", Fraction: 1}}}}},
		{Nodes: []Node{{Name: "a", Inputs: []Input{{Dataset: "x", Fraction: 1}}}, {Name: "b", Inputs: []Input{{Node: 0, Fraction: 1}}}}},
		{Nodes: []Node{{Name: "a", Inputs: []Input{{Dataset: "x", Fraction: 1}, {Dataset: "x", Fraction: 1}}}}},
		{Nodes: []Node{{Name: "a", Reduce: true, Sel: -1, Inputs: []Input{{Dataset: "x", Fraction: 1}}}}},
	} {
		if _, err := bad.Jobs(DAGOptions{ID: "q"}); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// Bytes caps a size at 2^62 and Beyond reports it: a capped size is not
// the one asked for.
func TestBytesBeyondTheLimit(t *testing.T) {
	o := DefaultOptions()
	o.Scale = 2
	if got := o.Bytes(1 << 61); got != 1<<62 || o.Beyond() != nil {
		t.Fatalf("2^61 × 2: %d, %v; want 2^62 and no error", got, o.Beyond())
	}
	if got := o.Bytes(3 << 60); got != 1<<62 {
		t.Fatalf("3·2^60 × 2: %d, want the cap 2^62", got)
	}
	if err := o.Beyond(); err == nil || !strings.Contains(err.Error(), "scale 2 makes a size of 6.918e+18 bytes, above the limit of 2^62") {
		t.Errorf("Beyond: %v", err)
	}
}
