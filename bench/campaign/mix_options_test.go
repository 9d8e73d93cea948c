package campaign

import (
	"strings"
	"testing"
)

func mixCampaign(opts string) string {
	return "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: mix, preset: hibench-small, scale: 0.01" + opts + "}\nruns: [{mode: sim, policies: [fifo]}]\n"
}

// output_replicas reaches the mix generator: every job's final stages
// get it; without it no stage has one. It is refused out of range and
// for generators other than mix and recurring.
func TestMixOutputReplicas(t *testing.T) {
	for _, tc := range []struct {
		opts string
		want int
	}{{", output_replicas: 3", 3}, {"", 0}} {
		w, _, _ := generated(t, mixCampaign(tc.opts))
		finals := 0
		for _, j := range w.Jobs {
			for _, st := range j.Stages {
				if st.OutputReplicas != 0 {
					finals++
					if st.OutputReplicas != tc.want {
						t.Fatalf("%q: %s/%s has %d output replicas, want %d", tc.opts, j.ID, st.Name, st.OutputReplicas, tc.want)
					}
				}
			}
		}
		if (tc.want == 0) != (finals == 0) || (tc.want > 0 && finals < len(w.Jobs)) {
			t.Errorf("%q: %d stages with output replicas in %d jobs", tc.opts, finals, len(w.Jobs))
		}
	}
	for opts, want := range map[string]string{
		", output_replicas: 0":   "output_replicas is a job output's replication and must be between 1 and 512 (got 0)",
		", output_replicas: 600": "must be between 1 and 512 (got 600)",
	} {
		if _, err := Load(writeCampaign(t, mixCampaign(opts))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", opts, err, want)
		}
	}
	// the recurring generator takes it too (corral.md §2.6: job outputs
	// by the default DFS policy): every job's reduce stage; others refuse
	w, _, _ := generated(t, recurringCampaign(", output_replicas: 3"))
	for _, j := range w.Jobs {
		if got := j.Stages[len(j.Stages)-1].OutputReplicas; got != 3 {
			t.Fatalf("recurring: %s's last stage has %d output replicas, want 3", j.ID, got)
		}
	}
	tpch := "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: tpch, output_replicas: 3}\nruns: [{mode: sim, policies: [fifo]}]\n"
	if _, err := Load(writeCampaign(t, tpch)); err == nil || !strings.Contains(err.Error(), "output_replicas is an option of the mix and recurring generator") {
		t.Errorf("tpch with output_replicas: err %v", err)
	}
}

// apps are the mix's own lines and max_reducers caps each job's
// reducers; both are refused where they make no sense.
func TestMixAppsAndMaxReducers(t *testing.T) {
	text := "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: mix, apps: [1 sequence-count 8GB, 1 terasort 1GiB], block_size: 256MiB, max_reducers: 4, reduce_bytes: 600MiB}\nruns: [{mode: sim, policies: [fifo]}]\n"
	w, ds, _ := generated(t, text)
	if len(w.Jobs) != 2 || len(w.Jobs[0].Stages) != 2 || len(ds.Datasets) != 2 {
		t.Fatalf("want one map-reduce job over one dataset, got %+v", w.Jobs)
	}
	if d, reds := ds.Datasets[0], w.Jobs[0].Stages[1].Tasks; d.Size != 8e9 || d.BlockSize != 256<<20 || reds != 4 {
		t.Errorf("input %d B in %d B blocks and %d reducers, want 8 GB in 256 MiB blocks and 4 (capped from 12: 12 GB of shuffle)", d.Size, d.BlockSize, reds)
	}
	if reds := w.Jobs[1].Stages[1].Tasks; reds != 2 {
		t.Errorf("terasort of 1 GiB has %d reducers, want 2 (600 MiB each, rounded up)", reds)
	}
	for opts, want := range map[string]string{
		"preset: puma, apps: [1 terasort 1GB]":    "give either a preset or apps, not both",
		"apps: [1 terasort 1GB], max_reducers: 0": "max_reducers caps a job's reduce tasks and must be at least 1",
		"apps: [1 nosuchapp 1GB]":                 "nosuchapp",
	} {
		text := "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: mix, " + opts + "}\nruns: [{mode: sim, policies: [fifo]}]\n"
		c, err := Load(writeCampaign(t, text))
		if err == nil {
			_, _, _, err = generate(c.Workload.Generator)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", opts, err, want)
		}
	}
}
