package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A campaign's sweeps reach its report: `bench run` and `bench report`
// both draw the sweep's figure of the gain against the workloads' x.
func TestCampaignSweepFigure(t *testing.T) {
	dir := t.TempDir()
	campaign := `name: sweep
cluster: {racks: 2, hosts_per_rack: 3, slots: 4}
workloads:
  e0:  {generator: {name: recurring, set: w1, scale: 0.002, arrivals: once, size_error: 0}}
  e50: {generator: {name: recurring, set: w1, scale: 0.002, arrivals: once, size_error: 0.5}}
runs:
  - {mode: sim, policies: [fifo, fair], repetitions: 1}
sweeps:
  - {name: size-error, x: largest size error, metric: makespan_s, policies: [fair], baseline: fifo, points: {e0: 0, e50: 0.5}}
`
	path := filepath.Join(dir, "sweep.yaml")
	if err := os.WriteFile(path, []byte(campaign), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	runBench(t, "run", path, "--out", out, "--quiet")
	svg := filepath.Join(out, "report", "sim-sweep-size-error.svg")
	if _, err := os.Stat(svg); err != nil {
		t.Fatalf("bench run drew no sweep figure: %v", err)
	}
	if err := os.Remove(svg); err != nil {
		t.Fatal(err)
	}
	runBench(t, "report", out)
	if _, err := os.Stat(svg); err != nil {
		t.Fatalf("bench report drew no sweep figure: %v", err)
	}
	md, err := os.ReadFile(filepath.Join(out, "report", "report.md"))
	if err != nil || !strings.Contains(string(md), "e0 = 0, e50 = 0.5") {
		t.Errorf("report.md lacks the sweep's caption (%v)", err)
	}
}

// A sweep whose points are run sets (other clusters) reaches the report
// too: one figure for the mode, across the run sets.
func TestCampaignRunSetSweepFigure(t *testing.T) {
	dir := t.TempDir()
	campaign := `name: sweep
cluster: {racks: 2, hosts_per_rack: 3, slots: 4}
workload: {generator: {name: recurring, set: w1, scale: 0.002, arrivals: once, size_error: 0}}
runs:
  - {mode: sim, name: slots2, cluster: {racks: 2, hosts_per_rack: 3, slots: 2}, policies: [fifo, fair], repetitions: 1}
  - {mode: sim, name: slots4, policies: [fifo, fair], repetitions: 1}
sweeps:
  - {name: slots, x: slots a machine, metric: makespan_s, policies: [fair], baseline: fifo, points: {'@slots2': 2, '@slots4': 4}}
`
	path := filepath.Join(dir, "sweep.yaml")
	if err := os.WriteFile(path, []byte(campaign), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	runBench(t, "run", path, "--out", out, "--quiet")
	if _, err := os.Stat(filepath.Join(out, "report", "sim-sweep-slots.svg")); err != nil {
		t.Fatalf("bench run drew no sweep figure: %v", err)
	}
	md, err := os.ReadFile(filepath.Join(out, "report", "report.md"))
	if err != nil || !strings.Contains(string(md), "@slots2 = 2, @slots4 = 4") || !strings.Contains(string(md), "sweeps across run sets") {
		t.Errorf("report.md lacks the sweep's section and caption (%v)", err)
	}
}
