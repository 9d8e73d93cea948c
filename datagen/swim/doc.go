// Package swim imports SWIM workload traces (github.com/SWIMProjectUCB/SWIM,
// e.g. its Facebook 2009 and 2010 samples) as a racklab workload and its
// input datasets.
//
// A SWIM trace has one job a line, tab-separated: job id, submit time (s),
// gap from the previous job (s), map input bytes, shuffle bytes, reduce
// output bytes. Each job becomes:
//
//   - an unplaced dataset "in-<id>" of input×Scale bytes, with the
//     options' block size and replication;
//   - a map stage "map" reading it, one task per block (one task when the
//     input is empty), with selectivity shuffle/input, or output_bytes =
//     shuffle×Scale when the input is empty;
//   - when shuffle > 0, a reduce stage "reduce" after it, with
//     max(1, ⌈shuffle×Scale / ReduceBytes⌉) tasks and output_bytes =
//     output×Scale; when shuffle is 0 the job is map-only and the map
//     stage's output_bytes is the job's output, output×Scale.
//
// The job arrives at its submit time.
package swim
