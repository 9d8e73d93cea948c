package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Running one mode's run sets after another's (as bench reproduce does,
// --mode sim then --mode local) keeps meta.json's record of the first.
func TestMetaKeptAcrossModes(t *testing.T) {
	c, err := Load(writeCampaign(t, `name: tiny
cluster: {racks: 2, hosts_per_rack: 3}
workload:
  generator: {name: recurring, set: w1, scale: 0.01}
runs:
  - {mode: sim, policies: [fifo]}
  - {mode: sim, name: b, policies: [fifo]}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	all := c.Runs
	read := func() Meta { t.Helper(); return readMeta(t, out) }
	c.Runs = all[:1] // reproduce.Prepare's cut: one mode's run sets
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	first := read()
	time.Sleep(1100 * time.Millisecond)
	c.Runs = all[1:]
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	if second := read(); second.Started != first.Started {
		t.Errorf("meta.json rewritten: started %s, was %s (resumed %v); the kept runs' record is lost", second.Started, first.Started, second.Resumed)
	}
}

// A resumption whose workload file changed since the kept runs were made
// is refused: the summary would set a run of the old trace beside one of
// the new. Restored, it resumes.
func TestResumeRefusedWhenAnInputChanged(t *testing.T) {
	src, err := os.ReadFile(fb2009)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.tsv")
	lines := strings.SplitAfter(string(src), "\n")
	first, second := strings.Join(lines[:40], ""), strings.Join(lines[40:80], "")
	if err := os.WriteFile(trace, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(writeCampaign(t, "name: x\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload: {swim: {trace: "+trace+", max_jobs: 20}}\nruns: [{mode: sim, policies: [fifo, fair]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	if m := readMeta(t, out); len(m.Inputs) != 1 {
		t.Fatalf("meta.json's inputs %v, want the trace's digest", m.Inputs)
	}
	// the trace changes; the fair run is cut off (no done.json)
	if err := os.WriteFile(trace, []byte(second), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(c.Matrix(out)[1].Dir, doneFile)); err != nil {
		t.Fatal(err)
	}
	err = Execute(context.Background(), c, Options{Out: out, Parallel: 1})
	if err == nil || !strings.Contains(err.Error(), "t.tsv") || !strings.Contains(err.Error(), "other contents") {
		t.Fatalf("resumed with a changed trace: %v", err)
	}
	if err := os.WriteFile(trace, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatalf("resumed with the trace restored: %v", err)
	}
}
