// Package pushbox is the PushBox scheduler (Tian et al., IEEE TPDS 2022)
// as the racklab spec (pushbox.md) describes it: slot placement and
// per-receiver network priorities decided together, so that a task holds
// a slot only while the network can serve it.
//
// Each heartbeat runs the spec's Algorithm 3 (task-arrival mode: a
// newly runnable stage's tasks go, largest first, to the free machines
// with the smallest network backlog) for the stages released since the
// last one, then Algorithm 2 (slot-change mode) on the offered host
// until it places nothing: the legitimate job's critical task if
// controlled concurrency admits it (at most m input-phase tasks per
// machine, beyond m only for a coflow smaller than every one receiving
// there under Fair, the wildcard: one task per coflow and machine), else the slot passes to later jobs, whose local tasks
// take it only if they finish before the machine's network work
// drains (not-hinder), or it stays empty. Whenever a machine's set of
// input-phase tasks changes, their priorities are recomputed:
// smallest coflow first across jobs, placement order within a job, the
// reserved lowest class for FIFO jobs behind their queue's head.
//
// The ablations of the paper's Fig. 8 (global priority, random
// selection, no not-hinder, no wildcard), the estimation error of its
// §7 and the ambiguity register's alternatives are Config args.
package pushbox
