// Package ml generates iterative machine-learning workloads shaped like
// Dawn's B1–B15 (spec/dawn.md §5.2, paper Table 2): each submission is one
// benchmark's DAG of MapReduce jobs, chosen uniformly at random among the
// fifteen, over that benchmark's input.
//
//	benchmark  labels        input (GB)         source   depth  roots  checks  jobs
//	K-means    B1  B2  B3    2.5 / 6.5 / 10.2   HiBench  11     5      8       23
//	Bayes      B4  B5  B6    5.8 / 7.8 / 11.9   HiBench   8     5      5       17
//	PageRank   B7  B8  B9    3.4 / 6.6 / 8.8    HiBench  11     5      8       23
//	MF (ALS)   B10 B11 B12   4.5 / 5.5 / 7.3    Mahout   21     6      12      38
//	LDA (CVB)  B13 B14 B15   6.2 / 8.4 / 10.1   Mahout   18     6      12      35
//
// The DAG of a benchmark of depth d (spec/dawn.md §5.2, [SYN] templates):
//
//   - level 1: "prep", the main pass over the input (vectorise, tokenise,
//     build the graph or the rating matrix), and roots−1 side passes
//     "side<k>" over small side inputs (dictionaries, labels, seeds);
//   - level 2: "init", the initial model, from the sides and a sample of
//     prep's output (fan-in roots);
//   - levels 3 … d−1: "iter<k>", each reading prep's output (large) and the
//     previous model (small): two parents;
//   - after some iterations, a "check<k>" job (convergence test,
//     evaluation, perplexity) reading that iteration's model: one parent;
//   - level d: "final" (assignment, classification, ranking), reading prep's
//     output and the last model.
//
// The root and check counts make the mix match Dawn's published shape:
// 136 jobs over the five benchmarks, so 27.2 jobs per workload as in the
// Google-trace run (38,572 jobs in 1,417 workloads, §2.4); 80% of the jobs
// have a parent and 47% have two or more (§2.2); and the depths are
// Table 2's (mean 13.8; §6.1.3 rounds it to 13).
//
// Sizes. The main input is the labelled size less 1% per side input. Maps
// keep a fraction of what they read (prep keeps v of the input, the
// iterations keep IterFraction of prep's output, combiners shrinking the
// rest), reducers shrink models tenfold. v is solved per benchmark so
// that dependent plus intermediate bytes are Ratio (12 by default) times
// the input, Dawn's §2.2 figure for its ML workloads (spec ambiguity 9:
// the paper prints 1/12 for this ratio). Dependent and intermediate bytes
// repeat level after level, as in Fig. 3's K-means.
//
// Arrivals. Dawn replays the submission rate of 4 hours of the Google
// cluster trace: 310 workloads (virtual cluster) or 581 (physical, the
// default). The trace itself is not available to us; the trace pattern is
// the spec's substitute, a bursty non-homogeneous Poisson process: 5-minute
// bins whose rates are log-normal with an autocorrelated logarithm
// (σ 0.8, lag-1 correlation 0.8), with the workload count fixed. Dawn's
// sensitivity study (§6.1.4) uses Poisson arrivals with a mean of 20 to
// 140 s: --arrivals poisson --rate 0.05 … 0.007.
package ml
