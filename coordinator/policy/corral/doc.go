// Package corral is Corral (Jalaparti et al., SIGCOMM 2015, spec
// corral.md): an offline planner that gives each predictable (recurring)
// job a set of racks and a priority ahead of time, an input placer that
// puts one replica of each of a planned job's input blocks on its racks
// at upload time, and a runtime scheduler that confines a planned job's
// tasks to its racks and orders jobs on a rack by planned priority.
//
// The planner (PlanJobs, PlanTable, Model.Latency) is a pure function of
// the predicted jobs and the cluster, independent of the engine, so that
// it can be tested and timed on its own: provisioning (Algorithm P,
// §2.3.1), prioritization (Algorithm Q, §2.3.2), priorities (§2.3.3), the
// MapReduce latency response functions with the cross-rack term (§2.4,
// general DAGs by their critical path, §2.4.5) and the data-imbalance
// penalty (§2.5), for the batch (makespan) and the online (average
// completion time) objective (§1.3).
//
// The lower bounds of §2.9 measure the planner's gap (lp.go,
// lp_online.go): LP-Batch solved by gonum's simplex (LPBatchSimplex, up
// to MaxSimplexJobs jobs and MaxSimplexVars variables) or by the exact
// bisection over its breakpoints beyond (LPBatch picks), the closed-form
// online bound, and the time-indexed LP-Online for small instances. With
// Options.LowerBound the plan carries its bound (Plan.Bound); the policy
// asks for it and Inspect prints the gap.
//
// The policy (New, registered as "corral") runs the planner in the
// engine's Planner hook on the run's predictions; jobs without a
// prediction are ad hoc and run under the capacity scheduler in the slots
// the planned jobs leave free (§2.7). With placement=hdfs it is the
// LocalShuffle ablation (§4.3).
package corral
