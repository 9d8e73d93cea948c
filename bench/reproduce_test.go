package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `bench reproduce` on a cut-down baselines campaign (the first 200 jobs
// of FB-2009 on 4 racks × 5 hosts): it runs the sim runs only, prints the
// table and ends with "<paper>: N of M headlines reproduced"; a rerun
// resumes; `bench report` shows the same table.
func TestReproduceEndToEnd(t *testing.T) {
	trace, err := filepath.Abs(fb2009)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(trace); err != nil {
		t.Fatalf("FB-2009 trace missing from traces/: %v", err)
	}
	src, err := os.ReadFile("../campaigns/baselines.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for old, new := range map[string]string{
		"cluster: {racks: 20, hosts_per_rack: 30,":           "cluster: {racks: 4, hosts_per_rack: 5,",
		"../traces/swim/FB-2009_samples_24_times_1hr_0.tsv}": trace + ", max_jobs: 200}",
		"    repetitions: 3\n":                               "    repetitions: 2\n  - {mode: local, policies: [fifo], repetitions: 1}\n",
	} {
		if !strings.Contains(text, old) {
			t.Fatalf("campaigns/baselines.yaml no longer has %q", old)
		}
		text = strings.Replace(text, old, new, 1)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "baselines.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	args := []string{"reproduce", "baselines", "--campaigns", dir, "--out", out, "--quiet"}
	first := runBench(t, args...)
	lines := strings.Split(strings.TrimRight(first, "\n"), "\n")
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^baselines: [0-9]+ of 1 headlines reproduced( \([0-9]+ on direction only: no figure in the source\))?$`).MatchString(last) {
		t.Fatalf("last line %q:\n%s", last, first)
	}
	if !strings.Contains(first, "node_local_frac") || !strings.Contains(first, "fair vs fifo") {
		t.Errorf("no row in:\n%s", first)
	}
	// the sim runs only: no local result set
	if _, err := os.Stat(filepath.Join(out, "local")); !os.IsNotExist(err) {
		t.Errorf("the local runs ran too (%v)", err)
	}
	done, _ := filepath.Glob(filepath.Join(out, "sim", "*", "done.json"))
	if len(done) != 4 {
		t.Errorf("%d sim runs done, want 4", len(done))
	}
	if again := runBench(t, args...); again != first {
		t.Errorf("the rerun printed another table:\n%s\nfirst:\n%s", again, first)
	}
	runBench(t, "report", out)
	md, err := os.ReadFile(filepath.Join(out, "report", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Headlines") || !strings.Contains(string(md), last) {
		t.Errorf("report.md lacks the headlines section or %q", last)
	}
	html, err := os.ReadFile(filepath.Join(out, "report", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `id="headlines"`) || !strings.Contains(string(html), last) {
		t.Errorf("report.html lacks the headlines section or %q", last)
	}
}

func TestReproduceRejects(t *testing.T) {
	dir := t.TempDir()
	for name, args := range map[string][]string{
		"no such paper": {"reproduce", "nopaper", "--campaigns", dir},
		"unknown mode":  {"reproduce", "baselines", "--campaigns", "../campaigns", "--mode", "remote"},
		"no headlines":  {"reproduce", "demo", "--campaigns", "../campaigns", "--out", dir},
	} {
		cmd := rootCmd()
		var errb strings.Builder
		cmd.SetOut(&strings.Builder{})
		cmd.SetErr(&errb)
		cmd.SetArgs(args)
		if err := cmd.Execute(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
