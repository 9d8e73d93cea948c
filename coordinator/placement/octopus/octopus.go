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
		out[b] = tiers(t, rng, hosts)
	}
	return out, nil
}

// PlaceReplicas implements engine.ReplicaPlacer, for job outputs: a file
// written through OctopusFS gets its replicas as a dataset's blocks do,
// one per tier kind in a random order, on the hosts of HDFS's write
// pipeline (the first on the writer, as the engine requires), only on
// hosts usable accepts, fewer if too few are.
func (p *Placer) PlaceReplicas(t *cluster.Topology, rng *rand.Rand, writer cluster.HostID, n int, usable func(cluster.HostID) bool) []workload.Replica {
	return tiers(t, rng, hdfs.PipelineHosts(t, rng, writer, n, usable))
}

// tiers gives a block's replicas on hosts their tiers: replica i gets
// tier order[i] of a random order of the tier kinds, HDD past the third.
// The order is drawn afresh per block, so that no tier is bound to a
// position of HDFS's rule (the first replica alone on its rack, the next
// two sharing another).
func tiers(t *cluster.Topology, rng *rand.Rand, hosts []cluster.HostID) []workload.Replica {
	order := rng.Perm(cluster.NumTierKinds)
	reps := make([]workload.Replica, len(hosts))
	for i, h := range hosts {
		want := cluster.HDD
		if i < len(order) {
			want = cluster.TierKind(order[i])
		}
		reps[i] = workload.Replica{Host: h, Tier: hdfs.TierOrSlowest(&t.Hosts[h], want)}
	}
	return reps
}
