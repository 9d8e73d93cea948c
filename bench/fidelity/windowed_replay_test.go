package fidelity

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/sim"
	"github.com/racklab/racklab/coordinator/cluster"
)

// A run cut by its window, replayed on a faster cluster (as a live run's
// records are replayed in the simulator): the records end at the window,
// and tasks the recorded run never reached have none. The replay runs
// out of records before its own window and must wait for it, not take
// the records for another workload's.
func TestWindowedReplayOnAFasterCluster(t *testing.T) {
	camp := strings.Replace(testCampaign, "  datasets: datasets.yaml\n", "  datasets: datasets.yaml\n  window_s: 4.3\n", 1)
	camp = strings.Replace(camp, "policies: [fifo, fair, capacity, delay, hadoop, shadow, trident, dawn, quartet, hscheduler, sparkdefault, shufflewatcher,\n               corral, {name: corral, label: corral-hdfs, args: {placement: hdfs}}]", "policies: [fifo]", 1)
	c, out := runCampaign(t, camp)
	dir := filepath.Dir(out)
	r := c.Matrix(out)[0]
	run, err := Locate(r.Dir, filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := run.ReplaySpec(filepath.Join(out, "replay"), false)
	if err != nil {
		t.Fatal(err)
	}
	// the replaying cluster is faster than the recorded one
	tiers := cluster.DefaultTiers()
	for i := range tiers {
		tiers[i].ReadBps *= 50
		tiers[i].WriteBps *= 50
	}
	fast, err := cluster.Uniform(cluster.UniformSpec{Racks: 3, HostsPerRack: 2, Slots: 2, NICBps: 50 * 125e6, Tiers: tiers, Oversubscription: 1})
	if err != nil {
		t.Fatal(err)
	}
	spec.Topology = fast
	sum, _, err := sim.RunOne(spec)
	if err != nil {
		t.Fatalf("replay of a windowed run: %v", err)
	}
	if sum.UnfinishedJobs == 0 {
		t.Errorf("the replay finished every job (%d): the window did not cut the recorded run", sum.Jobs)
	}
}
