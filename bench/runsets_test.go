package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nets runs fifo and capacity on max-min (the unnamed sim run set) and on
// Varys (a named one), with a row across the two.
const nets = `name: nets
cluster: {racks: 2, hosts_per_rack: 3}
workload:
  generator: {name: recurring, set: w1, scale: 0.01}
runs:
  - {mode: sim, policies: [fifo, capacity]}
  - {mode: sim, name: varys, network: varys, policies: [fifo, capacity]}
  - {mode: local, policies: [fifo]}
headlines:
  title: two networks
  rows:
    - {metric: jct_mean_s, effect: relative, policy: capacity@varys, baseline: capacity, workload: w, figure: f, spec: s, paper: lower}
`

// `bench reproduce --mode sim` runs every sim run set, named or not, and
// checks a row across them; `bench run` then resumes them all and prints
// each run set's table as a simulated one's.
func TestReproduceAndRunNamedRunSets(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nets.yaml"), []byte(nets), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	text := runBench(t, "reproduce", "nets", "--campaigns", dir, "--out", out, "--quiet")
	if !strings.Contains(text, "capacity@varys vs capacity") || !strings.HasSuffix(text, "nets: 0 of 1 headlines reproduced\n") && !strings.HasSuffix(text, "nets: 1 of 1 headlines reproduced (1 on direction only: no figure in the source)\n") {
		t.Fatalf("reproduce printed:\n%s", text)
	}
	if strings.Contains(text, "not measured") {
		t.Errorf("the row was not measured:\n%s", text)
	}
	for _, set := range []string{"sim", "sim-varys"} {
		done, _ := filepath.Glob(filepath.Join(out, set, "*", "done.json"))
		if len(done) != 2 {
			t.Errorf("%s: %d runs done, want 2", set, len(done))
		}
	}
	if _, err := os.Stat(filepath.Join(out, "local")); !os.IsNotExist(err) {
		t.Errorf("the local runs ran too (%v)", err)
	}
	// bench run needs root for the local run set: drop it from a copy
	// (into another result directory, holding the sim results)
	simOnly := strings.Replace(nets, "  - {mode: local, policies: [fifo]}\n", "", 1)
	path := filepath.Join(dir, "sim-only.yaml")
	if err := os.WriteFile(path, []byte(simOnly), 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "results2")
	for _, set := range []string{"sim", "sim-varys"} {
		if err := os.CopyFS(filepath.Join(out2, set), os.DirFS(filepath.Join(out, set))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out2, "campaign.yaml"), []byte(simOnly), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(out2, "sim-varys", "capacity-seed1", "done.json")
	before, err := os.Stat(marker)
	if err != nil {
		t.Fatal(err)
	}
	run := runBench(t, "run", path, "--out", out2, "--quiet")
	if after, err := os.Stat(marker); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("bench run redid a finished run of the named run set (%v)", err)
	}
	if !strings.Contains(run, "\nsim:\n") || !strings.Contains(run, "\nsim-varys:\n") {
		t.Errorf("bench run does not show both run sets:\n%s", run)
	}
	if strings.Contains(run, "kernel cross B") {
		t.Errorf("bench run shows kernel counts of a simulated run set:\n%s", run)
	}
	md, err := os.ReadFile(filepath.Join(out2, "report", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "Mode: sim, run set: varys") || !strings.Contains(string(md), "capacity@varys vs capacity") {
		t.Errorf("report.md lacks the run set's section or the row")
	}
}
