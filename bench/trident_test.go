package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// campaigns/trident.yaml's simulated runs, as `bench reproduce trident
// --mode sim` runs them (a few seconds): the small campaign that holds
// Trident's mechanisms together. Each row below fails if one of them is
// gone: the matching's locality (Trident/HDFS data-local), the tiers in
// its cost (memory-local over the tiered placement, against
// H-Scheduler), OctopusFS writing job outputs through the tiers (HiBench's
// later jobs read earlier outputs from memory), and the JCT of large FB
// jobs. The scheduling-time rows are wall clock and not checked here.
func TestTridentCampaignSim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Trident campaign's simulations")
	}
	out := filepath.Join(t.TempDir(), "results")
	table := runBench(t, "reproduce", "trident", "--campaigns", "../campaigns", "--mode", "sim", "--out", out, "--quiet")
	rows := strings.Split(table, "\n")
	for _, want := range []struct{ in, metric, who, verdict string }{
		{"fb", "node_local_frac  ", "trident@hdfs (own share)", "reproduced (within the paper's bound)"},
		{"fb", "node_local_frac (input 0B-128MiB)", "capacity@hdfs (own share)", "reproduced"},
		{"fb", "mem_local_frac (input 1GiB-10GiB)", "trident@oct vs hscheduler@oct", "reproduced (direction only"},
		{"fb", "jct_mean_s (input 1GiB-10GiB)", "trident@oct vs capacity@hdfs", "reproduced"},
		{"fb", "jct_mean_s (input 1GiB-10GiB)", "trident@oct vs trident@hdfs", "reproduced (direction only"},
		{"hibench-large", "mem_local_frac", "trident@oct (own share)", "reproduced (within the paper's bound)"},
		{"hibench-large", "jct_mean_s", "trident@oct vs capacity@hdfs", "reproduced (direction only"},
	} {
		found := false
		for _, r := range rows {
			f := strings.Fields(r)
			if len(f) < 2 || f[1] != want.in || !strings.Contains(r, want.metric) || !strings.Contains(r, want.who) {
				continue
			}
			found = true
			if strings.Contains(r, "not reproduced") || !strings.Contains(r, want.verdict) {
				t.Errorf("%s %s %s: want %q:\n%s", want.in, want.metric, want.who, want.verdict, r)
			}
		}
		if !found {
			t.Errorf("no row %s %s %s in:\n%s", want.in, want.metric, want.who, table)
		}
	}
}
