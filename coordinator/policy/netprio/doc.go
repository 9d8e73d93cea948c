// Package netprio gives baselines that have no network policy of their
// own the job-FIFO flow priorities of pushbox.md §4.2 (Hadoop(FIFO)) and
// §4.5 (the FIFO-respecting ShuffleWatcher and NEAT): the running jobs,
// ranked by submission, take the network priority classes in order, the
// earliest class 0 (engine priorities: lower is served first), and the
// jobs beyond the last class share it. A policy asks Class for the class
// of each launch and calls Remark when a job finishes, since every later
// job then moves up one rank. A submission never changes an earlier job's
// rank, so nothing else needs re-marking.
package netprio
