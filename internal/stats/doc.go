// Package stats holds the small statistics that both the scheduler side
// (policies) and the measurement side (bench) compute, so that a policy's
// own view of a figure and the run's records agree by construction.
package stats
