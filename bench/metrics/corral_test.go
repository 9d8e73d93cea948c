package metrics

import (
	"math"
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// timed is an attempt of job j, of a map or a reduce stage, from start to
// end.
func timed(j engine.JobID, kind workload.StageKind, start, end float64, outcome engine.AttemptOutcome) *engine.AttemptRecord {
	a := &engine.AttemptRecord{JobName: "j", Kind: kind, InputClass: engine.ClassInput}
	a.Task.Job = j
	a.Start, a.End, a.Outcome = start, end, outcome
	a.Source.Host = -1
	if kind != workload.Map {
		a.InputClass = engine.ClassShuffle
	}
	return a
}

// Compute hours sum every attempt's run time, whatever its outcome; the
// reduce time is the median over jobs of each job's mean successful
// reduce-side attempt (Corral's §5.4, Fig. 7b-c).
func TestComputeHoursAndReduceTime(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.Job{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}}
	rec, err := NewRecorder(t.TempDir(), w)
	if err != nil {
		t.Fatal(err)
	}
	ok, failed := engine.AttemptSucceeded, engine.AttemptFailed
	for _, a := range []*engine.AttemptRecord{
		timed(0, workload.Map, 0, 1800, ok),            // half an hour
		timed(0, workload.Reduce, 0, 10, ok),           // job a: reduces of 10 and 30 s, mean 20
		timed(0, workload.Reduce, 5, 35, ok),           //
		timed(0, workload.Reduce, 0, 900, failed),      // counts for compute hours, not for the reduce time
		timed(1, workload.Generic, 100, 150, ok),       // job b: 50 s
		timed(2, workload.Reduce, 0, 2, ok),            // job c: 2 s
		timed(3, workload.Map, 0, 1800-10-30-50-2, ok), // job d: maps only, no reduce time
	} {
		if err := rec.Attempt(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	s := rec.Finish("p", 1, nil, nil, nil)
	// 1800 + 10 + 30 + 900 + 50 + 2 + 1708 = 4500 s
	if s.ComputeHours != 1.25 {
		t.Errorf("compute hours %g, want 1.25", s.ComputeHours)
	}
	// the job means are 2, 20 and 50 s: the median is 20
	if s.ReduceTimeP50S != 20 {
		t.Errorf("reduce time p50 %g s, want 20", s.ReduceTimeP50S)
	}
	row := s.Row()
	for col, want := range map[string]string{"compute_hours": "1.250000", "reduce_time_p50_s": "20.000000"} {
		if got := row[slices.Index(SummaryHeader, col)]; got != want {
			t.Errorf("summary %s = %q, want %q", col, got, want)
		}
	}

	// no reduce-side attempt at all: no reduce time, an empty cell
	rec, err = NewRecorder(t.TempDir(), w)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Attempt(timed(0, workload.Map, 0, 36, ok)); err != nil {
		t.Fatal(err)
	}
	s = rec.Finish("p", 1, nil, nil, nil)
	if !math.IsNaN(s.ReduceTimeP50S) || s.ComputeHours != 0.01 {
		t.Errorf("map-only run: reduce time %g, compute hours %g; want NaN, 0.01", s.ReduceTimeP50S, s.ComputeHours)
	}
	if cell := s.Row()[slices.Index(SummaryHeader, "reduce_time_p50_s")]; cell != "" || !MayBeEmpty("reduce_time_p50_s") {
		t.Errorf("map-only run: reduce time cell %q, want empty", cell)
	}
}

// The data balance comes from the engine's per-rack input bytes; the
// policy's own figures and the plan's wall time fill their columns, and
// are empty for a policy without them.
func TestInputCoVAndPolicyFigures(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.Job{{ID: "a"}}}
	rec, err := NewRecorder(t.TempDir(), w)
	if err != nil {
		t.Fatal(err)
	}
	st := &engine.Stats{
		InputRackBytes:      []int64{16, 12, 10},
		InputRackFirstBytes: []int64{6, 0, 0},
		PolicyFigures:       map[string]float64{"plan_objective_s": 103, "plan_lower_bound_s": 100, "plan_gap": 0.03},
		PlanNanos:           1_500_000_000,
	}
	s := rec.Finish("corral", 1, st, nil, nil)
	if want := math.Sqrt(56.0/9) / (38.0 / 3); math.Abs(s.InputRackCoV-want) > 1e-12 {
		t.Errorf("CoV %g, want %g", s.InputRackCoV, want)
	}
	if want := math.Sqrt(2); math.Abs(s.InputRackCoVFirst-want) > 1e-12 {
		t.Errorf("first-replica CoV %g, want %g", s.InputRackCoVFirst, want)
	}
	cell := func(s Summary, col string) string { return s.Row()[slices.Index(SummaryHeader, col)] }
	for col, want := range map[string]string{"plan_objective_s": "103.000000", "plan_lower_bound_s": "100.000000", "plan_gap": "0.030000",
		"plan_wall_s": "1.500000", "input_rack_cov_first": "1.414214"} {
		if got := cell(s, col); got != want {
			t.Errorf("%s = %q, want %q", col, got, want)
		}
	}
	for _, col := range PolicyFigureColumns {
		if !slices.Contains(SummaryHeader, col) || !MayBeEmpty(col) {
			t.Errorf("policy figure %s: a column %v, may be empty %v", col, slices.Contains(SummaryHeader, col), MayBeEmpty(col))
		}
	}

	// a policy with no figures and no plan: empty cells; nothing stored:
	// a CoV of 0
	s = rec.Finish("fifo", 1, &engine.Stats{InputRackBytes: []int64{0, 0}}, nil, nil)
	for _, col := range append(slices.Clone(PolicyFigureColumns), "plan_wall_s") {
		if got := cell(s, col); got != "" {
			t.Errorf("no figures: %s = %q, want empty", col, got)
		}
	}
	if s.InputRackCoV != 0 {
		t.Errorf("nothing stored: CoV %g, want 0", s.InputRackCoV)
	}
}
