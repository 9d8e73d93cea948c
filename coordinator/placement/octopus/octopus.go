package octopus

import (
	"fmt"
	"math/rand/v2"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/workload"
)

// DefaultReplication is OctopusFS's default replication, HDFS's.
const DefaultReplication = hdfs.DefaultReplication

// Placer is the OctopusFS-like placement: one replica per tier kind on
// distinct, rack-aware hosts. It has no state; the zero value is ready.
type Placer struct{}

// PlaceDataset implements engine.DatasetPlacer.
func (p *Placer) PlaceDataset(t *cluster.Topology, rng *rand.Rand, d *workload.Dataset, sizes []int64) ([][]workload.Replica, error) {
	n := d.Replication
	if n == 0 {
		n = DefaultReplication
	}
	if n < 0 {
		return nil, fmt.Errorf("replication %d is negative", n)
	}
	if len(t.Hosts) == 0 {
		return nil, fmt.Errorf("the topology has no host to place %d blocks on", len(sizes))
	}
	out := make([][]workload.Replica, len(sizes))
	for b := range sizes {
		// like HDFS, a cluster smaller than the replication keeps the
		// block under-replicated rather than refusing it (Hosts caps n)
		hosts := hdfs.Hosts(t, rng, n, nil)
		// replica i gets tier order[i]: drawn afresh per block, so that no
		// tier is bound to a position of HDFS's rule (the first replica
		// alone on its rack, the next two sharing another)
		order := rng.Perm(cluster.NumTierKinds)
		reps := make([]workload.Replica, len(hosts))
		for i, h := range hosts {
			want := cluster.HDD
			if i < len(order) {
				want = cluster.TierKind(order[i])
			}
			reps[i] = workload.Replica{Host: h, Tier: hdfs.TierOrSlowest(&t.Hosts[h], want)}
		}
		out[b] = reps
	}
	return out, nil
}
