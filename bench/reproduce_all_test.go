package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tinyPaper is a paper of `bench reproduce all` in a test: two small jobs
// on 2 racks × 2 hosts, fifo and fair simulated and emulated once.
const tinyPaper = `name: tiny
cluster: {racks: 2, hosts_per_rack: 2, slots: 2}
workload:
  file: workload.yaml
  datasets: datasets.yaml
runs:
  - {mode: sim, policies: [fifo, fair]}
  - {mode: local, policies: [fifo, fair], compute: sleep}
headlines:
  title: tiny's table
  rows:
    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: lower}
`

const tinyWorkload = `jobs:
  - id: a
    arrival_s: 0
    stages:
      - {name: map, kind: map, input: a, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 2, after: [map], selectivity: 1}
`

const tinyDatasets = `block_size_bytes: 16777216
replication: 1
datasets:
  - {name: a, size_bytes: 33554432}
`

// execBench runs bench and returns its stdout and error.
func execBench(args ...string) (string, error) {
	cmd := rootCmd()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// `bench reproduce all`: a paper with no campaign fails (the command
// says so) and the other runs; the page is written, and the last line
// has every paper; --page-only writes it again without running.
func TestReproduceAll(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"tiny.yaml": tinyPaper, "workload.yaml": tinyWorkload, "datasets.yaml": tinyDatasets} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "all")
	stdout, err := execBench("reproduce", "all", "--campaigns", dir, "--papers", "nosuch,tiny", "--out", out, "--quiet")
	if err == nil || !strings.Contains(err.Error(), "nosuch failed") {
		t.Errorf("error %v, want nosuch's failure", err)
	}
	last := regexp.MustCompile(`(?m)^Reproduced: nosuch: no results; tiny [01] of 1 \(simulation\), emulation not run\n\z`)
	if !last.MatchString(stdout) {
		t.Errorf("output:\n%s", stdout)
	}
	if !strings.Contains(stdout, "failed: mode sim: no campaign for paper nosuch") {
		t.Errorf("the failure is not said:\n%s", stdout)
	}
	for _, f := range []string{"reproduction.html", "reproduction.md", "tiny/sim/summary.csv", "tiny/twin/sim/summary.csv", "tiny/report/report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	html := filepath.Join(out, "reproduction.html")
	if err := os.Remove(html); err != nil {
		t.Fatal(err)
	}
	again, err := execBench("reproduce", "all", "--papers", "nosuch,tiny", "--out", out, "--page-only", "--campaigns", filepath.Join(dir, "none"))
	if err != nil {
		t.Fatalf("--page-only: %v", err)
	}
	if again != stdout {
		t.Errorf("--page-only said\n%s\nthe run said\n%s", again, stdout)
	}
	if _, err := os.Stat(html); err != nil {
		t.Errorf("--page-only wrote no page: %v", err)
	}
	if _, err := execBench("reproduce", "tiny", "--campaigns", dir, "--out", out, "--page-only"); err == nil {
		t.Errorf("--page-only accepted for one paper")
	}
}
