// Package gen holds what racklab's workload generators (datagen/tpch,
// datagen/ml, datagen/recurring, datagen/mix) share: the arrival processes,
// the byte scaling, and the options every generator takes.
//
// Arrivals. A generator makes a number of submissions (a TPC-H query, an
// ML workload's job DAG, a recurring job, a benchmark application), and
// the Arrivals option says when they arrive:
//
//   - trace: the generator's own published pattern (Dawn's Google-trace
//     submission rate for ML, uniform over a window for TPC-H and Corral's
//     online scenario, one at a time for HiBench);
//   - poisson: exponential inter-arrival times with mean 1/Rate seconds
//     (Rate in submissions per second, Dawn §6.1.4), the first after one
//     gap;
//   - once: everything at time 0 (Corral's batch scenario).
//
// Scaling. Scale multiplies every byte count a generator writes: dataset
// sizes, block sizes, output sizes and the shuffle bytes per reduce task.
// Task counts, selectivities and size ratios stay the same, so a workload
// can be shrunk to a small testbed without changing its shape.
//
// Randomness comes from one PCG stream seeded by Seed: the same options
// give the same files.
package gen
