package report

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
)

// A summary.csv written before the window's columns were added still
// loads: those columns read as the run without a window they stand for.
func TestOlderSummaryLoads(t *testing.T) {
	dir := t.TempDir()
	old := metrics.SummaryRequired()
	if len(old) != len(metrics.SummaryHeader)-len(metrics.SummaryAdded) || old[len(old)-1] != "decisions" {
		t.Fatalf("the columns every summary.csv has: %v", old)
	}
	row := make([]string, len(old))
	for i, col := range old {
		switch col {
		case "policy":
			row[i] = "fifo"
		case "seed":
			row[i] = "1"
		default:
			row[i] = "7"
		}
	}
	writeFile(t, filepath.Join(dir, "summary.csv"), strings.Join(old, ",")+"\n"+strings.Join(row, ",")+"\n")
	set, err := LoadResultSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := set.Runs[0].Values
	if v["jobs"] != 7 || v["decisions"] != 7 {
		t.Errorf("values %v", v)
	}
	for col, want := range metrics.SummaryAdded {
		if got, ok := v[col]; !ok || !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("column %s absent from the file: %g (present %v), want %g", col, got, ok, want)
		}
	}
}

// A windowed run's jobs.csv has unfinished jobs without a completion
// time: they are left out of the JCTs, as failed ones are.
func TestUnfinishedJobsHaveNoJCT(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "jobs.csv"), "job,queue,state,arrival_s,submitted_s,started_s,finished_s,jct_s,tasks,attempts,reason\n"+
		"a,default,succeeded,0.000000,0.000000,0.000000,4.000000,4.000000,2,2,\n"+
		"b,default,unfinished,1.000000,1.000000,2.000000,,,2,1,1 of 2 tasks done at the window\n"+
		"c,default,unfinished,9.000000,,,,,2,0,not arrived by the window\n")
	jcts, err := LoadJCTs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(jcts) != 1 || jcts[0] != 4 {
		t.Errorf("JCTs %v, want [4]", jcts)
	}
}

// A job's state in jobs.csv is one of the engine's: a misspelt one is
// refused with its line, by the report as by the headlines' queue
// figures, instead of taken for a job that finished.
func TestUnknownJobStateIsRefused(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "local"), knownRuns())
	writeSet(t, filepath.Join(dir, "local-flat"), knownRuns())
	for _, run := range []string{"local/fifo-seed1", "local-flat/fifo-seed1"} {
		p := filepath.Join(dir, run, "jobs.csv")
		writeFile(t, p, strings.Replace(readFile(t, p), "job1,default,succeeded,", "job1,default,succeded,", 1))
	}
	want := filepath.Join(dir, "local", "fifo-seed1", "jobs.csv") + `:3: column state: "succeded" is not a job's end (succeeded, failed or unfinished)`
	if _, err := Generate(dir, Options{}); err == nil || err.Error() != want {
		t.Errorf("report: got %v, want %s", err, want)
	}
	// the side-by-side figures read the flat run set's records on their own
	if _, _, err := LoadJobJCTs(filepath.Join(dir, "local-flat", "fifo-seed1")); err == nil || !strings.Contains(err.Error(), `jobs.csv:3: column state: "succeded"`) {
		t.Errorf("LoadJobJCTs: %v", err)
	}
}

// The throughput figure says what its jobs per hour are over: a run with
// a window counts them over the window (metrics.Summary), not over its
// makespan, as the caption said of every run.
func TestThroughputCaptionOfWindowedRuns(t *testing.T) {
	dir := t.TempDir()
	runs := knownRuns()
	for i := range runs {
		runs[i].values["window_s"] = 600
	}
	writeSet(t, dir, runs)
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := findFigure(t, r, "throughput"); !strings.HasPrefix(f.Caption, "Throughput (finished jobs per hour of the experiment window) per policy.") {
		t.Errorf("caption %q", f.Caption)
	}
}
