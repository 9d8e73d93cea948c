// Package capacity is YARN's Capacity Scheduler as the Corral and Trident
// specs describe it: queues with guaranteed shares and elastic growth up to
// a maximum; the queue furthest below its guarantee is served first; jobs
// within a queue in FIFO order; maps by Hadoop 2.7's delay rule (rack-local
// after node-locality-delay missed opportunities, off-switch after the
// job's pending requests times its share of requested locations, args
// node_locality_delay and off_switch_locations; the count resets after a
// container the RM grants node- or rack-local, not after an off-switch
// one even when the map put in it is rack-local); reducers anywhere.
//
// The RM and the MR AM are fused per heartbeat: each container of the
// offered host takes at once the job's first pending map (in task order)
// listing the host, else one in its rack, else any, within what the delay
// allows. That is the AM's three passes (trident.md §4.2) for the
// containers of one host; the AM's passes over containers of several
// hosts granted between two of its heartbeats are not modelled.
package capacity
