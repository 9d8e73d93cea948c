package fidelity

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The summary counts jobs within issue 17's tolerances and averages
// per policy of each result set, over the jobs every run finished.
func TestSummarize(t *testing.T) {
	nan := math.NaN()
	f := func(jct float64, bytes int64) JobFigures { return JobFigures{JCT: jct, CrossBytes: bytes} }
	rows := []Row{
		{Run: "local/fifo-seed1", Policy: "fifo", Job: "a", Live: f(10, 100), Sim: f(14, 80), Replay: f(11.4, 100)},     // replay +14%
		{Run: "local/fifo-seed1", Policy: "fifo", Job: "b", Live: f(10, 1000), Sim: f(10, 1000), Replay: f(11.6, 1009)}, // +16%, bytes +0.9%
		{Run: "local/fifo-seed1", Policy: "fifo", Job: "c", Live: f(10, 0), Sim: f(nan, 0), Replay: f(8, 0)},
		{Run: "local-nics/fifo-seed1", Policy: "fifo", Job: "a", Live: f(4, 50), Sim: f(4, 50), Replay: f(4, 52)},
	}
	s := Summarize(rows)
	if s.Jobs != 4 || s.ReplayWithin != 2 || s.SimJobs != 3 || s.SimWithin != 2 || s.BytesJobs != 4 || s.BytesEqual != 3 {
		t.Errorf("summary %+v", s)
	}
	if len(s.Policies) != 2 || s.Policies[0].Policy != "local fifo" || s.Policies[0].Jobs != 2 || s.Policies[0].JCTSim != 12 || s.Policies[1].Policy != "local-nics fifo" {
		t.Errorf("per policy %+v", s.Policies)
	}
	if out := s.Format(); !strings.Contains(out, "replayed JCT within 15% of live: 2 of 4 jobs (50%)") || !strings.Contains(out, "1.20*") {
		t.Errorf("format:\n%s", out)
	}
}

// "Within 15%" and "within 1%" include their bounds on both sides: 0.85
// and 1.15 of the live JCT, 0.99 and 1.01 of its bytes (float64 put 0.85
// and 1.01 just outside).
func TestToleranceBoundsInclusive(t *testing.T) {
	rows := []Row{
		{Run: "local/p-seed1", Policy: "p", Job: "lo", Live: JobFigures{JCT: 2, CrossBytes: 100},
			Sim: JobFigures{JCT: 1.7, CrossBytes: 100}, Replay: JobFigures{JCT: 1.7, CrossBytes: 99}},
		{Run: "local/p-seed1", Policy: "p", Job: "hi", Live: JobFigures{JCT: 2, CrossBytes: 100},
			Sim: JobFigures{JCT: 2.3, CrossBytes: 100}, Replay: JobFigures{JCT: 2.3, CrossBytes: 101}},
	}
	s := Summarize(rows)
	if s.ReplayWithin != 2 || s.SimWithin != 2 {
		t.Errorf("JCT within 15%%: replay %d, sim %d of 2; want 2, 2", s.ReplayWithin, s.SimWithin)
	}
	if s.BytesEqual != 2 {
		t.Errorf("bytes within 1%%: %d of 2, want 2", s.BytesEqual)
	}
	if out := Summarize(rows[:1]).Format(); strings.Contains(out, "0.85*") {
		t.Errorf("a mean ratio of 0.85 is marked off by more than 15%%:\n%s", out)
	}
}

// A job's cross-rack bytes that are negative or add up past int64 are
// refused with the file and line, not wrapped into a negative count.
func TestLoadJobsRefusesBadByteCounts(t *testing.T) {
	const jobs = "job,state,jct_s\nj,succeeded,1\n"
	for _, c := range []struct{ rows, want string }{
		{"j,-5\n", `attempts.csv:2: cross_bytes "-5" is not a byte count`},
		{"j,9223372036854775807\nj,1\n", "attempts.csv:3: job j's cross_bytes add up to more than 9223372036854775807"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "jobs.csv"), []byte(jobs), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "attempts.csv"), []byte("job,cross_bytes\n"+c.rows), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadJobs(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, %v; want error %q", c.rows, got, err, c.want)
		}
	}
}

// A finished job's JCT that is no time (NaN, infinite, negative) is
// refused with its line: NaN read as a job that did not finish, +Inf went
// into fidelity.csv.
func TestLoadJobsRefusesBadJCTs(t *testing.T) {
	for _, jct := range []string{"NaN", "Inf", "-1"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "jobs.csv"), []byte("job,state,jct_s\nj,succeeded,"+jct+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "attempts.csv"), []byte("job,cross_bytes\nj,0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadJobs(dir); err == nil || !strings.Contains(err.Error(), "jobs.csv:2: jct_s \""+jct+"\" is not a job's time in seconds") {
			t.Errorf("jct_s %s: %v", jct, err)
		}
	}
}
