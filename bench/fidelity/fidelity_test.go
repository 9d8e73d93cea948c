package fidelity

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/sim"
)

// A small shuffle-heavy campaign: five jobs overlapping on a 3 × 2
// cluster with oversubscribed rack links, two replicas per block (so
// that a map's source replica is a choice), reducers slow-started.
const testCampaign = `name: selfreplay
cluster: {racks: 3, hosts_per_rack: 2, slots: 2, nic_gbps: 1, oversubscription: 4}
workload:
  file: workload.yaml
  datasets: datasets.yaml
seed: 3
runs:
  - {mode: sim, policies: [fifo, fair, capacity, delay, hadoop, shadow, trident, dawn, quartet, hscheduler, sparkdefault, shufflewatcher,
               corral, {name: corral, label: corral-hdfs, args: {placement: hdfs}}], full_recompute: -1}
`

const testWorkload = `jobs:
  - id: a
    arrival_s: 0
    stages:
      - {name: map, kind: map, input: a, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 4, after: [map], selectivity: 1}
  - id: b
    arrival_s: 0.5
    stages:
      - {name: map, kind: map, input: b, selectivity: 0.5}
      - {name: reduce, kind: reduce, tasks: 3, after: [map], selectivity: 1}
  - id: c
    arrival_s: 1
    stages:
      - {name: map, kind: map, input: c, selectivity: 2}
      - {name: reduce, kind: reduce, tasks: 5, after: [map], selectivity: 1}
  - id: d
    arrival_s: 4
    stages:
      - {name: map, kind: map, input: a, selectivity: 0.2}
  - id: e
    arrival_s: 5
    stages:
      - {name: map, kind: map, input: c, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 2, after: [map], selectivity: 1}
`

const testDatasets = `block_size_bytes: 33554432
replication: 2
datasets:
  - {name: a, size_bytes: 402653184}
  - {name: b, size_bytes: 201326592}
  - {name: c, size_bytes: 268435456}
`

// simCampaign runs the test campaign in simulation into a temporary
// result directory and returns its runs.
func simCampaign(t *testing.T) (*campaign.Campaign, string) {
	t.Helper()
	return runCampaign(t, testCampaign)
}

// runCampaign writes a campaign text as c.yaml beside the test workload
// and datasets, runs it into results/ there, and returns it and
// results/ (whose directory holds c.yaml).
func runCampaign(t *testing.T, text string) (*campaign.Campaign, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"c.yaml": text, "workload.yaml": testWorkload, "datasets.yaml": testDatasets} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := campaign.Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	if err := campaign.Execute(context.Background(), c, campaign.Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	return c, out
}

// The self-consistency check: a simulated run's records, replayed in
// the simulator, give every job the same completion time and cross-rack
// bytes, each attempt on its recorded host with its recorded source.
// It can fail: a replay that launched in another order, on other hosts
// or from other replicas (Corral's, which places its input datasets
// itself, read from elsewhere without replay.WithPlacer), or that lost
// the recorded kills, would move
// other bytes at other times. (Not exact: KMN, which holds outputs to
// choose among, and NEAT and PushBox, whose network priorities the
// records do not keep.)
func TestReplayOfASimulatedRunReproducesIt(t *testing.T) {
	c, out := simCampaign(t)
	runs := c.Matrix(out)
	if len(runs) != 14 {
		t.Fatalf("%d runs, want 14", len(runs))
	}
	// these leave slots idle on purpose (locality delays, quartet's
	// waits, corral's planned racks): only the recorded times can replay
	// that
	idles := map[string]bool{"fair": true, "capacity": true, "quartet": true, "corral": true}
	for _, r := range runs {
		t.Run(r.Policy.String(), func(t *testing.T) {
			run, err := Locate(r.Dir, filepath.Join(filepath.Dir(out), "c.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			spec, err := run.ReplaySpec(filepath.Join(out, "replay"), idles[r.Policy.Name])
			if err != nil {
				t.Fatal(err)
			}
			sum, _, err := sim.RunOne(spec)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Rejected != 0 {
				t.Errorf("the replay had %d rejected actions", sum.Rejected)
			}
			placed, err := Placements(r.Dir, spec.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if placed.Same != placed.Total || placed.Total == 0 {
				t.Errorf("%d of %d attempts replayed on their recorded host and source", placed.Same, placed.Total)
			}
			if math.Abs(placed.LagP50) > 1e-9 || math.Abs(placed.LagP90) > 1e-9 {
				t.Errorf("an exact replay started its attempts %g s (median), %g s (p90) after the recorded ones", placed.LagP50, placed.LagP90)
			}
			rows, err := Compare(run, r.Dir, spec.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 5 {
				t.Fatalf("%d jobs compared, want 5", len(rows))
			}
			for _, row := range rows {
				// the records keep microseconds
				if math.IsNaN(row.Live.JCT) || math.Abs(row.Replay.JCT-row.Live.JCT) > 2e-6 {
					t.Errorf("job %s: JCT recorded %g, replayed %g", row.Job, row.Live.JCT, row.Replay.JCT)
				}
				if row.Replay.CrossBytes != row.Live.CrossBytes {
					t.Errorf("job %s: cross-rack bytes recorded %d, replayed %d", row.Job, row.Live.CrossBytes, row.Replay.CrossBytes)
				}
			}
		})
	}
}

// A run directory outside a campaign's results, or records of another
// workload, are refused with what is wrong.
func TestLocateAndReplaySpecErrors(t *testing.T) {
	c, out := simCampaign(t)
	r := c.Matrix(out)[0]
	if _, err := Locate(filepath.Dir(r.Dir), ""); err == nil || !strings.Contains(err.Error(), "is not a run's directory") {
		t.Errorf("Locate(set dir): %v", err)
	}
	other := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(other, []byte(strings.Replace(testCampaign, "seed: 3", "seed: 4", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Locate(r.Dir, other); err == nil || !strings.Contains(err.Error(), "differs from the campaign") {
		t.Errorf("Locate with another campaign: %v", err)
	}
	// a table added to the campaign changes no run
	tabled := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(tabled, []byte(testCampaign+"headlines: {title: a table}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Locate(r.Dir, tabled); err != nil {
		t.Errorf("Locate with the campaign and a table: %v", err)
	}
	run, err := Locate(r.Dir, filepath.Join(filepath.Dir(out), "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// a record of a job the workload does not have
	f, err := os.OpenFile(filepath.Join(r.Dir, "attempts.csv"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("zz,0,0,999,map,0,0,1.000000,2.000000,succeeded,false,node,hdd,1,1,1,0,0,0,0,0,0,0,input,,,0\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := run.ReplaySpec(t.TempDir(), false); err == nil || !strings.Contains(err.Error(), `attempts.csv:`) || !strings.Contains(err.Error(), `job "zz" is not in the workload`) {
		t.Errorf("ReplaySpec of bad records: %v", err)
	}
}
