// Package quartet is Quartet (Deslauriers et al., HotStorage'16) as
// extended by the Trident authors for their baselines, in the
// implementable reading of the Trident spec (trident.md §4.4). For each
// free slot on a node N, a job takes
//
//  1. its lowest-index pending map with a memory replica on N;
//  2. else the lowest-index map with an SSD replica on N and no memory
//     replica anywhere (a map cached in memory elsewhere is kept for its
//     memory node);
//  3. else the lowest-index map with an HDD replica on N and no memory
//     replica anywhere;
//  4. else, while its delay timer runs, nothing: the slot goes to the
//     next job, or stays idle;
//  5. else the default order: any node-local map (even one in memory
//     elsewhere), then rack-local, then any, lowest index first.
//
// The delay timer (arg delay, default 3s: spark.locality.wait, used for
// the MR AM too, §4.4 [I]) is tierpick.Wait: it starts when the job is
// submitted and restarts at each node-local launch of the job, rules 1-3
// or a node-local launch of rule 5, as Spark resets its locality wait at
// a local launch. A slot left idle is offered again at the driver's next
// heartbeat (the simulator re-offers free slots every heartbeat while
// tasks are pending; the live driver on its tick), so the fallback runs
// at the first offer once the timer has expired.
//
// Tasks without input locality have no rule in the paper. A job's
// runnable reducers go first, on any slot, as every baseline here and
// the trident policy serve shuffle stages before map stages; a map with
// no live replica runs after rules 1-3 on any slot without waiting, as
// Spark launches NO_PREF tasks without a locality wait.
//
// A launch reads the replica its rule names (tierpick.Read: the local
// one; otherwise the fastest in N's rack, else the fastest anywhere) and
// records its class as the reason: memory-local, ssd-local, hdd-local,
// no-pref, rack-local, off-rack.
//
// The policy is a HostScheduler; jobs are served in arg order's order:
// fifo (default) or fair (fair.Order).
//
// Args node_locality_delay and off_switch_locations: in the MR AM the
// RM's Capacity Scheduler grants the containers; node_locality_delay:
// 40, off_switch_locations: requested is Hadoop 2.7's. With
// node_locality_delay above 0 (0, the default, is no RM gate), the RM's
// delay scheduling (yarnrm.Gate, with capacity's meaning of both args:
// trident.md §4.2) comes in addition to the delay timer: a job offered a
// slot counts a missed opportunity, and rule 5's pick must be within the
// locality the RM grants it now (node-local; rack-local after more than
// min(#nodes, node_locality_delay) missed; off-switch after more than its
// pending maps × min(#requested locations / #nodes, 1)), else the job
// declines the slot and the next job may take it. Rules 1-3 are
// node-local, which the RM always grants; reducers and maps without a
// live replica pass ungated. The count resets after a node- or
// rack-local launch (not an off-switch one).
package quartet
