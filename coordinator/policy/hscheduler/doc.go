// Package hscheduler is H-Scheduler (Pan et al., ICPADS'18) as the
// Trident spec re-implements it for its baselines (trident.md §4.3): a
// tier-aware priority heuristic. For each free slot on a node N it takes
// the pending map in the best class of
//
//	local memory > local SSD > local HDD > remote HDD > remote SSD > remote memory
//
// where "local X" means the task has a replica on tier X on N (its
// fastest one there), and "remote X" that it has no replica on N and X is
// the fastest tier among its replicas: a task whose best copy is in
// memory elsewhere goes remote last, kept for its own memory node.
// Inside a class the lowest task index wins (stage, then index).
//
// Tasks without input locality have no class of their own in the paper.
// A job's runnable reducers go first, on any slot, as every baseline
// here and the trident policy serve shuffle stages before map stages
// (the MR AM asks for reducers at a higher priority than maps). A map
// with no live replica is a no-preference task: any slot serves it,
// after the local classes and before the remote ones, Spark's NODE_LOCAL
// > NO_PREF > RACK_LOCAL order (trident.md §1.3).
//
// A launch reads the replica its class names (tierpick.Read: the local
// one; remote, the fastest in the node's rack, else the fastest
// anywhere) and records the class as its reason (memory-local,
// ssd-local, hdd-local, no-pref, rack-local, off-rack).
//
// The policy is a HostScheduler: the engine offers hosts in a seeded
// random order, like Spark's shuffled offers; a host's slots are filled
// one after the other. Args:
//
//   - order: fifo (default: the Capacity Scheduler's default queue and
//     Spark's default mode serve jobs in submission order) or fair
//     (fair.Order: the job with the fewest running tasks first). A slot
//     goes to the first job in that order that takes it.
//   - locality_wait: the host platform's delay scheduling, which §4.3
//     leaves in force (tierpick.Wait): 0 (default) is the MR AM, which
//     adds no delay; 3s is Spark's spark.locality.wait, by Spark's
//     levels: a job's maps take only node-local slots (no-preference
//     maps any) until a wait has passed since its last launch, then
//     also slots in a rack holding a replica (the class order applied
//     among those maps), and after another wait any slot; a launch
//     makes its locality the job's level again and restarts the wait.
//     A slot a job declines goes to the next job, or stays idle until
//     the next heartbeat.
//   - node_locality_delay, off_switch_locations: in the MR AM the RM's
//     Capacity Scheduler grants the containers; node_locality_delay: 40,
//     off_switch_locations: requested is Hadoop 2.7's. With
//     node_locality_delay above 0 (0, the default, is no RM gate), the
//     RM's delay scheduling (yarnrm.Gate, with capacity's meaning of
//     both args: trident.md §4.2) comes before the AM's choice: a job
//     offered a slot counts a missed opportunity, and its best map by
//     the class order must be within the locality the RM grants it now
//     (node-local; rack-local after more than min(#nodes,
//     node_locality_delay) missed; off-switch after more than its pending
//     maps × min(#requested locations / #nodes, 1)), else the job
//     declines the slot and the next job may take it. Reducers and maps
//     without a live replica pass ungated; the count resets after a
//     node- or rack-local launch (not an off-switch one).
package hscheduler
