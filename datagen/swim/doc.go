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
//
// # Traces with input paths
//
// SWIM's traces "withInputPaths" (FB-2010_samples_24_times_1hr_withInputPaths_0)
// have 9 fields a line, as WorkloadSynthesis.pl writes them: the 6 above,
// then the input path, the output path and an empty field (each line ends
// with a tab); either path may be empty. The import tells the two formats
// apart by the field count of the first line. With paths, the jobs that
// read one input path read one dataset, "in-<id>" after the first of them,
// of the largest input any of them read: a map stage reads its whole
// dataset, so the dataset must hold the largest read, and a job that read
// less (a growing table, some of its partitions) reads the whole dataset
// here. Such a job's map stage gets output_bytes = shuffle×Scale instead
// of a selectivity, so that its shuffle and output stay the trace's. A
// job with an empty input path has a dataset of its own, as without paths.
//
// SWIM anonymises the paths as inputPath<N> with an off-by-one in its
// numbering, which the import undoes (see swimNumbering); a trace whose
// first input path is not of that form, or an import with LiteralPaths,
// takes the paths as written.
//
// Output paths are read but make no job dependencies. In SWIM's traces they
// cannot: WorkloadSynthesis.pl numbers output paths apart from input paths
// (outputPath<N> against inputPath<N>), so the trace does not say which
// job read another's output, and the published FB-2010 trace leaves them
// empty. A trace with real paths could, but a child would then wait for
// its parent instead of arriving at its submit time, and read the parent's
// output instead of its own input bytes; Stats.InputWasOutput counts the
// jobs whose input path is an earlier job's output path.
package swim
