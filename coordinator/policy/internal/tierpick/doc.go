// Package tierpick holds what the tier-aware baselines of the Trident
// spec (trident.md §4.3 H-Scheduler, §4.4 Quartet) share: which replica a
// map launched on a host reads and the launch's reason code (its
// locality class, the same codes as the trident policy records:
// memory-local, ssd-local, hdd-local, no-pref, rack-local, off-rack), and
// a job's locality wait (the platform's delay scheduling, one timer per
// job restarted at each node-local launch), and an index of each job's
// pending maps by host, rack and fastest tier (Index, Indexes), so that
// a slot's choice does not scan a large job's every map; and the
// inter-job order of their arg order (JobOrder: fifo or fair); and the
// platform's order of the free slots, their arg offers (RoundRobin).
//
// The metrics (mem_local_frac and the others) are computed from the
// replica an attempt read, so a policy must pass the replica its class
// names: Read gives it.
package tierpick
