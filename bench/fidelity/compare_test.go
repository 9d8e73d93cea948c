package fidelity

import (
	"math"
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
