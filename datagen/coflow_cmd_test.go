package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

func TestCoflowAndDescribeCommands(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.txt")
	src := "4 2\n1 0 2 0 3 2 1:1.0 2:2\n2 1500 1 2 1 3:4\n"
	if err := os.WriteFile(trace, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	wp, dp := filepath.Join(dir, "w.yaml"), filepath.Join(dir, "d.yaml")
	var stderr bytes.Buffer
	cmd := rootCmd()
	cmd.SetErr(&stderr)
	cmd.SetArgs([]string{"coflow", "--trace", trace, "--hosts-per-rack", "2", "--out-workload", wp, "--out-datasets", dp, "--scale", "2", "--tier", "ssd"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	// --racks defaults to the trace's 4 ports.
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 4, HostsPerRack: 2, Slots: 1, NICBps: 1e9, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := workload.LoadDatasets(dp, topo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.LoadWorkloadFor(wp, ds)
	if err != nil {
		t.Fatal(err)
	}
	// the reducers of coflow 1 keep the trace's 1 and 2 MB by default
	if got := w.Jobs[0].Stages[1].Shares; len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("coflow 1's reduce shares %v, want [1 2]", got)
	}
	if len(w.Jobs) != 2 || w.Jobs[1].Arrival != 1.5 || ds.Datasets[0].TotalBytes() != 6<<20 || ds.Datasets[0].Blocks[1].Replicas[0] != (workload.Replica{Host: 6, Tier: cluster.SSD}) {
		t.Errorf("workload %+v\ndatasets %+v", w, ds)
	}
	// --reducer-sizes mean averages them
	cmd = rootCmd()
	cmd.SetErr(&bytes.Buffer{})
	meanW := filepath.Join(dir, "mean.yaml")
	cmd.SetArgs([]string{"coflow", "--trace", trace, "--hosts-per-rack", "2", "--out-workload", meanW, "--out-datasets", filepath.Join(dir, "mean-d.yaml"), "--reducer-sizes", "mean"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if mean, err := workload.LoadWorkload(meanW); err != nil || mean.Jobs[0].Stages[1].Shares != nil {
		t.Errorf("--reducer-sizes mean: %v, %+v", err, mean)
	}
	out := stderr.String()
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "2 coflows on 4 ports -> 4 racks, 8 hosts") || !strings.Contains(out, "shuffle 14680064 B") {
		t.Errorf("summary: %q", out)
	}

	// describe, with the topology file.
	tp := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(tp, []byte("uniform: {racks: 4, hosts_per_rack: 2, slots: 1, nic_gbps: 1, oversubscription: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd = rootCmd()
	cmd.SetOut(&stdout)
	cmd.SetArgs([]string{"describe", wp, "--datasets", dp, "--topology", tp})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if o := stdout.String(); !strings.Contains(o, "jobs: 2 (4 stages, 6 tasks)") || !strings.Contains(o, "shuffle 14680064 B") {
		t.Errorf("describe: %s", o)
	}

	for _, args := range [][]string{
		{"coflow", "--trace", trace, "--out-workload", wp},
		{"coflow", "--trace", trace, "--out-workload", wp, "--out-datasets", dp, "--tier", "tape"},
		{"coflow", "--trace", trace, "--out-workload", wp, "--out-datasets", dp, "--reducer-sizes", "median"},
		{"coflow", "--trace", trace, "--out-workload", wp, "--out-datasets", dp, "--topology", tp, "--racks", "3"},
		{"coflow", "--trace", trace, "--out-workload", wp, "--out-datasets", dp, "--topology", filepath.Join(dir, "none.yaml")},
		{"coflow", "--trace", trace, "--out-workload", wp, "--out-datasets", dp, "--hosts-per-rack", "0"},
		{"coflow", "--trace", filepath.Join(dir, "none.txt"), "--out-workload", wp, "--out-datasets", dp},
		{"coflow", "--trace", wp, "--out-workload", wp, "--out-datasets", dp},
		{"coflow", "--trace", trace, "--out-workload", filepath.Join(dir, "no", "w.yaml"), "--out-datasets", dp},
		{"describe"},
		{"describe", wp, "--datasets", dp}, // placed datasets need the topology
		{"describe", filepath.Join(dir, "none.yaml")},
	} {
		cmd := rootCmd()
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetArgs(args)
		if err := cmd.Execute(); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
