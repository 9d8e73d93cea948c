package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Flag values that crashed or hung a run (NaN, Inf, negative, near zero,
// too large for memory) are refused before anything runs, naming the flag
// and the limit.
func TestFlagLimits(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.yaml")
	dsf := filepath.Join(dir, "d.yaml")
	if err := os.WriteFile(wl, []byte("jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: in}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dsf, []byte("datasets:\n  - {name: in, size_bytes: 1000, block_size_bytes: 100}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sim := []string{"sim", "--workload", wl, "--datasets", dsf, "--racks", "2", "--hosts-per-rack", "2", "--policies", "fifo", "--quiet", "--out", filepath.Join(dir, "out")}
	local := []string{"local", "run", "--workload", wl}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"resolution NaN", append(sim, "--resolution", "NaN"), "--resolution: resolution NaN is not a finite number"},
		{"resolution negative", append(sim, "--resolution", "-1"), "--resolution: resolution -1 s is below the limit of 1e-06 s"},
		{"resolution zero", append(sim, "--resolution", "0"), "--resolution must be positive"},
		{"slowstart NaN", append(sim, "--slowstart", "NaN"), "--slowstart must be between 0 and 1 (got NaN)"},
		{"slowstart negative", append(sim, "--slowstart", "-0.5"), "--slowstart must be between 0 and 1"},
		{"max sim time Inf", append(sim, "--max-sim-time", "Inf"), "--max-sim-time: max simulated time +Inf is not a finite number"},
		{"max sim time negative", append(sim, "--max-sim-time", "-3"), "--max-sim-time: max simulated time -3 s is negative"},
		{"full recompute NaN", append(sim, "--full-recompute", "NaN"), "--full-recompute: full-recompute period NaN"},
		{"network unknown", append(sim, "--network", "tcp"), `--network: network "tcp" is not one of maxmin, varys`},
		{"scale NaN", append(sim, "--scale", "NaN"), "--scale must be positive and finite"},
		{"compute huge", append(sim, "--compute-ns-per-byte", "1e300"), "--compute-ns-per-byte must be between 0 and 1e+06"},
		{"max reducers huge", append(sim, "--max-reducers", "2000000000"), "--max-reducers must be between 0 and 10000000"},
		{"racks huge", append(sim, "--racks", "100000000"), "--racks must be between 1 and 131072"},
		{"hosts product", append(sim, "--racks", "1000", "--hosts-per-rack", "1000"), "--racks × --hosts-per-rack must be at most 131072 hosts"},
		{"slots huge", append(sim, "--slots", "2000000000"), "--slots must be between 1 and 1048576"},
		{"nic near zero", append(sim, "--nic-gbps", "1e-300"), "--nic-gbps must be between 8e-09 and 8e+06 (got 1e-300)"},
		{"oversubscription NaN", append(sim, "--oversubscription", "NaN"), "--oversubscription must be positive and finite"},
		{"oversubscription huge", append(sim, "--oversubscription", "1e300"), "--racks, --hosts-per-rack, --slots, --nic-gbps, --oversubscription: rack link rate"},
		{"local racks huge", append(local, "--racks", "100000000"), "--racks must be between 1 and 131072"},
		{"local nats port", append(local, "--nats-port", "70000"), "--nats-port must be between 1 and 65535"},
		{"local max run time", append(local, "--max-run-time", "-1s"), "--max-run-time must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := execBench(tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("bench %s: error\n  %v\nwant\n  %s", strings.Join(tc.args, " "), err, tc.want)
			}
		})
	}
}

// A workload without jobs is refused with its file before anything is
// set up: by bench sim (a workload file or a SWIM trace) and by bench
// local run before it builds a cluster.
func TestEmptyWorkloadNamesItsFile(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "empty.yaml")
	trace := filepath.Join(dir, "empty.tsv")
	if err := os.WriteFile(wl, []byte("jobs: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sim := []string{"sim", "--racks", "2", "--hosts-per-rack", "2", "--policies", "fifo", "--quiet", "--out", filepath.Join(dir, "out")}
	cases := map[string][]string{
		wl:    append(slices.Clone(sim), "--workload", wl),
		trace: append(slices.Clone(sim), "--swim", trace),
	}
	for file, args := range cases {
		cmd := rootCmd()
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetArgs(args)
		err := cmd.Execute()
		if want := file + ": the workload has no jobs"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bench %s: error %v, want %q", strings.Join(args, " "), err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Errorf("bench sim left a result directory for an empty workload")
	}
	if os.Geteuid() != 0 {
		return // bench local run needs root first
	}
	cmd := rootCmd()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"local", "run", "--workload", wl, "--racks", "2", "--hosts-per-rack", "1", "--prefix", "rlemp", "--out", filepath.Join(dir, "local")})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), wl+": the workload has no jobs") {
		t.Errorf("bench local run: error %v, want the file named", err)
	}
}

// bench sim's progress says what ends the run: its window, or its time
// bound as stalled, in whole seconds while they fit.
func TestRunEnd(t *testing.T) {
	for _, tc := range []struct {
		window, bound float64
		want          string
	}{
		{0, 14300000000, "stops as stalled at t=14300000000s"},
		{240, 14300, "the window ends it at t=240s"},
		{0, 1e300, "stops as stalled at t=1e+300s"},
	} {
		if got := runEnd(tc.window, tc.bound); got != tc.want {
			t.Errorf("runEnd(%g, %g) = %q, want %q", tc.window, tc.bound, got, tc.want)
		}
	}
}
