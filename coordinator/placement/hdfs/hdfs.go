package hdfs

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// DefaultReplication is HDFS's dfs.replication.
const DefaultReplication = 3

// Placer is the HDFS default placement policy.
type Placer struct {
	// TierMix is the share of replicas per tier kind; a host lacking the
	// drawn tier gets its slowest one. All zero: HDD (or the host's
	// slowest tier).
	TierMix [cluster.NumTierKinds]float64
	// WriterRacks, when set, are the racks the datasets were written
	// from: each block's first replica (HDFS's writer-local one) goes on a
	// random host of these racks, the rest by HDFS's rule. Datasets
	// uploaded from a few racks, or written by a job whose writers ran
	// there, leave every block a replica in those racks, which skews where
	// locality-first schedulers run the maps (shadow.md §7.2).
	WriterRacks []cluster.RackID
}

// PlaceDataset implements engine.DatasetPlacer.
func (p *Placer) PlaceDataset(t *cluster.Topology, rng *rand.Rand, d *workload.Dataset, sizes []int64) ([][]workload.Replica, error) {
	n := d.Replication
	if n == 0 {
		n = DefaultReplication
	}
	if n < 0 {
		return nil, fmt.Errorf("replication %d is negative", n)
	}
	// like HDFS, a cluster smaller than the replication keeps the block
	// under-replicated rather than refusing it
	n = min(n, len(t.Hosts))
	var writers []cluster.HostID
	for _, r := range p.WriterRacks {
		if r < 0 || int(r) >= len(t.Racks) {
			return nil, fmt.Errorf("writer rack %d is not a rack of the topology (it has %d)", r, len(t.Racks))
		}
		writers = append(writers, t.Racks[r].Hosts...)
	}
	out := make([][]workload.Replica, len(sizes))
	for b := range sizes {
		var hosts []cluster.HostID
		if len(writers) > 0 {
			hosts = placeFrom(t, rng, writers[rng.IntN(len(writers))], n, nil)
		} else {
			hosts = Hosts(t, rng, n, nil)
		}
		reps := make([]workload.Replica, len(hosts))
		for i, h := range hosts {
			reps[i] = workload.Replica{Host: h, Tier: p.tier(t, rng, h)}
		}
		out[b] = reps
	}
	return out, nil
}

// Hosts chooses the hosts of a new block's n replicas by HDFS's rule:
// the first on a random host (the writer), the second on a host of
// another rack, the third on another host of the second's rack, further
// ones on random hosts, never two on one host. Only hosts usable accepts
// are chosen (nil: every host); fewer come back if too few are usable.
// Other placers (coordinator/placement/octopus) reuse it for their node
// choice, so that their layouts differ from HDFS's in tiers only.
func Hosts(t *cluster.Topology, rng *rand.Rand, n int, usable func(cluster.HostID) bool) []cluster.HostID {
	n = min(n, len(t.Hosts))
	if n <= 0 {
		return nil
	}
	var first cluster.HostID
	if usable == nil {
		first = cluster.HostID(rng.IntN(len(t.Hosts)))
	} else {
		all := make([]cluster.HostID, len(t.Hosts))
		for i := range all {
			all[i] = cluster.HostID(i)
		}
		first = pickOther(all, rng, func(h cluster.HostID) bool { return !usable(h) })
		if first < 0 {
			return nil
		}
	}
	return placeFrom(t, rng, first, n, usable)
}

// placeFrom places n replicas, the first on the writer, the others by
// HDFS's rule on hosts that usable accepts (nil: every host).
func placeFrom(t *cluster.Topology, rng *rand.Rand, first cluster.HostID, n int, usable func(cluster.HostID) bool) []cluster.HostID {
	hosts := make([]cluster.HostID, 0, n)
	used := func(h cluster.HostID) bool {
		if usable != nil && !usable(h) {
			return true
		}
		for _, x := range hosts {
			if x == h {
				return true
			}
		}
		return false
	}
	hosts = append(hosts, first)
	firstRack := t.RackOf(first)
	if n >= 2 {
		if len(t.Racks) > 1 {
			r := rng.IntN(len(t.Racks) - 1)
			if cluster.RackID(r) >= firstRack {
				r++
			}
			rack := t.Racks[r]
			if usable == nil {
				hosts = append(hosts, rack.Hosts[rng.IntN(len(rack.Hosts))])
			} else if h := pickOther(rack.Hosts, rng, used); h >= 0 {
				hosts = append(hosts, h)
			}
		} else if h := pickOther(t.Racks[firstRack].Hosts, rng, used); h >= 0 {
			hosts = append(hosts, h)
		}
	}
	// without a second replica (no usable host on another rack) the rest
	// go anywhere, below
	if n >= 3 && len(hosts) >= 2 {
		rack := t.Racks[t.RackOf(hosts[1])]
		if h := pickOther(rack.Hosts, rng, used); h >= 0 {
			hosts = append(hosts, h)
		}
	}
	for len(hosts) < n {
		all := make([]cluster.HostID, len(t.Hosts))
		for i := range all {
			all[i] = cluster.HostID(i)
		}
		h := pickOther(all, rng, used)
		if h < 0 {
			break // fewer usable hosts than replicas
		}
		hosts = append(hosts, h)
	}
	return hosts
}

// PlaceReplicas places the n replicas of a file written on a host, as
// HDFS's write pipeline does: the first on the writer, the second on a
// host of another rack, the third on another host of the second's rack,
// the rest anywhere; only on hosts usable accepts (live ones), and fewer
// if too few are. It is the engine's output placer for baselines that
// write job outputs HDFS-style.
func (p *Placer) PlaceReplicas(t *cluster.Topology, rng *rand.Rand, writer cluster.HostID, n int, usable func(cluster.HostID) bool) []workload.Replica {
	hosts := PipelineHosts(t, rng, writer, n, usable)
	reps := make([]workload.Replica, len(hosts))
	for i, h := range hosts {
		reps[i] = workload.Replica{Host: h, Tier: p.tier(t, rng, h)}
	}
	return reps
}

// PipelineHosts chooses the hosts of a file's n replicas written on a
// host, as HDFS's write pipeline does (PlaceReplicas): the writer first,
// then HDFS's rule, only on hosts usable accepts (nil: every host), fewer
// if too few are. Other placers (octopus) reuse it for their output
// replicas.
func PipelineHosts(t *cluster.Topology, rng *rand.Rand, writer cluster.HostID, n int, usable func(cluster.HostID) bool) []cluster.HostID {
	return placeFrom(t, rng, writer, min(n, len(t.Hosts)), usable)
}

// pickOther draws a host of the list not yet used, or -1.
func pickOther(list []cluster.HostID, rng *rand.Rand, used func(cluster.HostID) bool) cluster.HostID {
	free := 0
	for _, h := range list {
		if !used(h) {
			free++
		}
	}
	if free == 0 {
		return -1
	}
	k := rng.IntN(free)
	for _, h := range list {
		if !used(h) {
			if k == 0 {
				return h
			}
			k--
		}
	}
	return -1
}

func (p *Placer) tier(t *cluster.Topology, rng *rand.Rand, h cluster.HostID) cluster.TierKind {
	host := &t.Hosts[h]
	mix := p.TierMix
	var sum float64
	for _, s := range mix {
		sum += s
	}
	if math.IsInf(sum, 1) {
		// shares near math.MaxFloat64 overflow their sum, and every draw
		// then fell through to HDD: weights, they may be scaled down
		var top float64
		for _, s := range mix {
			top = max(top, s)
		}
		sum = 0
		for k := range mix {
			mix[k] /= top
			sum += mix[k]
		}
	}
	want := cluster.HDD
	if sum > 0 {
		x := rng.Float64() * sum
		for k, s := range mix {
			if s > 0 {
				// the last kind with a share, should rounding leave x
				// above every share
				want = cluster.TierKind(k)
			}
			if x < s {
				break
			}
			x -= s
		}
	}
	return TierOrSlowest(host, want)
}

// TierOrSlowest is the tier a replica drawn for tier kind want gets on a
// host: want if the host has it, else the host's slowest tier (the one a
// file system falls back to, as it is the most plentiful). A host
// without tiers keeps want.
func TierOrSlowest(host *cluster.Host, want cluster.TierKind) cluster.TierKind {
	if _, ok := host.Tier(want); ok || len(host.Tiers) == 0 {
		return want
	}
	slowest := host.Tiers[0].Kind
	for _, tr := range host.Tiers {
		if tr.Kind > slowest {
			slowest = tr.Kind
		}
	}
	return slowest
}
