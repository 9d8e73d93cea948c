// Package yarnrm is the locality gate of YARN's ResourceManager as
// Hadoop 2.7's Capacity Scheduler applies it (trident.md §4.2): per job,
// the scheduling opportunities it has missed since its last node- or
// rack-local container, and from that count the most distant locality
// the RM grants the job a container at on the offered node; how the RM
// types the container it grants (Grant.OffSwitch); and the root queue's
// rule of one off-switch container a node heartbeat (Heartbeats).
//
// The capacity policy is that scheduler with the MR AM's own map choice
// fused in; the tier-aware baselines (hscheduler, quartet) are, in the
// paper's Hadoop runs, the MR AM's choice of map inside the containers
// this gate lets through, so they share it rather than copy it.
package yarnrm
