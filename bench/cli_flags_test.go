package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Flags that conflict, that a command would otherwise ignore or read
// otherwise, or that a command cannot run with (an --out that is a file,
// an emulated cluster past the emulator's limits) are refused before any
// work, naming the flag. None of these cases gets as far as an emulated
// cluster: each is refused before root is needed (and the local ones,
// without their fix, fail harmlessly: a bad prefix, or as a user, no
// root).
func TestFlagRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wl := write("w.yaml", "jobs:\n  - id: a\n    stages: [{name: m, kind: map, input: in}]\n")
	dsf := write("d.yaml", "datasets:\n  - {name: in, size_bytes: 1000, block_size_bytes: 100}\n")
	file := write("file", "not a directory\n")
	// simulated runs only: nothing here may build an emulated cluster
	camp := write("c.yaml", "name: flags\ncluster: {racks: 2, hosts_per_rack: 2, slots: 2}\nworkload: {file: "+wl+", datasets: "+dsf+"}\n"+
		"runs:\n  - mode: sim\n    policies: [fifo]\n")
	sim := []string{"sim", "--workload", wl, "--datasets", dsf, "--racks", "2", "--hosts-per-rack", "2", "--policies", "fifo", "--quiet"}
	simOut := filepath.Join(dir, "sim")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"sim campaign without replay", append(sim, "--out", simOut, "--campaign", camp), "--campaign is an option of --replay"},
		{"sim not-before without replay", append(sim, "--out", simOut, "--not-before"), "--not-before is an option of --replay"},
		{"sim out a file", append(sim, "--out", file), "--out " + file + " is a file, not a directory"},
		{"sim out below a file", append(sim, "--out", filepath.Join(file, "sub")), "--out " + filepath.Join(file, "sub") + ": "},
		{"run parallel zero", []string{"run", camp, "--out", filepath.Join(dir, "run0"), "--parallel", "0", "--quiet"}, "--parallel must be at least 1 (got 0)"},
		{"run parallel negative", []string{"run", camp, "--out", filepath.Join(dir, "run1"), "--parallel", "-3", "--quiet"}, "--parallel must be at least 1 (got -3)"},
		{"run out a file", []string{"run", camp, "--out", file, "--quiet"}, "--out " + file + " is a file, not a directory"},
		{"report out a file", []string{"report", dir, "--out", file}, "--out " + file + " is a file, not a directory"},
		{"local run bad prefix", []string{"local", "run", "--workload", wl, "--prefix", "BAD", "--out", filepath.Join(dir, "local")},
			`the emulated cluster (--prefix, its size and rates): shaping: prefix "BAD" must be 1-6 characters of [a-z0-9]`},
		{"local run past the emulator", []string{"local", "run", "--workload", wl, "--prefix", "rlflg", "--racks", "300", "--hosts-per-rack", "1", "--out", filepath.Join(dir, "local")},
			"the emulated cluster (--prefix, its size and rates): shaping: 300 racks, at most 256"},
		{"local run mode", []string{"local", "run", "--workload", wl, "--prefix", "BAD", "--mode", "ring"}, `--mode: shaping: unknown mode "ring"`},
		{"local up nats port", []string{"local", "up", "--prefix", "BAD", "--nats-port", "70000"}, "--nats-port must be between 1 and 65535 (got 70000)"},
		{"local up racks", []string{"local", "up", "--prefix", "BAD", "--racks", "0"}, "--racks must be between 1 and"},
		{"fidelity from with out", []string{"fidelity", "--from", dir, "--out", filepath.Join(dir, "fid"), camp},
			"--out is an option of a live run; with --from nothing runs live, and the comparison is written into " + dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := execBench(tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("bench %s: error\n  %v\nwant\n  %s", strings.Join(tc.args, " "), err, tc.want)
			}
		})
	}
	for _, d := range []string{simOut, filepath.Join(dir, "run0"), filepath.Join(dir, "run1"), filepath.Join(dir, "local"), filepath.Join(dir, "fid")} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s was made by a refused command", d)
		}
	}
}
