package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/racklab/racklab/coordinator/policy"
)

// hasRow says whether a summary.csv has a row of the run.
func hasRow(t *testing.T, path string, r Run) bool {
	t.Helper()
	rows, err := readSummaryRows(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.cells["policy"] == r.Policy.String() && row.cells["seed"] == "1" && r.Seed == 1 {
			return true
		}
	}
	return false
}

// A run redone on resume (its records damaged) has no row in
// summary.csv while it runs again: a crash then must not leave its old
// figures beside its new, partial records. Temporary files an earlier
// crash left are removed.
func TestRedoneRunLeavesTheSummaryFirst(t *testing.T) {
	c := simCampaign(t)
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	runs := c.Matrix(out)
	redo := runs[1]
	if redo.Seed != 1 {
		t.Fatalf("run %s: want a seed-1 run", redo.ID())
	}
	summary := filepath.Join(out, "sim", "summary.csv")
	if !hasRow(t, summary, redo) {
		t.Fatalf("summary.csv has no row of %s after the campaign", redo.ID())
	}
	if err := os.Truncate(filepath.Join(redo.Dir, "jobs.csv"), 10); err != nil {
		t.Fatal(err)
	}
	temps := []string{filepath.Join(out, ".meta.json.tmp-123"), filepath.Join(out, "sim", ".summary.csv.tmp-456")}
	for _, p := range temps {
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var started []string
	rowWhileRunning := false
	err := Execute(context.Background(), c, Options{Out: out, Parallel: 1, Logf: func(format string, args ...any) {
		if strings.HasSuffix(format, ": started") {
			mu.Lock()
			defer mu.Unlock()
			started = append(started, args[0].(string))
			rowWhileRunning = rowWhileRunning || hasRow(t, summary, redo)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(started) != 1 || started[0] != redo.ID() {
		t.Fatalf("runs started on resume: %v, want only %s", started, redo.ID())
	}
	if rowWhileRunning {
		t.Errorf("summary.csv kept the old row of %s while the run was redone", redo.ID())
	}
	if !hasRow(t, summary, redo) {
		t.Errorf("summary.csv has no row of %s once redone", redo.ID())
	}
	for _, p := range temps {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	if problems, err := ResultDirProblems(out); err != nil || len(problems) != 0 {
		t.Errorf("problems of the resumed result directory: %v %v", problems, err)
	}
}

// The report's check names a summary.csv row that is not a finished
// run's summary: its run has no done.json (an older racklab cut off
// while it redid the run), or a figure differs from done.json's.
func TestProblemsNameRowsThatAreNotFinishedRuns(t *testing.T) {
	c := simCampaign(t)
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	runs := c.Matrix(out)
	summary := filepath.Join(out, "sim", "summary.csv")
	if err := os.Remove(filepath.Join(runs[2].Dir, doneFile)); err != nil {
		t.Fatal(err)
	}
	problems, err := ResultDirProblems(out)
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0], "summary.csv:4: run "+runs[2].ID()+" has not finished (no done.json") {
		t.Fatalf("problems with a row whose run has no done.json: %q %v", problems, err)
	}
	if err := os.RemoveAll(runs[2].Dir); err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}

	// one figure of the first row edited
	orig, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(orig), "\n")
	cells := strings.Split(lines[1], ",")
	cells[6] = "0.5" // jct_mean_s
	lines[1] = strings.Join(cells, ",")
	if err := os.WriteFile(summary, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	problems, err = ResultDirProblems(out)
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0], "summary.csv:2: run "+runs[0].ID()+"'s jct_mean_s is 0.5, its done.json says") {
		t.Fatalf("problems with an edited figure: %q %v", problems, err)
	}
}

// A live run redone keeps its earlier records, moved aside (they are
// measurements no rerun repeats); a simulated run's are removed.
func TestLiveRecordsAreMovedAsideWhenRedone(t *testing.T) {
	out := t.TempDir()
	var logged []string
	ex := &executor{opt: Options{Logf: func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }}}
	for _, mode := range []string{ModeSim, ModeLocal} {
		r := Run{Mode: mode, Set: RunSet{Mode: mode}, Policy: policy.Spec{Name: "fair"}, Seed: 1, Dir: filepath.Join(out, mode, "fair-seed1")}
		if err := os.MkdirAll(r.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.Dir, "jobs.csv"), []byte("job\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := ex.clearRunDir(r); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(r.Dir); err == nil {
			t.Errorf("%s: %s is still there", mode, r.Dir)
		}
		aside, _ := filepath.Glob(r.Dir + ".before-*")
		switch {
		case mode == ModeSim && len(aside) != 0:
			t.Errorf("a simulated run's records were moved aside: %v", aside)
		case mode == ModeLocal && len(aside) != 1:
			t.Errorf("a live run's records were not moved aside: %v", aside)
		case mode == ModeLocal:
			if b, err := os.ReadFile(filepath.Join(aside[0], "jobs.csv")); err != nil || string(b) != "job\n" {
				t.Errorf("the live run's jobs.csv moved aside: %q %v", b, err)
			}
			if len(logged) != 1 || !strings.Contains(logged[0], "local/fair-seed1: its earlier records are kept in "+aside[0]) {
				t.Errorf("log %q", logged)
			}
		}
	}
}

// A live run that failed as it started leaves only empty record files:
// they are removed, not kept aside (nothing was measured); a directory
// with one byte of record, or anything but regular files, is kept aside.
func TestLiveRunDirOfEmptyFilesIsRemoved(t *testing.T) {
	ex := &executor{opt: Options{Logf: func(string, ...any) {}}}
	for _, tc := range []struct {
		name    string
		files   map[string]string
		subdir  bool
		keptAll bool
	}{
		{"empty files", map[string]string{"jobs.csv": "", "attempts.csv": "", "links.csv": ""}, false, false},
		{"one byte", map[string]string{"jobs.csv": "", "attempts.csv": "j"}, false, true},
		{"a directory", map[string]string{"jobs.csv": ""}, true, true},
	} {
		out := t.TempDir()
		r := Run{Mode: ModeLocal, Set: RunSet{Mode: ModeLocal}, Policy: policy.Spec{Name: "fair"}, Seed: 1, Dir: filepath.Join(out, "fair-seed1")}
		if err := os.MkdirAll(r.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range tc.files {
			if err := os.WriteFile(filepath.Join(r.Dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if tc.subdir {
			if err := os.Mkdir(filepath.Join(r.Dir, "twin"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := ex.clearRunDir(r); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(r.Dir); err == nil {
			t.Errorf("%s: %s is still there", tc.name, r.Dir)
		}
		aside, _ := filepath.Glob(r.Dir + ".before-*")
		if kept := len(aside) == 1; kept != tc.keptAll {
			t.Errorf("%s: moved aside %v, want kept %v", tc.name, aside, tc.keptAll)
		}
	}
}
