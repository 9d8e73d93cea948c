// Package kmn is KMN (Venkataraman et al., OSDI'14) adapted to general,
// non-sampling MapReduce jobs as the Shadow paper's baseline
// (shadow.md §4.4, §2.8; Figs. 20–22):
//
//  1. A job's original maps are placed by delay scheduling with only the
//     rack-locality delay (internal/mapplace, arg rack_locality_delay,
//     default 4.5 s), its reducers by arg reduce_placement (round_robin
//     by default, §2.3).
//  2. Once all of the job's original maps are launched, E = ⌈ratio·s⌉
//     (arg ratio, default 0.15) distinct originals still running are
//     drawn uniformly at random, and for each a target rack uniformly
//     among all racks (the original's own rack included). Its copy is
//     launched (ctx.LaunchDuplicate) on a host of that rack with a free
//     map slot, other than the original's: a host holding a replica of
//     the split if there is one, else the lowest-id one. A copy whose
//     rack has no such host now is launched at a later heartbeat, or
//     dropped if its original finishes first.
//  3. Selection (§4.4 step 5, arg selection): from "all originals", the
//     greedy repeatedly swaps in the copy whose swap gives the lowest
//     count Skew (internal/skew, §2.1, with the reducer counts H below), while
//     that is strictly lower than the current Skew (ties: lowest split).
//     selection=exhaustive instead takes the subset of copies of minimum
//     Skew (fewest copies, then lowest splits, on ties), for at most 20
//     copies (the greedy beyond).
//
// H is the reducer placement's: under round_robin its planned quotas,
// dealt on the originals' per-rack counts (the copies do not change
// them); under random and hadoop, the reducers' racks once all are
// placed, and an even deal over all racks (round robin by rack index)
// until then, as the expectation of a placement made later.
//
// When outputs are used. §4.4 [I] waits for every original and copy
// before it selects. The engine cannot hold a task's outputs once none of
// its attempts runs: it uses the last one (engine.HoldOutput). The
// selection does not depend on when outputs arrive, only on the
// originals' racks, the copies' racks and H, so it is computed when the
// first output of a copied split arrives (and again if a copy is lost
// before it is decided, with the decided splits fixed), and each split
// follows it: the output of the chosen attempt is used as soon as that
// attempt succeeds (the other is then killed); an output of the attempt
// not chosen is held while the chosen one runs, and used only if that one
// fails. The chosen copies are exactly the §4.4 selection's; reducers
// may fetch them earlier than KMN's wait would let them.
package kmn
