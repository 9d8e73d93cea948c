// Package replay is a policy that schedules nothing of its own: it
// repeats the decisions a recorded run made, read from that run's
// attempts.csv. Each attempt runs on its recorded host, a map reads its
// recorded source replica, and each host's slots are taken in the
// recorded order. Run in the simulator on the decisions of a live run on
// the emulated cluster, it compares the simulator's network and storage
// model with the emulated cluster on identical placements, the scheduler
// aside (issue 17's fidelity replay).
//
// # What is replayed
//
// The records are taken in the order of their attempt ids, which the
// engine numbers in launch order: the recorded launch order. Attempts
// are queued per host and slot pool (a host with reduce slots of its own
// has a map queue and a reduce queue). An attempt launches when it heads
// its queue, its task may run (its job is submitted and its stage
// released, the engine's slow-start and early-shuffle limit allowing)
// and its pool has a free slot; it waits otherwise, and so do the
// attempts behind it on that host. The replay launches as soon as these
// hold: it repeats the order of the decisions, not their times, so that
// the modelled network's own pace decides when things happen. A slot the
// recorded policy left idle on purpose (delay scheduling) is therefore
// used earlier in the replay.
//
// With the arg not_before, an attempt also waits for its recorded start
// time (and a kill for its recorded end), so that a replay repeats the
// slots a policy left idle on purpose (a simulated run replayed so is
// reproduced exactly: the check of bench/fidelity's tests). The policy
// has no timer of its own: such an attempt launches at the simulator's
// first scheduling point at or after its time (an event, or the next
// heartbeat, every second by default), so on a live run's records,
// whose times fall anywhere, it adds up to a heartbeat's delay to each
// launch. Replays of live runs therefore
// replay the order only, by default.
//
// Waiting per host alone cannot deadlock a replay of a run that
// finished: an attempt waits only for attempts recorded before it, whose
// launch in the recorded run did not depend on it. The engine's
// early-shuffle limit can: the recorded run kept to it on its own
// timeline, and on the replay's, reducers started before their maps
// finished can fill it while the maps they wait for sit behind a reducer
// the limit holds back (seen replaying Dawn's emulated Fair runs). When
// every attempt still running is such an early one and nothing else can
// launch, nothing would ever change: the first record in launch order
// that heads its queue and waits only for the limit is launched over it
// (engine.LaunchOptions.OverEarlyLimit), noted replay-over-early-limit,
// and the replay goes on. Not while a record waits for its recorded
// start (not_before): time will move it. If the records do not come from
// a run of the same workload, cluster, seed and slow-start, the replay
// can stall otherwise; the simulator then stops and says where. Records
// that name a job, stage, kind or host the run does not have are refused
// before it starts (Log.Check), with their file and line; one naming a
// task its stage does not have, when the replay reaches it (a map
// stage's task count is known only then): the policy fails
// (engine.Failer), and the driver ends the run with that error. A task
// no record names is not an error of the records: the recorded run may
// have been cut by its window before it, or rerun it after losing a
// host. It waits, and if nothing else ends the run, the simulator stops
// it as stalled at its time bound, naming the jobs left with their
// pending tasks.
//
// A record's task may be in another state in the replay than it was
// when the record was made, since timings differ. A recorded duplicate
// whose task has no running attempt is launched as a plain attempt, a
// plain attempt whose task has one as a duplicate, and a record whose
// task is already done (another attempt won the race earlier than it
// did when recorded) is skipped.
//
// # Killed and failed attempts
//
// An attempt recorded as killed or failed is launched in its turn (it
// held a slot and moved bytes) and killed once the replay has launched
// every attempt recorded as starting no later than the recorded attempt
// ended: the kills fall in the recorded sequence of launches. An attempt
// a policy killed at once (Shadow relocating an original to its
// duplicate) thus ends right after the launches of that instant, and the
// loser of a duplicate race ends with the race, killed by the engine
// when the winner's output is used. Host losses are not replayed: a
// failed attempt is handled as a killed one. When an attempt recorded as
// not succeeding succeeds in the replay while an attempt of its task
// recorded as succeeding has yet to end, its output is discarded
// (OutputChooser), so that the recorded winner's output is the one
// consumers read. An attempt recorded as succeeding while another of its
// task ran on (Shadow holding an original's output until it chooses
// between it and its duplicate: a used output would have ended the
// other) has its output held in the replay too; the engine uses it
// unless the other, recorded as succeeding, succeeds first.
//
// # Input placement
//
// The datasets are placed as in any run: by the cluster's placement
// (HDFS's by default), which a replay of the same seed repeats. A policy
// that places its input datasets itself (Corral puts each job's input in
// its planned racks) is named in the args placer and placer_args; the
// replay then runs that policy's plan and its placement before its own
// plan (WithPlacer), and each block lands where it did in the recorded
// run. bench/fidelity names it for every such run.
//
// # What is not replayed
//
// Job output replicas other than the writer's own are placed by the
// engine's output placer, as in any run (the records do not name them):
// a map of a child job may then find no copy of its parent's output on
// its recorded source host, and reads the engine's choice. A replica's
// tier may differ too (with the LRU memory tier, promotions and
// evictions follow the timing): a map then reads its recorded host's
// copy on the tier it is on. Both are counted as rejected actions
// (rejected_actions in summary.csv), by reason;
// network priorities are not replayed (every attempt gets class 0: the
// records do not keep them, so a replay of NEAT or PushBox shares the
// network otherwise); a policy that holds successful outputs to choose
// among later (KMN) is replayed by the recorded outcomes only. Replayed
// in the simulator, a simulated run of any other policy of the registry
// is reproduced exactly, with not_before for those that leave slots idle
// on purpose (bench/fidelity's tests).
// Each replayed launch carries the decision note reason "replay".
package replay
