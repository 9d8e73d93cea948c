package main

import (
	"context"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/campaign"
)

// fidelityCLICampaign has a simulated and a local run set of the demo's
// workload on a small cluster.
const fidelityCLICampaign = `name: fid
cluster: {racks: 3, hosts_per_rack: 2, slots: 2, nic_gbps: 1, oversubscription: 3}
workload:
  file: workload.yaml
  datasets: datasets.yaml
seed: 1
runs:
  - {mode: sim, policies: [fifo, fair], full_recompute: -1}
  - {mode: local, policies: [fifo, fair]}
`

// bench fidelity --from and bench sim --replay, end to end without
// root: the simulated runs' records stand in for the live runs' (copied
// to local/, done.json and all), so that the simulation and the replay
// of each must give every job its recorded JCT and bytes.
func TestFidelityFromResultDir(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"workload.yaml": "../examples/local/workload.yaml", "datasets.yaml": "../examples/local/datasets.yaml"} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "fid.yaml")
	if err := os.WriteFile(path, []byte(fidelityCLICampaign), 0o644); err != nil {
		t.Fatal(err)
	}
	camp, err := campaign.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	simOnly := *camp
	simOnly.Runs = camp.Runs[:1]
	out := filepath.Join(dir, "results")
	if err := campaign.Execute(context.Background(), &simOnly, campaign.Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("cp", "-r", filepath.Join(out, "sim"), filepath.Join(out, "local")).Run(); err != nil {
		t.Fatal(err)
	}
	// the sim run set's network model is exact max-min, as a live one's
	// simulation takes it; fair leaves slots idle on purpose
	// (delay scheduling), which only the recorded times replay
	text := runBench(t, "fidelity", "--from", out, "--not-before", path)
	for _, want := range []string{
		"local/fifo-seed1: replayed 48 of 48 attempts on their recorded host and source; start, replayed - recorded: median +0.00 s, p90 +0.00 s",
		"replayed JCT within 15% of live: 8 of 8 jobs (100%)",
		"replayed cross-rack bytes within 1% of live: 8 of 8 jobs (100%)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("bench fidelity printed\n%s\nwant it to contain %q", text, want)
		}
	}
	rows, col := readCSVTable(t, filepath.Join(out, "fidelity.csv"))
	if len(rows) != 9 {
		t.Fatalf("fidelity.csv has %d rows, want a header and 8 jobs", len(rows))
	}
	for _, r := range rows[1:] {
		if r[col["jct_live_s"]] != r[col["jct_replay_s"]] || r[col["cross_replay_ratio"]] != "1.000000" {
			t.Errorf("job %s of %s: live %s s, replayed %s s, bytes ratio %s", r[col["job"]], r[col["run"]], r[col["jct_live_s"]], r[col["jct_replay_s"]], r[col["cross_replay_ratio"]])
		}
	}

	// without the campaign file: meta.json names it, and its inputs
	// resolve beside it (the result directory's copy would look for
	// them in the result directory)
	text = runBench(t, "fidelity", "--from", out, "--not-before")
	if !strings.Contains(text, "replayed JCT within 15% of live: 8 of 8 jobs (100%)") {
		t.Errorf("bench fidelity --from without the campaign printed\n%s", text)
	}

	rep := filepath.Join(dir, "replay")
	text = runBench(t, "sim", "--replay", filepath.Join(out, "local", "fair-seed1"), "--campaign", path, "--out", rep, "--not-before")
	if !strings.Contains(text, "replayed JCT within 15% of the recorded: 4 of 4 jobs") {
		t.Errorf("bench sim --replay printed\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(rep, "replay-fair-seed1", "jobs.csv")); err != nil {
		t.Errorf("no replay records: %v", err)
	}

	// the simulator's model flags reach the replay: a 0.25 s step puts
	// every end on a multiple of it; the others are the recorded run's
	coarse := filepath.Join(dir, "coarse")
	runBench(t, "sim", "--replay", filepath.Join(out, "local", "fair-seed1"), "--campaign", path, "--out", coarse, "--resolution", "0.25")
	attempts, acol := readCSVTable(t, filepath.Join(coarse, "replay-fair-seed1", "attempts.csv"))
	end := acol["end_s"]
	for _, r := range attempts[1:] {
		x, err := strconv.ParseFloat(r[end], 64)
		if err != nil || math.Abs(x/0.25-math.Round(x/0.25)) > 1e-6 {
			t.Fatalf("--resolution 0.25: an attempt ends at %s", r[end])
		}
	}
	cmd := rootCmd()
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SetArgs([]string{"sim", "--replay", filepath.Join(out, "local", "fair-seed1"), "--campaign", path, "--out", coarse, "--racks", "3"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--racks: a replay takes its workload, cluster, policy and seed from the recorded run") {
		t.Errorf("bench sim --replay --racks 3: %v", err)
	}
}
