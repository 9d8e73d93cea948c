// Package hadoop1 is the Shadow paper's map-placement baselines on Hadoop
// 1.x (shadow.md §4.1–§4.3), each with the reducer placement knob of
// §2.3 (reduce_placement: round_robin, the default for every scheme
// (§2.10 A10), random or hadoop):
//
//   - hadoop: Hadoop 1.2.1's default: node-local, else rack-local, else
//     any map, no waiting (§4.1);
//   - delay: delay scheduling with only the rack-locality delay
//     (rack_locality_delay seconds, default 4.5, §4.2);
//   - even: the same number of maps in every rack (even: oblivious, the
//     default, or locality_aware, §4.3).
//
// Jobs are served in FIFO order; a heartbeat's host first takes the
// jobs' runnable reducers on its reduce slots, then maps on its map
// slots. The placement itself is internal/mapplace's, which Shadow and
// KMN share. Each policy asks for Hadoop's
// mapred.reduce.slowstart.completed.maps = 0.8 of the paper's setup
// (§5.1) unless the run sets a slow-start (arg slow_start; 0 leaves the
// engine's default).
package hadoop1
