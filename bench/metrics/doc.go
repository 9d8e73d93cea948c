// Package metrics turns a run's attempt and job records into the figures
// the papers report — job and workload completion times, makespan,
// throughput, cross-rack bytes by category, locality by level and tier,
// link-load skew — and writes them: per-run CSV records as they happen, and
// summary.csv with one row per run.
package metrics
