package tierpick

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/workload"
)

// Reason codes of a launch's decision note, one per locality class; they
// are those of the trident policy, so that attempts.csv compares the
// policies class by class.
const (
	MemoryLocal = "memory-local"
	SSDLocal    = "ssd-local"
	HDDLocal    = "hdd-local"
	NoPref      = "no-pref" // a reducer, or a map without a live replica to prefer
	RackLocal   = "rack-local"
	OffRack     = "off-rack"
)

// LocalReason is the reason code of a node-local read from tier k.
func LocalReason(k cluster.TierKind) string {
	switch k {
	case cluster.Mem:
		return MemoryLocal
	case cluster.SSD:
		return SSDLocal
	}
	return HDDLocal
}

// faster orders replicas fastest tier first, then lowest host, so that
// every choice is deterministic.
func faster(a, b workload.Replica) bool {
	return a.Tier < b.Tier || (a.Tier == b.Tier && a.Host < b.Host)
}

// OnHost returns the fastest of the replicas on host h.
func OnHost(reps []workload.Replica, h cluster.HostID) (workload.Replica, bool) {
	best, found := workload.Replica{}, false
	for _, r := range reps {
		if r.Host == h && (!found || faster(r, best)) {
			best, found = r, true
		}
	}
	return best, found
}

// BestTier returns the fastest tier among the replicas, wherever they are.
func BestTier(reps []workload.Replica) (cluster.TierKind, bool) {
	if len(reps) == 0 {
		return 0, false
	}
	best := reps[0].Tier
	for _, r := range reps[1:] {
		best = min(best, r.Tier)
	}
	return best, true
}

// HasTier reports whether some replica, on any host, is on tier k.
func HasTier(reps []workload.Replica, k cluster.TierKind) bool {
	for _, r := range reps {
		if r.Tier == k {
			return true
		}
	}
	return false
}

// InRack reports whether some replica is in rack k.
func InRack(topo *cluster.Topology, reps []workload.Replica, k cluster.RackID) bool {
	for _, r := range reps {
		if topo.RackOf(r.Host) == k {
			return true
		}
	}
	return false
}

// Read returns the replica a map launched on host h reads, its engine
// locality and the launch's reason code: the fastest replica on h
// (memory-, ssd- or hdd-local); else the fastest in h's rack
// (rack-local: the tiered file system serves a rack-local read from the
// rack's fastest copy, trident.md §2.1 (a)); else the fastest anywhere
// (off-rack, §2.1 (d)). This is the replica the trident policy reads for
// the same class. A task without a live replica reads none: ok is false
// and the reason no-pref.
func Read(topo *cluster.Topology, reps []workload.Replica, h cluster.HostID) (src workload.Replica, level engine.Locality, reason string, ok bool) {
	if r, ok := OnHost(reps, h); ok {
		return r, engine.NodeLocal, LocalReason(r.Tier), true
	}
	rack := topo.RackOf(h)
	inRack, anywhere := workload.Replica{}, workload.Replica{}
	foundRack, foundAny := false, false
	for _, r := range reps {
		if topo.RackOf(r.Host) == rack && (!foundRack || faster(r, inRack)) {
			inRack, foundRack = r, true
		}
		if !foundAny || faster(r, anywhere) {
			anywhere, foundAny = r, true
		}
	}
	switch {
	case foundRack:
		return inRack, engine.RackLocal, RackLocal, true
	case foundAny:
		return anywhere, engine.Remote, OffRack, true
	}
	return workload.Replica{}, engine.NoLocality, NoPref, false
}
