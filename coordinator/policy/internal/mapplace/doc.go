// Package mapplace is the task placement that Hadoop 1.x baselines and
// the Shadow paper's schemes share (shadow.md §2.2, §2.3, §4.1–§4.3): a
// Placer launches a job's original map tasks on an offered host by one of
// three rules, and Reducers launch its reduce tasks by one of three
// reducer placements. Both are helpers a HostScheduler calls from
// OfferHost; they act only through the engine.Context and draw randomness
// only from ctx.Rand(), so a run is as deterministic as its seed.
//
// Map placement (Placer, Mode):
//
//   - Hadoop (§4.1, Hadoop 1.2.1's JobQueueTaskScheduler): for each free
//     map slot, jobs in FIFO order, a node-local map, else a rack-local
//     one, else any pending map of the same job; no waiting. The random
//     free node of the spec's wording is the offered host: heartbeats come
//     in a seeded random order. As Hadoop 1.2.1 does, an off-rack map is
//     the last map a heartbeat launches (per OfferMaps call: a driver that
//     offers a host again at the same instant, as the simulator does while
//     launches happen, lets the next one go at once).
//   - Delay (§4.2): only the rack-locality delay. A job with a pending map
//     whose input has a replica in the host's rack launches it at once
//     (node-local first): the node-locality delay is 0. Otherwise the job
//     declines the slot (the next job may take it) until it has waited
//     RackLocalityDelay seconds, counted from the first opportunity it
//     declined since its last rack-local launch; after that it launches
//     any pending map, off-rack, until a rack-local launch resets its
//     wait. A slot no job takes stays idle until the next heartbeat.
//   - Even (§4.3): per job, each rack r of the n racks gets a quota of
//     ⌊s/n⌋ maps, one more for the s mod n lowest-index racks, and every
//     split is given a rack once, when the job is first offered a slot:
//     Oblivious deals a seeded shuffle of the splits to the racks in turn;
//     LocalityAware puts as many splits as possible in a rack holding a
//     replica (a maximum matching of splits to quota places, splits taken
//     in a seeded shuffled order) and deals the rest to the racks left
//     under quota, lowest index first. A host runs only the splits given
//     its rack: one with a replica on the host first, then one with no
//     replica in the rack, then one with a replica elsewhere in the rack
//     (the spec's "a node holding a replica if there is one, else any
//     free node", made per heartbeat). A split given a rack with no live
//     host runs anywhere.
//
// The Placer records the host of each original (non-duplicate) map
// attempt it launches, so that a policy can ask whether all of a job's
// original maps are launched (AllOriginalMapsAssigned, Shadow's
// pre-assignment event, §2.2) and where each one is (Originals,
// RackCounts).
//
// Reducer placement (Reducers, ReducePlacement), §2.3 and §2.10 A10:
//
//   - RoundRobin: the racks holding the job's maps, sorted by their map
//     count descending (ties: lower rack index), are dealt the stage's t
//     reducers one at a time, cycling: a per-rack quota h_j
//     (RoundRobinQuota). A reducer launches on an offered host only while
//     the host's rack has quota left. A rack with quota left and no free
//     reduce slot on any live host passes that quota on to the next rack
//     in the cycle that has one (the move is kept: the plan changes, as
//     the spec's "skip to the next rack in the cycle"); if no rack of the
//     cycle has a free reduce slot, the reducer waits. The map counts are
//     where the job's maps are when its first reducer is placed, unless
//     the caller sets its own (SetMapCounts: Shadow's planned counts after
//     duplication, §2.3 [I], A11).
//   - Random: each pending reducer is given a rack drawn uniformly from the
//     racks with a free reduce slot on a live host; it launches on the
//     first offered host of that rack, and is drawn again if that rack has
//     no free reduce slot left when another host is offered.
//   - Hadoop: whichever host heartbeats with a free reduce slot takes the
//     job's next reducers, as many as it has free slots: Hadoop 1.2.1's
//     Fair Scheduler (where delay scheduling lives) assigns several a
//     heartbeat (assignmultiple, no reduce cap, by default). Its
//     JobQueueTaskScheduler, the hadoop scheme's, "never assign[s] more
//     than 1 reduce task per heartbeat" (Reducers.OneReducePerHeartbeat),
//     so a host's other free reduce slots wait for its next offer and the
//     hosts offered after it take theirs first.
package mapplace
