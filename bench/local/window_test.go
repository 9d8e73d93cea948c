package local

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/live"
	"github.com/racklab/racklab/shaping"
)

// A window ends an emulated run that would take far longer: 36 maps of
// 4 MiB read at 0.5 MB/s take 8 s each, in three waves over the 12 slots
// (some 25 s before the reducers), and the window is 4 s. The run
// returns with success soon after the window; the attempts running then
// are recorded as cut, the job as unfinished, the summary has the window
// and the kernel's count; the workers, namespaces and mounts are gone.
func TestWindowEndsEmulatedRun(t *testing.T) {
	needRoot(t)
	topo := topology(t, 3, 2)
	for i := range topo.Hosts {
		topo.Hosts[i].Tiers = []cluster.Tier{{Kind: cluster.HDD, ReadBps: 0.5e6, WriteBps: 200e6, CapacityBytes: 1 << 30}}
	}
	w, ds := inputs(t, topo, longJobs, 36, 4<<20, 2)
	opt := options(t, fmt.Sprintf("tn%d", os.Getpid()%10000), shaping.Switched, topo)
	t.Cleanup(func() { checkGone(t, opt) })
	out := t.TempDir()
	sink, err := metrics.NewRunSink(out, w, "fifo", 5)
	if err != nil {
		t.Fatal(err)
	}
	const window = 4 * time.Second
	var started time.Time
	cfg := live.Config{Workload: w, Datasets: ds, Policy: "fifo", Seed: 5, OutDir: out, Sink: sink, Window: window,
		MaxRunTime: 2 * time.Minute, Logf: t.Logf,
		OnEvent: func(ev live.Event) {
			if ev.Kind == "started" {
				started = time.Now()
			}
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, opt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Run has taken the cluster down, too
	took := time.Since(started)
	t.Logf("the run and the cluster's teardown took %v after the start", took.Round(time.Millisecond))
	if started.IsZero() || took < window || took > window+15*time.Second {
		t.Errorf("the run ended %v after its start, want soon after the %v window", took, window)
	}
	if !res.Cut || res.UnfinishedJobs != 1 || res.Jobs != 0 || res.FailedJobs != 0 {
		t.Fatalf("cut %v, unfinished %d, jobs ended %d, failed %d; want the one job unfinished", res.Cut, res.UnfinishedJobs, res.Jobs, res.FailedJobs)
	}
	if res.KernelCrossBytes < 0 {
		t.Error("the kernel counters were not read")
	}
	s := sink.Summary
	if s.Jobs != 1 || s.UnfinishedJobs != 1 || s.FailedJobs != 0 || s.WindowS != window.Seconds() || s.Workloads != 1 || s.WorkloadsFinished != 0 {
		t.Errorf("summary: jobs %d, unfinished %d, failed %d, window %g s, workloads %d (%d finished)",
			s.Jobs, s.UnfinishedJobs, s.FailedJobs, s.WindowS, s.Workloads, s.WorkloadsFinished)
	}
	if float64(s.MeasuredCrossRackBytes) != res.KernelCrossBytes {
		t.Errorf("summary's measured cross-rack bytes %g, the kernel's %g", s.MeasuredCrossRackBytes, res.KernelCrossBytes)
	}
	// the records: every slot's attempt cut at the window, in
	// attempts.csv and attempts.jsonl alike; the job unfinished
	cutCSV := 0
	for _, r := range readCSV(t, filepath.Join(out, "attempts.csv")) {
		if r["outcome"] == "cut" {
			cutCSV++
		}
	}
	cutJSON := 0
	f, err := os.Open(filepath.Join(out, "attempts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var a struct{ Outcome string }
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if a.Outcome == "cut" {
			cutJSON++
		}
	}
	slots := 0
	for _, h := range topo.Hosts {
		slots += h.Slots
	}
	if cutCSV != slots || cutJSON != slots {
		t.Errorf("%d attempts cut in attempts.csv, %d in attempts.jsonl; want the %d slots' ", cutCSV, cutJSON, slots)
	}
	jobs := readCSV(t, filepath.Join(out, "jobs.csv"))
	if len(jobs) != 1 || jobs[0]["state"] != "unfinished" || jobs[0]["finished_s"] != "" || jobs[0]["started_s"] == "" {
		t.Errorf("jobs.csv %v: want the job unfinished, started, with no finish", jobs)
	}
	sums := readCSV(t, filepath.Join(out, "summary.csv"))
	if len(sums) != 1 || sums[0]["unfinished_jobs"] != "1" || sums[0]["window_s"] != "4.000000" || sums[0]["failed_jobs"] != "0" {
		t.Errorf("summary.csv %v", sums)
	}
	events, err := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(events), `"kind":"window"`) || !strings.Contains(string(events), `"kind":"finished"`) {
		t.Error("events.jsonl records no window and finish")
	}
}

// readCSV reads a record file as maps from column to cell.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, c := range rows[0] {
			m[c] = r[i]
		}
		out = append(out, m)
	}
	return out
}
