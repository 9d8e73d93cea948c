package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A campaign's named run sets (<mode>-<name>/) are sections of their own,
// after the mode's unnamed one, with their own figures; their named
// workloads are compared side by side as a mode's are.
func TestReportOfNamedRunSets(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "sim"), knownRuns())
	for _, wl := range []string{"a", "b"} {
		writeSet(t, filepath.Join(dir, "sim-varys", wl), knownRuns())
	}
	writeSet(t, filepath.Join(dir, "local-small"), knownRuns()[:4])
	// not a run set: a file, and a directory of no mode
	writeFile(t, filepath.Join(dir, "sim-notes"), "a file")
	writeSet(t, filepath.Join(dir, "simulated"), knownRuns())
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var titles, anchors []string
	for _, m := range r.Modes {
		titles = append(titles, m.Title())
		anchors = append(anchors, m.Anchor())
	}
	want := "Mode: sim|Mode: sim, run set: varys, workload: a|Mode: sim, run set: varys, workload: b|Mode: local, run set: small"
	if got := strings.Join(titles, "|"); got != want {
		t.Fatalf("sections %q, want %q", got, want)
	}
	if got := strings.Join(anchors, " "); got != "mode-sim mode-sim-varys-a mode-sim-varys-b mode-local-small" {
		t.Errorf("anchors %s", got)
	}
	if len(r.Comparisons) != 1 || r.Comparisons[0].Mode != "sim-varys" || r.Comparisons[0].Anchor() != "workloads-sim-varys" {
		t.Fatalf("comparisons %+v", r.Comparisons)
	}
	// each section's figures have their own files and titles
	for _, id := range []string{"sim-jct-cdf", "sim-varys-a-jct-cdf", "sim-varys-b-jct-cdf", "local-small-jct-cdf", "sim-varys-fig11-workloads"} {
		f := findFigure(t, r, id)
		if _, err := os.Stat(filepath.Join(r.OutDir, id+".svg")); err != nil && f.NoData == "" {
			t.Error(err)
		}
	}
	if f := findFigure(t, r, "sim-varys-a-jct-cdf"); !strings.HasPrefix(f.Title, "sim-varys/a: ") {
		t.Errorf("figure title %q", f.Title)
	}
	html, err := os.ReadFile(r.HTMLPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`id="mode-sim-varys-a"`, `href="#mode-sim-varys-b"`, "Mode: local, run set: small"} {
		if !strings.Contains(string(html), s) {
			t.Errorf("report.html lacks %s", s)
		}
	}
}

// A local campaign's run sets of one workload (switched and flat) are set
// side by side: per-rack link utilisation over time and per-job completion
// times, from the same policy's run of the same seed in each.
func TestLocalRunSetsSideBySide(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "local"), knownRuns())
	flat := knownRuns()
	flat[0].jcts = []float64{2, 4, 10, 80} // fifo, seed 1: twice switched's
	writeSet(t, filepath.Join(dir, "local-flat"), flat)
	writeSet(t, filepath.Join(dir, "sim"), knownRuns())
	writeSet(t, filepath.Join(dir, "sim-varys"), knownRuns())
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var side *Comparison
	for _, c := range r.Comparisons {
		if c.SideBySide {
			if side != nil || c.Mode != "local" {
				t.Fatalf("side-by-side comparisons: %+v", r.Comparisons)
			}
			side = c
		}
	}
	if side == nil || side.Anchor() != "runsets-local" || side.Title() != "Mode: local, run sets side by side" || len(side.Sets) != 2 {
		t.Fatalf("no side-by-side comparison of the local run sets: %+v", r.Comparisons)
	}
	links, jct := findFigure(t, r, "local-runsets-rack-links"), findFigure(t, r, "local-runsets-job-jct")
	for _, f := range []*Figure{links, jct} {
		if f.NoData != "" {
			t.Fatalf("%s: no data: %s", f.ID, f.NoData)
		}
		if _, err := os.Stat(filepath.Join(r.OutDir, f.ID+".svg")); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(links.Caption, "policy fifo's run of seed 1") || !strings.Contains(links.Alt, "local-flat rack 1: uplink mean") {
		t.Errorf("rack-links figure: caption %q, alt %q", links.Caption, links.Alt)
	}
	if !strings.Contains(jct.Caption, "local: mean 12 s over 4 jobs; local-flat: mean 24 s over 4 jobs (+100.0% against local)") {
		t.Errorf("job-JCT caption %q", jct.Caption)
	}
	html, err := os.ReadFile(r.HTMLPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`id="runsets-local"`, `href="#mode-local-flat"`} {
		if !strings.Contains(string(html), s) {
			t.Errorf("report.html lacks %s", s)
		}
	}
}

// A run set none of whose jobs finished has no mean JCT: the job-JCT
// figure's caption says so, and compares no other run set with it
// (before: "mean NaN s over 0 jobs", "+Inf% against local").
func TestSideBySideRunSetWithoutFinishedJobs(t *testing.T) {
	dir := t.TempDir()
	switched := knownRuns()
	switched[0].jcts = []float64{} // fifo, seed 1: only its failed job
	writeSet(t, filepath.Join(dir, "local"), switched)
	writeSet(t, filepath.Join(dir, "local-flat"), knownRuns())
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := findFigure(t, r, "local-runsets-job-jct")
	want := "local: no job finished; local-flat: mean 12 s over 4 jobs."
	if !strings.Contains(f.Caption, want) || strings.Contains(f.Caption, "NaN") || strings.Contains(f.Caption, "Inf") {
		t.Errorf("caption %q, want it to contain %q", f.Caption, want)
	}
}

// A links.csv sample given twice is refused with both lines; before, the
// second value replaced the first unsaid.
func TestLoadRackLinksRefusesARepeatedSample(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "links.csv"), "time_s,direction,rack,utilisation\n1.000000,up,0,0.5\n1.000000,down,0,0.1\n1.000000,up,0,0.9\n")
	_, err := LoadRackLinks(dir)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 4 || !strings.Contains(err.Error(), "on line 2") {
		t.Fatalf("got %v, want an error at line 4 naming line 2", err)
	}
}
