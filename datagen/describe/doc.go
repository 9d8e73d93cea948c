// Package describe summarises a workload and its datasets: job count, the
// distribution of job sizes, the job-size bins that the PushBox and Trident
// papers report by, the depth and width of the job and stage DAGs, the
// number of job DAGs (a TPC-H query, an ML workload: jobs linked by
// parents) and their mean depth, the arrival span, recurring sets and
// queues, the bytes moved by category, and how many jobs share an input
// dataset (the data reuse that Corral and Trident exploit).
//
// Sizes are estimates from the specs, the way the engine sizes tasks: a map
// stage reading a dataset gets its blocks (an unplaced dataset is split by
// its block size) and writes output_bytes, or each block × selectivity
// rounded; a map stage reading a parent job's output ("@job") reads that
// job's final output; a reduce or generic stage fetches the whole output
// of every stage in its 'after' list and writes output_bytes, or its input
// × selectivity rounded. The real run apportions by skew and rounds per
// task, so shuffle and output may differ by a few bytes per task.
//
// Byte categories:
//
//   - input: what map stages read from datasets;
//   - shuffle: what reduce and generic stages fetch from earlier stages of
//     their job (a stage consumed by two stages is counted twice);
//   - dependent: what map stages read from parent jobs' outputs;
//   - output: the final output of every job (its stages that no other
//     stage lists in 'after'), including outputs that children read again.
//
// A dataset that a map stage names but the datasets do not hold counts as
// empty and is listed in Summary.MissingDatasets.
package describe
