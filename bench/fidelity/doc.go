// Package fidelity compares the simulator with the emulated cluster on
// the same runs (issue 17). For each live run of a campaign (mode local
// or remote) it simulates the same run, the policy choosing for itself,
// and replays the live run's decisions in the simulator (policy
// coordinator/policy/replay: each attempt on its recorded host, reading
// its recorded replica, in the recorded order), then compares per job
// the completion time and the cross-rack bytes of the three. `bench
// fidelity` writes the comparison to fidelity.csv and prints its
// summary; `bench sim --replay` replays one live run; the report draws
// fidelity.csv as a scatter plot.
//
// The replay isolates the network and storage model: live and replay
// differ only in how the bytes move, so their per-job JCT ratio measures
// the model, and their per-job bytes must agree. The plain simulation
// adds the scheduler's own choices under the model's timing.
package fidelity
