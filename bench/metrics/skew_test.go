package metrics

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// rack_link_skew is internal/skew's (its tests hold the formula); the
// older link_skew, over each rack's two directions summed, stays as it was.
func TestLinkSkewUnchanged(t *testing.T) {
	// the summed directions' skew of the same loads: an idle rack makes it
	// infinite, and the two directions of a rack hide each other's excess
	if Skew([]float64{200, 175, 75}) == 8 || !math.IsInf(Skew([]float64{7, 0}), 1) || Skew([]float64{5, 5}) != 1 {
		t.Error("link_skew's Skew changed")
	}
}

// jobs.csv gives each job's shuffle Skew and duplicates; summary.csv the
// mean Skew over the jobs that succeeded with cross-rack shuffle bytes,
// and Shadow's Skew over the run's link bytes next to link_skew.
func TestShuffleSkewColumns(t *testing.T) {
	records := []engine.JobRecord{
		{ID: 0, Name: "a", State: engine.JobSucceeded, Finished: 10, Duplicates: 2, DuplicatesUsed: 1,
			ShuffleUp: []int64{200, 25, 0}, ShuffleDown: []int64{0, 150, 75}}, // skew 8
		{ID: 1, Name: "b", State: engine.JobSucceeded, Finished: 10,
			ShuffleUp: []int64{10, 10, 0}, ShuffleDown: []int64{0, 10, 10}}, // skew 1
		{ID: 2, Name: "c", State: engine.JobSucceeded, Finished: 10}, // no cross-rack shuffle: 1, not in the mean
		{ID: 3, Name: "d", State: engine.JobFailed, Finished: 10, Duplicates: 1,
			ShuffleUp: []int64{30, 10, 0}, ShuffleDown: []int64{0, 40, 0}}, // skew 4, failed: not in the mean
	}
	w := &workload.Workload{}
	for i := range records {
		w.Jobs = append(w.Jobs, workload.Job{ID: records[i].Name})
	}
	dir := t.TempDir()
	rec, err := NewRecorder(dir, w)
	if err != nil {
		t.Fatal(err)
	}
	for i := range records {
		if err := rec.Job(&records[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(dir, "jobs.csv"))
	head := rows[0]
	if !slices.Equal(head[len(head)-3:], []string{"shuffle_skew", "duplicates", "duplicates_used"}) {
		t.Fatalf("jobs.csv header %v: the skew and duplicate columns are not last", head)
	}
	for i, want := range [][3]string{{"8.000000", "2", "1"}, {"1.000000", "0", "0"}, {"1.000000", "0", "0"}, {"4.000000", "1", "0"}} {
		row := rows[i+1]
		if got := [3]string(row[len(row)-3:]); got != want {
			t.Errorf("job %s: shuffle_skew, duplicates, duplicates_used %q, want %q", records[i].Name, got, want)
		}
	}

	cell := func(s Summary, col string) string { return s.Row()[slices.Index(SummaryHeader, col)] }
	s := rec.Finish("p", 1, nil, []float64{4, 0}, []float64{1, 2})
	if cell(s, "shuffle_skew_mean") != "4.500000" || cell(s, "rack_link_skew") != "4.000000" || cell(s, "link_skew") != "2.500000" {
		t.Errorf("shuffle_skew_mean %q, rack_link_skew %q, link_skew %q: want 4.5, 4 and 2.5 (5/2)",
			cell(s, "shuffle_skew_mean"), cell(s, "rack_link_skew"), cell(s, "link_skew"))
	}
	if s = rec.Finish("p", 1, nil, []float64{0, 0}, []float64{0, 0}); cell(s, "rack_link_skew") != "1.000000" {
		t.Errorf("idle links: rack_link_skew %q, want 1", cell(s, "rack_link_skew"))
	}
	// no link counters: unknown, not 1
	if s = rec.Finish("p", 1, nil, nil, nil); cell(s, "rack_link_skew") != "" || !MayBeEmpty("rack_link_skew") {
		t.Errorf("no counters: rack_link_skew %q, want empty", cell(s, "rack_link_skew"))
	}
	if v, ok := SummaryAdded["rack_link_skew"]; !ok || !math.IsNaN(v) {
		t.Error("rack_link_skew is not among the columns added, unknown in older files")
	}
}

// A run none of whose finished jobs shuffled across racks has no mean
// shuffle Skew: an empty cell, which readers take as unknown.
func TestShuffleSkewMeanUndefined(t *testing.T) {
	w := &workload.Workload{Jobs: []workload.Job{{ID: "a"}}}
	rec, err := NewRecorder(t.TempDir(), w)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if err := rec.Job(&engine.JobRecord{Name: "a", State: engine.JobSucceeded, Finished: 1}); err != nil {
		t.Fatal(err)
	}
	s := rec.Finish("p", 1, nil, []float64{1}, []float64{1})
	if !math.IsNaN(s.ShuffleSkewMean) || s.Row()[slices.Index(SummaryHeader, "shuffle_skew_mean")] != "" || !MayBeEmpty("shuffle_skew_mean") {
		t.Errorf("shuffle_skew_mean %g, want NaN and an empty cell", s.ShuffleSkewMean)
	}
}
