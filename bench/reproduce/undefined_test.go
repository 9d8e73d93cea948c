package reproduce

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
)

// A run in which nothing finished writes 0 for its completion times
// (summary.csv has no other value for them); a verdict must not read that
// 0 as a measured time: the row is not measured. Without the guard, fair's
// mean JCT (0 + 10) / 2 against fifo's 20 read -75%, and its mean WCT
// (0 + 50) / 2 against 60 read -58%: "reproduced" against the paper's -66%.
func TestNothingFinishedIsNotMeasured(t *testing.T) {
	text := campaignText + `    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-66%"}
    - {metric: wct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-66%"}
    - {metric: cross_rack_bytes_per_workload, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-66%"}
`
	tb, err := parseText(t, text)
	if err != nil {
		t.Fatal(err)
	}
	finished := func(policy string, seed uint64, jct, wct float64) metrics.Summary {
		return metrics.Summary{Policy: policy, Seed: seed, Jobs: 10, JCTMeanS: jct, WCTMeanS: wct,
			Workloads: 4, WorkloadsFinished: 4, CrossRackBytesPerWorkload: 100}
	}
	nothing := metrics.Summary{Policy: "fair", Seed: 2, Jobs: 10, UnfinishedJobs: 10, Workloads: 4}
	dir := t.TempDir()
	writeRuns(t, dir, finished("fifo", 1, 20, 60), finished("fair", 1, 10, 50), finished("fifo", 2, 20, 60), nothing)
	ch, err := Evaluate(parseCampaign(t, text), tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"jct_mean_s":                    "jct_mean_s is undefined in fair-seed2 (no job finished)",
		"wct_mean_s":                    "wct_mean_s is undefined in fair-seed2 (no workload finished)",
		"cross_rack_bytes_per_workload": "cross_rack_bytes_per_workload is undefined in fair-seed2 (no workload finished)",
	}
	for _, r := range ch.Results[1:] {
		if r.Outcome != NotMeasured || r.Why != want[r.Row.Metric] {
			t.Errorf("%s: %v %q (measured %g), want not measured: %s", r.Row.Metric, r.Outcome, r.Why, r.Measured, want[r.Row.Metric])
		}
	}
	// a summary.csv from before workloads were counted (0 workloads): its
	// runs ran every job to the end, and their WCT stands
	old := metrics.Summary{Policy: "fair", Seed: 2, Jobs: 10, JCTMeanS: 10, WCTMeanS: 50}
	dir = t.TempDir()
	writeRuns(t, dir, finished("fifo", 1, 20, 60), finished("fair", 1, 10, 50), finished("fifo", 2, 20, 60), old)
	if ch, err = Evaluate(parseCampaign(t, text), tb, dir, "sim"); err != nil {
		t.Fatal(err)
	}
	if r := ch.Results[2]; r.Row.Metric != "wct_mean_s" || r.Outcome == NotMeasured {
		t.Errorf("an old summary's WCT: %v %q", r.Outcome, r.Why)
	}
}

// 0 against 0 under a relative effect is undefined (doc.go), not a
// change of 0 in the wrong direction.
func TestZeroAgainstZeroIsNotMeasured(t *testing.T) {
	text := campaignText + `    - {metric: cross_duplicate_bytes, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-50%"}
`
	tb, err := parseText(t, text)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeRuns(t, dir, run("fifo", 1, 0, 20), run("fair", 1, 0, 9), run("fifo", 2, 0, 20), run("fair", 2, 0, 11))
	ch, err := Evaluate(parseCampaign(t, text), tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	r := ch.Results[1]
	if r.Outcome != NotMeasured || !math.IsNaN(r.Measured) || !strings.Contains(r.Why, "the effect is undefined") {
		t.Errorf("0 against 0: %v %q (measured %g), want not measured", r.Outcome, r.Why, r.Measured)
	}
}

// A failed job makes a run another measurement than its repetitions, in
// whichever queue it failed: a row over another queue is not measured.
func TestFailedJobInAnotherQueue(t *testing.T) {
	dir := queueResults(t)
	// fair's seed 2 lost an ad hoc job: its summary counts it, the
	// default queue's jobs do not
	rows := []metrics.Summary{}
	for _, p := range []string{"fifo", "fair"} {
		for _, seed := range []uint64{1, 2} {
			s := metrics.Summary{Policy: p, Seed: seed, Jobs: 12, MakespanS: 200, JCTMeanS: 50, JCTP90S: 90}
			if p == "fair" && seed == 2 {
				s.FailedJobs = 1
			}
			rows = append(rows, s)
		}
	}
	writeRuns(t, dir, rows...)
	tb, err := parseText(t, queueRows)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Evaluate(parseCampaign(t, queueRows), tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	r := ch.Results[4] // jct_mean_s over queue default
	if r.Row.Queue != "default" || r.Outcome != NotMeasured || r.Why != "failed jobs in the runs of fair: 1" {
		t.Errorf("queue %s: %v %q, want not measured: failed jobs", r.Row.Queue, r.Outcome, r.Why)
	}
}

// A row whose policy and baseline run only in different modes is
// measured by neither mode's table: the campaign is refused.
func TestRowAcrossModesRefused(t *testing.T) {
	text := `name: paper
cluster: {racks: 2, hosts_per_rack: 2}
workload:
  file: w.yaml
runs:
  - mode: sim
    name: varys
    policies: [fifo, fair]
  - mode: local
    name: tc
    policies: [fifo, fair]
headlines:
  title: a table
  rows:
    - {metric: jct_mean_s, effect: relative, policy: fair@varys, baseline: fifo@tc, workload: w, figure: f, spec: s, paper: "-50%"}
`
	_, err := parseText(t, text)
	if err == nil || !strings.Contains(err.Error(), "no one mode runs both fair@varys and fifo@tc") {
		t.Errorf("a row across modes: %v", err)
	}
	ok := strings.Replace(text, "fifo@tc", "fifo@varys", 1)
	if _, err := parseText(t, ok); err != nil {
		t.Errorf("a row of one mode: %v", err)
	}
}

// Points are a difference of two shares: at most 100.
func TestPointsBeyondAHundredRefused(t *testing.T) {
	text := strings.Replace(campaignText, "paper: +12pp", "paper: +150pp", 1)
	if _, err := parseText(t, text); err == nil || !strings.Contains(err.Error(), "at most 100 points") {
		t.Errorf("+150pp: %v", err)
	}
}

// The report's table of a mode counts the mode's own rows, as the page
// and the command do: a row on a workload only the simulator runs is not
// one of the emulation's.
func TestForResultDirCountsTheModesOwnRows(t *testing.T) {
	text := namedText + `    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-50%", in: ml}
    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-50%", in: tpch}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := []metrics.Summary{run("fifo", 1, 0, 20), run("fair", 1, 0, 10), run("fifo", 2, 0, 20), run("fair", 2, 0, 10)}
	for _, d := range []string{filepath.Join("sim", "ml"), filepath.Join("sim", "tpch"), filepath.Join("local", "ml")} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := metrics.WriteSummaries(filepath.Join(dir, d, "summary.csv"), rows); err != nil {
			t.Fatal(err)
		}
	}
	hs, err := ForResultDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || len(hs[0].Rows) != 2 || len(hs[1].Rows) != 1 || !strings.Contains(hs[1].Summary, " of 1 headlines") {
		for _, h := range hs {
			t.Logf("%d rows, %q", len(h.Rows), h.Summary)
		}
		t.Fatalf("%d tables: want sim's 2 rows and local's 1", len(hs))
	}
}

// A run that lost a host reran that host's work on others: the row is
// not measured, as with a failed job.
func TestHostLostIsNotMeasured(t *testing.T) {
	lost := run("fair", 2, 0.8, 11)
	lost.HostsLost = 1
	dir := t.TempDir()
	writeRuns(t, dir, run("fifo", 1, 0.6, 20), run("fair", 1, 0.7, 9), run("fifo", 2, 0.6, 20), lost)
	for i, r := range evaluate(t, dir).Results {
		if r.Outcome != NotMeasured || r.Why != "hosts lost in the runs of fair: 1" {
			t.Errorf("row %d: %v %q, want not measured: hosts lost", i+1, r.Outcome, r.Why)
		}
	}
}
