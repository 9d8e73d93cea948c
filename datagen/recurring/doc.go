// Package recurring generates sets of recurring MapReduce jobs like
// Corral's workloads W1–W3 (spec/corral.md §5.2), with what a planner
// predicts of each job and what the run actually gets, and error
// injection for Corral's sensitivity experiments (§5.3).
//
// Workloads (counts and sizes from the paper's §6 and Table 1):
//
//   - W1, from Quantcast workloads widened in job types: 100 jobs (the
//     online scenario's count; the simulation uses 200, the batch count
//     is not stated). Job sizes by task count: small 4–50 tasks, medium
//     51–500, large 1000–2000, in the shares 60/30/10% (not stated; they
//     make about 3/4 of the jobs fit in one rack's 240 slots, Corral's
//     production figure). Map and reduce selectivities are each drawn
//     log-uniformly between 1:4 and 4:1 (the paper's "between 4:1 and
//     1:4"). The input is one block per map task.
//   - W2, from SWIM's Yahoo traces: 400 jobs, 90% tiny (input under
//     200 MB, shuffle under 75 MB), 2 large jobs reading 5.5 TB each with
//     1.8× as much shuffle, and the rest medium (200 MB–500 GB, not
//     stated). Map tasks are one per block, reduce tasks one per
//     ReduceBytes of shuffle.
//   - W3, 200 jobs sampled from a day of Microsoft Cosmos (Table 1):
//     log-normal task counts (median 180, p95 2,060), inputs (median
//     7.1 GB, p95 162.3 GB) and intermediate data (median 6 GB, p95
//     71.5 GB), drawn by stratified quantiles so that even 200 jobs show
//     Table 1's medians and 95th percentiles, and comonotone (a big job is
//     big in all three). Each job's block size makes its map tasks; the
//     output, not given, is a quarter to all of the intermediate data.
//
// Scaling down. Scale multiplies the bytes (blocks too) and keeps the
// task counts; TaskScale multiplies W1's task counts and keeps its blocks,
// so that W1 on a cluster with fewer slots per rack keeps the share of
// jobs that fit in one rack (spec/corral.md §7.5).
//
// Each job reads its own unplaced dataset "in-<id>" (Corral places each
// job's input at upload time), has a map and a reduce stage, and is its
// own recurring set (the same script runs every day).
//
// Predicted and actual. The workload file holds what happens: actual
// sizes and arrivals. The workload model has no field for predictions, so
// they go to a side file (WritePredicted, --out-predicted): per job the
// predicted arrival, input, shuffle and output bytes and map and reduce
// task counts, what Corral's planner takes (spec/corral.md §3.1).
//
//   - Size error: each job's actual data is its prediction × (1+ε), ε
//     uniform in [−SizeError, SizeError] (input, shuffle and output alike;
//     the selectivities stay). The default 0.13 gives the 6.5% mean error
//     Corral measured (§3.3); its sensitivity study goes up to 0.5. The
//     paper does not say how it applied the error (spec ambiguity 11).
//   - Arrival error: a fraction ArrivalError of the jobs (exactly, rounded)
//     start a uniform [−ArrivalShift, ArrivalShift] away from their
//     predicted arrival (t = 4 minutes in the paper), clamped at 0.
//     The planner is told the predicted arrival; the job is submitted at
//     the actual one.
//
// Both errors keep a sweep's workloads comparable: at one seed, the size
// errors are one draw per job scaled by SizeError, and the shifts come
// from a stream of their own, so that the jobs shifted at a fraction f
// are shifted alike at any larger one and nothing else changes with f.
//
// Arrivals. The trace pattern is Corral's online scenario: predicted
// arrivals uniform at random over Window (60 minutes; 15 in its
// simulation). Once is the batch scenario.
//
// Ad hoc jobs. AdHoc adds that many W1 jobs in queue "adhoc", unplanned
// (no prediction, no recurring set), submitted at time 0 as a batch: the
// mix of §6.4 is 100 recurring and 50 ad hoc W1 jobs.
package recurring
