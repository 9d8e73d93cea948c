// Package coflow imports the Facebook coflow benchmark trace
// (github.com/coflow/coflow-benchmark, e.g. FB2010-1Hr-150-0.txt, used by
// Varys, Aalo and the PushBox simulator) as a racklab workload and its
// placed input datasets.
//
// The trace's first line is "<ports> <coflows>". Each further line is one
// coflow, fields separated by spaces: id, arrival (ms), the number of
// mappers M, the M mapper ports, the number of reducers R, then R items
// "port:MB", the shuffle megabytes that reducer receives in all. Mappers
// and reducers in one rack are merged into one rack-level mapper or
// reducer, so a port is a rack. A megabyte is 1,048,576 bytes, as in the
// benchmark's own simulator and in Varys, which read it as MB × 1024 × 1024.
//
// Port p lands on rack p mod R of the topology's R racks: when the
// topology has at least as many racks as the trace has ports the mapping is
// the identity; a smaller topology folds several ports onto one rack.
//
// Coflow <id> becomes job "coflow<id>", arriving at arrival/1000 s, with:
//
//   - a placed dataset "in-coflow<id>" of M blocks, one per mapper, whose
//     single replica sits on a host of the mapper's rack. Hosts are taken
//     round-robin within each rack, over the whole import, so the result is
//     deterministic. The replica is on the Tier option's tier (HDD by
//     default), or on the host's slowest tier when it has no such tier.
//     The blocks split the coflow's input, shuffle × InputRatio bytes,
//     evenly, the remainder of the division going to the last block;
//   - a map stage "map" reading it, one task per block, whose output is
//     exactly the shuffle (output_bytes, and selectivity 1/InputRatio);
//   - a reduce stage "reduce" of R tasks after it, task k being the
//     trace's k-th reducer, with output shuffle × OutputRatio (0 by
//     default: the trace has no outputs).
//
// By default (Options.ReducerSizes = TraceSizes) each reducer fetches its
// own size from the trace, as the paper's simulation uses it (pushbox.md
// §5.2): the reduce stage's explicit partition weights (Stage.Shares) are
// the reducers' MB, so the engine gives reducer k shuffle × MB_k / ΣMB of
// every map's output — the trace's bytes, to within rounding — and the
// stage's total stays the shuffle. A coflow whose reducers are all the
// same size gets no shares (equal partitions). With a reducer of 0 MB
// beside larger ones the import fails, since a weight must be positive.
// MeanSizes averages instead: every reducer fetches shuffle/R, as the
// import did before stages had explicit shares. Either way the exact sizes
// and racks of the reducers (and the mappers' racks and hosts) are kept in
// Stats.Coflows.
//
// Errors name the file and the line.
package coflow
