package live

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
)

// countingPlacer is HDFS's placement, counting the datasets it places.
type countingPlacer struct {
	hdfs.Placer
	placed []string
}

func (p *countingPlacer) PlaceDataset(t *cluster.Topology, rng *rand.Rand, d *workload.Dataset, sizes []int64) ([][]workload.Replica, error) {
	p.placed = append(p.placed, d.Name)
	return p.Placer.PlaceDataset(t, rng, d, sizes)
}

// Config.Placer reaches the engine: it places the run's unplaced input.
func TestConfigPlacerPlacesInputs(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, err := wire.NewCredentials(hostNames(topo))
	if err != nil {
		t.Fatal(err)
	}
	p := &countingPlacer{}
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "placer", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: t.TempDir(), StopWorkers: true, MaterializeOnly: true, Placer: p, Logf: t.Logf}
	cfg.OnListening = func(u string) { startWorkers(t, topo, u, creds, "placer") }
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if len(p.placed) != 1 || p.placed[0] != "in" {
		t.Fatalf("the configured placer placed %v, want [in]", p.placed)
	}
}
