package metrics

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Three job DAGs fed by hand: x1 → x2 and y1 finish, z1 → z2 does not
// (z2 unfinished); a fourth, w1, failed. Workloads 4, finished 2; the
// engine's cross-rack bytes divide by 2; WCT is the mean of x's and y's;
// JCT is over x1, x2, y1 and z1; throughput over the window.
func TestSummaryPerWorkload(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.Job{
		{ID: "x1"}, {ID: "x2", Parents: []string{"x1"}}, {ID: "y1"}, {ID: "z1"}, {ID: "z2", Parents: []string{"z1"}}, {ID: "w1"},
	}}
	rec, err := NewRecorder(t.TempDir(), w)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	rec.SetWindow(100)
	attempt := func(input, dependent, shuffle, duplicate int64) {
		a := &engine.AttemptRecord{Attempt: engine.Attempt{Outcome: engine.AttemptSucceeded}}
		a.Source.Host = -1
		a.Bytes[engine.ClassInput][engine.LevelCross] = input
		a.Bytes[engine.ClassDependent][engine.LevelCross] = dependent
		a.Bytes[engine.ClassShuffle][engine.LevelCross] = shuffle
		a.Bytes[engine.ClassDuplicate][engine.LevelCross] = duplicate
		a.Bytes[engine.ClassShuffle][engine.LevelRack] = 1000 // not cross-rack
		if err := rec.Attempt(a); err != nil {
			t.Fatal(err)
		}
	}
	attempt(100, 0, 40, 0)
	attempt(0, 60, 20, 80)
	// a cut attempt's bytes are not counted (the engine leaves them zero)
	if err := rec.Attempt(&engine.AttemptRecord{Attempt: engine.Attempt{Outcome: engine.AttemptCut, Source: workload.Replica{Host: -1}}}); err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	for _, j := range []engine.JobRecord{
		{ID: 0, Name: "x1", State: engine.JobSucceeded, Arrival: 0, Finished: 10},
		{ID: 1, Name: "x2", State: engine.JobSucceeded, Arrival: 0, Finished: 30},
		{ID: 2, Name: "y1", State: engine.JobSucceeded, Arrival: 5, Finished: 15},
		{ID: 3, Name: "z1", State: engine.JobSucceeded, Arrival: 20, Finished: 40},
		{ID: 5, Name: "w1", State: engine.JobFailed, Arrival: 1, Finished: 2},
		{ID: 4, Name: "z2", State: engine.JobUnfinished, Arrival: 20, Submitted: 40, Started: nan, Finished: nan},
	} {
		if err := rec.Job(&j); err != nil {
			t.Fatal(err)
		}
	}
	s := rec.Finish("p", 1, nil, []float64{250, 90}, []float64{0, 0})
	if s.MeasuredCrossRackBytes != 340 || s.MeasuredCrossRackBytesPerWorkload != 170 {
		t.Errorf("link-counted cross-rack bytes %g, per finished workload %g; want 340 and 170", s.MeasuredCrossRackBytes, s.MeasuredCrossRackBytesPerWorkload)
	}
	if s.Jobs != 6 || s.FailedJobs != 1 || s.UnfinishedJobs != 1 || s.Workloads != 4 || s.WorkloadsFinished != 2 || s.WindowS != 100 {
		t.Fatalf("jobs %d, failed %d, unfinished %d, workloads %d, finished %d, window %g; want 6, 1, 1, 4, 2, 100",
			s.Jobs, s.FailedJobs, s.UnfinishedJobs, s.Workloads, s.WorkloadsFinished, s.WindowS)
	}
	for name, c := range map[string][2]float64{
		"cross_rack_bytes_per_workload": {s.CrossRackBytesPerWorkload, 150}, // (100+40+60+20+80)/2
		"cross_input_per_workload":      {s.CrossInputPerWorkload, 50},
		"cross_dependent_per_workload":  {s.CrossDependentPerWorkload, 30},
		"cross_shuffle_per_workload":    {s.CrossShufflePerWorkload, 30},
		"wct_mean_s":                    {s.WCTMeanS, 20},           // x: 30, y: 10
		"jct_mean_s":                    {s.JCTMeanS, 70.0 / 4},     // 10, 30, 10, 20
		"throughput_jobs_per_h":         {s.ThroughputJPH, 4 * 36.}, // 4 jobs in 100 s
	} {
		if math.Abs(c[0]-c[1]) > 1e-9 {
			t.Errorf("%s %g, want %g", name, c[0], c[1])
		}
	}
	row := s.Row()
	if len(row) != len(SummaryHeader) {
		t.Fatalf("%d cells for %d columns", len(row), len(SummaryHeader))
	}
	for col, want := range map[string]string{"workloads": "4", "workloads_finished": "2", "unfinished_jobs": "1", "cross_shuffle_per_workload": "30.000000"} {
		i := slices.Index(SummaryHeader, col)
		if i < 0 || row[i] != want {
			t.Errorf("column %s (at %d): %q, want %q", col, i, row[i], want)
		}
	}
}

// No workload finished: the per-workload bytes are 0, not NaN or +Inf,
// which summary.csv's readers refuse.
func TestSummaryNoWorkloadFinished(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.Job{{ID: "a"}}}
	dir := t.TempDir()
	rec, err := NewRecorder(dir, w)
	if err != nil {
		t.Fatal(err)
	}
	rec.SetWindow(10)
	a := &engine.AttemptRecord{Attempt: engine.Attempt{Outcome: engine.AttemptSucceeded, Source: workload.Replica{Host: -1}}}
	a.Bytes[engine.ClassInput][engine.LevelCross] = 500
	if err := rec.Attempt(a); err != nil {
		t.Fatal(err)
	}
	if err := rec.Job(&engine.JobRecord{Name: "a", State: engine.JobUnfinished, Arrival: 3, Submitted: 3, Started: 4, Finished: math.NaN()}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	s := rec.Finish("p", 1, nil, nil, nil)
	if s.WorkloadsFinished != 0 || s.CrossRackBytesPerWorkload != 0 || s.CrossInputPerWorkload != 0 || s.WCTMeanS != 0 || s.ThroughputJPH != 0 || s.FailedJobs != 0 {
		t.Errorf("%+v", s)
	}
	for i, cell := range s.Row() {
		if x, err := strconv.ParseFloat(cell, 64); err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
			t.Errorf("summary column %s is %s", SummaryHeader[i], cell)
		}
	}
	f, err := os.Open(filepath.Join(dir, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := rows[1]; got[2] != "unfinished" || got[4] != "3.000000" || got[5] != "4.000000" || got[6] != "" || got[7] != "" {
		t.Errorf("jobs.csv row %q: want unfinished, submitted 3, started 4, no finish, no jct", got)
	}
}
