package engine

import (
	"slices"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// The memory tier as a bounded LRU cache (Config.MemoryLRU).
//
// Trident's FB-like workload (spec §5.2, §7.3) runs OctopusFS with a
// memory tier much smaller than the input (4 GB a node, 40 GB in all
// against 92 GB) and its LRU eviction policy on, so that later jobs find
// their input in memory. A placer that puts one replica per tier in
// memory, with nothing bounding it, would instead keep the whole input
// there from the start. So with MemoryLRU on:
//
//   - a replica a placer put in memory is held on its host's next tier
//     (HDD, else SSD) from the start: the data is not uploaded yet;
//   - a dataset is uploaded when the first job that reads it is
//     submitted, as SWIM's replay writes a job's input just before the
//     job: each of its blocks' held replicas moves into memory on its
//     host, in block order, after the host's least recently used memory
//     blocks have been demoted to make room. A demotion moves the replica
//     down (HDD, else SSD), it never drops it, so a block keeps its
//     replication (the spec's [I]: d stays 3). A block larger than the
//     whole memory tier stays where it is held;
//   - a block is used when it is uploaded and whenever a map attempt that
//     reads it (from any of its replicas) launches. Every use takes the
//     next value of a counter, so no two blocks are ever equally recent
//     and evictions do not depend on map order.
//
// A dataset is uploaded once: a block demoted later stays on the lower
// tier (OctopusFS does not promote on read). The cache accounts only the
// replicas it manages; a replica a policy moves itself (SetReplicaTier)
// is not counted, and one the cache manages that a policy moved out of
// memory is just forgotten when evicted. Every move goes through
// setReplicaTier, so it reaches the driver as a Ready.TierMove, in the
// order that frees memory before filling it. A memory tier of capacity
// 0 is unbounded, as everywhere else (worker/store, datagen/layout): its
// uploads never evict. A replica on a host with neither HDD nor SSD is
// not managed: it stays in memory.
type memLRU struct {
	// held lists, by dataset, the memory replicas held on a lower tier
	// until the dataset is uploaded; a dataset leaves it when uploaded.
	held map[string][]heldReplica
	// used is each host's memory bytes that the cache manages, resident
	// the blocks they hold.
	used     []int64
	resident [][]residentBlock
	// lastUse is the counter value of each managed block's latest use;
	// clock the last value given.
	lastUse map[memBlock]uint64
	clock   uint64
}

// memBlock names a block of a dataset.
type memBlock struct {
	dataset string
	block   int
}

type heldReplica struct {
	block int
	host  cluster.HostID
}

type residentBlock struct {
	memBlock
	size int64
}

// lowerTier is the tier a memory replica on host h is held on or demoted
// to: HDD, else SSD; false when the host has neither.
func (e *Engine) lowerTier(h cluster.HostID) (cluster.TierKind, bool) {
	for _, k := range []cluster.TierKind{cluster.HDD, cluster.SSD} {
		if _, ok := e.topo.Hosts[h].Tier(k); ok {
			return k, true
		}
	}
	return 0, false
}

// holdMemoryReplicas starts the cache (New calls it once the datasets
// are placed, before the jobs are built): every memory replica moves to
// its host's lower tier in the engine's copy of the datasets, without a
// TierMove, since the driver stores the data where the engine's datasets
// say it is.
func (e *Engine) holdMemoryReplicas() {
	l := &memLRU{
		held:     map[string][]heldReplica{},
		used:     make([]int64, len(e.topo.Hosts)),
		resident: make([][]residentBlock, len(e.topo.Hosts)),
		lastUse:  map[memBlock]uint64{},
	}
	e.lru = l
	for di := range e.datasets.Datasets {
		d := &e.datasets.Datasets[di]
		for bi := range d.Blocks {
			for ri, r := range d.Blocks[bi].Replicas {
				if r.Tier != cluster.Mem {
					continue
				}
				to, ok := e.lowerTier(r.Host)
				if !ok {
					continue
				}
				if !e.ownBlocks[d.Name] {
					// copy on write: the blocks may be the caller's
					d.Blocks = slices.Clone(d.Blocks)
					if e.ownBlocks == nil {
						e.ownBlocks = map[string]bool{}
					}
					e.ownBlocks[d.Name] = true
				}
				b := &d.Blocks[bi]
				if len(l.held[d.Name]) == 0 || l.held[d.Name][len(l.held[d.Name])-1].block != bi {
					b.Replicas = slices.Clone(b.Replicas) // once per block
				}
				b.Replicas[ri].Tier = to
				l.held[d.Name] = append(l.held[d.Name], heldReplica{block: bi, host: r.Host})
			}
		}
	}
}

// uploadInputs uploads the datasets a job's maps read, if not yet done:
// submit calls it before the job's stages are released, so the policy
// sees the job's input where the upload put it.
func (e *Engine) uploadInputs(j *Job) {
	if e.lru == nil {
		return
	}
	for _, st := range j.Stages {
		if st.Spec.Kind == workload.Map && st.InputClass == ClassInput {
			e.upload(st.Spec.Input)
		}
	}
}

// upload moves a dataset's held replicas into memory, evicting as it
// goes.
func (e *Engine) upload(dataset string) {
	l := e.lru
	held, ok := l.held[dataset]
	if !ok {
		return
	}
	delete(l.held, dataset)
	di := slices.IndexFunc(e.datasets.Datasets, func(d workload.Dataset) bool { return d.Name == dataset })
	for i, r := range held {
		k := memBlock{dataset, r.block}
		if i == 0 || held[i-1].block != r.block {
			l.clock++
			l.lastUse[k] = l.clock // the upload is a use
		}
		size := e.datasets.Datasets[di].Blocks[r.block].Size
		e.promote(k, r.host, size)
	}
}

// promote moves a block's replica on host h into memory, after demoting
// the host's least recently used blocks until it fits.
func (e *Engine) promote(k memBlock, h cluster.HostID, size int64) {
	l := e.lru
	if !e.hosts[h].alive {
		return // its replica is gone with the host
	}
	mem, _ := e.topo.Hosts[h].Tier(cluster.Mem)
	bounded := mem.CapacityBytes > 0
	if bounded && size > mem.CapacityBytes {
		return // would never fit: stays where it is held
	}
	for bounded && l.used[h]+size > mem.CapacityBytes {
		e.evictOldest(h)
	}
	if err := e.setReplicaTier(k.dataset, k.block, h, cluster.Mem); err != nil {
		return // cannot happen: the host is alive and has the replica and a memory tier
	}
	l.used[h] += size
	l.resident[h] = append(l.resident[h], residentBlock{k, size})
	e.Stats.MemoryUploads++
}

// evictOldest demotes host h's least recently used memory block to the
// host's lower tier. The host holds at least one block: promote calls it
// only while the host's used bytes exceed what is left of its capacity.
func (e *Engine) evictOldest(h cluster.HostID) {
	l := e.lru
	res := l.resident[h]
	oldest := 0
	for i := range res {
		if l.lastUse[res[i].memBlock] < l.lastUse[res[oldest].memBlock] {
			oldest = i
		}
	}
	victim := res[oldest]
	l.resident[h] = slices.Delete(res, oldest, oldest+1)
	l.used[h] -= victim.size
	if tier, ok := e.replicaTier(victim.memBlock, h); !ok || tier != cluster.Mem {
		return // a policy moved it out of memory already
	}
	to, _ := e.lowerTier(h) // it was held there, so the host has one
	if err := e.setReplicaTier(victim.dataset, victim.block, h, to); err == nil {
		e.Stats.MemoryDemotions++
	}
}

// replicaTier is the tier of a block's replica on host h now; false if
// the host holds none.
func (e *Engine) replicaTier(k memBlock, h cluster.HostID) (cluster.TierKind, bool) {
	di := slices.IndexFunc(e.datasets.Datasets, func(d workload.Dataset) bool { return d.Name == k.dataset })
	for _, r := range e.datasets.Datasets[di].Blocks[k.block].Replicas {
		if r.Host == h {
			return r.Tier, true
		}
	}
	return 0, false
}

// touchBlock records a use of a dataset's block by a map attempt that
// launched to read it; blocks the cache does not manage are not tracked.
func (e *Engine) touchBlock(dataset string, block int32) {
	if e.lru == nil || block < 0 {
		return
	}
	k := memBlock{dataset, int(block)}
	if _, ok := e.lru.lastUse[k]; ok {
		e.lru.clock++
		e.lru.lastUse[k] = e.lru.clock
	}
}
