package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

// Numbers that parsed and then crashed or hung a run are refused with the
// file, the line, the field and the limit.
func TestCampaignNumberLimits(t *testing.T) {
	const head = "name: x\ncluster: {racks: 2, hosts_per_rack: 2}\n"
	const file = "workload: {file: w.yaml}\n"
	const runs = "runs: [{mode: sim, policies: [fifo]}]\n"
	for _, tc := range []struct{ name, text, want string }{
		{"seed negative", head + file + "seed: -1\n" + runs, "c.yaml:4: campaign: seed must not be negative (got -1)"},
		{"slowstart above 1", head + file + "slowstart: 7\n" + runs, "c.yaml:4: campaign: slowstart must be between 0 and 1 (got 7)"},
		{"max sim time negative", head + file + "limits: {max_sim_time_s: -10}\n" + runs, "c.yaml:4: limits: max_sim_time_s must not be negative"},
		{"repetitions huge", head + file + "runs:\n  - mode: sim\n    policies: [fifo]\n    repetitions: 1000000000\n", "c.yaml:7: runs[0]: repetitions must be at most 1000 (got 1000000000)"},
		{"generator seed negative", head + "workload:\n  generator: {name: ml, seed: -5}\n" + runs, "c.yaml:4: workload generator: seed must not be negative"},
		{"generator workloads huge", head + "workload:\n  generator: {name: ml, workloads: 100000000000}\n" + runs, "c.yaml:4: workload generator: workloads must be at most 10000000"},
		{"generator replication huge", head + "workload:\n  generator: {name: ml, replication: 100000}\n" + runs, "c.yaml:4: workload generator: replication must be at most 512"},
		{"generator rate near zero", head + "workload:\n  generator: {name: ml, arrivals: poisson, rate: 1e-300}\n" + runs, "c.yaml:4: workload generator: rate must be at least 1e-09"},
		{"swim max jobs negative", head + "workload:\n  swim: {trace: t.tsv, max_jobs: -1}\n" + runs, "c.yaml:4: workload swim: max_jobs must not be negative"},
		{"swim max reducers huge", head + "workload:\n  swim: {trace: t.tsv, max_reducers: 2000000000}\n" + runs, "c.yaml:4: workload swim: max_reducers must be at most 10000000"},
		{"swim sample seed negative", head + "workload:\n  swim: {trace: t.tsv, sample: 5, sample_seed: -1}\n" + runs, "c.yaml:4: workload swim: sample_seed must not be negative (got -1)"},
		{"swim scale zero", head + "workload:\n  swim: {trace: t.tsv, scale: 0}\n" + runs, "c.yaml:4: workload swim: scale must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeCampaign(t, tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant\n  %s", err, tc.want)
			}
		})
	}
}

// Options that only their generator checks (a preset, a set, a query)
// are refused, when the workload is made, with the generator's line.
func TestGeneratorErrorsHaveTheirLine(t *testing.T) {
	const head = "name: x\ncluster: {racks: 2, hosts_per_rack: 2}\nworkload:\n"
	const runs = "runs: [{mode: sim, policies: [fifo]}]\n"
	for gen, want := range map[string]string{
		"{name: mix, preset: nosuch}":                 `c.yaml:4: workload generator mix: unknown preset "nosuch"`,
		"{name: recurring, set: w9}":                  `c.yaml:4: workload generator recurring: unknown workload "w9"`,
		"{name: tpch, queries: [99]}":                 `c.yaml:4: workload generator tpch: no plan for query 99`,
		"{name: ml, labels: [B1, B99]}":               `c.yaml:4: workload generator ml: unknown benchmark label "B99"`,
		"\n    name: mix\n    apps: ['1 hadoop 1GB']": `c.yaml:5: workload generator mix: apps:1: unknown application "hadoop"`,
	} {
		c, err := Load(writeCampaign(t, head+"  generator: "+gen+"\n"+runs))
		if err != nil {
			t.Fatalf("%s: %v", gen, err)
		}
		topo, err := c.loadTopology(c.Runs[0])
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := c.spec("")
		if _, err := loadWorkload(spec, topo); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", gen, err, want)
		}
	}
}

// A workload without jobs is refused when it is loaded, before any run,
// naming where it comes from: a run of it would report zeros that read
// as figures.
func TestEmptyWorkloadIsRefused(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(wl, []byte("jobs: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(writeCampaign(t, "name: x\ncluster: {racks: 2, hosts_per_rack: 2}\nworkload: {file: "+wl+"}\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := c.loadTopology(c.Runs[0])
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := c.spec("")
	if _, err := loadWorkload(spec, topo); err == nil || err.Error() != wl+": "+workload.ErrNoJobs.Error() {
		t.Errorf("an empty workload: %v", err)
	}
	// its predictions name jobs it lacks: the emptiness is what is said
	spec.Predicted = filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(spec.Predicted, []byte("jobs:\n  - {id: a, arrival_s: 0, input_bytes: 1, shuffle_bytes: 1, output_bytes: 1, map_tasks: 1, reduce_tasks: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadWorkload(spec, topo); err == nil || err.Error() != wl+": "+workload.ErrNoJobs.Error() {
		t.Errorf("an empty workload with predictions: %v", err)
	}
}
