// Package campaign reads campaign files and runs them: a matrix of
// policies × repetitions in one or more modes (the simulator, the emulated
// cluster on this machine, or a lab cluster reached over NATS), on one
// topology and workload, written to a result directory that a rerun
// resumes and that bench/report turns into a report.
package campaign
