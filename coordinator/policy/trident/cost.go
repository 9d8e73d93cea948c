package trident

import (
	"errors"
	"fmt"

	"github.com/racklab/racklab/coordinator/workload"
)

// Tier is the storage medium a replica lives on.
type Tier uint8

// The tiers of §1.2, fastest first.
const (
	Memory Tier = iota
	SSD
	HDD
)

func (t Tier) String() string {
	switch t {
	case Memory:
		return "memory"
	case SSD:
		return "ssd"
	case HDD:
		return "hdd"
	}
	return fmt.Sprintf("tier(%d)", uint8(t))
}

// Profile holds the tier scores and cost constants of Eq. 1 (§1.2-1.3).
// Only ratios matter; costs are integers so that ties are exact.
type Profile struct {
	Memory, SSD, HDD int64 // tier preference scores (M, S, H)
	C0               int64 // cost of a task without preferences (Spark shuffle readers), C0 < C1
	C1               int64 // intra-rack transfer cost added to the best in-rack score
	C2               int64 // off-rack cost, no tier term, C2 > C1 + H
	D                int   // replication factor, the pruning gates' multiplier
}

// DefaultProfile is the spec's "profile P" (§2.1): M, S, H = 1, 8, 20 from
// 3200/400/160 MB/s; C0 25 (Spark's NODE_LOCAL > NO_PREF > RACK_LOCAL
// order); C1 30 (> H - M, so every rack-local cost exceeds every
// node-local one); C2 1000; D 3.
func DefaultProfile() Profile {
	return Profile{Memory: 1, SSD: 8, HDD: 20, C0: 25, C1: 30, C2: 1000, D: 3}
}

// maxProfileCost bounds every constant so that a cost matrix built from a
// valid profile can never overflow the matcher's int64 arithmetic.
const maxProfileCost = 1 << 40

// Validate rejects profiles that break the paper's assumptions or the
// integer arithmetic, naming the offending field.
func (p Profile) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int64
	}{{"Memory", p.Memory}, {"SSD", p.SSD}, {"HDD", p.HDD}, {"C0", p.C0}, {"C1", p.C1}, {"C2", p.C2}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("trident profile: %s = %d is negative", f.name, f.v))
		} else if f.v > maxProfileCost {
			errs = append(errs, fmt.Errorf("trident profile: %s = %d exceeds %d", f.name, f.v, int64(maxProfileCost)))
		}
	}
	if p.C0 >= p.C1 {
		errs = append(errs, fmt.Errorf("trident profile: C0 = %d must be below C1 = %d (no-pref tasks go before rack-local ones)", p.C0, p.C1))
	}
	maxScore := max(p.Memory, p.SSD, p.HDD)
	if p.C2 <= p.C1+maxScore {
		errs = append(errs, fmt.Errorf("trident profile: C2 = %d must exceed C1 + the highest tier score = %d (c2 >> c1)", p.C2, p.C1+maxScore))
	}
	if p.D < 1 {
		errs = append(errs, fmt.Errorf("trident profile: D = %d, the replication factor must be at least 1", p.D))
	} else if p.D > workload.MaxReplicas {
		// the pruning gates multiply D by a task or slot count: a
		// larger D could wrap the product and open a gate it closes
		errs = append(errs, fmt.Errorf("trident profile: D = %d exceeds %d, the most replicas a block may have", p.D, workload.MaxReplicas))
	}
	return errors.Join(errs...)
}

// Score is the tier preference score of t; an unknown tier scores like HDD
// (the slowest), which Validate-free callers can rely on not to panic.
func (p Profile) Score(t Tier) int64 {
	switch t {
	case Memory:
		return p.Memory
	case SSD:
		return p.SSD
	}
	return p.HDD
}

// Preference is one entry <N_k, p_k> of P(T): a node holding a replica of
// the task's input, its rack and the replica's tier.
type Preference struct {
	Node, Rack int
	Tier       Tier
}

// Task is a pending task as the scheduler sees it. A task without
// preferences and not process-local is a "no preference" task (cost C0).
// A process-local task (Spark: its partition is cached in Executor) costs
// 0 on that executor's slots; callers should also list the executor's
// node as a Memory preference, which makes another executor on the same
// host node-local memory (§2.1 (e)) and lets the pruning passes see it.
type Task struct {
	Prefs        []Preference
	ProcessLocal bool
	Executor     int
	// LocalOnly drops the task's non-local edges (trident+delay, §2.10:
	// while its job's locality wait runs): the matching gives it a slot
	// on a node holding one of its replicas, or none.
	LocalOnly bool
}

// Slot is one free slot R_j: its node, rack, executor (Spark; 0 when
// unused) and index among the node's slots.
type Slot struct {
	Node, Rack, Executor, Index int
}

// Class is the locality class of an assignment (§1.3's metric buckets).
type Class uint8

// Locality classes, cheapest first under profile P.
const (
	ProcessLocal Class = iota
	MemoryLocal
	SSDLocal
	HDDLocal
	NoPref
	RackLocal
	OffRack
	numClasses
)

var classNames = [numClasses]string{"process-local", "memory-local", "ssd-local", "hdd-local", "no-pref", "rack-local", "off-rack"}

func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Cost is C(T, R) of Eq. 1 with the evaluation order of §2.1: process-local
// 0; no preference C0; node-local the lowest score among the task's
// replicas on the slot's node (node-local wins over a cheaper rack-local
// read, (b)); rack-local C1 + the lowest score in the slot's rack (a);
// otherwise C2. It also returns the class of the branch taken.
func (p *Profile) Cost(t *Task, s *Slot) (int64, Class) {
	if t.ProcessLocal && s.Executor == t.Executor {
		return 0, ProcessLocal
	}
	if len(t.Prefs) == 0 {
		// Also a process-local task on another executor that lists no
		// replica: the paper leaves that open, it is treated as no-pref.
		return p.C0, NoPref
	}
	local, inRack := int64(-1), int64(-1)
	localTier := HDD
	for k := range t.Prefs {
		pr := &t.Prefs[k]
		sc := p.Score(pr.Tier)
		if pr.Node == s.Node {
			if local < 0 || sc < local {
				local, localTier = sc, pr.Tier
			}
		} else if pr.Rack == s.Rack && (inRack < 0 || sc < inRack) {
			inRack = sc
		}
	}
	if local >= 0 {
		return local, MemoryLocal + Class(min(localTier, HDD))
	}
	if inRack >= 0 {
		return p.C1 + inRack, RackLocal
	}
	return p.C2, OffRack
}

// costIndex fills cost matrices row by row without evaluating Cost on
// every cell: most cells of a row are C2 or C1 plus the task's best score
// in the slot's rack, and only the slots on the task's few preferred
// nodes differ. Slots are chained per node and per rack (heads in maps,
// links in slices) so a row costs O(m + slots on the task's racks).
type costIndex struct {
	nodeHead, rackHead map[int]int32
	nextNode, nextRack []int32
}

func (x *costIndex) fill(dst []int64, p *Profile, tasks []Task, rows []int, slots []Slot) []int64 {
	cols := len(slots)
	dst = resize(dst, len(rows)*cols)
	if x.nodeHead == nil {
		x.nodeHead, x.rackHead = make(map[int]int32), make(map[int]int32)
	}
	clear(x.nodeHead)
	clear(x.rackHead)
	x.nextNode, x.nextRack = resize(x.nextNode, cols), resize(x.nextRack, cols)
	for j := cols - 1; j >= 0; j-- { // so each chain runs in column order
		s := &slots[j]
		x.nextNode[j], x.nextRack[j] = -1, -1
		if h, ok := x.nodeHead[s.Node]; ok {
			x.nextNode[j] = h
		}
		x.nodeHead[s.Node] = int32(j)
		if h, ok := x.rackHead[s.Rack]; ok {
			x.nextRack[j] = h
		}
		x.rackHead[s.Rack] = int32(j)
	}
	dropped := p.droppedEdge(len(rows), cols)
	for r, ti := range rows {
		t := &tasks[ti]
		row := dst[r*cols : (r+1)*cols]
		if t.ProcessLocal || len(t.Prefs) == 0 {
			for j := range slots {
				row[j], _ = p.Cost(t, &slots[j])
			}
			continue
		}
		if t.LocalOnly {
			for j := range row {
				row[j] = dropped
			}
			x.fillNodeLocal(row, p, t)
			continue
		}
		for j := range row {
			row[j] = p.C2
		}
		// Rack-local: C1 + the lowest score among the replicas in the rack.
		for k, pr := range t.Prefs {
			best, seen := p.Score(pr.Tier), false
			for _, q := range t.Prefs[:k] {
				seen = seen || q.Rack == pr.Rack
			}
			if seen {
				continue
			}
			for _, q := range t.Prefs[k+1:] {
				if q.Rack == pr.Rack {
					best = min(best, p.Score(q.Tier))
				}
			}
			if h, ok := x.rackHead[pr.Rack]; ok {
				for j := h; j >= 0; j = x.nextRack[j] {
					row[j] = p.C1 + best
				}
			}
		}
		x.fillNodeLocal(row, p, t)
	}
	return dst
}

// fillNodeLocal writes a task's node-local costs into its row: node-local
// overrides rack-local whatever the values (§2.1 (b)).
func (x *costIndex) fillNodeLocal(row []int64, p *Profile, t *Task) {
	for _, pr := range t.Prefs {
		best := p.Score(pr.Tier)
		for _, q := range t.Prefs {
			if q.Node == pr.Node {
				best = min(best, p.Score(q.Tier))
			}
		}
		if h, ok := x.nodeHead[pr.Node]; ok {
			for j := h; j >= 0; j = x.nextNode[j] {
				row[j] = best
			}
		}
	}
}

// droppedEdge is the cost standing for a dropped (+INF) edge in a rows x
// cols matrix: above the sum of any min(rows, cols) node-local costs, so
// a minimum-cost maximum matching uses as few dropped edges as it can
// and, among those, the cheapest node-local ones; the pairs on dropped
// edges are then discarded. It stays far from overflow: scores are at
// most 2^40 and the matrix dimensions fit in memory.
func (p *Profile) droppedEdge(rows, cols int) int64 {
	return (max(p.Memory, p.SSD, p.HDD) + 1) * int64(min(rows, cols)+1)
}
