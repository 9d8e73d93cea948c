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
// Job outputs written to memory are managed too, as OctopusFS's cache
// holds every file written to its memory tier (spec §7.3: HiBench's
// iterative applications read earlier jobs' outputs):
//
//   - a final-stage attempt whose output is placed with a memory replica
//     on host h (by any output placer) has it admitted when it launches,
//     as a file system allocates a block's tiers when its write starts:
//     h's least recently used blocks are demoted to make room, so that
//     the write finds it. The admission is a use. Until the attempt
//     succeeds its replica is being written and is never evicted; if
//     no room can be made from the others, or it is larger than the
//     tier, the replica is written to the lower tier instead;
//   - when the attempt succeeds its size is final (a reduce's output is
//     an expectation until its input is): the write is a use, and the
//     host evicts again if the output grew past what was left;
//   - an output that is never used (its attempt failed or was killed,
//     its output discarded or not chosen) is forgotten, with no move: the
//     file system deletes a failed attempt's files;
//   - a map attempt that reads a parent job's output uses it, as a read
//     of a dataset block does. A demotion moves the output's replica
//     down in its task, its attempt and its readers' blocks
//     (setOutputTier), and reaches the driver as a Ready.TierMove of the
//     output (TierMove.Attempt).
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
	// clock the last value given. A block is a dataset's block or an
	// attempt's output, named as the driver names it (ObjectRef).
	lastUse map[ObjectRef]uint64
	clock   uint64
	// outputs are the attempts whose output has a managed memory
	// replica, by attempt.
	outputs map[AttemptID]*lruOutput
}

// lruOutput is an attempt's output the cache manages. Writing is true
// until the attempt succeeds: the replica is not evicted meanwhile.
type lruOutput struct {
	a       *Attempt
	writing bool
}

type heldReplica struct {
	block int
	host  cluster.HostID
}

type residentBlock struct {
	ObjectRef
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
		lastUse:  map[ObjectRef]uint64{},
		outputs:  map[AttemptID]*lruOutput{},
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
		k := ObjectRef{Dataset: dataset, Block: r.block}
		if i == 0 || held[i-1].block != r.block {
			l.clock++
			l.lastUse[k] = l.clock // the upload is a use
		}
		size := e.datasets.Datasets[di].Blocks[r.block].Size
		e.promote(k, r.host, size)
	}
}

// promote moves a block's replica on host h into memory, after demoting
// the host's least recently used blocks until it fits. A block that
// cannot fit (larger than the tier, or the tier full of outputs still
// being written) stays where it is held.
func (e *Engine) promote(k ObjectRef, h cluster.HostID, size int64) {
	l := e.lru
	if !e.hosts[h].alive {
		return // its replica is gone with the host
	}
	if !e.makeRoom(h, size) {
		return
	}
	if err := e.setReplicaTier(k.Dataset, k.Block, h, cluster.Mem); err != nil {
		return // cannot happen: the host is alive and has the replica and a memory tier
	}
	l.used[h] += size
	l.resident[h] = append(l.resident[h], residentBlock{k, size})
	e.Stats.MemoryUploads++
}

// evictOldest demotes host h's least recently used memory block to the
// host's lower tier, passing over outputs being written; false if every
// block is being written (or there is none).
func (e *Engine) evictOldest(h cluster.HostID) bool {
	l := e.lru
	res := l.resident[h]
	oldest := -1
	for i := range res {
		if o := l.outputs[res[i].Attempt]; res[i].Dataset == "" && o != nil && o.writing {
			continue
		}
		if oldest < 0 || l.lastUse[res[i].ObjectRef] < l.lastUse[res[oldest].ObjectRef] {
			oldest = i
		}
	}
	if oldest < 0 {
		return false
	}
	victim := res[oldest]
	l.resident[h] = slices.Delete(res, oldest, oldest+1)
	l.used[h] -= victim.size
	if tier, ok := e.replicaTier(victim.ObjectRef, h); !ok || tier != cluster.Mem {
		return true // a policy moved it out of memory already
	}
	to, _ := e.lowerTier(h) // it was held there, or admitted, so the host has one
	var err error
	if victim.Dataset != "" {
		err = e.setReplicaTier(victim.Dataset, victim.Block, h, to)
	} else {
		err = e.setOutputTier(l.outputs[victim.Attempt].a, h, to)
	}
	if err == nil {
		e.Stats.MemoryDemotions++
	}
	return true
}

// replicaTier is the tier of a managed block's replica on host h now;
// false if the host holds none.
func (e *Engine) replicaTier(k ObjectRef, h cluster.HostID) (cluster.TierKind, bool) {
	reps := e.lru.outputReplicas(k)
	if k.Dataset != "" {
		di := slices.IndexFunc(e.datasets.Datasets, func(d workload.Dataset) bool { return d.Name == k.Dataset })
		reps = e.datasets.Datasets[di].Blocks[k.Block].Replicas
	}
	for _, r := range reps {
		if r.Host == h {
			return r.Tier, true
		}
	}
	return 0, false
}

// outputReplicas are a managed output's replicas; nil for a dataset's
// block or an output no longer managed.
func (l *memLRU) outputReplicas(k ObjectRef) []workload.Replica {
	if o := l.outputs[k.Attempt]; k.Dataset == "" && o != nil {
		return o.a.OutputReplicas
	}
	return nil
}

// admitOutput admits the memory replicas of a final-stage attempt's
// output as it launches, evicting older blocks to make room; a replica
// that cannot fit is written to its host's lower tier instead.
func (e *Engine) admitOutput(a *Attempt) {
	l := e.lru
	admitted, cloned := false, false
	for i, r := range a.OutputReplicas {
		if r.Tier != cluster.Mem {
			continue
		}
		to, ok := e.lowerTier(r.Host)
		if !ok {
			continue // nowhere to demote it: not managed
		}
		if !e.makeRoom(r.Host, a.OutputBytes) {
			if !cloned {
				// the list may be an output placer's
				a.OutputReplicas, cloned = slices.Clone(a.OutputReplicas), true
			}
			a.OutputReplicas[i].Tier = to
			continue
		}
		if !admitted {
			admitted = true
			l.outputs[a.ID] = &lruOutput{a: a, writing: true}
			l.clock++
			l.lastUse[ObjectRef{Attempt: a.ID}] = l.clock // the write is a use
		}
		l.used[r.Host] += a.OutputBytes
		l.resident[r.Host] = append(l.resident[r.Host], residentBlock{ObjectRef{Attempt: a.ID}, a.OutputBytes})
		e.Stats.MemoryOutputs++
	}
}

// makeRoom evicts host h's least recently used blocks until size more
// bytes fit in its memory tier; false if they cannot.
func (e *Engine) makeRoom(h cluster.HostID, size int64) bool {
	mem, _ := e.topo.Hosts[h].Tier(cluster.Mem)
	if mem.CapacityBytes == 0 {
		return true // unbounded
	}
	if size > mem.CapacityBytes {
		return false
	}
	for e.lru.used[h]+size > mem.CapacityBytes {
		if !e.evictOldest(h) {
			return false
		}
	}
	return true
}

// outputWritten is told that an attempt succeeded: its managed output is
// written, at its final size, and the write is a use. The hosts holding
// it evict again if it grew past their room (itself last: it is now the
// most recent).
func (e *Engine) outputWritten(a *Attempt) {
	if e.lru == nil {
		return
	}
	l := e.lru
	o := l.outputs[a.ID]
	if o == nil {
		return
	}
	o.writing = false
	k := ObjectRef{Attempt: a.ID}
	l.clock++
	l.lastUse[k] = l.clock
	for h := range l.resident {
		i := slices.IndexFunc(l.resident[h], func(b residentBlock) bool { return b.ObjectRef == k })
		if i < 0 || l.resident[h][i].size == a.OutputBytes || !e.hosts[h].alive {
			continue // a dead host's replica is gone: its room does not matter
		}
		l.used[h] += a.OutputBytes - l.resident[h][i].size
		l.resident[h][i].size = a.OutputBytes
		mem, _ := e.topo.Hosts[h].Tier(cluster.Mem)
		for mem.CapacityBytes > 0 && l.used[h] > mem.CapacityBytes {
			if !e.evictOldest(cluster.HostID(h)) {
				break // the rest are being written: they went first
			}
		}
	}
}

// forgetOutput drops an attempt's output from the cache, with no move:
// the output will never be read (its attempt failed or was killed, or
// its output was discarded or not chosen), and the file system deletes
// it.
func (e *Engine) forgetOutput(a *Attempt) {
	if e.lru == nil || e.lru.outputs[a.ID] == nil {
		return
	}
	l := e.lru
	k := ObjectRef{Attempt: a.ID}
	for h := range l.resident {
		if i := slices.IndexFunc(l.resident[h], func(b residentBlock) bool { return b.ObjectRef == k }); i >= 0 {
			l.used[h] -= l.resident[h][i].size
			l.resident[h] = slices.Delete(l.resident[h], i, i+1)
		}
	}
	delete(l.outputs, a.ID)
	delete(l.lastUse, k)
}

// touchInput records a use of what a map attempt reads, a dataset's
// block or a parent's output, if the cache manages it.
func (e *Engine) touchInput(a *Attempt) {
	if e.lru == nil {
		return
	}
	if k, ok := e.InputObject(a); ok {
		e.touch(k)
	}
}

func (e *Engine) touch(k ObjectRef) {
	if _, ok := e.lru.lastUse[k]; ok {
		e.lru.clock++
		e.lru.lastUse[k] = e.lru.clock
	}
}
