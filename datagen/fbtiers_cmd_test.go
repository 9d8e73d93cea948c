package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

func TestFBTiersCommand(t *testing.T) {
	dir := t.TempDir()
	wp, dp := filepath.Join(dir, "w.yaml"), filepath.Join(dir, "d.yaml")
	trace := filepath.Join("..", "traces", "swim", "FB-2010_samples_24_times_1hr_0.tsv")
	var stderr bytes.Buffer
	cmd := rootCmd()
	cmd.SetErr(&stderr)
	cmd.SetArgs([]string{"fbtiers", "--trace", trace, "--out-workload", wp, "--out-datasets", dp,
		"--jobs", "200", "--duration", "1h", "--total-input", "30GiB", "--zipf", "0.8", "--scale", "0.001", "--seed", "3"})
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
	var total int64
	for _, d := range ds.Datasets {
		total += d.Size
	}
	if len(w.Jobs) != 200 || w.Jobs[len(w.Jobs)-1].Arrival >= 3600 || total < 32212254-int64(len(ds.Datasets)) || total > 32212255+int64(len(ds.Datasets)) {
		t.Errorf("%d jobs, the last at %g s, %d B of input; want 200 within an hour, 30 GiB × 0.001", len(w.Jobs), w.Jobs[len(w.Jobs)-1].Arrival, total)
	}
	out := stderr.String()
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, "A 149 jobs") || !strings.Contains(out, "of the reads") {
		t.Errorf("summary: %q", out)
	}

	for _, args := range [][]string{
		{"fbtiers", "--trace", trace, "--out-workload", wp},
		{"fbtiers", "--trace", trace, "--out-workload", wp, "--out-datasets", dp, "--total-input", "lots"},
		{"fbtiers", "--trace", filepath.Join(dir, "none.tsv"), "--out-workload", wp, "--out-datasets", dp},
		{"fbtiers", "--trace", trace, "--out-workload", wp, "--out-datasets", dp, "--jobs", "0"},
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
