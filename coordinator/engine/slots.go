package engine

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/workload"
)

// SlotKind is a pool of task slots. A host has one pool unless its
// topology gives it reduce slots of its own (cluster.Host.ReduceSlots):
// then, as in Hadoop 1.x, map tasks take map slots and reduce and generic
// tasks take reduce slots, and a heartbeat offers the two pools in turn.
type SlotKind uint8

const (
	// AnySlot is the one pool of a host without reduce slots of its own.
	AnySlot SlotKind = iota
	// MapSlot is the pool of map tasks.
	MapSlot
	// ReduceSlot is the pool of reduce and generic tasks.
	ReduceSlot
)

func (k SlotKind) String() string {
	switch k {
	case MapSlot:
		return "map"
	case ReduceSlot:
		return "reduce"
	}
	return "any"
}

// Offering is the pool the current offer is of: AnySlot for hosts with
// one pool (and outside offers), MapSlot or ReduceSlot while a host with
// split pools offers one of them. During an offer, FreeSlots and the
// pending-task helpers answer for that pool only, so that a policy
// written for one pool never picks a task the slot cannot run.
func (c *Context) Offering() SlotKind { return c.e.offering }

// FreeMapSlots is the number of free slots of host h a map task may
// take: its map pool, or its one pool.
func (c *Context) FreeMapSlots(h cluster.HostID) int { return c.e.freeOf(h, MapSlot) }

// FreeReduceSlots is the number of free slots of host h a reduce or
// generic task may take: its reduce pool, or its one pool.
func (c *Context) FreeReduceSlots(h cluster.HostID) int { return c.e.freeOf(h, ReduceSlot) }

// FreeSlotsFor is the number of free slots of host h task t may take:
// those of the pool its kind runs in (FreeMapSlots or FreeReduceSlots),
// whatever pool is on offer; 0 for a task that does not exist. A policy
// that places a task on a host other than the one on offer asks this,
// not FreeSlots: during a one-pool host's offer FreeSlots of a host with
// split pools counts both its pools.
func (c *Context) FreeSlotsFor(h cluster.HostID, t TaskRef) int {
	_, st, _, ok := c.e.lookup(t)
	if !ok || int(h) < 0 || int(h) >= len(c.e.hosts) {
		return 0
	}
	return c.e.freeOf(h, c.e.poolOf(h, st.Spec.Kind))
}

// freeOf is host h's free slots of a pool. A host with one pool answers
// with it for every kind; AnySlot asks for every free slot of the host.
func (e *Engine) freeOf(h cluster.HostID, k SlotKind) int {
	hs := &e.hosts[h]
	switch {
	case !hs.split:
		return hs.free
	case k == MapSlot:
		return hs.free
	case k == ReduceSlot:
		return hs.freeReduce
	}
	return hs.free + hs.freeReduce
}

// hasFree reports whether host h has a free slot in any pool.
func (hs *hostState) hasFree() bool { return hs.free > 0 || hs.freeReduce > 0 }

// poolOf is the pool a task of the given kind takes on host h.
func (e *Engine) poolOf(h cluster.HostID, kind workload.StageKind) SlotKind {
	switch {
	case !e.hosts[h].split:
		return AnySlot
	case kind == workload.Map:
		return MapSlot
	}
	return ReduceSlot
}

// takeSlot and giveSlot move one slot of pool k of host h between free
// and busy, keeping the free-host list in step.
func (e *Engine) takeSlot(h cluster.HostID, k SlotKind) {
	hs := &e.hosts[h]
	if k == ReduceSlot {
		hs.freeReduce--
	} else {
		hs.free--
	}
	if !hs.hasFree() {
		e.dropFree(h)
	}
}

func (e *Engine) giveSlot(h cluster.HostID, k SlotKind) {
	hs := &e.hosts[h]
	if k == ReduceSlot {
		hs.freeReduce++
	} else {
		hs.free++
	}
	e.addFree(h)
}

// offers reports whether a task of the given kind belongs to the pool on
// offer: every kind outside offers and for hosts with one pool, maps only
// to a map pool, reduce and generic tasks only to a reduce pool.
func (e *Engine) offers(kind workload.StageKind) bool {
	switch e.offering {
	case MapSlot:
		return kind == workload.Map
	case ReduceSlot:
		return kind != workload.Map
	}
	return true
}

// offersMaps and offersShuffles: offers for maps, and for reduce and
// generic tasks.
func (e *Engine) offersMaps() bool     { return e.offering != ReduceSlot }
func (e *Engine) offersShuffles() bool { return e.offering != MapSlot }

// pendingOffered is the runnable tasks without an attempt that the pool
// on offer may run.
func (e *Engine) pendingOffered() int {
	switch e.offering {
	case MapSlot:
		return e.pendingMaps
	case ReduceSlot:
		return e.pending - e.pendingMaps
	}
	return e.pending
}

// offerSplit offers host h's two pools in turn to a HostScheduler: the
// map pool if it has a free slot and a map waits, then the reduce pool if
// it has one and a reduce or generic task waits.
func (e *Engine) offerSplit(hs HostScheduler, h cluster.HostID) {
	defer func() { e.offering = AnySlot }()
	st := &e.hosts[h]
	if st.free > 0 && e.pendingMaps > 0 {
		e.offering = MapSlot
		e.timed(func() { hs.OfferHost(&e.ctx, h) })
	}
	if st.alive && st.freeReduce > 0 && e.pending-e.pendingMaps > 0 {
		e.offering = ReduceSlot
		e.timed(func() { hs.OfferHost(&e.ctx, h) })
	}
}

// roundSplit offers a RoundScheduler a round of the map pools (hosts with
// one pool take part with all their free slots), then a round of the
// reduce pools, each with the hosts that have a free slot of it.
func (e *Engine) roundSplit(rs RoundScheduler) {
	defer func() { e.offering = AnySlot }()
	for _, k := range [...]SlotKind{MapSlot, ReduceSlot} {
		e.offering = k
		if e.pendingOffered() == 0 {
			continue
		}
		var free []cluster.HostID
		for _, h := range e.sortedFree() {
			if e.freeOf(h, k) > 0 {
				free = append(free, h)
			}
		}
		if len(free) > 0 {
			e.timed(func() { rs.ScheduleRound(&e.ctx, free) })
		}
	}
}
