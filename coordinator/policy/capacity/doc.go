// Package capacity is YARN's Capacity Scheduler as the Corral and Trident
// specs describe it: queues with guaranteed shares and elastic growth up to
// a maximum; the queue furthest below its guarantee is served first; jobs
// within a queue in FIFO order; maps by Hadoop 2.7's delay rule (rack-local
// after node-locality-delay missed opportunities, off-switch after the
// job's pending requests times its share of requested locations);
// reducers anywhere.
package capacity
