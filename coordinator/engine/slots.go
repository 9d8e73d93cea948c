package engine

import "github.com/racklab/racklab/coordinator/cluster"

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

// freeOf is host h's free slots of a pool.
func (e *Engine) freeOf(h cluster.HostID, _ SlotKind) int { return e.hosts[h].free }
