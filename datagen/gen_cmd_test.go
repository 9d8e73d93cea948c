package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/recurring"
)

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var stderr, stdout bytes.Buffer
	cmd := rootCmd()
	cmd.SetErr(&stderr)
	cmd.SetOut(&stdout)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return stderr.String() + stdout.String(), err
}

func load(t *testing.T, wp, dp string, topo *cluster.Topology) (*workload.Workload, *workload.Datasets) {
	t.Helper()
	ds, err := workload.LoadDatasets(dp, topo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.LoadWorkloadFor(wp, ds)
	if err != nil {
		t.Fatal(err)
	}
	return w, ds
}

func TestGeneratorCommands(t *testing.T) {
	dir := t.TempDir()
	wp, dp, pp := filepath.Join(dir, "w.yaml"), filepath.Join(dir, "d.yaml"), filepath.Join(dir, "p.yaml")
	out := func(args ...string) []string { return append(args, "--out-workload", wp, "--out-datasets", dp) }
	for _, tc := range []struct {
		args    []string
		jobs    int
		summary string
	}{
		{out("tpch"), 110, "datagen tpch: 110 jobs"},
		{out("tpch", "--multistage", "--queries", "8,9", "--scale-factor", "1", "--rounds", "2", "--window", "25m"), 4, "datagen tpch: 4 jobs"},
		{out("ml", "--workloads", "3", "--labels", "B10", "--arrivals", "poisson", "--rate", "0.02", "--scale", "0.01"), 3 * 38, "job DAG depth 21"},
		{out("recurring", "--workload", "w2", "--out-predicted", pp, "--arrival-error", "0.5", "--size-error", "0.5", "--adhoc", "5"), 405, "400 predictions in " + pp},
		{out("mix", "--preset", "pushbox-w2", "--arrivals", "once"), 29, "datagen mix pushbox-w2: 29 jobs"},
		{out("mix", "--preset", "hibench-small", "--block-size", "64MiB", "--seed", "3"), 4 + 17 + 23 + 23 + 1, "datagen mix hibench-small"},
	} {
		o, err := run(t, tc.args...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		w, ds := load(t, wp, dp, nil)
		if len(w.Jobs) != tc.jobs || strings.Count(o, "\n") != 1 || !strings.Contains(o, tc.summary) {
			t.Errorf("%v: %d jobs, summary %q", tc.args, len(w.Jobs), o)
		}
		if tc.args[0] == "mix" && strings.Contains(tc.args[2], "hibench") && ds.Datasets[0].BlockSize != 64<<20 {
			t.Errorf("--block-size ignored: %d", ds.Datasets[0].BlockSize)
		}
		if tc.args[0] == "mix" && strings.Contains(tc.args[2], "pushbox") && ds.Datasets[0].BlockSize != 1<<30 {
			t.Errorf("the preset's block size is not used: %d", ds.Datasets[0].BlockSize)
		}
	}
	p, err := recurring.LoadPredicted(pp)
	if err != nil || len(p.Jobs) != 400 {
		t.Fatalf("predictions: %v", err)
	}

	// describe reads them all.
	if o, err := run(t, "describe", wp, "--datasets", dp); err != nil || !strings.Contains(o, "job DAGs (workloads): 1,") {
		t.Errorf("describe: %v\n%s", err, o)
	}

	// Files with errors name their line.
	plans := filepath.Join(dir, "plans.txt")
	os.WriteFile(plans, []byte("q1 j1 group lineitem\nq1 j2 order j3\n"), 0o644)
	mixf := filepath.Join(dir, "m.mix")
	os.WriteFile(mixf, []byte("pattern batch\n2 grep 1GB\n1 hadoop 1GB\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{out("tpch", "--plans", plans), plans + `:2: input "j3" is neither a table nor an earlier job of q1`},
		{out("mix", "--mix", mixf), mixf + `:3: unknown application "hadoop"`},
		{out("tpch", "--arrivals", "burst"), `unknown arrival process "burst"`},
		{out("tpch", "--rate", "2"), "a rate applies to poisson arrivals only"},
		{out("ml", "--arrivals", "poisson"), "poisson arrivals need a positive rate"},
		{out("tpch", "--queries", "30"), "no plan for query 30"},
		{out("tpch", "--scale-factor", "0"), "scale factor must be positive"},
		{out("tpch", "--window", "0s"), "window must be positive"},
		{out("tpch", "--plans", filepath.Join(dir, "none.txt")), "no such file"},
		{out("ml", "--labels", "B0"), `unknown benchmark label "B0"`},
		{out("ml", "--scale", "-1"), "scale must be positive"},
		{out("recurring", "--workload", "w9"), `unknown workload "w9"`},
		{out("recurring", "--size-error", "2"), "size error must be in [0, 1)"},
		{out("recurring", "--out-predicted", filepath.Join(dir, "no", "p.yaml")), "no such file"},
		{out("mix"), "at least one of the flags in the group [preset mix] is required"},
		{out("mix", "--preset", "x", "--mix", mixf), "none of the others can be"},
		{out("mix", "--preset", "tpcds"), `unknown preset "tpcds"`},
		{out("mix", "--mix", filepath.Join(dir, "none.mix")), "no such file"},
		{[]string{"tpch", "--out-workload", wp}, `required flag(s) "out-datasets" not set`},
		{out("tpch", "--block-size", "big"), "bad size"},
	} {
		o, err := run(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q (%s)", tc.args, err, tc.want, o)
		}
	}
}

func TestLayoutCommand(t *testing.T) {
	dir := t.TempDir()
	wp, dp, tp, op := filepath.Join(dir, "w.yaml"), filepath.Join(dir, "d.yaml"), filepath.Join(dir, "t.yaml"), filepath.Join(dir, "placed.yaml")
	if err := os.WriteFile(tp, []byte("uniform: {racks: 3, hosts_per_rack: 4, slots: 2, nic_gbps: 10, oversubscription: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "mix", "--preset", "hibench-small", "--out-workload", wp, "--out-datasets", dp); err != nil {
		t.Fatal(err)
	}
	o, err := run(t, "layout", "--topology", tp, "--datasets", dp, "--out", op, "--tier-mix", "mem=0.1,ssd=0.3,hdd=0.6",
		"--replication", "2", "--block-size", "32MiB", "--seed", "5")
	if err != nil {
		t.Fatal(err)
	}
	topo, _ := cluster.LoadTopology(tp)
	w, ds := load(t, wp, op, topo)
	blocks := 0
	for _, d := range ds.Datasets {
		if !d.Placed() || d.BlockSize != 32<<20 || d.Replication != 2 || len(d.Blocks[0].Replicas) != 2 {
			t.Fatalf("dataset %s: placed %v, block %d, replication %d", d.Name, d.Placed(), d.BlockSize, d.Replication)
		}
		blocks += len(d.Blocks)
	}
	if len(w.Jobs) == 0 || !strings.Contains(o, "datagen layout: "+dp+": placed 20 datasets") || strings.Count(o, "\n") != 1 {
		t.Errorf("summary %q (%d blocks)", o, blocks)
	}
	if o, err := run(t, "describe", wp, "--datasets", op, "--topology", tp); err != nil || !strings.Contains(o, "job DAGs (workloads): 1,") {
		t.Errorf("describe: %v %s", err, o)
	}
	// Placing again keeps the layout.
	again := filepath.Join(dir, "again.yaml")
	if _, err := run(t, "layout", "--topology", tp, "--datasets", op, "--out", again); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(op)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("placing placed datasets changed them")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"layout", "--topology", tp, "--datasets", dp, "--out", op, "--tier-mix", "tape=1"}, `unknown tier kind "tape"`},
		{[]string{"layout", "--topology", tp, "--datasets", dp, "--out", op, "--replication", "-1"}, "replication must not be negative"},
		{[]string{"layout", "--topology", filepath.Join(dir, "none.yaml"), "--datasets", dp, "--out", op}, "no such file"},
		{[]string{"layout", "--topology", tp, "--datasets", wp, "--out", op}, `unknown field "jobs"`},
		{[]string{"layout", "--topology", tp, "--datasets", dp}, `required flag(s) "out" not set`},
		{[]string{"layout", "--topology", tp, "--datasets", dp, "--out", filepath.Join(dir, "no", "p.yaml")}, "no such file"},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// A recurring workload refuses a flag it does not read: before, W3 with
// --block-size and W1 with --reduce-bytes wrote the defaults' workload.
func TestRecurringRefusesFlagsItDoesNotRead(t *testing.T) {
	dir := t.TempDir()
	out := []string{"--out-workload", filepath.Join(dir, "w.yaml"), "--out-datasets", filepath.Join(dir, "d.yaml")}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "w3", "--block-size", "1MiB"}, "--block-size: W3's map task counts come from Table 1"},
		{[]string{"--workload", "w1", "--reduce-bytes", "1KiB"}, "--reduce-bytes sets W2's shuffle bytes per reduce task"},
	} {
		if _, err := run(t, append(append([]string{"recurring"}, c.args...), out...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := run(t, append([]string{"recurring", "--workload", "w2", "--reduce-bytes", "1GiB"}, out...)...); err != nil {
		t.Errorf("W2 with --reduce-bytes: %v", err)
	}
}
