package metrics

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// A run's summary takes its job figures from a JobTally of its jobs:
// ten that succeed with JCTs 1..10 from arrivals 5..14, a failed one
// (counted in the makespan, not the JCTs) and an unfinished one (in
// neither). The p90 is summary.csv's last column, after the columns it
// had before.
func TestSummaryJobFigures(t *testing.T) {
	w := &workload.Workload{}
	var records []engine.JobRecord
	for i := range 10 {
		arrival := float64(5 + i)
		records = append(records, engine.JobRecord{ID: engine.JobID(i), Name: "j" + strconv.Itoa(i), State: engine.JobSucceeded,
			Arrival: arrival, Finished: arrival + float64(i+1)})
	}
	records = append(records,
		engine.JobRecord{ID: 10, Name: "failed", State: engine.JobFailed, Arrival: 2, Finished: 40},
		engine.JobRecord{ID: 11, Name: "cut", State: engine.JobUnfinished, Arrival: 0, Finished: math.NaN()})
	for i := range records {
		w.Jobs = append(w.Jobs, workload.Job{ID: records[i].Name})
	}
	rec, err := NewRecorder(t.TempDir(), w)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	var tally JobTally
	for i := range records {
		if err := rec.Job(&records[i]); err != nil {
			t.Fatal(err)
		}
		tally.Add(records[i].State, records[i].Arrival, records[i].Finished)
	}
	s := rec.Finish("p", 1, nil, nil, nil)
	want := map[string]float64{"jobs": 12, "failed_jobs": 1, "unfinished_jobs": 1, "makespan_s": 38,
		"jct_mean_s": 5.5, "jct_p50_s": 5, "jct_p90_s": 9, "jct_p95_s": 10, "jct_p99_s": 10}
	got := tally.Figures()
	row := s.Row()
	for _, col := range JobColumns {
		cell, err := strconv.ParseFloat(row[slices.Index(SummaryHeader, col)], 64)
		if err != nil || cell != want[col] || got[col] != want[col] {
			t.Errorf("%s: summary.csv %q, tally %g; want %g", col, row[slices.Index(SummaryHeader, col)], got[col], want[col])
		}
	}
	if p90, ok := SummaryAdded["jct_p90_s"]; !ok || !math.IsNaN(p90) || slices.Index(SummaryHeader, "jct_p90_s") < slices.Index(SummaryHeader, "plan_wall_s") {
		t.Errorf("jct_p90_s is not among summary.csv's columns added after its first release, after plan_wall_s: %v", SummaryHeader)
	}
	var empty JobTally
	if f := empty.Figures(); f["jobs"] != 0 || f["makespan_s"] != 0 || f["jct_p90_s"] != 0 {
		t.Errorf("no jobs: %v", f)
	}
}

// The priority-order columns are empty for a run that did not measure
// them (the simulator, an emulated cluster without priorities), and
// hold what the network's counters said otherwise.
func TestPriorityOrderColumns(t *testing.T) {
	cell := func(s Summary, col string) string { return s.Row()[slices.Index(SummaryHeader, col)] }
	rec, err := NewRecorder(t.TempDir(), &workload.Workload{})
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Finish("p", 1, nil, nil, nil)
	if cell(s, "prio_shared_s") != "" || cell(s, "prio_in_order_frac") != "" {
		t.Errorf("unmeasured: %q, %q; want empty cells", cell(s, "prio_shared_s"), cell(s, "prio_in_order_frac"))
	}
	rec.SetPriorityOrder(40, 30)
	s = rec.Finish("p", 1, nil, nil, nil)
	if cell(s, "prio_shared_s") != "40.000000" || cell(s, "prio_in_order_frac") != "0.750000" {
		t.Errorf("measured: %q, %q; want 40 s, 0.75", cell(s, "prio_shared_s"), cell(s, "prio_in_order_frac"))
	}
	rec.SetPriorityOrder(0, 0)
	s = rec.Finish("p", 1, nil, nil, nil)
	if cell(s, "prio_shared_s") != "0.000000" || cell(s, "prio_in_order_frac") != "" {
		t.Errorf("measured, no bands met: %q, %q; want 0 s and an empty share", cell(s, "prio_shared_s"), cell(s, "prio_in_order_frac"))
	}
}
