package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

func TestSwimCommand(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.tsv")
	src := "job0\t49\t49\t740773\t2339561\t627471\njob1\t101\t52\t736346\t0\t432269\njob2\t122\t21\t0\t5\t6\n"
	if err := os.WriteFile(trace, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	wp, dp := filepath.Join(dir, "w.yaml"), filepath.Join(dir, "d.yaml")
	var stderr bytes.Buffer
	cmd := rootCmd()
	cmd.SetErr(&stderr)
	cmd.SetArgs([]string{"swim", "--trace", trace, "--out-workload", wp, "--out-datasets", dp,
		"--block-size", "64MiB", "--reduce-bytes", "1MB", "--replication", "2", "--scale", "2", "--compute-ns-per-byte", "1.5"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	ds, err := workload.LoadDatasets(dp, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.LoadWorkloadFor(wp, ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 3 || ds.Datasets[0].BlockSize != 64<<20 || ds.Datasets[0].Replication != 2 || ds.Datasets[0].Size != 2*740773 {
		t.Errorf("workload %+v\ndatasets %+v", w, ds)
	}
	if r := w.Jobs[0].Stages[1]; r.Tasks != 5 || r.ComputeNsPerByte != 1.5 { // 4.68 MB of shuffle at 1 MB a task
		t.Errorf("reduce stage %+v", r)
	}
	out := stderr.String()
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "3 jobs") || !strings.Contains(out, "input 2954238 B") {
		t.Errorf("summary: %q", out)
	}

	for _, args := range [][]string{
		{"swim", "--trace", trace, "--out-workload", wp},
		{"swim", "--trace", trace, "--out-workload", wp, "--out-datasets", dp, "--block-size", "big"},
		{"swim", "--trace", filepath.Join(dir, "none.tsv"), "--out-workload", wp, "--out-datasets", dp},
		{"swim", "--trace", trace, "--out-workload", filepath.Join(dir, "no", "w.yaml"), "--out-datasets", dp},
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

func TestSwimCommandWithInputPaths(t *testing.T) {
	const trace = "swim/testdata/FB-2010_withInputPaths_first50.tsv"
	dir := t.TempDir()
	wp, dp := filepath.Join(dir, "w.yaml"), filepath.Join(dir, "d.yaml")
	for _, tc := range []struct {
		literal bool
		job5    string // the dataset job5 reads: job2's, or job1's when the names are read literally
	}{{false, "in-job2"}, {true, "in-job1"}} {
		var stderr bytes.Buffer
		cmd := rootCmd()
		cmd.SetErr(&stderr)
		args := []string{"swim", "--trace", trace, "--out-workload", wp, "--out-datasets", dp}
		if tc.literal {
			args = append(args, "--literal-paths")
		}
		cmd.SetArgs(args)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		ds, err := workload.LoadDatasets(dp, nil)
		if err != nil {
			t.Fatal(err)
		}
		w, err := workload.LoadWorkloadFor(wp, ds)
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Jobs) != 50 || len(ds.Datasets) != 38 || w.Jobs[5].Stages[0].Input != tc.job5 {
			t.Errorf("literal %v: %d jobs, %d datasets, job5 reads %s", tc.literal, len(w.Jobs), len(ds.Datasets), w.Jobs[5].Stages[0].Input)
		}
		if out := stderr.String(); !strings.Contains(out, "input paths: 38 datasets") || !strings.Contains(out, "17 jobs read a dataset that another job reads") {
			t.Errorf("summary: %q", out)
		}
	}
}
