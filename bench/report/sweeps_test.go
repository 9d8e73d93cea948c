package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sweepRuns are fifo and fair with three seeds each: fifo's makespan
// 100, 200, 400 and fair's that times 1+gains[seed-1].
func sweepRuns(gains [3]float64) []fakeRun {
	var out []fakeRun
	for seed := uint64(1); seed <= 3; seed++ {
		base := 100 * float64(uint64(1)<<(seed-1))
		out = append(out,
			fakeRun{policy: "fifo", seed: seed, values: map[string]float64{"makespan_s": base}},
			fakeRun{policy: "fair", seed: seed, values: map[string]float64{"makespan_s": base * (1 + gains[seed-1])}})
	}
	return out
}

// A sweep is a figure, per mode that runs its workloads, of the gain of
// a policy over the baseline, paired by seed, against the workloads' x.
func TestSweepFigure(t *testing.T) {
	dir := t.TempDir()
	// per seed: at x=0 -50%, 0, 0 (paired mean -16.7%; the ratio of the
	// means would say -7.1%); at x=0.5 -10% each; at x=1 +20% each
	writeSet(t, filepath.Join(dir, "sim", "e0"), sweepRuns([3]float64{-0.5, 0, 0}))
	writeSet(t, filepath.Join(dir, "sim", "e50"), sweepRuns([3]float64{-0.1, -0.1, -0.1}))
	writeSet(t, filepath.Join(dir, "sim", "e100"), sweepRuns([3]float64{0.2, 0.2, 0.2}))
	writeSet(t, filepath.Join(dir, "sim", "other"), sweepRuns([3]float64{0.2, 0.2, 0.2}))
	sweeps := []Sweep{
		{Name: "err", XLabel: "error level", Metric: "makespan_s", Policies: []string{"fair"}, Baseline: "fifo",
			// out of order, and one point the mode did not run
			Points: []SweepPoint{{Workload: "e100", X: 1}, {Workload: "e0", X: 0}, {Workload: "e50", X: 0.5}, {Workload: "e200", X: 2}}},
		{Name: "elsewhere", XLabel: "x", Metric: "makespan_s", Policies: []string{"fair"}, Baseline: "fifo",
			Points: []SweepPoint{{Workload: "a", X: 0}, {Workload: "b", X: 1}}},
	}
	r, err := Generate(dir, Options{Sweeps: sweeps, Workloads: []string{"e0", "e50", "e100", "other"}})
	if err != nil {
		t.Fatal(err)
	}
	f := findFigure(t, r, "sim-sweep-err")
	for _, want := range []string{
		"fair: at 0 (e0) -16.667 ± 71.711%", "at 0.5 (e50) -10.000 ± 0.000%", "at 1 (e100) 20.000 ± 0.000%",
	} {
		if !strings.Contains(f.Alt, want) {
			t.Errorf("alt text %q lacks %q", f.Alt, want)
		}
	}
	if !strings.Contains(f.Caption, "Not run in this mode: e200") || !strings.Contains(f.Caption, "e0 = 0, e50 = 0.5, e100 = 1") {
		t.Errorf("caption %q: want the points in x order and e200 as not run", f.Caption)
	}
	if f.NoData != "" || f.SVGPath == "" {
		t.Fatalf("figure not drawn: %q", f.NoData)
	}
	if _, err := os.Stat(filepath.Join(dir, "report", "sim-sweep-err.svg")); err != nil {
		t.Fatal(err)
	}
	for _, g := range r.Figures() {
		if strings.Contains(g.ID, "elsewhere") {
			t.Errorf("figure %s drawn for a sweep whose workloads the campaign did not run", g.ID)
		}
	}
	md, err := os.ReadFile(r.MarkdownPath)
	if err != nil || !strings.Contains(string(md), "sim-sweep-err") {
		t.Errorf("report.md does not show the sweep figure (%v)", err)
	}

	// no pair of runs: a line saying so, not empty axes
	dir = t.TempDir()
	for _, wl := range []string{"e0", "e50"} {
		writeSet(t, filepath.Join(dir, "sim", wl), []fakeRun{{policy: "fifo", seed: 1}, {policy: "fair", seed: 2}})
	}
	r, err = Generate(dir, Options{Sweeps: sweeps[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if f := findFigure(t, r, "sim-sweep-err"); !strings.Contains(f.NoData, "no workload of the sweep has paired runs") {
		t.Errorf("unpaired runs: no-data line %q", f.NoData)
	}
}

// A named run set of the same mode that shares one workload with a sweep
// (another cluster, another variant) gets no figure of its own: before,
// its one-point figure took the mode's file name and overwrote the sweep
// of the run set that ran it. A named run set that runs the sweep gets
// its own file.
func TestSweepFigurePerRunSet(t *testing.T) {
	dir := t.TempDir()
	for wl, g := range map[string]float64{"e0": -0.5, "e50": -0.1} {
		writeSet(t, filepath.Join(dir, "sim", wl), sweepRuns([3]float64{g, g, g}))
		writeSet(t, filepath.Join(dir, "sim-twin", wl), sweepRuns([3]float64{g / 2, g / 2, g / 2}))
	}
	writeSet(t, filepath.Join(dir, "sim-other", "e0"), sweepRuns([3]float64{0.3, 0.3, 0.3}))
	sweeps := []Sweep{{Name: "err", XLabel: "error level", Metric: "makespan_s", Policies: []string{"fair"}, Baseline: "fifo",
		Points: []SweepPoint{{Workload: "e0", X: 0}, {Workload: "e50", X: 0.5}}}}
	r, err := Generate(dir, Options{Sweeps: sweeps, Workloads: []string{"e0", "e50"}})
	if err != nil {
		t.Fatal(err)
	}
	if f := findFigure(t, r, "sim-sweep-err"); !strings.Contains(f.Alt, "at 0 (e0) -50.000") {
		t.Errorf("the main run set's sweep: alt text %q", f.Alt)
	}
	if f := findFigure(t, r, "sim-twin-sweep-err"); !strings.Contains(f.Alt, "at 0 (e0) -25.000") {
		t.Errorf("run set twin's sweep: alt text %q", f.Alt)
	}
	for _, g := range r.Figures() {
		if strings.Contains(g.ID, "other") && strings.Contains(g.ID, "sweep") {
			t.Errorf("figure %s drawn for a run set that ran one point of the sweep", g.ID)
		}
	}
}

// A sweep over run sets is drawn once per mode, across the run sets its
// points name (a plain workload being the unnamed run set's), in a
// section of its own; no run set gets a figure of it.
func TestSweepFigureOverRunSets(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "sim", "fb"), sweepRuns([3]float64{-0.2, -0.2, -0.2}))
	writeSet(t, filepath.Join(dir, "sim-os2", "fb"), sweepRuns([3]float64{-0.4, -0.4, -0.4}))
	writeSet(t, filepath.Join(dir, "sim-os4", "fb"), sweepRuns([3]float64{-0.6, -0.6, -0.6}))
	// the same workload in a run set that is no point of the sweep
	writeSet(t, filepath.Join(dir, "sim-other", "fb"), sweepRuns([3]float64{0.9, 0.9, 0.9}))
	sweeps := []Sweep{{Name: "oversub", XLabel: "oversubscription", Metric: "makespan_s", Policies: []string{"fair"}, Baseline: "fifo", OverRunSets: true,
		Points: []SweepPoint{{Workload: "fb", RunSet: "os4", X: 4}, {Workload: "fb", X: 1}, {Workload: "fb", RunSet: "os2", X: 2}, {Workload: "fb", RunSet: "os6", X: 6}}}}
	r, err := Generate(dir, Options{Sweeps: sweeps, Workloads: []string{"fb"}})
	if err != nil {
		t.Fatal(err)
	}
	f := findFigure(t, r, "sim-sweep-oversub")
	for _, want := range []string{"fair: at 1 (fb) -20.000 ± 0.000%", "at 2 (fb@os2) -40.000 ± 0.000%", "at 4 (fb@os4) -60.000 ± 0.000%"} {
		if !strings.Contains(f.Alt, want) {
			t.Errorf("alt text %q lacks %q", f.Alt, want)
		}
	}
	if strings.Contains(f.Alt, "90.000") || !strings.Contains(f.Caption, "at each run set of the sweep") || !strings.Contains(f.Caption, "Not run in this mode: fb@os6") {
		t.Errorf("alt %q, caption %q: want the three points, not run set other, and os6 not run", f.Alt, f.Caption)
	}
	var across *Comparison
	for _, c := range r.Comparisons {
		if c.OverRunSets {
			across = c
		}
		for _, g := range c.Figures {
			if strings.Contains(g.ID, "sweep") && g.ID != "sim-sweep-oversub" {
				t.Errorf("figure %s: a sweep over run sets is drawn per run set", g.ID)
			}
		}
	}
	if across == nil || across.Title() != "Mode: sim, sweeps across run sets" || len(across.Sets) != 3 {
		t.Fatalf("comparison across run sets: %+v", across)
	}
	md, err := os.ReadFile(r.MarkdownPath)
	if err != nil || !strings.Contains(string(md), "Result sets: sim/fb, sim-os2/fb, sim-os4/fb") {
		t.Errorf("report.md does not list the sweep's result sets (%v)", err)
	}
	html, err := os.ReadFile(r.HTMLPath)
	if err != nil || !strings.Contains(string(html), `<a href="#mode-sim-os2-fb">sim-os2/fb</a>`) {
		t.Errorf("report.html does not link the sweep's result sets (%v)", err)
	}
}
