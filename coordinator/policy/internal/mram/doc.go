// Package mram is what Hadoop 2.7's MapReduce ApplicationMaster
// (RMContainerAllocator) does with a job's reducers while its maps are
// not all done, which a baseline of a YARN scheduler runs under whatever
// the scheduler itself decides:
//
//   - ramp-up (scheduleReduces): a job starts another reducer only while
//     its reducers stay within min(completed maps / maps,
//     reduce.rampup.limit = 0.5) of what it could hold (the cluster's free
//     containers and its own), or within what its unfinished maps leave
//     of that;
//   - preemption (preemptReducesIfNeeded): a job with maps waiting, none
//     running and no free container kills reducers, the least advanced
//     (latest started) first: enough for its waiting maps, at least one,
//     at most half of what it could hold (reduce.preemption.limit = 0.5),
//     at most once per AM heartbeat (1 s).
//
// Without them a job whose early reducers filled its share waits for maps
// that never get a container, and its reducers hold their slots until the
// run ends; YARN would have preempted them. The engine's slow start
// (SlowStart) decides when a job's reducers may start at all; this
// package only limits how many and takes them back.
package mram
