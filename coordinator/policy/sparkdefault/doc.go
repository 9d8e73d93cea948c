// Package sparkdefault is the stock Spark 2.4 task scheduler
// (TaskSchedulerImpl.resourceOffers with TaskSetManager's delay
// scheduling), the "Default (Spark)" baseline of the Trident paper as
// trident.md §4.1 describes it, as an engine.RoundScheduler named
// "sparkdefault".
//
// Each round is one resourceOffers call over every free slot of the
// cluster (one executor per host, one core per slot):
//
//   - the offers are shuffled with ctx.Rand(), so their order is random
//     but the same for the same seed (Spark's load balancing);
//   - task sets (one per stage with runnable tasks) come in pool order,
//     sorted once per round: arg order fifo (the default; jobs in
//     submission order, stages by index, Spark's FIFO by job then stage
//     id) or fair (Spark's FAIR mode with the engine's queues as pools:
//     pools by running tasks over weight, minShare 0 as in Spark's default
//     pool settings, ties by queue; inside a pool the queue's ordering,
//     FIFO unless the queue says fair, as a Spark pool's default
//     schedulingMode is FIFO);
//   - for each task set, for each of its locality levels, passes over the
//     offers launch at most one task per offer per pass, repeated while a
//     pass launches something;
//   - each offer asks the task set's allowed level (delay scheduling):
//     the current level moves on when no pending task is left at it or
//     when now - lastLaunch >= locality_wait (3 s by default, one wait
//     for every level as spark.locality.wait.node/.rack inherit it); a
//     launch at level L makes L current and restarts the wait. As in
//     Spark, moving on for want of tasks restarts the wait at now, moving
//     on by timeout adds the wait to lastLaunch, the wait starts when the
//     stage is released, and the NO_PREF pass neither waits nor touches
//     the delay state. The task taken is the first pending one (lowest
//     index; a task back after a failure first) of the executor's host
//     list (NODE), then of the no-preference list (NO_PREF), the host's
//     rack list (RACK), every pending task (ANY), each only if allowed.
//
// Locality levels of a task set are those of NODE, NO_PREF, RACK, ANY its
// tasks have (computed at release and again after a host is lost, Spark's
// recomputeLocality). PROCESS_LOCAL never occurs: the engine caches no
// RDD partitions in executors, and an OctopusFS memory replica is not an
// HDFS cache location: the paper's Default ignores tiers (§4.1). Spark
// reports a no-preference launch as PROCESS_LOCAL for its delay
// bookkeeping, which resets the current level to the first one; that
// quirk is kept.
//
// Default Spark ignores tiers. A node-local launch reads the first replica
// on the executor's host in the block's replica list (HDFS keeps at most
// one per node; the first is the tier-blind choice). A rack-local or
// off-rack launch reads what the file system serves, the engine's own
// choice that the other baselines get too: the closest replica, fastest
// tier, lowest host. Each launch names its source and a reason from
// Trident's set ("memory-local", "ssd-local", "hdd-local" by the tier read,
// "no-pref", "rack-local", "off-rack"), so that runs of both classify
// alike.
//
// A waiting task set is looked at again on the next round: the simulator
// schedules at every event and, while tasks are pending and a slot is
// free, at least every heartbeat (1 s, Spark's revive interval); the live
// coordinator every 20 ms. So a wait that expires is acted on within one
// heartbeat.
package sparkdefault
