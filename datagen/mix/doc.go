// Package mix generates benchmark mixes: applications of the PUMA and
// HiBench suites (and Hadoop's teragen) at given input sizes, such as
// PushBox's testbed workloads (spec/pushbox.md §5.1) and Trident's HiBench
// runs (spec/trident.md §5.3).
//
// A mix file has one entry a line, "<count> <app> <input size> [skew=<x>]"
// (sizes with units: 300GB, 1.5GB, 128MiB; teragen's size is what it
// writes), and optionally a line "pattern sequential" (the default: one
// application at a time, as Trident ran HiBench) or "pattern batch" (all
// at time 0). Errors give the line. The presets are such files (embedded,
// in presets/):
//
//	pushbox-w1    2 terasort (300, 100 GB) + 28 small queries (ours: HiBench
//	              aggregation and join, 1 GB each); 30 jobs, 1 GiB blocks
//	pushbox-w2    PUMA: 2 terasort, 1 wordcount 50 GB, 3+3 grep 5/1 GB,
//	              10+10 teragen 100/10 MB; 29 jobs (the paper says 30, its
//	              list adds up to 29), 1 GiB blocks
//	hibench-small, -large, -huge
//	              HiBench's 8 Hadoop applications at ~200 MB, ~1.5 GB,
//	              ~10 GB, one at a time, 128 MiB blocks
//	puma          the 13 PUMA benchmarks at 30 GB each, one at a time
//
// Applications (Apps) carry a map selectivity (shuffle per input byte), a
// reduce selectivity (output per shuffle byte) and a CPU cost per byte for
// each side. The values are ours, chosen to agree with how the suites
// classify the applications: PUMA's high and low shuffle volumes and
// computation, Trident §5.3's I/O-intensive (TeraSort, Aggregation,
// K-means), CPU-intensive (WordCount, Join, Bayes, PageRank) and
// shuffle-intensive (NutchIndex) classes, and PushBox's I/O-heavy
// background terasort against compute-heavy foreground jobs. An
// application is one MapReduce job, except K-means, Bayes and PageRank,
// which are the iterative DAGs of package ml (HiBench runs them as chains
// of MapReduce jobs), and teragen, a map-only job that writes its size.
//
// Each application reads its own unplaced dataset "in-<job>". Reduce
// stages get one task per ReduceBytes of estimated shuffle. With the trace
// arrival pattern a sequential mix chains the applications through
// parents (each submitted when the previous one's last jobs finish); a
// batch mix arrives at time 0. Poisson arrivals submit applications in
// file order, independently.
package mix
