package sim

import (
	"path/filepath"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/placement/octopus"
	"github.com/racklab/racklab/coordinator/policy"
)

// Spec.Placer places the inputs: by default (HDFS, no tier mix) every
// map reads HDD; with the octopus placer maps read memory and SSD too.
func TestSpecPlacerPlacesInputs(t *testing.T) {
	topo, w, ds := overloaded(t, 6)
	for i := range ds.Datasets {
		ds.Datasets[i].Replication = 2
	}
	dir := t.TempDir()
	def, _, err := RunOne(Spec{Topology: topo, Workload: w, Datasets: ds, Policy: policy.Spec{Name: "fair"}, Seed: 1, Dir: filepath.Join(dir, "hdfs")})
	if err != nil {
		t.Fatal(err)
	}
	if def.TierFrac[cluster.HDD] != 1 {
		t.Fatalf("HDFS placement without a tier mix: maps read %v of memory, SSD, HDD, want all HDD", def.TierFrac)
	}
	oct, _, err := RunOne(Spec{Topology: topo, Workload: w, Datasets: ds, Policy: policy.Spec{Name: "fair"}, Seed: 1, Dir: filepath.Join(dir, "octopus"),
		Placer: &octopus.Placer{}})
	if err != nil {
		t.Fatal(err)
	}
	if oct.TierFrac[cluster.HDD] == 1 || oct.TierFrac[cluster.Mem]+oct.TierFrac[cluster.SSD] == 0 {
		t.Fatalf("octopus placement: maps read %v of memory, SSD, HDD, want faster tiers too", oct.TierFrac)
	}
}
