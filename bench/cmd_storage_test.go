package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// --placement and --tier-mix reach the simulator: HDFS's default reads
// HDD only, octopus and a memory mix read memory; bad values are refused
// naming the flag.
func TestSimStorageFlags(t *testing.T) {
	memFrac := func(args ...string) float64 {
		t.Helper()
		out := t.TempDir()
		runBench(t, append([]string{"sim", "--swim", fb2009, "--max-jobs", "50", "--racks", "2", "--hosts-per-rack", "3",
			"--policies", "fifo", "--out", out, "--quiet"}, args...)...)
		f, err := os.Open(filepath.Join(out, "summary.csv"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("summary: %d rows, %v", len(rows), err)
		}
		col := slices.Index(rows[0], "tier_mem_frac")
		x, err := strconv.ParseFloat(rows[1][col], 64)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	def, oct, mem := memFrac(), memFrac("--placement", "octopus", "--memory-lru=false"), memFrac("--tier-mix", "memory=1")
	if def != 0 || !(oct > 0 && oct < 1) || mem <= oct {
		t.Fatalf("share of maps reading memory: hdfs %g, octopus %g, memory mix %g; want 0, in (0,1), above octopus", def, oct, mem)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--placement", "ceph"}, `--placement ceph: unknown placement "ceph": hdfs or octopus`},
		{[]string{"--placement", "octopus", "--tier-mix", "ssd=1"}, "--placement octopus: a tier mix is a setting of the hdfs placer"},
		{[]string{"--tier-mix", "ssd=-1"}, `--tier-mix: tier mix "ssd=-1": share "-1" of ssd must be a number, 0 or more`},
	} {
		cmd := rootCmd()
		var errb bytes.Buffer
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&errb)
		cmd.SetArgs(append([]string{"sim", "--swim", fb2009, "--max-jobs", "2", "--out", t.TempDir(), "--quiet"}, tc.args...))
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// bench local run checks the storage flags before it sets anything up.
func TestLocalStorageFlagsChecked(t *testing.T) {
	cmd := rootCmd()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"local", "run", "--workload", "none.yaml", "--placement", "octopus", "--tier-mix", "memory=1"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--placement octopus: a tier mix is a setting of the hdfs placer") {
		t.Fatalf("error %v", err)
	}
}
