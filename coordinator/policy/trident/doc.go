// Package trident is the pure core of the Trident scheduler (Herodotou
// and Kakoulli, PVLDB 14(9), 2021) as the racklab spec (trident.md)
// describes it: tasks are assigned to free slots by a minimum-cost
// maximum matching whose cost (Eq. 1) knows both locality (node, rack,
// off-rack) and the storage tier (memory, SSD, HDD) of the replica a
// task would read, with the paper's two pruning passes keeping the
// matching small.
//
//   - cost.go: the tier scores and constants (Profile, with the spec's
//     "profile P" as default) and the cost function with the exact
//     evaluation order of §2.1.
//   - match.go: an exact rectangular min-cost assignment solver
//     (shortest augmenting paths with potentials, §2.3) that reuses its
//     buffers between calls.
//   - prune.go: Algorithm 1 (compute and prune slots, with the spec's
//     fix of its fallback) and Algorithm 2 (prune tasks), switchable
//     between the paper's behaviour and off.
//   - schedule.go: one scheduling call (§2.7 lines 2-6) chaining the
//     three for a snapshot of pending tasks and free resources, with an
//     exact cap on the number of pairs (a job's fair share).
//   - yarn.go: the YARN two-level path of §2.9: the AM's resource
//     requests with preference maps (BuildRequests) and the RM's
//     Algorithm 3 (Allocator.Allocate, with the spec's errata).
//   - policy.go: the policy "trident", an engine.RoundScheduler. Each
//     round serves the jobs in the platform's order (arg order: fifo,
//     the default, or fair with each job capped at its share) and runs
//     one call per stage with runnable tasks over the slots still free:
//     maps with their replicas' nodes and tiers as preferences, reducers
//     without (cost C0). Each launch names the replica its cost priced
//     and records its locality class as the decision's reason. Args:
//     mode single (default) or yarn (Algorithm 3 grants the containers,
//     the matching places the maps in them); delay (§2.10's
//     trident+delay(D): a waiting job's maps take node-local slots only;
//     0, the default, is the paper-level Trident, which never waits);
//     offers (how a shuffle stage's tasks, every slot at C0, meet the
//     slots: heartbeat, each host's together as stock MapReduce's
//     containers, or spark, one per host a pass as Spark's offers);
//     pruning; the cost profile.
//
// The core works on plain values with integer ids and int64 costs; only
// policy.go knows the engine.
package trident
