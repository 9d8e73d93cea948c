package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Killed with SIGKILL halfway, `bench run` resumes on a rerun: the runs
// it finished are kept as they were, the rest are done.
func TestRunKilledHalfwayResumes(t *testing.T) {
	trace, err := filepath.Abs(fb2009)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(trace); err != nil {
		t.Fatalf("FB-2009 trace missing from traces/: %v", err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	camp := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(camp, []byte(`name: killed
cluster: {racks: 4, hosts_per_rack: 5, slots: 4}
workload:
  swim: {trace: `+trace+`, max_jobs: 600}
runs:
  - mode: sim
    policies: [fifo, fair, capacity]
    repetitions: 4
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	done := func() map[string]time.Time {
		m := map[string]time.Time{}
		paths, _ := filepath.Glob(filepath.Join(out, "sim", "*", "done.json"))
		for _, p := range paths {
			fi, err := os.Stat(p)
			if err == nil {
				m[filepath.Base(filepath.Dir(p))] = fi.ModTime()
			}
		}
		return m
	}
	cmd := exec.Command(bin, "run", camp, "--out", out, "--parallel", "1", "--quiet")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for len(done()) < 3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no three runs finished in two minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// a second bench on the same directory is refused, naming the first
	second, err := exec.Command(bin, "run", camp, "--out", out, "--quiet").CombinedOutput()
	if want := fmt.Sprintf("pid %d", cmd.Process.Pid); err == nil || !strings.Contains(string(second), want) {
		t.Errorf("a second bench run while the first runs: %v, want a refusal naming %s:\n%s", err, want, second)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	before := done()
	if len(before) >= 12 {
		t.Skip("the campaign finished before it could be killed")
	}
	// the report of the killed campaign says it is partial
	if res, err := exec.Command(bin, "report", out).CombinedOutput(); err != nil {
		t.Fatalf("bench report: %v\n%s", err, res)
	}
	md, err := os.ReadFile(filepath.Join(out, "report", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\*\*partial: [0-9]+ of 12 runs done\*\*`).Match(md) {
		t.Errorf("the report of the killed campaign does not say it is partial:\n%.400s", md)
	}
	rerun, err := exec.Command(bin, "run", camp, "--out", out, "--quiet").CombinedOutput()
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, rerun)
	}
	if !strings.Contains(string(rerun), "resuming") {
		t.Errorf("the rerun did not say it resumed:\n%s", rerun)
	}
	after := done()
	if len(after) != 12 {
		t.Fatalf("%d runs done after the rerun, want 12", len(after))
	}
	for run, stamp := range before {
		if !after[run].Equal(stamp) {
			t.Errorf("run %s, finished before the kill, was redone", run)
		}
	}
	if md, err := os.ReadFile(filepath.Join(out, "report", "report.md")); err != nil || strings.Contains(string(md), "partial") {
		t.Errorf("the report of the finished campaign: %v, or says it is partial", err)
	}
}

// The demo campaign — 3 policies × 2 repetitions simulated, 2 policies ×
// 1 repetition on an emulated cluster — produces a report with both
// modes, and the emulated runs' kernel counts match the engine's. Needs
// root.
func TestDemoCampaignReport(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for the emulated cluster")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "demo")
	res, err := exec.Command(bin, "run", "../campaigns/demo.yaml", "--out", out, "--quiet", "--prefix", "tdemo").CombinedOutput()
	if err != nil {
		t.Fatalf("bench run: %v\n%s", err, res)
	}
	if !strings.Contains(string(res), filepath.Join(out, "report", "report.html")) {
		t.Errorf("bench run did not say where the report is:\n%s", res)
	}
	html, err := os.ReadFile(filepath.Join(out, "report", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"local-jct-cdf", "sim-jct-cdf", "capacity"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, p := range []string{"local/fifo-seed1", "local/fair-seed1"} {
		b, err := os.ReadFile(filepath.Join(out, p, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Expected float64 `json:"expected_cross_rack_bytes"`
			Kernel   float64 `json:"kernel_cross_rack_bytes"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if r.Expected <= 0 || r.Kernel/r.Expected < 0.97 || r.Kernel/r.Expected > 1.03 {
			t.Errorf("%s: kernel counted %.0f cross-rack bytes, the engine expected %.0f", p, r.Kernel, r.Expected)
		}
	}
	sims, _ := filepath.Glob(filepath.Join(out, "sim", "*", "done.json"))
	if len(sims) != 6 {
		t.Errorf("%d simulated runs done, want 6", len(sims))
	}
}
