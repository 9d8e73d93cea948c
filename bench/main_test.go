package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
)

const fb2009 = "../traces/swim/FB-2009_samples_24_times_1hr_0.tsv"

func runBench(t *testing.T, args ...string) string {
	t.Helper()
	cmd := rootCmd()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("bench %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

// The demo's path end to end on the first 300 jobs of FB-2009: a table,
// a summary with the required columns, identical records on a rerun.
func TestSimComparesPoliciesReproducibly(t *testing.T) {
	if _, err := os.Stat(fb2009); err != nil {
		t.Fatalf("FB-2009 trace missing from traces/: %v", err)
	}
	dirs := []string{t.TempDir(), t.TempDir()}
	var tables []string
	for _, d := range dirs {
		tables = append(tables, runBench(t, "sim", "--swim", fb2009, "--max-jobs", "300", "--racks", "4", "--hosts-per-rack", "5",
			"--policies", "fifo,fair,capacity", "--out", d, "--quiet"))
	}
	for _, p := range []string{"fifo", "fair", "capacity"} {
		if !strings.Contains(tables[0], p) {
			t.Fatalf("table lacks %s:\n%s", p, tables[0])
		}
	}
	rows, col := readCSVTable(t, filepath.Join(dirs[0], "summary.csv"))
	if len(rows) != 4 {
		t.Fatalf("summary has %d rows, want header + 3", len(rows))
	}
	for _, c := range []string{"policy", "seed", "jobs", "makespan_s", "jct_mean_s", "jct_p50_s", "jct_p95_s", "cross_rack_bytes", "node_local_frac", "rack_local_frac"} {
		if _, ok := col[c]; !ok {
			t.Fatalf("summary.csv lacks column %s", c)
		}
	}
	if rows[1][col["jobs"]] != "300" {
		t.Fatalf("jobs %s", rows[1][col["jobs"]])
	}
	for _, name := range []string{"summary.csv", "fair-seed1/attempts.csv", "fair-seed1/jobs.csv", "fair-seed1/links.csv"} {
		a, _ := os.ReadFile(filepath.Join(dirs[0], name))
		b, _ := os.ReadFile(filepath.Join(dirs[1], name))
		if name == "summary.csv" {
			a, b = withoutWallClock(t, a), withoutWallClock(t, b)
		}
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Fatalf("%s differs between two identical runs", name)
		}
	}
}

// withoutWallClock blanks summary.csv's columns that measure the machine
// (metrics.WallClockColumns): the only ones two identical runs may differ
// in.
func withoutWallClock(t *testing.T, summary []byte) []byte {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(summary)).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("summary.csv: %v", err)
	}
	for i, h := range rows[0] {
		if slices.Contains(metrics.WallClockColumns, h) {
			for _, r := range rows[1:] {
				r[i] = ""
			}
		}
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// --network reaches the simulator: on an oversubscribed cluster, Varys
// orders the shuffles and the records differ from max-min's.
func TestSimNetworkFlag(t *testing.T) {
	tables := map[string]string{}
	for _, network := range []string{"maxmin", "varys"} {
		out := runBench(t, "sim", "--swim", fb2009, "--max-jobs", "200", "--racks", "4", "--hosts-per-rack", "5",
			"--oversubscription", "5", "--policies", "fifo", "--network", network, "--out", t.TempDir(), "--quiet")
		tables[network], _, _ = strings.Cut(out, "records:")
	}
	if tables["maxmin"] == tables["varys"] {
		t.Fatalf("--network varys changed nothing:\n%s", tables["varys"])
	}
}

func TestSimRejectsBadInput(t *testing.T) {
	cases := map[string][]string{
		"unknown policy": {"sim", "--swim", fb2009, "--policies", "nope", "--max-jobs", "2", "--out", t.TempDir(), "--quiet"},
		"policy twice":   {"sim", "--swim", fb2009, "--policies", "fair, fair", "--max-jobs", "2", "--out", t.TempDir(), "--quiet"},
		"not a seed":     {"sim", "--swim", fb2009, "--seeds", "x", "--out", t.TempDir()},
		"seed twice":     {"sim", "--swim", fb2009, "--seeds", "1,2,1", "--max-jobs", "2", "--out", t.TempDir(), "--quiet"},
		"no parallel":    {"sim", "--swim", fb2009, "--parallel", "0", "--max-jobs", "2", "--out", t.TempDir(), "--quiet"},
		"no workload":    {"sim", "--out", t.TempDir()},
		"bad block size": {"sim", "--swim", fb2009, "--block-size", "12 parsecs", "--out", t.TempDir()},
	}
	for name, args := range cases {
		cmd := rootCmd()
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetArgs(args)
		if err := cmd.Execute(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// readCSVTable reads a CSV file whole: its rows (the header first) and
// each header's column.
func readCSVTable(t *testing.T, path string) ([][]string, map[string]int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v (%d rows)", path, err, len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	return rows, col
}

// A stage naming a dataset the datasets file does not have is reported
// with its line in the workload file.
func TestSimUnknownDatasetHasItsLine(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(wl, []byte("jobs:\n  - id: a\n    stages:\n      - {name: m, kind: map, input: nosuch}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := rootCmd()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"sim", "--workload", wl, "--datasets", filepath.Join("..", "examples", "local", "datasets.yaml"),
		"--racks", "3", "--hosts-per-rack", "3", "--out", filepath.Join(dir, "out"), "--quiet"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), wl+`:4: job "a" stage "m": unknown dataset "nosuch"`) {
		t.Fatalf("error %v, want the workload file's line 4", err)
	}
}
