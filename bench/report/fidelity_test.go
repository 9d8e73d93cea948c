package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A campaign's fidelity.csv becomes a section with its summary and a
// scatter of simulated and replayed against live JCT; a bad file is
// refused with its name and line.
func TestFidelitySection(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "local"), knownRuns()[:2])
	head := "run,policy,seed,job,jct_live_s,jct_sim_s,jct_replay_s,jct_sim_ratio,jct_replay_ratio,cross_live_bytes,cross_sim_bytes,cross_replay_bytes,cross_sim_ratio,cross_replay_ratio\n"
	writeFile(t, filepath.Join(dir, FidelityFile), head+
		"local/fifo-seed1,fifo,1,a,10.000000,12.000000,10.500000,1.2,1.05,100,90,100,0.9,1\n"+
		"local/fifo-seed1,fifo,1,b,4.000000,4.000000,5.000000,1,1.25,0,0,0,1,1\n"+
		"local/fifo-seed1,fifo,1,c,6.000000,,,,,50,0,60,0,1.2\n")
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var c *Comparison
	for _, x := range r.Comparisons {
		if x.Fidelity {
			c = x
		}
	}
	if c == nil || len(c.Figures) != 1 || c.Figures[0].SVGPath == "" {
		t.Fatalf("no fidelity section with a figure: %+v", r.Comparisons)
	}
	want := "replayed JCT within 15% of live for 1 of 2 jobs (50%); simulated JCT within 15% for 1 of 2 jobs (50%); replayed cross-rack bytes within 1% of live for 2 of 3 jobs (67%)"
	if !strings.Contains(c.Note, want) {
		t.Errorf("note %q, want it to contain %q", c.Note, want)
	}
	md, err := os.ReadFile(r.MarkdownPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Fidelity: live runs simulated and replayed") || !strings.Contains(string(md), "fidelity-jct.png") {
		t.Errorf("report.md lacks the fidelity section:\n%s", md)
	}
	html, err := os.ReadFile(r.HTMLPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `id="fidelity"`) || !strings.Contains(string(html), want) {
		t.Errorf("report.html lacks the fidelity section")
	}

	writeFile(t, filepath.Join(dir, FidelityFile), head+"local/fifo-seed1,fifo,1,a,ten,12,10.5,1.2,1.05,100,90,100,0.9,1\n")
	if _, err := Generate(dir, Options{}); err == nil || !strings.Contains(err.Error(), "fidelity.csv:2") {
		t.Errorf("bad fidelity.csv: %v", err)
	}
}

// A job whose JCT is 0 live and 0 replayed is within the tolerance, as
// bench/fidelity's ratio of them (1) says: before, 0/0 − 1 was NaN, and
// the note counted the job as off.
func TestFidelityOfZeroJCTs(t *testing.T) {
	dir := t.TempDir()
	writeSet(t, filepath.Join(dir, "local"), knownRuns()[:2])
	writeFile(t, filepath.Join(dir, FidelityFile), "run,policy,seed,job,jct_live_s,jct_sim_s,jct_replay_s,jct_sim_ratio,jct_replay_ratio,cross_live_bytes,cross_sim_bytes,cross_replay_bytes,cross_sim_ratio,cross_replay_ratio\n"+
		"local/fifo-seed1,fifo,1,a,0.000000,0.000000,0.000000,1.000000,1.000000,0,0,0,1.000000,1.000000\n"+
		"local/fifo-seed1,fifo,1,b,4.000000,4.000000,5.000000,1.000000,1.250000,0,0,0,1.000000,1.000000\n")
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "replayed JCT within 15% of live for 1 of 2 jobs (50%); simulated JCT within 15% for 2 of 2 jobs (100%)"
	note := ""
	for _, c := range r.Comparisons {
		if c.Fidelity {
			note = c.Note
		}
	}
	if !strings.Contains(note, want) {
		t.Errorf("note %q, want it to contain %q", note, want)
	}
}
